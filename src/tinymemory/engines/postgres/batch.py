"""What one store batch depends on, read up front in a few set-based queries and kept current in memory.

Storing an item depends on rows written before it: the active version of its content key (a replay or
a correction), the highest generation of that key, the active versions of its `about` key (superseded)
and the latest active turn of its thread (linked). Instead of asking the database for each item, the
batch reads those rows for all its items at once (`Batch.load`), then decides item by item in order,
updating this view as it goes, so a later item sees an earlier one exactly as if each had been written
before the next was decided. The writes themselves go out together at the end (`Batch.flush`).

The caller holds the tenants' write locks, so nothing else changes these rows meanwhile, and every row
the batch writes is newer than every row it read.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from tinymemory.api.items import NewItem, Relation
from tinymemory.api.relations import entity_key
from tinymemory.engines.lexcounts import terms
from tinymemory.engines.postgres import lexstats
from tinymemory.engines.postgres.db import Conn
from tinymemory.engines.postgres.where import ACTIVE
from tinymemory.engines.versions import CORRECTABLE, Floats, stored_precision

# the columns a batch reads of a stored row: what a replay, a correction and a supersession need
_KEY_COLUMNS = ("rowid", "id", "ckey", "valid_from", "extra", *CORRECTABLE)
# and of a thread's latest turn: what the link with the next turn needs
_TURN_COLUMNS = ("text", "ns", "lex_title", "lex_body", "lex_context")

# SQL types of the items columns a store writes (the rest are text)
_ITEM_TYPES = {
    "generation": "integer",
    "confidence": "double precision",
    "observed_at": "bigint",
    "event_from": "bigint",
    "event_to": "bigint",
    "valid_from": "bigint",
    "valid_to": "bigint",
    "lex_len": "integer",
    "tsv": "tsvector",
}

_NEW = 1 << 62  # the order of a row this batch writes: after every stored row, in batch order


@dataclass(eq=False, slots=True)
class Row:
    """A row the batch knows: read from the database (`rowid` set) or written by the batch (`values`)."""

    order: int  # the rowid, or for a new row its place after every stored row
    id: str
    ckey: str
    valid_from: int
    fields: dict[str, Any]  # extra and the correctable columns (replay and correction rules)
    text: str | None = None  # read for a thread's turns only
    lex: tuple[str, str, str, str] | None = None  # (ns, title, body, context) when indexed
    values: dict[str, Any] | None = None  # the columns of a row this batch writes
    closed: tuple[int, str] | None = None  # (valid_to, superseded_by) once a later version closes it
    relinked: bool = False  # its context changed (a stored row is updated at flush)
    tags: Sequence[str] = ()
    evidence: Sequence[str] = ()
    relations: Sequence[Relation] = ()
    vector: Floats | None = None

    @property
    def stored(self) -> bool:
        return self.values is None


@dataclass(slots=True)
class _Thread:
    """The active turns of one thread the batch knows, oldest first; `more`: stored turns may lie below."""

    turns: list[Row] = field(default_factory=list)
    more: bool = True


def _row(r: dict[str, Any]) -> Row:
    return Row(
        order=int(r["rowid"]),
        id=str(r["id"]),
        ckey=str(r["ckey"]),
        valid_from=int(r["valid_from"]),
        fields={c: r[c] for c in ("extra", *CORRECTABLE)},
    )


def _turn_state(row: Row, r: dict[str, Any]) -> None:
    row.text = str(r["text"])
    if r["lex_title"] is not None:
        row.lex = (str(r["ns"]), str(r["lex_title"]), str(r["lex_body"] or ""), str(r["lex_context"] or ""))


class Batch:
    """The rows a batch of stores depends on, as of the batch's own earlier items."""

    def __init__(self) -> None:
        self._stored: dict[int, Row] = {}  # stored rows by rowid (one object per row)
        self._active: dict[str, Row | None] = {}  # content key -> its active version
        self._generation: dict[str, int] = {}  # content key -> highest generation (-1: none)
        self._about: dict[tuple[str, str, str], list[Row]] = {}  # (kind, key, ns) -> active versions
        self._threads: dict[tuple[str, str], _Thread] = {}  # (thread_id, ns) -> turns
        self.new: list[Row] = []

    def _known(self, r: dict[str, Any]) -> Row:
        rowid = int(r["rowid"])
        row = self._stored.get(rowid)
        if row is None:
            row = self._stored[rowid] = _row(r)
        return row

    @classmethod
    async def load(cls, conn: Conn, items: Sequence[tuple[NewItem, str]], threads: bool) -> Batch:
        """Read, in three queries, the rows the batch's (item, content key) pairs depend on; with
        `threads`, the latest active turn of each thread too."""
        view = cls()
        cols = ", ".join(f"a.{c}" for c in _KEY_COLUMNS)
        keys = list(dict.fromkeys(k for _, k in items))
        cur = await conn.execute(
            f"SELECT k.ckey AS key, g.gen, {cols} FROM unnest(%s::text[]) AS k(ckey)"
            " CROSS JOIN LATERAL (SELECT max(generation) AS gen FROM items WHERE ckey = k.ckey) g"
            f" LEFT JOIN LATERAL (SELECT {', '.join(_KEY_COLUMNS)} FROM items"
            f" WHERE ckey = k.ckey AND {ACTIVE} LIMIT 1) a ON true",
            (keys,),
        )
        names = [d.name for d in cur.description or ()]
        for t in await cur.fetchall():
            r = dict(zip(names, t, strict=True))
            view._generation[str(r["key"])] = -1 if r["gen"] is None else int(r["gen"])
            view._active[str(r["key"])] = None if r["rowid"] is None else view._known(r)
        about = list(
            dict.fromkeys(
                (it.meta.about.kind, it.meta.about.key, str(it.meta.namespace))
                for it, _ in items
                if it.meta.about is not None and it.supersede
            )
        )
        if about:
            for key in about:
                view._about[key] = []
            cur = await conn.execute(
                f"SELECT k.kind AS k_kind, k.key AS k_key, k.ns AS k_ns, {cols}"
                " FROM unnest(%s::text[], %s::text[], %s::text[]) AS k(kind, key, ns) CROSS JOIN LATERAL"
                f" (SELECT {', '.join(_KEY_COLUMNS)} FROM items"
                " WHERE about_kind = k.kind AND about_key = k.key AND ns = k.ns"
                f" AND {ACTIVE}) a",
                ([a[0] for a in about], [a[1] for a in about], [a[2] for a in about]),
            )
            names = [d.name for d in cur.description or ()]
            for t in await cur.fetchall():
                r = dict(zip(names, t, strict=True))
                view._about[(str(r["k_kind"]), str(r["k_key"]), str(r["k_ns"]))].append(view._known(r))
        if threads:
            pairs = list(
                dict.fromkeys(
                    (it.meta.thread_id, str(it.meta.namespace)) for it, _ in items if it.meta.thread_id
                )
            )
            if pairs:
                await view._load_turns(conn, pairs)
        return view

    async def _load_turns(self, conn: Conn, pairs: list[tuple[str, str]]) -> None:
        cols = ", ".join(f"a.{c}" for c in (*_KEY_COLUMNS, *_TURN_COLUMNS))
        cur = await conn.execute(
            f"SELECT k.t AS k_thread, k.ns AS k_ns, {cols}"
            " FROM unnest(%s::text[], %s::text[]) AS k(t, ns) CROSS JOIN LATERAL"
            f" (SELECT {', '.join((*_KEY_COLUMNS, *_TURN_COLUMNS))} FROM items"
            f" WHERE thread_id = k.t AND ns = k.ns AND {ACTIVE}"
            " ORDER BY rowid DESC LIMIT 1) a",
            ([p[0] for p in pairs], [p[1] for p in pairs]),
        )
        names = [d.name for d in cur.description or ()]
        found: dict[tuple[str, str], Row] = {}
        for t in await cur.fetchall():
            r = dict(zip(names, t, strict=True))
            row = self._known(r)
            _turn_state(row, r)
            found[(str(r["k_thread"]), str(r["k_ns"]))] = row
        for pair in pairs:
            latest = found.get(pair)
            self._threads[pair] = _Thread([latest], True) if latest is not None else _Thread([], False)

    # -- the view, as of the items decided so far ------------------------------------------------------

    def active(self, ckey: str) -> Row | None:
        return self._active.get(ckey)

    def next_generation(self, ckey: str) -> int:
        gen = self._generation.get(ckey, -1) + 1
        self._generation[ckey] = gen
        return gen

    def about(self, kind: str, key: str, ns: str) -> list[Row]:
        """The active versions of an about key, newest first (valid_from, then rowid, descending)."""
        group = [r for r in self._about.get((kind, key, ns), ()) if r.closed is None]
        self._about[(kind, key, ns)] = group
        return sorted(group, key=lambda r: (r.valid_from, r.order), reverse=True)

    async def latest_turn(self, conn: Conn, thread_id: str, ns: str) -> Row | None:
        """The latest active turn of a thread (read from the database again only when the batch closed
        every turn of it that the batch knew)."""
        thread = self._threads.setdefault((thread_id, ns), _Thread([], True))
        while True:
            while thread.turns and thread.turns[-1].closed is not None:
                thread.turns.pop()
            if thread.turns or not thread.more:
                return thread.turns[-1] if thread.turns else None
            closed = [r for r, row in self._stored.items() if row.closed is not None]
            cols = ", ".join((*_KEY_COLUMNS, *_TURN_COLUMNS))
            cur = await conn.execute(
                f"SELECT {cols} FROM items WHERE thread_id = %s AND ns = %s AND {ACTIVE}"
                " AND rowid <> ALL(%s::bigint[]) ORDER BY rowid DESC LIMIT 1",
                (thread_id, ns, closed),
            )
            names = [d.name for d in cur.description or ()]
            t = await cur.fetchone()
            if t is None:
                thread.more = False
                continue
            r = dict(zip(names, t, strict=True))
            row = self._known(r)
            _turn_state(row, r)
            thread.turns.insert(0, row)

    def close(self, row: Row, valid_to: int, by: str) -> None:
        row.closed = (valid_to, by)
        if self._active.get(row.ckey) is row:
            self._active[row.ckey] = None

    def add(self, item: NewItem, row: Row) -> None:
        """A row the batch writes: the active version of its key, of its about key and its thread's
        latest turn."""
        row.order = _NEW + len(self.new)
        self.new.append(row)
        self._active[row.ckey] = row
        meta = item.meta
        ns = str(meta.namespace)
        if meta.about is not None and (meta.about.kind, meta.about.key, ns) in self._about:
            self._about[(meta.about.kind, meta.about.key, ns)].append(row)
        if meta.thread_id is not None and (meta.thread_id, ns) in self._threads:
            self._threads[(meta.thread_id, ns)].turns.append(row)

    def set_context(self, deltas: lexstats.Deltas, row: Row, change: Callable[[str], str]) -> None:
        """lexstats.set_context on the view: the row's context becomes `change(context)`, the statistics
        kept exact; the row is written at flush."""
        if row.lex is None:
            return
        ns, title, body, old = row.lex
        context = change(old)
        if old == context:
            return
        title, body, context = lexstats.fit(title, body, context)
        before, after = terms(title, body, old), terms(title, body, context)
        gone, new = set(before) - set(after), set(after) - set(before)
        row.lex = (ns, title, body, context)
        row.relinked = True
        deltas.count(ns, new, 1, 0, 0)
        deltas.count(ns, gone, -1, 0, 0)
        deltas.count(ns, (), 0, 0, len(after) - len(before))

    # -- the writes ------------------------------------------------------------------------------------

    async def flush(self, conn: Conn, embedder: str | None, dim: int) -> None:
        """Write the batch: new rows (numbered in batch order), closed and relinked stored rows, side
        rows and vectors, a statement each."""
        stored = list(self._stored.values())
        closed = [r for r in stored if r.closed is not None]
        if closed:
            await conn.execute(
                "UPDATE items i SET valid_to = u.valid_to, superseded_by = u.by"
                " FROM unnest(%s::bigint[], %s::bigint[], %s::text[]) AS u(rowid, valid_to, by)"
                " WHERE i.rowid = u.rowid",
                (
                    [r.order for r in closed],
                    [r.closed[0] for r in closed if r.closed is not None],
                    [r.closed[1] for r in closed if r.closed is not None],
                ),
            )
        relinked = [r for r in stored if r.relinked and r.lex is not None]
        if relinked:
            lex = [r.lex for r in relinked if r.lex is not None]
            await conn.execute(
                "UPDATE items i SET lex_context = u.context, lex_body = u.body, lex_len = u.len,"
                " tsv = u.tsv::tsvector"
                " FROM unnest(%s::bigint[], %s::text[], %s::text[], %s::integer[], %s::text[])"
                " AS u(rowid, context, body, len, tsv) WHERE i.rowid = u.rowid",
                (
                    [r.order for r in relinked],
                    [x[3] for x in lex],
                    [x[2] for x in lex],
                    [len(terms(x[1], x[2], x[3])) for x in lex],
                    [lexstats.tsvector_text(x[1], x[2], x[3]) for x in lex],
                ),
            )
        if self.new:
            await self._insert(conn, embedder, dim)

    async def _insert(self, conn: Conn, embedder: str | None, dim: int) -> None:
        rows: list[dict[str, Any]] = []
        for row in self.new:
            assert row.values is not None
            values = dict(row.values)
            if row.closed is not None:
                values["valid_to"], values["superseded_by"] = row.closed
            if row.relinked and row.lex is not None:
                _, title, body, context = row.lex
                values.update(
                    lex_body=body,
                    lex_context=context,
                    lex_len=len(terms(title, body, context)),
                    tsv=lexstats.tsvector_text(title, body, context),
                )
            rows.append(values)
        cols = list(rows[0])
        names = ", ".join(cols)
        # the identity column numbers the rows in batch order (ORDER BY n); the service role holds no
        # right on its sequence (schema.py), so the ids come back from the insert itself
        cur = await conn.execute(
            f"INSERT INTO items ({names}) SELECT {names} FROM unnest("
            + ", ".join(f"%s::{_ITEM_TYPES.get(c, 'text')}[]" for c in cols)
            + f") WITH ORDINALITY AS u({names}, n) ORDER BY n RETURNING rowid, id, tenant",
            [[r[c] for r in rows] for c in cols],
        )
        numbered = {(str(r[1]), str(r[2])): int(r[0]) for r in await cur.fetchall()}
        rowids = [numbered[(str(r["id"]), str(r["tenant"]))] for r in rows]
        written = list(zip([str(r["tenant"]) for r in rows], rowids, self.new, strict=True))
        tags = [(t, tag, rowid) for t, rowid, row in written for tag in row.tags]
        if tags:
            await conn.execute(
                "INSERT INTO item_tags (tenant, tag, item_rowid)"
                " SELECT * FROM unnest(%s::text[], %s::text[], %s::bigint[]) ON CONFLICT DO NOTHING",
                ([x[0] for x in tags], [x[1] for x in tags], [x[2] for x in tags]),
            )
        cites = [(t, e, rowid) for t, rowid, row in written for e in row.evidence]
        if cites:
            await conn.execute(
                "INSERT INTO item_evidence (tenant, cites, item_rowid)"
                " SELECT * FROM unnest(%s::text[], %s::text[], %s::bigint[]) ON CONFLICT DO NOTHING",
                ([x[0] for x in cites], [x[1] for x in cites], [x[2] for x in cites]),
            )
        edges = [(t, rowid, r) for t, rowid, row in written for r in row.relations]
        if edges:
            # in the order the memories list them (the table's own rowid follows it)
            await conn.execute(
                "INSERT INTO relations (tenant, item_rowid, subject, subject_key, type, object, object_key)"
                " SELECT tenant, item_rowid, subject, subject_key, type, object, object_key FROM unnest("
                "%s::text[], %s::bigint[], %s::text[], %s::text[], %s::text[], %s::text[], %s::text[])"
                " WITH ORDINALITY AS e(tenant, item_rowid, subject, subject_key, type, object, object_key, n)"
                " ORDER BY n",
                (
                    [x[0] for x in edges],
                    [x[1] for x in edges],
                    [x[2].subject for x in edges],
                    [entity_key(x[2].subject) for x in edges],
                    [x[2].type for x in edges],
                    [x[2].object for x in edges],
                    [entity_key(x[2].object) for x in edges],
                ),
            )
        if embedder is not None:
            async with conn.cursor() as cur2:
                await cur2.executemany(
                    "INSERT INTO vectors (item_rowid, tenant, embedder, dim, vec)"
                    " VALUES (%s, %s, %s, %s, %s)",
                    [
                        (rowid, t, embedder, dim, stored_precision(row.vector))
                        for t, rowid, row in written
                        if row.vector is not None
                    ],
                )
