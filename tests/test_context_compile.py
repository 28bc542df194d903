"""context.md: budget, trimming order, failing briefs, empty stores, reach confinement, determinism."""

from __future__ import annotations

import logging
import re
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from engines import make_engine
from tinymemory.api import About, ItemKind, ItemMeta, MemoryEngine, NewItem, Reach, Source
from tinymemory.context import (
    DEFAULT_BRIEFS,
    Brief,
    ContextPack,
    ContextSpec,
    compile,
    draft,
    estimate_tokens,
    fit_brief,
)
from tinymemory.engines.sqlite import SqliteEngine
from tinymemory.lifecycle import MemoryLayout

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
LAYOUT = MemoryLayout.at("team:acme")
LINE = re.compile(r"^- .+ \[(m_[0-9a-f]{24})\]$")


def clock() -> datetime:
    return NOW


@pytest.fixture
async def engine(tmp_path: Path) -> AsyncIterator[SqliteEngine]:
    eng = make_engine(tmp_path / "m.db", embedder=None)
    yield eng
    await eng.close()


def learning(
    text: str, agent: str | None, kind: str, age_days: int, conf: float, about: About | None = None
) -> NewItem:
    ns = LAYOUT.learnings(agent) if agent else LAYOUT.shared_learnings
    return NewItem(
        ItemKind.LEARNING,
        text,
        ItemMeta(
            namespace=ns,
            source=Source("beliefs", agent),
            learning_kind=kind,
            about=about,
            observed_at=NOW - timedelta(days=age_days),
        ),
        confidence=conf,
    )


async def populate(engine: MemoryEngine) -> None:
    items = [
        learning("The user's name is Ada Lovelace.", "a", "fact", 30, 0.9, About("profile", "name")),
        learning("The user works at the Analytical Engine project.", "a", "fact", 20, 0.8),
        learning(
            "The user prefers tea over coffee.", "a", "preference", 10, 0.85, About("preference", "drink")
        ),
        learning("Always answer the user in British English.", "a", "instruction", 9, 0.9),
        learning("The user has a user review meeting on 2026-03-05.", "a", "event", 2, 0.75),
        learning("The user decided to ship the parser on Friday.", "a", "decision", 1, 0.8),
        learning("Team convention: the user writes tests first.", None, "fact", 5, 0.7),
        learning("Agent b's user is called Grace Hopper.", "b", "fact", 3, 0.9),
        learning("Agent b's user prefers coffee.", "b", "preference", 3, 0.9),
    ]
    items += [
        learning(
            f"The user noted detail number {i} about their current work project.", "a", "fact", 40 + i, 0.5
        )
        for i in range(40)
    ]
    for item in items:
        await engine.store(item)


def content_lines(pack: ContextPack) -> list[str]:
    return [line for line in pack.markdown.splitlines() if line.startswith("- ")]


async def test_empty_store_yields_an_empty_document(engine: SqliteEngine) -> None:
    pack = await compile(engine, ContextSpec(now=clock))
    assert pack.markdown == ""
    assert pack.refs == ()
    assert pack.tokens == 0


async def test_frontmatter_and_every_line_traces_to_a_ref(engine: SqliteEngine) -> None:
    await populate(engine)
    pack = await compile(engine, ContextSpec(now=clock, reach=LAYOUT.agent_reach("a")))
    text = pack.markdown
    assert text.startswith(f"---\ngenerated_at: 2026-03-01T12:00:00Z\nengine: {engine.descriptor.name} ")
    head = text.split("---\n")[1]
    assert f"tokens: {estimate_tokens(text)}\n" in head
    refs = re.search(r"refs: \[(.*)\]", head)
    assert refs is not None
    listed = refs.group(1).split(", ")
    lines = content_lines(pack)
    assert lines
    ids = []
    for line in lines:
        m = LINE.match(line)
        assert m, line
        ids.append(m.group(1))
    assert listed == list(dict.fromkeys(ids))
    assert len(ids) == len(set(ids)), "a memory appears once"


