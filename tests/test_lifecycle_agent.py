"""AgentMemory + BackgroundJob: a scripted multi-session conversation, corrections, as_of, compaction."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from engines import make_engine
from tinymemory.api import (
    About,
    GetRequest,
    ItemKind,
    ListRequest,
    MemoryItem,
    MetaFilter,
    Reach,
)
from tinymemory.engines.sqlite import SqliteEngine
from tinymemory.lifecycle import AgentMemory, BackgroundJob, MemoryLayout

LAYOUT = MemoryLayout.at("team:acme")


class Clock:
    """A clock the test moves: turns get distinct, ordered times."""

    def __init__(self) -> None:
        self.t = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        self.t += timedelta(minutes=1)
        return self.t


@pytest.fixture
async def engine(tmp_path: Path) -> AsyncIterator[SqliteEngine]:
    eng = make_engine(tmp_path / "m.db", embedder=None)
    yield eng
    await eng.close()


async def learnings(engine: SqliteEngine, agent: str, as_of: datetime | None = None) -> list[MemoryItem]:
    flt = MetaFilter(reach=Reach.exact(LAYOUT.learnings(agent)), kinds=(ItemKind.LEARNING,), as_of=as_of)
    return list((await engine.list(ListRequest(filter=flt, limit=200))).items)


async def session(mem: AgentMemory, thread: str, script: list[tuple[str, str]]) -> list[BackgroundJob]:
    jobs = []
    for user, reply in script:
        await mem.pre_turn(user, thread_id=thread)
        jobs.append((await mem.post_turn(thread, user, reply)).job)
    return jobs


async def test_preference_corrected_across_sessions(engine: SqliteEngine) -> None:
    clock = Clock()
    mem = AgentMemory(engine, "writer", layout=LAYOUT, now=clock)
    assert (await mem.session_start()).markdown == ""
    jobs = await session(
        mem,
        "s1",
        [
            ("Hi! My name is Ada.", "Hello Ada."),
            ("I prefer tea.", "Noted: tea."),
            ("Please always answer in British English.", "Will do."),
            ("By the way, I prefer tea.", "Still tea, got it."),
        ],
    )
    for job in jobs:
        await job
    # versions are valid from when they were observed, so as_of reads the conversation's own timeline
    before_correction = clock()

    brief = await mem.session_start()
    assert "The user prefers tea." in brief.markdown and "Ada" in brief.markdown
    jobs = await session(mem, "s2", [("Actually, I prefer coffee now.", "Switching to coffee.")])
    for job in jobs:
        await job

    brief = await mem.session_start()
    assert "The user prefers coffee." in brief.markdown
    assert "prefers tea" not in brief.markdown
    assert "Always answer in British English." in brief.markdown

    drink = About("preference", "drink")
    old = [i for i in await learnings(engine, "writer", as_of=before_correction) if i.meta.about == drink]
    assert [i.text for i in old] == ["The user prefers tea."]
    assert len(old[0].meta.evidence) == 2, "the repeated statement merged into one learning"
    now = [i for i in await learnings(engine, "writer") if i.meta.about == drink]
    assert [i.text for i in now] == ["The user prefers coffee."]
    assert now[0].meta.evidence and now[0].confidence is not None

    active = await learnings(engine, "writer")
    texts = [i.text for i in active]
    abouts = [i.meta.about for i in active if i.meta.about]
    assert len(texts) == len(set(texts)) and len(abouts) == len(set(abouts))
    turn_ids = {
        i.id
        for i in (
            await engine.list(ListRequest(filter=MetaFilter(kinds=(ItemKind.CONVERSATION,)), limit=100))
        ).items
    }
    assert all(set(i.meta.evidence) <= turn_ids for i in active)


async def test_running_a_job_twice_changes_nothing(engine: SqliteEngine) -> None:
    mem = AgentMemory(engine, "writer", layout=LAYOUT, now=Clock())
    log = await mem.post_turn("t", "My name is Grace. I live in Arlington. Never use emojis.", "Ok.")
    first = await log.job
    assert len(first[0].stored) == 3 and log.job.status == "done"
    snapshot = sorted((i.id, i.text) for i in await learnings(engine, "writer"))
    second = await log.job.run()
    assert second[0].stored == () and second[0].unchanged == 3
    third = await mem.beliefs("t")
    assert third[0].stored == ()
    assert sorted((i.id, i.text) for i in await learnings(engine, "writer")) == snapshot


async def test_a_stale_thread_never_overrides_a_newer_correction(engine: SqliteEngine) -> None:
    mem = AgentMemory(engine, "writer", layout=LAYOUT, now=Clock())
    old = await mem.post_turn("old", "I prefer tea.")
    new = await mem.post_turn("new", "I prefer coffee.")
    await new.job  # the newer thread is built first
    await old.job
    drink = [i for i in await learnings(engine, "writer") if i.meta.about == About("preference", "drink")]
    assert [i.text for i in drink] == ["The user prefers coffee."]


async def test_agents_do_not_see_each_others_learnings(engine: SqliteEngine) -> None:
    a = AgentMemory(engine, "a", layout=LAYOUT, now=Clock())
    b = AgentMemory(engine, "b", layout=LAYOUT, now=Clock())
    await (await a.post_turn("t", "My name is Ada.")).job
    await (await b.post_turn("t", "My name is Bob.")).job
    assert "Bob" not in (await a.session_start()).markdown
    assert "Ada" not in (await b.session_start()).markdown
    pack = await a.pre_turn("what is my name Bob", thread_id="t")
    assert pack.items and not any("Bob" in item.text for item in pack.items)


async def test_compaction_folds_old_turns_and_keeps_them_readable(engine: SqliteEngine) -> None:
    mem = AgentMemory(engine, "writer", layout=LAYOUT, now=Clock(), compact_after=12, keep_last=4)
    jobs = []
    for i in range(6):
        log = await mem.post_turn("long", f"Question {i} about the zephyr project?", f"Answer {i}.")
        jobs.append(log.job)
    assert "compaction" not in jobs[4].steps and "compaction" in jobs[5].steps
    reports = await jobs[5]
    summary_id = reports[1].stored[0]
    got = await engine.get(GetRequest(ids=(summary_id,)))
    summary = got.items[0]
    assert summary.kind is ItemKind.SUMMARY and summary.meta.thread_id == "long"
    assert len(summary.meta.evidence) == 8
    assert summary.text.startswith("Summary of turns 0-7 of thread long: user: Question 0")
    folded = await engine.get(GetRequest(ids=summary.meta.evidence))
    assert len(folded.items) == 8 and not folded.missing, "originals stay readable by id"
    again = await jobs[5].run()
    assert again[1].stored == ()
    pack = await mem.pre_turn("zephyr project question", thread_id="long")
    assert not set(summary.meta.evidence) & set(pack.refs)
    assert summary_id in pack.refs
    forced = mem.compact("long", keep_last=0)
    assert (await forced)[1].stored and (await forced.run())[1].stored == ()


async def test_bad_settings_are_refused(engine: SqliteEngine) -> None:
    from tinymemory.api import InvalidRequest

    with pytest.raises(InvalidRequest, match="compact_after"):
        AgentMemory(engine, "a", compact_after=3, keep_last=5)
    with pytest.raises(InvalidRequest, match="agent memory: `agent_id`"):
        AgentMemory(engine, "not valid", layout=LAYOUT)
