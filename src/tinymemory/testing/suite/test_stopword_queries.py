"""A question made only of stop words ("What do you know about me?") still returns something useful on a
lexical read: the newest memories in reach, scored 0, rather than nothing."""

from __future__ import annotations

import pytest

from tinymemory.api import FetchMode, FetchRequest, MemoryEngine, MetaFilter, Reach, RecallRequest

from .helpers import at, item, ns

pytestmark = pytest.mark.asyncio  # every test here is async; marked so strict mode runs them


async def test_a_stop_word_question_returns_the_newest_memories_in_reach(engine: MemoryEngine) -> None:
    place = "user:dana/agent:assistant"
    old = await engine.store(item("Dana drinks oat-milk flat whites", namespace=place, observed_at=at(0)))
    new = await engine.store(item("Dana prefers short paragraphs", namespace=place, observed_at=at(1)))
    await engine.store(item("someone else's note", namespace="user:eve", observed_at=at(2)))
    flt = MetaFilter(reach=Reach.of(ns(place)))
    hits = (
        await engine.fetch(FetchRequest("What do you know about me?", mode=FetchMode.LEXICAL, filter=flt))
    ).hits
    assert [h.item.id for h in hits] == [new.id, old.id]
    assert all(h.score == 0.0 for h in hits)
    recall = await engine.recall(
        RecallRequest("What do you know about me?", mode=FetchMode.LEXICAL, filter=flt)
    )
    assert recall.answer
    assert {c.id for c in recall.citations} <= {new.id, old.id}


async def test_a_question_with_words_that_match_nothing_stays_empty(engine: MemoryEngine) -> None:
    await engine.store(item("Dana drinks oat-milk flat whites", observed_at=at(0)))
    hits = (await engine.fetch(FetchRequest("zeppelin?", mode=FetchMode.LEXICAL))).hits
    assert hits == ()
