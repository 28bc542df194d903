"""The scoped bm25 is FTS5's bm25 fed with the reach's statistics: where the reach holds every row, both
rankers give the same order and the same scores."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from tinymemory.api import ItemKind, ItemMeta, MetaFilter, Namespace, NewItem, Reach
from tinymemory.engines.sqlite import SqliteEngine, db, lexstats, search
from tinymemory.retrieval.text import default_analyzer

TEXTS = [
    "Dana drinks oat-milk flat whites during long editing sessions",
    "Dana prefers short paragraphs and active voice",
    "The quarterly report is due on the last Friday of June",
    "Ship the release on Friday after the report review",
    "Coffee with Dana on Friday: talk about the report and the release",
    "Gus reviews every release note; Gus prefers bullet points",
]
QUERIES = ["Dana coffee", "report Friday", "release review notes", "paragraphs voice", "Gus"]


@pytest.fixture
async def conn(tmp_path: Path) -> sqlite3.Connection:
    place = Namespace.parse("team:acme")
    async with SqliteEngine(tmp_path / "m.db", embedder=None) as engine:
        for i, text in enumerate(TEXTS):
            meta = ItemMeta(
                namespace=place, thread_id="t1" if i % 2 else None, title="Notes" if i == 2 else None
            )
            await engine.store(NewItem(ItemKind.CONVERSATION, text, meta))
    return db.connect(str(tmp_path / "m.db"))


@pytest.mark.parametrize("context_weight", [0.0, 0.5])
@pytest.mark.parametrize("query", QUERIES)
def test_scoped_bm25_equals_fts5_over_the_same_rows(
    conn: sqlite3.Connection, query: str, context_weight: float
) -> None:
    terms = default_analyzer().query_terms(query)
    snapshot = search.max_rowid(conn)
    scoped_filter = MetaFilter(reach=Reach.exact(Namespace.parse("team:acme")))
    stats = lexstats.stats(conn, lexstats.scope_of(scoped_filter), terms)
    scoped = search.lexical_scoped(conn, terms, scoped_filter, snapshot, 50, stats, 10_000, context_weight)
    whole = search.lexical(
        conn, default_analyzer(), query, MetaFilter(), snapshot, 50, 10_000, context_weight
    )
    assert scoped, "the query matches something"
    assert [r for r, _ in scoped] == [r for r, _ in whole]
    assert [s for _, s in scoped] == pytest.approx([s for _, s in whole], rel=1e-9, abs=1e-12)
