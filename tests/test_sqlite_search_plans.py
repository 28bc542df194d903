"""Query plans of the engine's hot reads: they must use an index, not scan and sort the table.

Checked with EXPLAIN QUERY PLAN on a real file, so a change that silently turns a lookup into a scan
fails here rather than as a latency tail in production.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from tinymemory.api import ItemKind, ItemMeta, MetaFilter, Namespace, NewItem, Reach
from tinymemory.engines.sqlite import SqliteEngine
from tinymemory.engines.sqlite.search import LATEST_OBSERVED_SQL
from tinymemory.engines.sqlite.where import filter_sql


async def test_the_time_anchor_walks_the_observed_index(tmp_path: Path) -> None:
    path = tmp_path / "plans.db"
    async with SqliteEngine(str(path), embedder=None) as engine:
        await engine.store_many(
            [
                NewItem(ItemKind.LEARNING, f"note {i}", ItemMeta(namespace=Namespace.parse(f"team:t{i % 3}")))
                for i in range(50)
            ]
        )
    conn = sqlite3.connect(path)
    # every row, and one exact node: an index yields the newest first (a multi-node reach sorts only
    # its own nodes' rows)
    for flt in (MetaFilter(), MetaFilter(reach=Reach.exact(Namespace.parse("team:t1")))):
        params: list[object] = [10**9]
        sql = LATEST_OBSERVED_SQL.format(where=filter_sql(flt, params))
        plan = " ".join(str(row[3]) for row in conn.execute("EXPLAIN QUERY PLAN " + sql, params))
        assert "TEMP B-TREE" not in plan, plan  # no sort: an index already yields newest first
        assert "INTEGER PRIMARY KEY" not in plan, plan  # no rowid-range scan of the whole table
        assert conn.execute(sql, params).fetchone() is not None
    conn.close()
