"""Edge cases an engine tends to get wrong: query syntax, races inside one process, shared files, unicode."""

from __future__ import annotations

import asyncio
import random
import unicodedata
from pathlib import Path

import pytest

from tinymemory.api import (
    MAX_LIMIT,
    About,
    FetchMode,
    FetchRequest,
    ForgetRequest,
    GetRequest,
    ItemKind,
    MemoryEngine,
    MetaFilter,
    Reach,
    RecallRequest,
    TinyMemoryError,
)
from tinymemory.testing import EngineFactory, SuiteClock

from .helpers import fetch_ids, item, list_ids, ns

pytestmark = pytest.mark.asyncio  # every test here is async; marked so strict mode runs them

NASTY_QUERIES = [
    'what is "the plan',
    "c++ -rf (",
    "NOT AND OR",
    "near(a b)",
    "a* *b",
    "title:secret",
    "^start",
    "'; drop table items; --",
    "{}[]()<>",
    "\u00e9t\u00e9 na\u00efve caf\u00e9",
    "emoji \U0001f600 query",
    "x" * 500,
    "...",
    "- - -",
    "\\",
    "%_%",
    "NULL",
    "\t\ttabbed\nnewline",
]


def _random_queries(n: int) -> list[str]:
    rng = random.Random(1234)
    alphabet = "abc XYZ\"*()-+:^~.,;'\\/%_{}[]<>!?|&=\u00e9\U0001f600"
    out: list[str] = []
    while len(out) < n:
        q = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 20)))
        if q.strip():
            out.append(q)
    return out


@pytest.mark.parametrize("mode", list(FetchMode), ids=str)
async def test_any_valid_query_is_answered_not_crashed(engine: MemoryEngine, mode: FetchMode) -> None:
    """Query text is data, never query syntax: whatever a model types must not break a fetch."""
    if mode not in engine.descriptor.fetch_modes:
        pytest.skip(f"{mode.value} not served")
    target = await engine.store(item('the plan is "c++" and NOT the (old) one: title:secret'))
    # random syntax soup only where it can hurt (a lexical query language); vectors just cost time
    extra = _random_queries(60) if mode is FetchMode.LEXICAL else []
    for query in NASTY_QUERIES + extra:
        result = await engine.fetch(FetchRequest(query=query, mode=mode, limit=5))
        assert result.mode is mode
    if mode is FetchMode.LEXICAL:
        assert target.id in await fetch_ids(engine, 'what is "the plan', mode=mode)


async def test_nasty_recall_questions_are_answered(engine: MemoryEngine) -> None:
    await engine.store(item("the plan is to ship on friday"))
    for question in NASTY_QUERIES[:8]:
        result = await engine.recall(RecallRequest(question=question))
        assert isinstance(result.answer, str)


async def test_concurrent_stores_of_one_memory_make_one_row(engine: MemoryEngine) -> None:
    new = item("raced memory")
    results = await asyncio.gather(*(engine.store(new) for _ in range(8)))
    assert len({r.id for r in results}) == 1
    assert sorted(r.replayed for r in results) == [False] + [True] * 7
    assert await list_ids(engine) == [results[0].id]


async def test_concurrent_supersessions_leave_one_active_version(engine: MemoryEngine) -> None:
    about = About("user", "mood")
    results = await asyncio.gather(*(engine.store(item(f"mood is {n}", about=about)) for n in range(6)))
    assert len(await list_ids(engine, MetaFilter(about=about))) == 1
    closed = [sid for r in results for sid in r.superseded]
    assert len(closed) == len(set(closed)) == 5


async def test_restoring_the_active_version_is_a_replay(engine: MemoryEngine) -> None:
    about = About("user", "city")
    await engine.store(item("lives in paris", about=about))
    current = await engine.store(item("lives in lyon", about=about))
    again = await engine.store(item("lives in lyon", about=about))
    assert (again.id, again.replayed, again.superseded) == (current.id, True, ())


async def test_store_many_with_a_repeated_item(engine: MemoryEngine) -> None:
    results = await engine.store_many([item("twice in one batch"), item("twice in one batch")])
    assert results[0].id == results[1].id
    assert [r.replayed for r in results] == [False, True]
    assert await list_ids(engine) == [results[0].id]


