"""The SQLite engine with a RetrievalConfig: neighbouring-turn context, derived event ranges and hints,
the schema step that adds the context field."""

from __future__ import annotations

import sqlite3
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

from tinymemory.api import FetchRequest, GetRequest, ItemKind, ItemMeta, ListRequest, NewItem
from tinymemory.engines.sqlite import SqliteEngine, schema
from tinymemory.retrieval.config import ContextConfig, RetrievalConfig, TemporalConfig

DAY = datetime(2023, 5, 8, 13, 0, tzinfo=UTC)


def turn(text: str, thread: str = "session_1", when: datetime = DAY) -> NewItem:
    return NewItem(ItemKind.CONVERSATION, text, meta=ItemMeta(thread_id=thread, observed_at=when))


async def ids(engine: SqliteEngine, query: str) -> list[str]:
    return [h.item.id for h in (await engine.fetch(FetchRequest(query, limit=10))).hits]


async def test_a_reply_is_found_by_the_words_of_its_question(tmp_path: Path) -> None:
    # the context stage alone: the reranker would put the reply above its question (a question rarely
    # holds the fact asked about), which tests/test_retrieval_features.py covers
    plain = RetrievalConfig().without("rerank")
    async with SqliteEngine(tmp_path / "m.db", embedder=None, retrieval=plain) as engine:
        q, a, other, later = await engine.store_many(
            [
                turn("Alice: what did you paint for the exhibition?"),
                turn("Bob: a sunrise over the lake"),
                turn("Bob: a sunrise over the lake, again", thread="session_2"),
                turn("Alice: lovely colours"),
            ]
        )
        found = await ids(engine, "exhibition")
        assert found[0] == q.id and a.id in found  # the reply matches through its neighbour, below it
        assert other.id not in found  # another thread is not a neighbour
        assert later.id not in found  # only the direct neighbours
        assert a.id in await ids(engine, "colours")  # the next turn is context too


async def test_context_switched_off_matches_the_body_only(tmp_path: Path) -> None:
    cfg = RetrievalConfig(context=ContextConfig(enabled=False, weight=0.0))
    async with SqliteEngine(tmp_path / "m.db", embedder=None, retrieval=cfg) as engine:
        q, _ = await engine.store_many([turn("Alice: what did you paint?"), turn("Bob: a sunrise")])
        assert await ids(engine, "paint") == [q.id]
    # a store built with context, read with weight 0, behaves the same
    async with SqliteEngine(tmp_path / "c.db", embedder=None) as engine:
        q, _ = await engine.store_many([turn("Alice: what did you paint?"), turn("Bob: a sunrise")])
        engine.retrieval = replace(engine.retrieval, context=ContextConfig(weight=0.0))
        assert await ids(engine, "paint") == [q.id]


async def test_store_resolves_the_event_range_and_keeps_identity(tmp_path: Path) -> None:
    async with SqliteEngine(tmp_path / "m.db", embedder=None) as engine:
        res = await engine.store(turn("I went to the support group yesterday"))
        again = await engine.store(turn("I went to the support group yesterday"))
        assert again.replayed and again.id == res.id
        [got] = (await engine.get(GetRequest((res.id,)))).items
        assert got.meta.event_from == datetime(2023, 5, 7, tzinfo=UTC)
        assert got.meta.event_to is not None and got.meta.event_to.date() == datetime(2023, 5, 7).date()
    off = RetrievalConfig(temporal=TemporalConfig(extract_events=False))
    async with SqliteEngine(tmp_path / "n.db", embedder=None, retrieval=off) as engine:
        res = await engine.store(turn("I went to the support group yesterday"))
        [got] = (await engine.get(GetRequest((res.id,)))).items
        assert got.meta.event_from is None


async def test_a_question_naming_a_time_boosts_memory_about_it(tmp_path: Path) -> None:
    june = datetime(2023, 6, 20, tzinfo=UTC)
    async with SqliteEngine(tmp_path / "m.db", embedder=None) as engine:
        # equal text scores: without a hint the earlier row wins the tie
        strong = await engine.store(turn("hiking up the ridge", thread="a"))
        weak = await engine.store(turn("hiking down the ridge", thread="b", when=june))
        assert (await ids(engine, "hiking"))[0] == strong.id
        boosted = await ids(engine, "hiking in June 2023")
        assert boosted[0] == weak.id and strong.id in boosted  # boosted, nothing dropped
        engine.retrieval = replace(engine.retrieval, temporal=TemporalConfig(query_hints=False))
        assert (await ids(engine, "hiking in June 2023"))[0] == strong.id


async def test_a_question_naming_one_day_puts_memory_dated_to_it_first(tmp_path: Path) -> None:
    said = datetime(2022, 5, 2, 15, 0, tzinfo=UTC)
    async with SqliteEngine(tmp_path / "m.db", embedder=None) as engine:
        others = await engine.store_many(
            [
                turn("Ana: which movie should I watch? I love a movie with a twist", thread="a"),
                turn("Ana: I watch a movie every week, movie night is my favourite", thread="b"),
                turn("Ana: we watched a movie yesterday, a long one", thread="c", when=DAY),  # 7 May
            ]
        )
        dated = await engine.store(turn("Ana: finally saw Dune last night", thread="d", when=said))
        question = "What movie did Ana watch on 1 May 2022?"
        assert (await ids(engine, question))[0] == dated.id  # its own words put it on 1 May
        assert {o.id for o in others} <= set(await ids(engine, question))  # nothing dropped
        engine.retrieval = replace(engine.retrieval, temporal=TemporalConfig(day_first=False))
        assert (await ids(engine, question))[0] != dated.id  # the boost alone only tilts


async def test_a_version_2_file_gains_the_context_field_and_keeps_its_memory(tmp_path: Path) -> None:
    path = tmp_path / "v2.db"
    raw = sqlite3.connect(path, isolation_level=None)
    schema.migrate(raw, target=2)
    raw.close()
    async with SqliteEngine(path, embedder=None) as engine:
        old = await engine.store(turn("the migration kept working"))
        assert await ids(engine, "migration") == [old.id]
        assert len((await engine.list(ListRequest())).items) == 1
    raw = sqlite3.connect(path)
    assert raw.execute("PRAGMA user_version").fetchone()[0] == schema.SCHEMA_VERSION == 12
    cols = [r[1] for r in raw.execute("PRAGMA table_info(lex_docs)")][1:]
    assert cols == ["title", "body", "context"]
