"""Reads that are not ranked: items by rowid or id, list pages, explore buckets."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Sequence
from functools import _lru_cache_wrapper, lru_cache
from typing import Any

from tinymemory.api.filters import Facet, MetaFilter
from tinymemory.api.items import MemoryItem
from tinymemory.api.namespace import Namespace, Reach
from tinymemory.api.requests import EXPLORE_SCAN_CAP, ExploreResult, GetResult, Tombstone
from tinymemory.engines.rows import (
    FACET_COLUMNS,
    ITEM_COLUMNS,
    ITEM_SELECT,
    explore_result,
    from_us,
    inside_reach,
)
from tinymemory.engines.sqlite.cursors import ListCursor
from tinymemory.engines.sqlite.rows import decode_item
from tinymemory.engines.sqlite.where import WHERE, Params, filter_sql

Row = tuple[Any, ...]
"""An `ITEM_SELECT` row as a plain tuple (its columns in `ITEM_COLUMNS` order)."""

# Decoded rows an engine keeps (decoded_rows): a user's working set, a few MB of items at most
DECODED_ROWS = 2_048


def decode_row(row: Row) -> MemoryItem:
    """The item of one plain `ITEM_SELECT` row."""
    return decode_item(dict(zip(ITEM_COLUMNS, row, strict=True)))


def decoded_rows(size: int = DECODED_ROWS) -> _lru_cache_wrapper[MemoryItem]:
    """`decode_row` keeping the last `size` rows' items: a row read again with every column as it was
    (the rowid among them) is the same item, so a fetch paging a memory it paged before does not
    decode it again (decoding is most of a small read's result cost). A row whose columns changed
    (forgotten, superseded) is another key; `cache_clear` drops every item (a purge does)."""
    return lru_cache(maxsize=size)(lambda row: decode_row(row))


def items_by_rowid(
    conn: sqlite3.Connection, rowids: Sequence[int], decode: Callable[[Row], MemoryItem] = decode_row
) -> dict[int, MemoryItem]:
    """The items of these rows (a fetch's page only), each decoded by `decode`."""
    if not rowids:
        return {}
    cur = conn.cursor()
    cur.row_factory = None  # plain tuples, named once in decode_row: sqlite3.Row looks names up one by one
    rows = cur.execute(
        f"SELECT {ITEM_SELECT} FROM json_each(?) j CROSS JOIN items i ON i.rowid = j.value",
        (json.dumps(list(rowids)),),
    )
    return {int(r[0]): decode(r) for r in rows}


# Rows past a rowid that `namespace_rowids` reads from the table's own rowid range rather than the
# namespace's index: the index holds no rowid order within a namespace, so a read of the few rows stored
# since a namespace was last read went through every entry of the namespace (a shared tier's 1,000 rows
# at 50,000 items: 0.19 ms, against 0.006 ms for the tail of the table the new rows sit in). A range
# costs about 0.35 us a row and a namespace entry about 0.2 us, so a longer range (a namespace not read
# for a while, a first read) keeps to the index.
TAIL_ROWS = 256


def namespace_rowids(conn: sqlite3.Connection, ns: str, start: int, upto: int) -> list[int]:
    """The rowids of `ns` in (start, upto], ascending, whatever their state."""
    if upto - start <= TAIL_ROWS:  # `+ns`: the rowid range, not the namespace's index
        sql = "SELECT rowid FROM items WHERE +ns = ? AND rowid > ? AND rowid <= ? ORDER BY rowid"
    else:
        sql = "SELECT rowid FROM items WHERE ns = ? AND rowid > ? AND rowid <= ? ORDER BY rowid"
    cur = conn.cursor()
    cur.row_factory = None
    return [int(r[0]) for r in cur.execute(sql, (ns, start, upto))]


def get_items(conn: sqlite3.Connection, ids: Sequence[str], reach: Reach | None) -> GetResult:
    """Found items in the order asked; unknown, forgotten or out-of-reach ids are missing, and the
    forgotten ones inside the reach are also told apart (id and time only) as tombstones."""
    rows = conn.execute(
        f"SELECT {ITEM_SELECT} FROM json_each(?) j CROSS JOIN items i ON i.id = j.value"
        " WHERE i.forgotten_at IS NULL",
        (json.dumps(list(ids)),),
    )
    found = inside_reach((decode_item(r) for r in rows), reach)
    missing = [i for i in ids if i not in found]
    return GetResult(
        tuple(found[i] for i in ids if i in found),
        tuple(missing),
        _tombstones(conn, missing, reach) if missing else (),
    )


def _tombstones(conn: sqlite3.Connection, ids: Sequence[str], reach: Reach | None) -> tuple[Tombstone, ...]:
    """Only the id, namespace and time are read: nothing of a forgotten item's content leaves the file."""
    rows = conn.execute(
        "SELECT i.id, i.ns, i.forgotten_at FROM json_each(?) j CROSS JOIN items i ON i.id = j.value"
        " WHERE i.forgotten_at IS NOT NULL",
        (json.dumps(list(ids)),),
    )
    when = {
        str(r[0]): from_us(int(r[2]))
        for r in rows
        if reach is None or reach.contains(Namespace.parse(str(r[1])))
    }
    return tuple(Tombstone(i, when[i]) for i in ids if i in when)


def list_page(
    conn: sqlite3.Connection, flt: MetaFilter, limit: int, after: ListCursor | None
) -> tuple[list[MemoryItem], bool]:
    """Newest first by (observed_at, id); keyset paging so concurrent inserts never shift a page."""
    sql, params = WHERE.list_page(ITEM_SELECT, flt, limit, _position(after))
    rows = conn.execute(sql, params).fetchall()
    return [decode_item(r) for r in rows[:limit]], len(rows) > limit


def _position(after: ListCursor | None) -> tuple[int, str] | None:
    return None if after is None else (after.observed_us, after.item_id)


def explore(conn: sqlite3.Connection, facet: Facet, flt: MetaFilter, limit: int) -> ExploreResult:
    """Count the matched items per facet value (count desc, then value), over at most the scan cap."""
    params: Params = []
    where = filter_sql(flt, params)
    params.append(EXPLORE_SCAN_CAP + 1)
    matched = f"SELECT i.rowid AS r FROM items i WHERE {where} LIMIT ?"
    total = int(conn.execute(f"SELECT count(*) FROM ({matched})", params).fetchone()[0])
    truncated = total > EXPLORE_SCAN_CAP
    total = min(total, EXPLORE_SCAN_CAP)
    scan = [*params[:-1], EXPLORE_SCAN_CAP]
    if facet is Facet.TAG:
        groups = conn.execute(
            f"SELECT t.tag, count(*) FROM ({matched}) m JOIN item_tags t ON t.item_rowid = m.r"
            " GROUP BY t.tag",
            scan,
        ).fetchall()
        tagged = conn.execute(
            f"SELECT count(*) FROM ({matched}) m"
            " WHERE EXISTS (SELECT 1 FROM item_tags t WHERE t.item_rowid = m.r)",
            scan,
        ).fetchone()[0]
        missing = total - int(tagged)
    else:
        col = FACET_COLUMNS[facet]
        groups = conn.execute(
            f"SELECT x.{col}, count(*) FROM ({matched}) m JOIN items x ON x.rowid = m.r GROUP BY x.{col}",
            scan,
        ).fetchall()
        missing = sum(int(c) for v, c in groups if v is None)
    return explore_result(facet, groups, total, missing, truncated, limit)
