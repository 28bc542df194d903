"""reads.namespace_rowids: the rows of one namespace past a rowid, by the table's rowid range for a short
tail and by the namespace's index otherwise, the same rows either way; the reach blocks it extends
rank as the filter-first plan whichever way they were extended; and the visibility check, which looks
candidates up by rowid, keeps the rows the query SQLite planned through the namespace index kept."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from test_sqlite_reach_blocks import RECALLED, SHARED, both_plans, fill, loaded, reach_of
from test_sqlite_support import HashEmbedder, ns
from tinymemory.api import ForgetRequest, MetaFilter
from tinymemory.api.items import ItemKind
from tinymemory.engines.sqlite import SqliteEngine, reads, search
from tinymemory.engines.sqlite.where import filter_sql


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


async def test_the_visibility_check_by_rowid_keeps_what_the_indexed_query_kept(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    ids = await fill(path, 0, 400)
    async with SqliteEngine(path, embedder=HashEmbedder()) as engine:
        await engine.forget(ForgetRequest(ids=tuple(ids[::7])))
    conn = sqlite3.connect(path)
    try:
        top = search.max_rowid(conn)
        every = list(range(1, top + 20))  # some past the snapshot and past the table
        for flt in (
            MetaFilter(reach=reach_of("u0"), kinds=RECALLED),
            MetaFilter(reach=reach_of("u2")),
            MetaFilter(namespace=ns(SHARED[1]), kinds=(ItemKind.SUMMARY,)),
        ):
            for rowids, snapshot in ((every[:58], top), (every[::3], top - 50), (every, top)):
                params: list[object] = [*rowids, snapshot]
                where = filter_sql(flt, params)
                marks = ",".join("?" * len(rowids))
                sql = f"SELECT i.rowid FROM items i WHERE i.rowid IN ({marks}) AND i.rowid <= ? AND {where}"
                indexed = {int(r[0]) for r in conn.execute(sql, params)}
                assert search._visible(conn, rowids, flt, snapshot) == indexed
                assert indexed or flt.namespace is not None
    finally:
        conn.close()
