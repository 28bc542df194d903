"""Memory formation through AgentMemory.post_turn and its BackgroundJob, no LLM: updates supersede (moves,
job changes, corrections, negations), unrelated facts in one sentence stay apart, the classes the rules
keep, grammar, and what reads serve afterwards (recall, context.md, as_of, forget)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from engines import make_engine
from tinymemory.api import (
    About,
    ForgetRequest,
    ItemKind,
    ListRequest,
    MemoryItem,
    MetaFilter,
    Reach,
    RecallRequest,
)
from tinymemory.engines.sqlite import SqliteEngine
from tinymemory.lifecycle import AgentMemory, MemoryLayout

LAYOUT = MemoryLayout.at("team:acme")


class Clock:
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


async def learnings(
    engine: SqliteEngine, agent: str = "a", as_of: datetime | None = None
) -> list[MemoryItem]:
    flt = MetaFilter(reach=Reach.exact(LAYOUT.learnings(agent)), kinds=(ItemKind.LEARNING,), as_of=as_of)
    return list((await engine.list(ListRequest(filter=flt, limit=200))).items)


async def on(engine: SqliteEngine, about: About, as_of: datetime | None = None) -> list[str]:
    return [i.text for i in await learnings(engine, as_of=as_of) if i.meta.about == about]


async def say(mem: AgentMemory, thread: str, *turns: str) -> None:
    for text in turns:
        await (await mem.post_turn(thread, text, "Okay.")).job


HOME = About("profile", "home")


async def test_a_move_supersedes_the_old_home_in_every_read(engine: SqliteEngine) -> None:
    clock = Clock()
    mem = AgentMemory(engine, "a", layout=LAYOUT, now=clock)
    await say(mem, "s1", "I live in Lisbon.")
    before = clock()
    await say(mem, "s2", "We relocated to Madrid in May.")
    assert await on(engine, HOME) == ["The user lives in Madrid."]
    assert await on(engine, HOME, as_of=before) == ["The user lives in Lisbon."]

    brief = (await mem.session_start()).markdown
    assert "lives in Madrid" in brief and "Lisbon" not in brief
    pack = await mem.pre_turn("where does the user live, which city is home")
    texts = [i.text for i in pack.items]
    assert any("Madrid" in t for t in texts) and not any(
        "lives in Lisbon" in t for t in texts if t.startswith("The")
    )
    reach = Reach.exact(LAYOUT.learnings("a"))
    recalled = await engine.recall(RecallRequest("where does the user live", MetaFilter(reach=reach)))
    assert "Madrid" in recalled.answer and "Lisbon" not in recalled.answer
    old = await engine.recall(
        RecallRequest("where does the user live", MetaFilter(reach=reach, as_of=before))
    )
    assert "Lisbon" in old.answer


@pytest.mark.parametrize(
    ("first", "later", "old", "new", "question"),
    [
        (
            "I work at Initrode.",
            "Since January I have been working at Globex.",
            "Initrode",
            "Globex",
            "which employer does the user work at",
        ),
        (
            "I prefer hot chocolate.",
            "Nowadays I prefer espresso.",
            "hot chocolate",
            "espresso",
            "which drink does the user prefer",
        ),
        (
            "I'm single.",
            "I'm dating a man called Ilan.",
            "single",
            "Ilan",
            "relationship: is the user dating",
        ),
    ],
)
async def test_every_read_follows_an_update(
    engine: SqliteEngine, first: str, later: str, old: str, new: str, question: str
) -> None:
    clock = Clock()
    mem = AgentMemory(engine, "a", layout=LAYOUT, now=clock)
    await say(mem, "s1", first)
    before = clock()
    await say(mem, "s2", later)
    brief = (await mem.session_start()).markdown
    assert new in brief and old not in brief, brief
    reach = Reach.exact(LAYOUT.learnings("a"))
    now = await engine.recall(RecallRequest(question, MetaFilter(reach=reach)))
    assert new in now.answer and old not in now.answer, now.answer
    then = await engine.recall(RecallRequest(question, MetaFilter(reach=reach, as_of=before)))
    assert old in then.answer and new not in then.answer, then.answer


@pytest.mark.parametrize(
    ("first", "later", "about", "latest"),
    [
        (
            "I work at Initech.",
            "I quit Initech; I am a chef now.",
            About("profile", "employer"),
            "no longer works at Initech",
        ),
        (
            "I work as a teacher.",
            "I quit my job at the school; I'm a baker now.",
            About("profile", "role"),
            "a baker",
        ),
        ("I prefer tea.", "Actually, I prefer coffee.", About("preference", "drink"), "prefers coffee"),
        ("I live in Lisbon.", "I no longer live in Lisbon.", HOME, "no longer lives in Lisbon"),
        ("I'm vegetarian.", "I'm not vegetarian anymore.", About("health", "diet"), "no longer vegetarian"),
        (
            "I love hiking.",
            "I don't like hiking anymore.",
            About("preference", "hiking"),
            "no longer likes hiking",
        ),
        (
            "I'm allergic to cats.",
            "I'm not allergic to cats any more.",
            About("health", "allergy cats"),
            "no longer allergic",
        ),
        ("I'm engaged to Sam.", "Sam and I broke up.", About("profile", "relationship"), "broke up with Sam"),
        (
            "Always answer in French.",
            "Always answer in Spanish.",
            About("instruction", "answer in"),
            "Spanish",
        ),
        ("Never use emojis.", "You can use emojis again.", About("instruction", "use emojis"), "No longer"),
        (
            "I love playing squash.",
            "I don't play squash anymore.",
            About("preference", "squash"),
            "no longer",
        ),
        (
            "I'm married to Ines.",
            "Ines and I are getting divorced.",
            About("profile", "relationship"),
            "divorced",
        ),
        ("I drink chai.", "I've switched to barley tea.", About("preference", "drink"), "barley tea"),
    ],
)
async def test_updates_leave_the_latest_value_active(
    engine: SqliteEngine, first: str, later: str, about: About, latest: str
) -> None:
    mem = AgentMemory(engine, "a", layout=LAYOUT, now=Clock())
    await say(mem, "s1", first)
    await say(mem, "s2", later)
    active = await on(engine, about)
    assert len(active) == 1 and latest in active[0], active


async def test_what_the_thread_holds_lets_a_later_turn_end_or_swap_it(engine: SqliteEngine) -> None:
    mem = AgentMemory(engine, "a", layout=LAYOUT, now=Clock())
    await say(mem, "s1", "From now on, use Australian spelling.", "We have a hamster named Toffee.")
    await say(mem, "s1", "Use Canadian spelling instead.", "We had to have Toffee put to sleep.")
    [spelling] = [i for i in await learnings(engine) if i.meta.about and i.meta.about.kind == "instruction"]
    assert "Canadian" in spelling.text
    assert await on(engine, About("pet", "toffee")) == ["Toffee died."]


async def test_unrelated_facts_in_one_sentence_are_two_learnings(engine: SqliteEngine) -> None:
    mem = AgentMemory(engine, "a", layout=LAYOUT, now=Clock())
    await say(mem, "s1", "I prefer green tea and I'm allergic to shellfish.")
    assert await on(engine, About("preference", "drink")) == ["The user prefers green tea."]
    assert await on(engine, About("health", "allergy shellfish")) == ["The user is allergic to shellfish."]
    await say(mem, "s2", "I prefer coffee now.")  # a drink update leaves the allergy alone
    assert await on(engine, About("health", "allergy shellfish")) == ["The user is allergic to shellfish."]


async def test_the_subject_carries_over_to_a_second_verb(engine: SqliteEngine) -> None:
    mem = AgentMemory(engine, "a", layout=LAYOUT, now=Clock())
    await say(mem, "s1", "I live in Porto and work as a nurse.")
    texts = sorted(i.text for i in await learnings(engine))
    assert texts == ["The user lives in Porto.", "The user works as a nurse."]


@pytest.mark.parametrize(
    ("turn", "about", "text"),
    [
        ("My sister is called Ana.", About("family", "sister ana"), "The user's sister is Ana."),
        ("My husband's name is Tom.", About("family", "husband"), "The user's husband is Tom."),
        ("We adopted a puppy named Biscuit.", About("pet", "biscuit"), "The user has a puppy named Biscuit."),
        ("My cat Mochi sleeps all day.", About("pet", "mochi"), "The user has a cat named Mochi."),
        (
            "I'm allergic to penicillin.",
            About("health", "allergy penicillin"),
            "The user is allergic to penicillin.",
        ),
        (
            "I was diagnosed with asthma last year.",
            About("health", "condition asthma"),
            "The user has asthma.",
        ),
        ("My birthday is on 14 July.", About("profile", "birthday"), "The user's birthday is 14 July."),
        ("You can call me Sasha.", About("profile", "name"), "The user's name is Sasha."),
    ],
)
async def test_classes_that_are_kept(engine: SqliteEngine, turn: str, about: About, text: str) -> None:
    mem = AgentMemory(engine, "a", layout=LAYOUT, now=Clock())
    await say(mem, "s1", turn)
    assert await on(engine, about) == [text]


@pytest.mark.parametrize(
    "turn",
    [
        "What's the capital of Peru?",
        "Thanks, that helps a lot!",
        "If I lived in Oslo I would need a better coat.",
        "My friend lives in Paris.",
        "Taylor Swift was born in December.",
    ],
)
async def test_turns_that_keep_nothing(engine: SqliteEngine, turn: str) -> None:
    mem = AgentMemory(engine, "a", layout=LAYOUT, now=Clock())
    await say(mem, "s1", turn)
    assert await learnings(engine) == []


async def test_a_plan_is_not_a_move(engine: SqliteEngine) -> None:
    mem = AgentMemory(engine, "a", layout=LAYOUT, now=Clock())
    await say(mem, "s1", "I live in Lisbon.", "I'm thinking about moving to Berlin next year.")
    assert await on(engine, HOME) == ["The user lives in Lisbon."]


async def test_forgetting_the_update_turn_takes_its_learning(engine: SqliteEngine) -> None:
    mem = AgentMemory(engine, "a", layout=LAYOUT, now=Clock())
    await say(mem, "s1", "I prefer tea and I'm allergic to shellfish.")
    turns = (
        await engine.list(ListRequest(filter=MetaFilter(kinds=(ItemKind.CONVERSATION,)), limit=10))
    ).items
    user_turn = next(t for t in turns if t.meta.source and t.meta.source.kind == "user")
    await engine.forget(ForgetRequest(ids=(user_turn.id,), reach=Reach.subtree(LAYOUT.root)))
    assert await learnings(engine) == [], "both learnings of the forgotten turn go with it"


async def test_a_name_bound_earlier_in_the_thread_ends_its_subject_without_my(engine: SqliteEngine) -> None:
    mem = AgentMemory(engine, "a", layout=LAYOUT, now=Clock())
    await say(mem, "s1", "We have a ferret named Biscuit.", "Biscuit died on Sunday.")
    assert await on(engine, About("pet", "biscuit")) == ["Biscuit died."]
    # in another thread the name is bound to nothing, so a bare name keeps nothing
    await say(mem, "s2", "Pepper died on Sunday.")
    assert [i for i in await learnings(engine) if "Pepper" in i.text and i.meta.about is not None] == []


async def test_a_correction_or_a_leaving_changes_the_value_the_thread_holds(engine: SqliteEngine) -> None:
    clock = Clock()
    mem = AgentMemory(engine, "a", layout=LAYOUT, now=clock)
    await say(mem, "s1", "I work for Nokia.", "I live in Espoo.")
    between = clock.t
    await say(mem, "s1", "Sorry, Ericsson, not Nokia.", "We left Espoo in the spring.")
    assert await on(engine, About("profile", "employer")) == ["The user works at Ericsson."]
    assert await on(engine, HOME) == ["The user no longer lives in Espoo."]
    # the old values stay readable as they were
    assert await on(engine, About("profile", "employer"), as_of=between) == ["The user works at Nokia."]
