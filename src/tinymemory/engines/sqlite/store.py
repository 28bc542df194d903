"""Writes: store (replay, versions, supersession), forget and purge. Each runs inside one transaction."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from datetime import datetime
from functools import lru_cache

import numpy as np

from tinymemory.api.filters import MetaFilter
from tinymemory.api.items import About, ItemMeta, NewItem
from tinymemory.api.namespace import Namespace, Reach
from tinymemory.api.requests import StoreResult
from tinymemory.engines.rows import PURGED_TABLES, to_us
from tinymemory.engines.sqlite import lexstats, threads
from tinymemory.engines.sqlite import relations as edges
from tinymemory.engines.sqlite.vectors import to_blobs
from tinymemory.engines.sqlite.where import ACTIVE, WHERE
from tinymemory.engines.versions import (
    CORRECTABLE,
    Floats,
    Pending,
    VectorSpace,
    embed_text,
)
from tinymemory.engines.writes import Cascade, Prior, decide
from tinymemory.retrieval.text import Analyzer

__all__ = [
    "CORRECTABLE",
    "Pending",
    "VectorSpace",
    "active_keys",
    "embed_text",
    "forget_filter",
    "forget_ids",
    "purge",
    "stored_key",
    "write_items",
    "write_side_rows",
]


# Bound parameters per statement when keys are looked up in bulk (SQLite allows 32,766 since 3.32).
_KEYS_PER_QUERY = 500
# the active version of a content key, with what a correction of it reads
_ACTIVE_VERSION = (
    f"SELECT rowid, id, valid_from, extra, {', '.join(CORRECTABLE)} FROM items"
    f" WHERE ckey = ? AND {ACTIVE} LIMIT 1"
)


def stored_key(ckey: str) -> bytes:
    """A content key (64 hex digits) as the `items.ckey` column holds it since schema 9: its 32 bytes."""
    return bytes.fromhex(ckey)


def active_keys(conn: sqlite3.Connection, keys: Sequence[str]) -> set[str]:
    """Content keys that already have an active item (those stores will be replays: no embedding)."""
    found: set[str] = set()
    for at in range(0, len(keys), _KEYS_PER_QUERY):
        chunk = [stored_key(k) for k in keys[at : at + _KEYS_PER_QUERY]]
        marks = ", ".join("?" * len(chunk))
        rows = conn.execute(f"SELECT ckey FROM items WHERE ckey IN ({marks}) AND {ACTIVE}", chunk)
        found.update(bytes(r[0]).hex() for r in rows)
    return found


def write_items(
    conn: sqlite3.Connection,
    pending: Sequence[Pending],
    analyzer: Analyzer,
    space: VectorSpace | None,
    now: datetime,
    context: bool = False,
) -> list[StoreResult]:
    """Store each item in order (a later duplicate in the same batch replays the earlier one); an item
    without `observed_at` is observed at `now`.

    With `context`, a turn of a thread indexes its neighbours' words in the FTS `context` column.
    """
    deltas = lexstats.Deltas()
    fresh = _unstored(conn, [p.ckey for p in pending])
    written: list[Written] = []
    results = [_write_one(conn, p, analyzer, now, context, deltas, fresh, written) for p in pending]
    deltas.flush(conn)
    if space is not None and written:
        _write_vectors(conn, space, written)
    return results


# a version written by `_write_one`: its rowid, the item as stored, and its vector if the caller had one
Written = tuple[int, NewItem, Floats | None]


def _write_vectors(conn: sqlite3.Connection, space: VectorSpace, written: Sequence[Written]) -> None:
    """The written versions' vectors, in one statement: those the caller did not embed (a store the
    replay hint missed) embedded here in one call, and all of them narrowed to the stored width at once."""
    block = np.empty((len(written), space.dim), dtype=np.float32)
    missing: list[int] = []
    for i, (_, _, vector) in enumerate(written):
        if vector is None:
            missing.append(i)
        else:
            block[i] = np.asarray(vector, dtype=np.float32).reshape(-1)
    if missing:
        block[missing] = space.embed([embed_text(written[i][1]) for i in missing])
    conn.executemany(
        "INSERT INTO vectors (item_rowid, embedder, dim, vec) VALUES (?, ?, ?, ?)",
        [(w[0], space.name, space.dim, blob) for w, blob in zip(written, to_blobs(block), strict=True)],
    )


def _unstored(conn: sqlite3.Connection, keys: Sequence[str]) -> set[bytes]:
    """The stored form of the content keys no row holds yet, read once for a whole batch: such an item
    has no version to replay or correct and starts at generation 0, with no lookup of its own."""
    want = {stored_key(k) for k in keys}
    held: set[bytes] = set()
    todo = list(want)
    for at in range(0, len(todo), _KEYS_PER_QUERY):
        chunk = todo[at : at + _KEYS_PER_QUERY]
        marks = ", ".join("?" * len(chunk))
        held.update(
            bytes(r[0]) for r in conn.execute(f"SELECT ckey FROM items WHERE ckey IN ({marks})", chunk)
        )
    return want - held


@lru_cache(maxsize=256)
def _insert_sql(columns: tuple[str, ...], given: tuple[bool, ...]) -> str:
    """The insert of a row naming every one of `columns` (a damaged file whose table lacks one refuses the
    store), a column without a value (`given` False) as a NULL literal: Python's sqlite3 binds a None
    several times slower than a value, and the usual row leaves twenty-odd columns unset (measured: 14.9
    against 2.1 µs a row of 38 columns, four of them set, bound against literal NULLs)."""
    marks = ", ".join("?" if g else "NULL" for g in given)
    return f"INSERT INTO items ({', '.join(columns)}) VALUES ({marks})"


def _neighbour_context(
    conn: sqlite3.Connection, item: NewItem, analyzer: Analyzer, deltas: lexstats.Deltas
) -> str:
    """Link a turn about to be inserted with the previous active turn of its thread: each indexes the
    other's words."""
    meta = item.meta
    if meta.thread_id is None:
        return ""
    prev = conn.execute(
        f"SELECT rowid, text FROM items WHERE thread_id = ? AND ns = ? AND {ACTIVE}"
        " ORDER BY rowid DESC LIMIT 1",
        (meta.thread_id, str(meta.namespace)),
    ).fetchone()
    if prev is None:
        return ""
    mine = analyzer.index_text(item.text)
    if mine:
        lexstats.set_context(conn, deltas, int(prev[0]), lambda words: f"{words} {mine}".strip())
    return analyzer.index_text(str(prev[1]))