async def test_budget_respected_for_every_budget_from_50_to_5000(engine: SqliteEngine) -> None:
    await populate(engine)
    full = await draft(engine, ContextSpec(now=clock, budget_tokens=100_000))
    assert estimate_tokens(full.markdown) > 1_000, "the fixture must overflow small budgets"
    previous_tokens = -1
    for budget in range(50, 5_001):
        pack = fit_brief(_with_budget(full, budget))
        assert pack.tokens <= budget, budget
        assert previous_tokens <= pack.tokens, "a larger budget never holds less"
        previous_tokens = pack.tokens
    # compile() is draft + fit_brief: spot-check the real path across the range.
    for budget in (50, 51, 77, 150, 333, 600, 1_000, 1_500, 2_222, 5_000):
        pack = await compile(engine, ContextSpec(now=clock, budget_tokens=budget))
        assert pack.tokens <= budget
        assert pack.markdown == fit_brief(_with_budget(full, budget)).markdown


def _with_budget(pack: ContextPack, budget: int) -> ContextPack:
    from dataclasses import replace

    return replace(pack, budget_tokens=budget)


async def test_trimming_order_learnings_first_then_the_last_brief(engine: SqliteEngine) -> None:
    await populate(engine)
    full = await draft(engine, ContextSpec(now=clock))
    names = [s.title for s in full.sections]
    assert names[-1] == "Learnings"
    assert full.sections[-1].items, "fixture must have learnings"
    assert sum(1 for s in full.sections[:-1] if s.items) >= 2, "fixture must fill at least two briefs"
    order = [
        (s, i)
        for s in range(len(full.sections) - 1, -1, -1)
        for i in range(len(full.sections[s].items) - 1, -1, -1)
    ]
    seen_partial = False
    for budget in range(50, estimate_tokens(full.markdown) + 2):
        pack = fit_brief(_with_budget(full, budget))
        kept = {item.id for item in pack.items}
        dropped = [(s, i) for s, i in order if full.sections[s].items[i].id not in kept]
        # What is dropped is always a prefix of: learnings from the end, then the last brief, ...
        assert dropped == order[: len(dropped)], budget
        if 0 < len(dropped) < len(order) and not pack.sections[-1].items:
            seen_partial = True
    assert seen_partial, "some budget must keep briefs while dropping every learning"


async def test_a_failing_brief_is_skipped_and_logged(
    engine: SqliteEngine, caplog: pytest.LogCaptureFixture
) -> None:
    await populate(engine)
    broken = Brief("Broken brief", "   ")  # the engine refuses an empty question
    spec = ContextSpec(briefs=(broken, *DEFAULT_BRIEFS), now=clock)
    with caplog.at_level(logging.WARNING, logger="tinymemory.context"):
        pack = await compile(engine, spec)
    assert pack.skipped == ("Broken brief",)
    assert "Broken brief" in caplog.text
    assert "## Broken brief" not in pack.markdown
    assert content_lines(pack), "the other briefs still render"
    healthy = await compile(engine, ContextSpec(now=clock))
    assert pack.markdown == healthy.markdown


async def test_reach_confines_the_brief_to_one_agent(engine: SqliteEngine) -> None:
    await populate(engine)
    pack = await compile(engine, ContextSpec(now=clock, reach=LAYOUT.agent_reach("a"), budget_tokens=20_000))
    text = pack.markdown
    assert "Grace Hopper" not in text and "Agent b" not in text
    assert "Ada Lovelace" in text
    assert "Team convention" in text, "shared learnings are in the agent's reach"
    only_b = await compile(engine, ContextSpec(now=clock, reach=Reach.exact(LAYOUT.learnings("b"))))
    assert "Ada" not in only_b.markdown and "Grace Hopper" in only_b.markdown
    nobody = await compile(engine, ContextSpec(now=clock, reach=LAYOUT.agent_reach("nobody")))
    assert "Ada" not in nobody.markdown and "Grace" not in nobody.markdown


