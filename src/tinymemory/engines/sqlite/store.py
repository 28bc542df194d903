"""Writes: store (replay, versions, supersession), forget and purge. Each runs inside one transaction."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime

import numpy as np

from tinymemory.api.filters import MetaFilter
from tinymemory.api.ids import item_id
from tinymemory.api.items import NewItem
from tinymemory.api.namespace import Namespace, Reach
from tinymemory.api.requests import StoreResult
from tinymemory.api.timeutil import utcnow
from tinymemory.engines.sqlite.rows import item_values, to_us
from tinymemory.engines.sqlite.vectors import Floats, to_blob
from tinymemory.engines.sqlite.where import Params, filter_sql, reach_sql
from tinymemory.retrieval.text import Analyzer

_ACTIVE = "valid_to IS NULL AND forgotten_at IS NULL"


@dataclass(frozen=True, slots=True)
class Pending:
    """A validated item with its content key and (when an embedder serves) its precomputed vector."""

    item: NewItem
    ckey: str
    vector: Floats | None = None


@dataclass(frozen=True, slots=True)
class VectorSpace:
    """Which embedder's vectors this engine writes, and how to embed a straggler inside the lock."""

    name: str
    dim: int
    embed: Callable[[Sequence[str]], Floats]


def embed_text(item: NewItem) -> str:
    title = item.meta.title
    return f"{title}\n{item.text}" if title else item.text


def active_keys(conn: sqlite3.Connection, keys: Sequence[str]) -> set[str]:
    """Content keys that already have an active item (those stores will be replays: no embedding)."""
    rows = conn.execute(
        f"SELECT ckey FROM items WHERE ckey IN (SELECT value FROM json_each(?)) AND {_ACTIVE}",
        (json.dumps(list(keys)),),
    ).fetchall()
    return {r[0] for r in rows}


def write_items(
    conn: sqlite3.Connection,
    pending: Sequence[Pending],
    analyzer: Analyzer,
    space: VectorSpace | None,
    context: bool = False,
) -> list[StoreResult]:
    """Store each item in order (a later duplicate in the same batch replays the earlier one).

    With `context`, a turn of a thread indexes its neighbours' words in the FTS `context` column.
    """
    now = utcnow()
    results: list[StoreResult] = []
    for p in pending:
        results.append(_write_one(conn, p, analyzer, space, now, context))
    return results


def _neighbour_context(conn: sqlite3.Connection, rowid: int, item: NewItem, analyzer: Analyzer) -> str:
    """Link a new turn with the previous active turn of its thread: each indexes the other's words."""
    meta = item.meta
    if meta.thread_id is None:
        return ""
    prev = conn.execute(
        f"SELECT rowid, text FROM items WHERE thread_id = ? AND ns = ? AND rowid < ? AND {_ACTIVE}"
        " ORDER BY rowid DESC LIMIT 1",
        (meta.thread_id, str(meta.namespace), rowid),
    ).fetchone()
    if prev is None:
        return ""
    mine = analyzer.index_text(item.text)
    if mine:
        conn.execute(
            "UPDATE items_fts SET context = trim(coalesce(context, '') || ' ' || ?) WHERE rowid = ?",
            (mine, int(prev[0])),
        )
    return analyzer.index_text(str(prev[1]))