def _write_one(
    conn: sqlite3.Connection,
    p: Pending,
    analyzer: Analyzer,
    now: datetime,
    context: bool,
    deltas: lexstats.Deltas,
    fresh: set[bytes],
    written: list[Written],
) -> StoreResult:
    key = stored_key(p.ckey)
    new_key = key in fresh  # no row holds it (the batch's first item of it): nothing to look up
    fresh.discard(key)
    found = None if new_key else conn.execute(_ACTIVE_VERSION, (key,)).fetchone()
    active = None if found is None else (Prior(int(found[0]), str(found[1]), int(found[2])), found)

    def next_generation() -> int:
        if new_key:
            return 0
        last = conn.execute("SELECT max(generation) FROM items WHERE ckey = ?", (key,)).fetchone()[0]
        return 0 if last is None else int(last) + 1

    def same_about(about: About, ns: str) -> list[Prior[int]]:
        rows = conn.execute(
            f"SELECT rowid, id, valid_from FROM items WHERE about_kind = ? AND about_key = ? AND ns = ?"
            f" AND {ACTIVE} ORDER BY valid_from DESC, rowid DESC",
            (about.kind, about.key, ns),
        )
        return [Prior(int(r[0]), str(r[1]), int(r[2])) for r in rows]

    decided = decide(p, now, active, next_generation, same_about)
    if isinstance(decided, StoreResult):
        return decided
    item, meta, values = decided.item, decided.item.meta, decided.values
    values["ckey"] = key
    # the analysed columns (and the link with the thread's previous turn) before the row is inserted,
    # so that its indexed length goes in with it
    body = item.text if not meta.summary else f"{item.text}\n{meta.summary}"
    ctx = _neighbour_context(conn, item, analyzer, deltas) if context else ""
    columns = (analyzer.index_text(meta.title) if meta.title else "", analyzer.index_text(body), ctx)
    posted = lexstats.postings_of(*columns)
    values["lex_len"] = lexstats.length(posted)
    given = tuple(v is not None for v in values.values())
    bound = tuple(v for v in values.values() if v is not None)
    rowid = conn.execute(_insert_sql(tuple(values), given), bound).lastrowid
    assert rowid is not None
    if decided.closing:
        conn.executemany(
            "UPDATE items SET valid_to = ?, superseded_by = ? WHERE rowid = ?",
            [(decided.ends(old), decided.id, old.handle) for old in decided.closing],
        )
    write_side_rows(conn, rowid, meta)
    lexstats.index(conn, deltas, rowid, values["ns"], *columns, posted)
    written.append((rowid, item, p.vector))  # its vector goes in with the batch's (`_write_vectors`)
    return decided.result


