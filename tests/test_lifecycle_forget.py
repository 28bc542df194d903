"""Forget means forgotten for what the lifecycle derives: learnings and compaction summaries.

A learning the user forgot is not derived again from what was said before the forget; said again
afterwards, it is learned again, citing only the new turns. A summary cites the turns it folds, so
forgetting a turn can take the summary with it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from engines import make_engine
from tinymemory.api import (
    About,
    FetchMode,
    FetchRequest,
    ForgetRequest,
    GetRequest,
    ItemKind,
    ListRequest,
    MemoryItem,
    MetaFilter,
    NewItem,
    Reach,
    content_key,
    utcnow,
)
from tinymemory.engines.sqlite import SqliteEngine
from tinymemory.lifecycle import AgentMemory, MemoryLayout
from tinymemory.tools import MemoryTools

LAYOUT = MemoryLayout.at("team:acme")
DRINK = About("preference", "drink")


class Clock:
    """The host's clock, on wall time: the turns of a test are said a day ago, a minute apart, until
    `catch_up` moves them to after whatever the engine did in between (a forget)."""

    def __init__(self) -> None:
        self.t = utcnow() - timedelta(days=1)

    def __call__(self) -> datetime:
        self.t += timedelta(minutes=1)
        return self.t

    def catch_up(self) -> None:
        self.t = max(self.t, utcnow())


@pytest.fixture
async def engine(tmp_path: Path) -> AsyncIterator[SqliteEngine]:
    eng = make_engine(tmp_path / "m.db", embedder=None)
    yield eng
    await eng.close()


async def learnings(engine: SqliteEngine, agent: str = "writer") -> list[MemoryItem]:
    flt = MetaFilter(reach=Reach.exact(LAYOUT.learnings(agent)), kinds=(ItemKind.LEARNING,))
    return list((await engine.list(ListRequest(filter=flt, limit=200))).items)


async def drink(engine: SqliteEngine) -> list[MemoryItem]:
    return [i for i in await learnings(engine) if i.meta.about == DRINK]


async def test_a_forgotten_learning_is_not_derived_again(engine: SqliteEngine) -> None:
    mem = AgentMemory(engine, "writer", layout=LAYOUT, now=Clock())
    await (await mem.post_turn("t", "I prefer tea.", "Tea it is.")).job
    await (await mem.post_turn("t", "By the way, I prefer tea.", "Still tea.")).job
    [tea] = await drink(engine)

    tools = MemoryTools(engine).placed_at(LAYOUT.agent("writer")).reach(mem.reach)
    assert (await tools.call("memory_forget", {"ids": [tea.id]}))["forgotten"] == 1

    again = await mem.beliefs("t")
    assert again[0].stored == ()
    later = await (await mem.post_turn("t", "Can you help me plan the build?", "Sure.")).job
    assert later[0].stored == ()
    assert await drink(engine) == []
    assert "tea" not in (await mem.session_start()).markdown


async def test_said_again_after_the_forget_it_is_learned_again(engine: SqliteEngine) -> None:
    clock = Clock()
    mem = AgentMemory(engine, "writer", layout=LAYOUT, now=clock)
    first = await mem.post_turn("t", "I prefer tea.")
    await first.job
    [tea] = await drink(engine)
    await engine.forget(ForgetRequest(ids=(tea.id,)))
    assert (await mem.beliefs("t"))[0].stored == ()

    clock.catch_up()
    said = await mem.post_turn("t", "I prefer tea.")
    reports = await said.job
    [back] = await drink(engine)
    assert reports[0].stored == (back.id,)
    assert back.text == tea.text and back.id != tea.id, "a new version of the same content"
    assert back.meta.evidence == (said.turn_ids[0],), "only what was said after the forget"
    assert first.turn_ids[0] not in back.meta.evidence
    assert (await mem.beliefs("t"))[0].stored == (), "running it again changes nothing"


async def test_forgetting_a_correction_does_not_bring_back_the_old_value(engine: SqliteEngine) -> None:
    mem = AgentMemory(engine, "writer", layout=LAYOUT, now=Clock())
    await (await mem.post_turn("t", "I prefer tea.")).job
    await (await mem.post_turn("t", "Actually, I prefer coffee now.")).job
    [coffee] = await drink(engine)
    await engine.forget(ForgetRequest(ids=(coffee.id,)))
    assert (await mem.beliefs("t"))[0].stored == ()
    assert await drink(engine) == []


async def test_other_learnings_of_the_thread_are_kept(engine: SqliteEngine) -> None:
    mem = AgentMemory(engine, "writer", layout=LAYOUT, now=Clock())
    await (await mem.post_turn("t", "My name is Grace. I prefer tea. Never use emojis.")).job
    by_text = {i.text: i for i in await learnings(engine)}
    assert len(by_text) == 3
    [tea] = await drink(engine)
    await engine.forget(ForgetRequest(ids=(tea.id,)))
    assert (await mem.beliefs("t"))[0].stored == ()
    assert {i.text for i in await learnings(engine)} == set(by_text) - {tea.text}


async def test_a_learning_goes_with_one_forgotten_turn_and_is_not_rebuilt_from_the_others(
    engine: SqliteEngine,
) -> None:
    mem = AgentMemory(engine, "writer", layout=LAYOUT, now=Clock())
    first = await mem.post_turn("t", "I prefer tea.")
    await first.job
    await (await mem.post_turn("t", "Again: I prefer tea.")).job
    [tea] = await drink(engine)
    assert len(tea.meta.evidence) == 1, "applied once; the repeat found it stored"
    await engine.forget(ForgetRequest(ids=(first.turn_ids[0],)))
    assert await drink(engine) == []
    assert (await mem.beliefs("t"))[0].stored == ()
    assert await drink(engine) == []


async def test_a_summary_cites_the_turns_it_folds(engine: SqliteEngine) -> None:
    mem = AgentMemory(engine, "writer", layout=LAYOUT, now=Clock(), compact_after=6, keep_last=2)
    logs = [
        await mem.post_turn("long", f"Question {i} on the zephyr build?", f"Answer {i}.") for i in range(3)
    ]
    reports = await logs[-1].job
    [summary_id] = reports[1].stored
    [summary] = (await engine.get(GetRequest(ids=(summary_id,)))).items
    assert summary.kind is ItemKind.SUMMARY
    folded = tuple(i for log in logs[:2] for i in log.turn_ids)
    assert summary.meta.evidence == folded

    # evidence is provenance, not identity: the id stays the same whatever the summary cites
    new = NewItem(summary.kind, summary.text, summary.meta, identity="long:summary:0-3")
    assert content_key(new) == content_key(replace(new, meta=replace(new.meta, evidence=())))
    assert (await logs[-1].job.run())[1].stored == (), "replayed, same id"


async def test_a_forgotten_turn_takes_its_learning_and_summary_along(engine: SqliteEngine) -> None:
    """The engine forgets what cites a forgotten id; the next jobs must not bring any of it back."""
    mem = AgentMemory(engine, "writer", layout=LAYOUT, now=Clock(), compact_after=6, keep_last=2)
    secret = await mem.post_turn("t", "I prefer tea.", "Noted.")
    logs = [secret] + [await mem.post_turn("t", f"Question {i} on the build?", "Sure.") for i in range(2)]
    for log in logs:
        await log.job
    [tea] = await drink(engine)
    [summary] = await summaries(engine)
    said = secret.turn_ids[0]
    assert said in summary.meta.evidence and said in tea.meta.evidence

    await engine.forget(ForgetRequest(ids=(said,)))
    got = await engine.get(GetRequest(ids=(tea.id, summary.id)))
    assert got.items == (), "the learning and the summary went with the turn"
    for log in logs:
        await log.job.run()
    await mem.compact("t", keep_last=0)
    assert await drink(engine) == []
    left = await summaries(engine)
    assert left, "the turns still stored are folded again"
    assert all(said not in s.meta.evidence and "tea" not in s.text.lower() for s in left)
    hits = await engine.fetch(FetchRequest("tea", mode=FetchMode.LEXICAL))
    assert hits.hits == ()


async def summaries(engine: SqliteEngine) -> list[MemoryItem]:
    flt = MetaFilter(kinds=(ItemKind.SUMMARY,))
    return list((await engine.list(ListRequest(filter=flt, limit=200))).items)