def _write_one(
    conn: sqlite3.Connection,
    p: Pending,
    analyzer: Analyzer,
    space: VectorSpace | None,
    now: datetime,
    context: bool,
) -> StoreResult:
    item, meta = p.item, p.item.meta
    active = conn.execute(f"SELECT id FROM items WHERE ckey = ? AND {_ACTIVE} LIMIT 1", (p.ckey,)).fetchone()
    if active is not None:
        return StoreResult(id=active[0], replayed=True)
    last_gen = conn.execute("SELECT max(generation) FROM items WHERE ckey = ?", (p.ckey,)).fetchone()[0]
    generation = 0 if last_gen is None else int(last_gen) + 1
    new_id = item_id(p.ckey, generation)
    closing: list[tuple[int, str, int]] = []
    if meta.about is not None and item.supersede:
        closing = [
            (int(r[0]), str(r[1]), int(r[2]))
            for r in conn.execute(
                f"SELECT rowid, id, valid_from FROM items WHERE about_kind = ? AND about_key = ? AND ns = ?"
                f" AND {_ACTIVE} ORDER BY valid_from DESC, rowid DESC",
                (meta.about.kind, meta.about.key, str(meta.namespace)),
            )
        ]
    values = item_values(
        item,
        item_id=new_id,
        ckey=p.ckey,
        generation=generation,
        observed_at=meta.observed_at or now,
    )
    values["supersedes"] = closing[0][1] if closing else None
    cols = ", ".join(values)
    marks = ", ".join("?" * len(values))
    rowid = conn.execute(f"INSERT INTO items ({cols}) VALUES ({marks})", tuple(values.values())).lastrowid
    assert rowid is not None
    if closing:
        # the old version ends where the new one begins (never before its own start: a correction
        # observed out of order still wins, and the old version's interval is then empty)
        starts = values["valid_from"]
        conn.executemany(
            "UPDATE items SET valid_to = ?, superseded_by = ? WHERE rowid = ?",
            [(max(starts, began), new_id, r) for r, _, began in closing],
        )
    if meta.tags:
        conn.executemany(
            "INSERT OR IGNORE INTO item_tags (tag, item_rowid) VALUES (?, ?)", [(t, rowid) for t in meta.tags]
        )
    body = item.text if not meta.summary else f"{item.text}\n{meta.summary}"
    ctx = _neighbour_context(conn, rowid, item, analyzer) if context else ""
    conn.execute(
        "INSERT INTO items_fts (rowid, title, body, context) VALUES (?, ?, ?, ?)",
        (rowid, analyzer.index_text(meta.title or ""), analyzer.index_text(body), ctx),
    )
    if space is not None:
        vector = p.vector if p.vector is not None else space.embed([embed_text(item)])[0]
        vec = np.asarray(vector, dtype=np.float32).reshape(-1)
        conn.execute(
            "INSERT INTO vectors (item_rowid, embedder, dim, vec) VALUES (?, ?, ?, ?)",
            (rowid, space.name, space.dim, to_blob(vec)),
        )
    return StoreResult(id=new_id, replayed=False, superseded=tuple(i for _, i, _ in closing))


def forget_ids(
    conn: sqlite3.Connection, ids: Sequence[str], reach: Reach | None
) -> tuple[list[str], list[str]]:
    """Soft-delete the ids found (not yet forgotten) under `reach`; return (forgotten, skipped)."""
    rows = conn.execute(
        "SELECT rowid, id, ns FROM items WHERE id IN (SELECT value FROM json_each(?))"
        " AND forgotten_at IS NULL",
        (json.dumps(list(ids)),),
    ).fetchall()
    found = {r[1]: int(r[0]) for r in rows if reach is None or reach.contains(Namespace.parse(r[2]))}
    now = to_us(utcnow())
    conn.executemany("UPDATE items SET forgotten_at = ? WHERE rowid = ?", [(now, found[i]) for i in found])
    return [i for i in ids if i in found], [i for i in ids if i not in found]


def forget_filter(conn: sqlite3.Connection, flt: MetaFilter, reach: Reach | None) -> list[str]:
    """Soft-delete what the filter reads (active, or as of `as_of`), confined to `reach` as well."""
    params: Params = []
    where = filter_sql(flt, params)
    extra = reach_sql(reach, params)
    if extra is not None:
        where += f" AND {extra}"
    rows = conn.execute(
        f"SELECT i.rowid, i.id FROM items i WHERE {where} ORDER BY i.observed_at DESC, i.id DESC", params
    ).fetchall()
    now = to_us(utcnow())
    conn.executemany("UPDATE items SET forgotten_at = ? WHERE rowid = ?", [(now, int(r[0])) for r in rows])
    return [str(r[1]) for r in rows]


def purge(conn: sqlite3.Connection, reach: Reach | None, forgotten_before: int | None) -> int:
    """Hard-delete forgotten rows with their tags, index entries and vectors."""
    params: Params = []
    conds = ["i.forgotten_at IS NOT NULL"]
    extra = reach_sql(reach, params)
    if extra is not None:
        conds.append(extra)
    if forgotten_before is not None:
        conds.append("i.forgotten_at < ?")
        params.append(forgotten_before)
    rowids = [
        int(r[0]) for r in conn.execute(f"SELECT i.rowid FROM items i WHERE {' AND '.join(conds)}", params)
    ]
    if not rowids:
        return 0
    batch = json.dumps(rowids)
    for table, col in (
        ("items_fts", "rowid"),
        ("vectors", "item_rowid"),
        ("item_tags", "item_rowid"),
        ("items", "rowid"),
    ):
        conn.execute(f"DELETE FROM {table} WHERE {col} IN (SELECT value FROM json_each(?))", (batch,))
    return len(rowids)