def write_side_rows(conn: sqlite3.Connection, rowid: int, meta: ItemMeta) -> None:
    """A new row's tags, evidence links and relation edges (store and import write them alike)."""
    if meta.tags:
        conn.executemany(
            "INSERT OR IGNORE INTO item_tags (tag, item_rowid) VALUES (?, ?)", [(t, rowid) for t in meta.tags]
        )
    if meta.evidence:
        conn.executemany(
            "INSERT OR IGNORE INTO item_evidence (cites, item_rowid) VALUES (?, ?)",
            [(e, rowid) for e in meta.evidence],
        )
    edges.write(conn, rowid, meta.relations)


def forget_ids(
    conn: sqlite3.Connection, ids: Sequence[str], reach: Reach | None, now: datetime
) -> tuple[list[str], list[str]]:
    """Soft-delete the ids found (not yet forgotten) under `reach`, and what cites them; return
    (forgotten, skipped): the asked ids first, then those forgotten with them."""
    rows = conn.execute(
        "SELECT rowid, id, ns FROM items WHERE id IN (SELECT value FROM json_each(?))"
        " AND forgotten_at IS NULL",
        (json.dumps(list(ids)),),
    ).fetchall()
    found = {r[1]: int(r[0]) for r in rows if reach is None or reach.contains(Namespace.parse(r[2]))}
    asked = [i for i in ids if i in found]
    derived = _forget_rows(conn, [(found[i], i) for i in dict.fromkeys(asked)], reach, now)
    return asked + derived, [i for i in ids if i not in found]


def forget_filter(conn: sqlite3.Connection, flt: MetaFilter, reach: Reach | None, now: datetime) -> list[str]:
    """Soft-delete what the filter reads (active, or as of `as_of`), confined to `reach` as well, and
    what cites it."""
    chosen = [(int(r[0]), str(r[1])) for r in conn.execute(*WHERE.forgettable(flt, reach))]
    return [i for _, i in chosen] + _forget_rows(conn, chosen, reach, now)


def _citing(conn: sqlite3.Connection, ids: list[str], reach: Reach | None) -> list[tuple[int, str]]:
    """Active-or-superseded items under `reach` that cite any of `ids` as evidence."""
    rows = conn.execute(
        "SELECT DISTINCT i.rowid, i.id, i.ns FROM item_evidence e JOIN items i ON i.rowid = e.item_rowid"
        " WHERE e.cites IN (SELECT value FROM json_each(?)) AND i.forgotten_at IS NULL",
        (json.dumps(ids),),
    ).fetchall()
    return [
        (int(r[0]), str(r[1])) for r in rows if reach is None or reach.contains(Namespace.parse(str(r[2])))
    ]


def _forget_rows(
    conn: sqlite3.Connection, rows: list[tuple[int, str]], reach: Reach | None, now: datetime
) -> list[str]:
    """Forget `rows` and, transitively, what cites them (a learning or a summary derived from a turn);
    take each out of the lexical index and relink the turns beside it. Returns the derived ids."""
    cascade = Cascade(rows)
    while cascade.frontier:
        cascade.add(_citing(conn, cascade.frontier, reach))
    chosen, derived = cascade.chosen, cascade.derived
    if not chosen:
        return derived
    at = to_us(now)
    conn.executemany("UPDATE items SET forgotten_at = ? WHERE rowid = ?", [(at, r) for r in chosen])
    beside = threads.neighbours_of(conn, chosen)
    deltas = lexstats.Deltas()
    for r in chosen:
        lexstats.unindex(conn, deltas, r)
    threads.relink(conn, deltas, beside)
    deltas.flush(conn)
    return derived


def purge(conn: sqlite3.Connection, reach: Reach | None, forgotten_before: int | None) -> int:
    """Hard-delete forgotten rows with their tags, evidence links, index entries and vectors."""
    rowids = [int(r[0]) for r in conn.execute(*WHERE.purgeable(reach, forgotten_before))]
    if not rowids:
        return 0
    deltas = lexstats.Deltas()
    for r in rowids:
        lexstats.unindex(conn, deltas, r)  # rows forgotten before schema 5 may still be indexed
    deltas.flush(conn)
    batch = json.dumps(rowids)
    for table, col in PURGED_TABLES:
        conn.execute(f"DELETE FROM {table} WHERE {col} IN (SELECT value FROM json_each(?))", (batch,))
    # the postings' b-tree may keep stale copies of the purged rows' cells: copy it afresh
    lexstats.rewrite_postings(conn)
    return len(rowids)
