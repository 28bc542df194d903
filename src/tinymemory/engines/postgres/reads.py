"""Reads that are not ranked: items by rowid or id, list pages, explore buckets (the SQLite port)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from psycopg.rows import dict_row

from tinymemory.api.filters import Facet, MetaFilter
from tinymemory.api.items import MemoryItem
from tinymemory.api.namespace import Namespace, Reach
from tinymemory.api.requests import EXPLORE_SCAN_CAP, ExploreResult, GetResult, Tombstone
from tinymemory.engines.cursors import ListCursor
from tinymemory.engines.postgres.db import Conn
from tinymemory.engines.postgres.where import WHERE, Params, filter_sql
from tinymemory.engines.rows import (
    FACET_COLUMNS,
    ITEM_SELECT,
    decode_item,
    explore_result,
    from_us,
    inside_reach,
)


async def _items(conn: Conn, query: str, params: Params) -> list[MemoryItem]:
    async with conn.cursor(row_factory=dict_row) as cur:
        await cur.execute(query, params)
        return [decode_item(cast(Any, row)) for row in await cur.fetchall()]


async def items_by_rowid(conn: Conn, rowids: Sequence[int]) -> dict[int, MemoryItem]:
    if not rowids:
        return {}
    async with conn.cursor(row_factory=dict_row) as cur:
        await cur.execute(
            f"SELECT {ITEM_SELECT} FROM items i WHERE i.rowid = ANY(%s::bigint[])", (list(rowids),)
        )
        return {int(row["rowid"]): decode_item(cast(Any, row)) for row in await cur.fetchall()}


async def get_items(conn: Conn, ids: Sequence[str], reach: Reach | None) -> GetResult:
    """Found items in the order asked; unknown, forgotten or out-of-reach ids are missing, and the
    forgotten ones inside the reach are also told apart (id and time only) as tombstones."""
    rows = await _items(
        conn,
        f"SELECT {ITEM_SELECT} FROM items i WHERE i.id = ANY(%s::text[]) AND i.forgotten_at IS NULL",
        [list(ids)],
    )
    found = inside_reach(rows, reach)
    missing = [i for i in ids if i not in found]
    return GetResult(
        tuple(found[i] for i in ids if i in found),
        tuple(missing),
        await _tombstones(conn, missing, reach) if missing else (),
    )


async def _tombstones(conn: Conn, ids: Sequence[str], reach: Reach | None) -> tuple[Tombstone, ...]:
    """Only the id, namespace and time are read: nothing of a forgotten item's content leaves the store."""
    cur = await conn.execute(
        "SELECT i.id, i.ns, i.forgotten_at FROM items i WHERE i.id = ANY(%s::text[])"
        " AND i.forgotten_at IS NOT NULL",
        (list(ids),),
    )
    when = {
        str(r[0]): from_us(int(r[2]))
        for r in await cur.fetchall()
        if reach is None or reach.contains(Namespace.parse(str(r[1])))
    }
    return tuple(Tombstone(i, when[i]) for i in ids if i in when)


async def list_page(
    conn: Conn, flt: MetaFilter, limit: int, after: ListCursor | None
) -> tuple[list[MemoryItem], bool]:
    """Newest first by (observed_at, id); keyset paging so concurrent inserts never shift a page."""
    position = None if after is None else (after.observed_us, after.item_id)
    rows = await _items(conn, *WHERE.list_page(ITEM_SELECT, flt, limit, position))
    return rows[:limit], len(rows) > limit


async def explore(conn: Conn, facet: Facet, flt: MetaFilter, limit: int) -> ExploreResult:
    """Count the matched items per facet value (count desc, then value), over at most the scan cap."""
    params: Params = []
    where = filter_sql(flt, params)
    # the matched rows drive every count, and side tables are read by key (LATERAL ... OFFSET 0 keeps
    # them lookups), so no plan hangs on row estimates (a fresh table has none)
    matched = f"SELECT i.rowid AS r FROM items i WHERE {where} LIMIT %s"
    valued = f"SELECT i.{FACET_COLUMNS.get(facet, 'kind')} AS v FROM items i WHERE {where} LIMIT %s"
    cur = await conn.execute(f"SELECT count(*) FROM ({matched}) m", [*params, EXPLORE_SCAN_CAP + 1])
    row = await cur.fetchone()
    total = 0 if row is None else int(row[0])
    truncated = total > EXPLORE_SCAN_CAP
    total = min(total, EXPLORE_SCAN_CAP)
    scan = [*params, EXPLORE_SCAN_CAP]
    groups: list[tuple[Any, int]]
    if facet is Facet.TAG:
        cur = await conn.execute(
            f"SELECT t.tag, count(*) FROM ({matched}) m CROSS JOIN LATERAL"
            " (SELECT x.tag FROM item_tags x WHERE x.item_rowid = m.r OFFSET 0) t GROUP BY t.tag",
            scan,
        )
        groups = [(r[0], int(r[1])) for r in await cur.fetchall()]
        cur = await conn.execute(
            f"SELECT count(*) FROM ({matched}) m"
            " WHERE EXISTS (SELECT 1 FROM item_tags t WHERE t.item_rowid = m.r)",
            scan,
        )
        tagged = await cur.fetchone()
        missing = total - (0 if tagged is None else int(tagged[0]))
    else:
        cur = await conn.execute(
            f"SELECT m.v, count(*) FROM ({valued}) m GROUP BY m.v",
            scan,
        )
        groups = [(r[0], int(r[1])) for r in await cur.fetchall()]
        missing = sum(c for v, c in groups if v is None)
    return explore_result(facet, groups, total, missing, truncated, limit)