async def test_learnings_are_newest_then_most_confident(engine: SqliteEngine) -> None:
    same_day = [
        learning("Low confidence fact zebra.", "a", "fact", 1, 0.3),
        learning("High confidence fact yak.", "a", "fact", 1, 0.95),
        learning("Older fact walrus.", "a", "fact", 5, 0.99),
    ]
    for item in same_day:
        await engine.store(item)
    spec = ContextSpec(briefs=(), now=clock)
    lines = content_lines(await compile(engine, spec))
    assert [line.split(" [")[0] for line in lines] == [
        "- High confidence fact yak.",
        "- Low confidence fact zebra.",
        "- Older fact walrus.",
    ]


async def test_deterministic_for_the_same_store_and_clock(engine: SqliteEngine) -> None:
    await populate(engine)
    first = await compile(engine, ContextSpec(now=clock, budget_tokens=700))
    second = await compile(engine, ContextSpec(now=clock, budget_tokens=700))
    assert first.markdown == second.markdown != ""


async def _sections(engine: MemoryEngine) -> dict[str, list[str]]:
    """Each brief's lines as texts, from a draft (no budget cut) of agent a's context."""
    await populate(engine)
    await engine.store(
        NewItem(
            ItemKind.SUMMARY,
            "Summary of turns 0-9 of thread s1: user: current project tasks: the parser rewrite, due Friday",
            ItemMeta(namespace=LAYOUT.conversations("a"), source=Source("compaction", "a"), thread_id="s1"),
        )
    )
    pack = await draft(engine, ContextSpec(now=clock, reach=LAYOUT.context_reach("a")))
    return {s.title: [i.text for i in s.items] for s in pack.sections}


async def test_about_the_user_holds_facts_about_the_user(engine: SqliteEngine) -> None:
    lines = (await _sections(engine))["About the user"]
    assert "The user's name is Ada Lovelace." in lines
    assert not any("prefers" in t or "Always" in t or "decided" in t for t in lines)


async def test_active_work_holds_work_in_progress_not_preferences_or_instructions(
    engine: SqliteEngine,
) -> None:
    lines = (await _sections(engine))["Active work"]
    assert any("parser rewrite" in t for t in lines), lines
    assert not any("prefers tea" in t or "British English" in t for t in lines), lines


async def test_with_an_embedder_preferences_still_land_in_their_own_brief(tmp_path: Path) -> None:
    from test_sqlite_support import HashEmbedder
    from tinymemory.lifecycle import AgentMemory

    eng = make_engine(tmp_path / "e.db", embedder=HashEmbedder())
    try:
        mem = AgentMemory(eng, "a", layout=LAYOUT, now=clock)
        for text in ("My name is Ada.", "I prefer tea.", "Please always answer in British English."):
            await (await mem.post_turn("s", text, "Okay.")).job
        pack = await draft(eng, ContextSpec(now=clock, reach=LAYOUT.context_reach("a")))
        by_title = {s.title: [i.text for i in s.items] for s in pack.sections}
        assert sorted(by_title["Preferences and standing instructions"]) == [
            "Always answer in British English.",
            "The user prefers tea.",
        ]
        assert by_title["Active work"] == []
        assert by_title["About the user"] == ["The user's name is Ada."]
    finally:
        await eng.close()


async def test_preferences_and_standing_instructions_hold_both(engine: SqliteEngine) -> None:
    lines = (await _sections(engine))["Preferences and standing instructions"]
    assert "The user prefers tea over coffee." in lines
    assert "Always answer the user in British English." in lines


async def test_recent_events_hold_events_and_decisions(engine: SqliteEngine) -> None:
    lines = (await _sections(engine))["Recent important events"]
    assert any("review meeting" in t for t in lines)
    assert not any("prefers" in t or "name is" in t for t in lines)