async def test_unicode_normal_forms_are_one_memory(engine: MemoryEngine) -> None:
    composed = await engine.store(item(unicodedata.normalize("NFC", "caf\u00e9 au lait")))
    decomposed = await engine.store(item(unicodedata.normalize("NFD", "caf\u00e9 au lait")))
    assert decomposed.id == composed.id
    assert decomposed.replayed is True


async def test_get_deduplicates_ids_and_hides_superseded_outside_reach(engine: MemoryEngine) -> None:
    about = About("team", "lead")
    old = await engine.store(item("lead is ann", about=about, namespace="team:acme"))
    await engine.store(item("lead is bob", about=about, namespace="team:acme"))
    got = await engine.get(GetRequest(ids=(old.id, old.id)))
    assert [i.id for i in got.items] == [old.id]
    outside = await engine.get(GetRequest(ids=(old.id,), reach=Reach.exact(ns("team:globex"))))
    assert (outside.items, outside.missing) == ((), (old.id,))


async def test_as_of_is_confined_by_reach(engine: MemoryEngine, clock: SuiteClock) -> None:
    mine = await engine.store(item("walrus mine", namespace="team:acme"))
    await engine.store(item("walrus theirs", namespace="team:globex"))
    await clock.tick()
    flt = MetaFilter(as_of=clock.now(), reach=Reach.subtree(ns("team:acme")))
    assert await list_ids(engine, flt) == [mine.id]
    assert await fetch_ids(engine, "walrus", flt) == [mine.id]


async def test_recall_honours_filter_and_as_of(engine: MemoryEngine, clock: SuiteClock) -> None:
    about = About("user", "editor")
    old = await engine.store(item("the user edits with vim", about=about))
    await clock.tick()
    between = clock.now()
    await clock.tick()
    new = await engine.store(item("the user edits with emacs", about=about))
    doc = await engine.store(item("editor comparison document", ItemKind.DOCUMENT))
    now = await engine.recall(RecallRequest(question="which editor does the user use", limit=MAX_LIMIT))
    cited = {c.id for c in now.citations}
    assert new.id in cited and old.id not in cited
    then = await engine.recall(
        RecallRequest(question="which editor does the user use", filter=MetaFilter(as_of=between))
    )
    assert old.id in {c.id for c in then.citations}
    assert new.id not in {c.id for c in then.citations}
    docs = await engine.recall(
        RecallRequest(question="editor", filter=MetaFilter(kinds=(ItemKind.DOCUMENT,)), limit=MAX_LIMIT)
    )
    assert {c.id for c in docs.citations} == {doc.id}


async def test_storing_an_about_after_forgetting_supersedes_nothing(engine: MemoryEngine) -> None:
    about = About("user", "pet")
    first = await engine.store(item("has a cat", about=about))
    await engine.forget(ForgetRequest(ids=(first.id,)))
    second = await engine.store(item("has a dog", about=about))
    assert second.superseded == ()
    assert await list_ids(engine) == [second.id]


async def test_errors_are_contract_errors(engine: MemoryEngine) -> None:
    """Whatever goes wrong surfaces as a TinyMemoryError, never a driver exception."""
    with pytest.raises(TinyMemoryError):
        await engine.fetch(FetchRequest(query="x", cursor="\x00\x01garbage"))
    with pytest.raises(TinyMemoryError):
        await engine.get(GetRequest(ids=("x" * 300,)))


async def test_two_engines_on_one_file_see_each_other(engine_factory: EngineFactory, tmp_path: Path) -> None:
    if not engine_factory.shares_storage:
        pytest.skip(f"{engine_factory.name}: its storage is private to one engine")
    async with engine_factory.open(tmp_path) as a, engine_factory.open(tmp_path) as b:
        stored = await a.store(item("written by a"))
        assert await list_ids(b) == [stored.id]
        again = await b.store(item("written by a"))
        assert (again.id, again.replayed) == (stored.id, True)
        await b.forget(ForgetRequest(ids=(stored.id,)))
        assert await list_ids(a) == []
