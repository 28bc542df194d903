"""Lexical search: analysed terms in FTS5, stemming, title weight, summary, scores."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from test_sqlite_support import note
from tinymemory.api import FetchMode, FetchRequest, ItemKind, MetaFilter
from tinymemory.engines.sqlite import SqliteEngine
from tinymemory.engines.sqlite.search import prune_terms


@pytest.fixture
async def engine(tmp_path: Path):  # type: ignore[no-untyped-def]
    async with SqliteEngine(tmp_path / "mem.db", embedder=None) as eng:
        yield eng


async def ids(engine: SqliteEngine, query: str, **kw: object) -> list[str]:
    hits = (await engine.fetch(FetchRequest(query, **kw))).hits  # type: ignore[arg-type]
    return [h.item.id for h in hits]


async def test_the_index_holds_analysed_terms_not_raw_text(engine: SqliteEngine, tmp_path: Path) -> None:
    await engine.store(note("The Servers were Running", title="Café Ops"))
    with sqlite3.connect(tmp_path / "mem.db") as raw:
        assert raw.execute("SELECT title, body FROM lex_docs").fetchone() == ("cafe op", "server run")


async def test_stemming_diacritics_and_numbers_match(engine: SqliteEngine) -> None:
    a = await engine.store(note("We deployed release 3.14 to the Zürich cluster"))
    b = await engine.store(note("Deployment policies for staging"))
    assert set(await ids(engine, "deploying")) == {a.id, b.id}
    assert await ids(engine, "released") == [a.id]
    assert await ids(engine, "zurich") == [a.id]
    assert await ids(engine, "14") == [a.id]
    assert await ids(engine, '"unbalanced quote AND (') == []


async def test_query_is_an_or_of_terms_ranked_by_bm25(engine: SqliteEngine) -> None:
    one = await engine.store(note("red apples"))
    both = await engine.store(note("red apples and green pears"))
    hits = (await engine.fetch(FetchRequest("green pears apples"))).hits
    assert [h.item.id for h in hits] == [both.id, one.id]
    assert all(0 < h.score < 1 for h in hits) and hits[0].score > hits[1].score


async def test_title_outweighs_body_and_summary_is_searchable(engine: SqliteEngine) -> None:
    body = await engine.store(note("notes that mention kubernetes once among many other words here"))
    titled = await engine.store(note("notes about many other words here", title="Kubernetes"))
    summarised = await engine.store(note("a long document", summary="covers the zebra migration"))
    assert await ids(engine, "kubernetes") == [titled.id, body.id]
    assert await ids(engine, "zebra") == [summarised.id]


async def test_stop_word_only_queries_still_search(engine: SqliteEngine) -> None:
    it = await engine.store(note("To be or not to be"))
    assert await ids(engine, "to be") == [it.id]


async def test_lexical_respects_filters_and_state(engine: SqliteEngine) -> None:
    doc = await engine.store(note("alpha report", kind=ItemKind.DOCUMENT))
    await engine.store(note("alpha memo"))
    assert await ids(engine, "alpha", filter=MetaFilter(kinds=(ItemKind.DOCUMENT,))) == [doc.id]
    assert engine.descriptor.fetch_modes == (FetchMode.LEXICAL,)
    assert engine.descriptor.default_mode() is FetchMode.LEXICAL


async def test_common_terms_are_pruned_only_past_the_postings_budget(engine: SqliteEngine) -> None:
    await engine.store_many([note(f"common words everywhere {i}") for i in range(30)])
    rare = await engine.store(note("common words and one zeppelin"))
    conn = await engine.storage._run("t", lambda c: c)
    assert prune_terms(conn, ["common", "zeppelin"], budget=1000) == ["common", "zeppelin"]
    assert prune_terms(conn, ["common", "zeppelin", "word"], budget=20) == ["zeppelin"]
    assert len(prune_terms(conn, ["common", "word"], budget=5)) == 1
    assert await ids(engine, "common zeppelin", limit=1) == [rare.id]
