"""reads.namespace_rowids: the rows of one namespace past a rowid, by the table's rowid range for a short
tail and by the namespace's index otherwise, the same rows either way; and the reach blocks it extends
rank as the filter-first plan whichever way they were extended."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from test_sqlite_reach_blocks import RECALLED, SHARED, both_plans, fill, loaded, reach_of
from tinymemory.api import MetaFilter
from tinymemory.engines.sqlite import reads, search


def reference(conn: sqlite3.Connection, ns: str, start: int, upto: int) -> list[int]:
    rows = conn.execute(
        "SELECT rowid FROM items WHERE ns = ? AND rowid > ? AND rowid <= ? ORDER BY rowid", (ns, start, upto)
    )
    return [int(r[0]) for r in rows]


async def test_the_tail_and_the_index_give_the_same_rows(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    await fill(path, 0, 700)
    conn = sqlite3.connect(path)
    try:
        top = search.max_rowid(conn)
        spaces = [str(r[0]) for r in conn.execute("SELECT DISTINCT ns FROM items ORDER BY ns")]
        assert len(spaces) >= 5
        short = reads.TAIL_ROWS // 2
        for ns in [*spaces, "workspace:nobody"]:
            for start, upto in ((0, top), (top - short, top), (top - reads.TAIL_ROWS, top), (5, 5 + short),
                                (top, top), (0, reads.TAIL_ROWS + 1), (top - 1, top + 50)):  # fmt: skip
                assert reads.namespace_rowids(conn, ns, start, upto) == reference(conn, ns, start, upto)
        assert reads.namespace_rowids(conn, SHARED[0], 0, top)  # the index path finds the tier's rows
    finally:
        conn.close()


@pytest.mark.parametrize("added", [5, reads.TAIL_ROWS * 2])
async def test_blocks_extended_by_a_short_or_long_tail_rank_as_filter_first(
    tmp_path: Path, added: int
) -> None:
    path = tmp_path / "m.db"
    await fill(path, 0, 300)
    conn = sqlite3.connect(path)
    try:
        matrix = loaded(conn)
        flt = MetaFilter(reach=reach_of("u1"), kinds=RECALLED)
        blocks, first = both_plans(conn, matrix, flt, 10)  # reads every block of the reach once
        assert blocks == first and blocks
        await fill(path, 300, added)  # rows in the reach's namespaces and elsewhere
        matrix.refresh(conn)
        blocks, first = both_plans(conn, matrix, flt, 10)
        assert blocks == first
        assert both_plans(conn, matrix, flt, 300) == both_plans(conn, loaded(conn), flt, 300)
    finally:
        conn.close()
