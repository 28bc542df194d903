"""FetchRequest.explain: each hit's signals (lexical, semantic, reranker, time, final), consistent with
the order the fetch returned, absent and free when not asked; on the engine the switch names."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from engines import make_engine
from tinymemory.api import (
    FetchMode,
    FetchRequest,
    InvalidRequest,
    ItemKind,
    ItemMeta,
    MemoryEngine,
    MetaFilter,
    Namespace,
    NewItem,
    Reach,
    TimeHint,
)
from tinymemory.retrieval.features import FEATURES

NOW = datetime(2026, 3, 1, tzinfo=UTC)
MINE = Namespace.parse("tenant:a/user:u")
OTHER = Namespace.parse("tenant:b/user:v")
TEXTS = (
    "The user drinks oat milk flat whites every morning.",
    "Coffee beans come from the roaster on Elm street.",
    "The team ships the parser release on Friday.",
    "The user is allergic to peanuts and shellfish.",
    "A flat white is stronger than a latte.",
)


@pytest.fixture
async def engine(tmp_path: Path) -> AsyncIterator[MemoryEngine]:
    eng = make_engine(tmp_path / "m.db", embedder="default")
    for text in TEXTS:
        await eng.store(NewItem(ItemKind.LEARNING, text, ItemMeta(namespace=MINE, observed_at=NOW)))
    for text in ("flat white secrets of tenant b", "flat white flat white coffee"):
        await eng.store(NewItem(ItemKind.LEARNING, text, ItemMeta(namespace=OTHER, observed_at=NOW)))
    yield eng
    await eng.close()


def modes(engine: MemoryEngine) -> tuple[FetchMode, ...]:
    return engine.descriptor.fetch_modes


MY = MetaFilter(reach=Reach.of(MINE))


async def test_explained_hits_carry_signals_in_the_answer_order(engine: MemoryEngine) -> None:
    for mode in modes(engine):
        req = FetchRequest("flat white coffee", mode=mode, filter=MY, explain=True)
        hits = (await engine.fetch(req)).hits
        assert hits, mode
        whys = [h.why for h in hits]
        assert all(w is not None for w in whys), mode
        ranks = [w.rank for w in whys if w is not None]
        assert ranks == list(range(1, len(hits) + 1)), mode
        finals = [w.score for w in whys if w is not None]
        assert finals == sorted(finals, reverse=True), mode
        for h, w in zip(hits, whys, strict=True):
            assert w is not None
            assert h.score == round(w.score, 6)
            assert w.lexical is not None or w.semantic is not None, mode
            if mode is FetchMode.LEXICAL:
                assert w.semantic is None and w.lexical_rank is not None
            if mode is FetchMode.SEMANTIC:
                assert w.lexical is None and w.semantic_rank is not None
            if w.reranker is not None:  # the feature reranker ran: its output times the prior is final
                assert w.features is not None and [k for k, _ in w.features] == list(FEATURES)
                assert w.prior is not None
                assert w.score == pytest.approx(w.reranker * w.prior)
            as_json = w.as_json()
            assert as_json["rank"] == w.rank and "time" not in as_json


async def test_lexical_signals_rank_the_matching_memory_first(engine: MemoryEngine) -> None:
    req = FetchRequest("peanuts", mode=FetchMode.LEXICAL, filter=MY, explain=True)
    hits = (await engine.fetch(req)).hits
    assert hits[0].item.text == TEXTS[3]
    why = hits[0].why
    assert why is not None and why.lexical_rank == 1 and why.lexical is not None and why.lexical > 0


async def test_without_explain_the_answer_is_unchanged(engine: MemoryEngine) -> None:
    for mode in modes(engine):
        plain = await engine.fetch(FetchRequest("flat white coffee", mode=mode, filter=MY))
        explained = await engine.fetch(FetchRequest("flat white coffee", mode=mode, filter=MY, explain=True))
        assert all(h.why is None for h in plain.hits)
        assert [(h.item.id, h.score) for h in plain.hits] == [(h.item.id, h.score) for h in explained.hits]


async def test_signals_come_from_the_reach_alone(engine: MemoryEngine, tmp_path: Path) -> None:
    """The other tenant's rows change nothing a caller is told: the same signals as a store without them."""
    alone = make_engine(tmp_path / "alone.db", embedder="default")
    try:
        for text in TEXTS:
            await alone.store(NewItem(ItemKind.LEARNING, text, ItemMeta(namespace=MINE, observed_at=NOW)))
        for mode in modes(engine):
            req = FetchRequest("flat white coffee", mode=mode, filter=MY, explain=True)
            shared = [(h.item.text, h.why) for h in (await engine.fetch(req)).hits]
            own = [(h.item.text, h.why) for h in (await alone.fetch(req)).hits]
            assert shared == own, mode
    finally:
        await alone.close()


async def test_a_derived_time_hint_says_it_boosted(engine: MemoryEngine) -> None:
    req = FetchRequest("peanuts on March 1, 2026", mode=FetchMode.LEXICAL, filter=MY, explain=True)
    hits = (await engine.fetch(req)).hits
    boosted = [h.why for h in hits if h.why is not None and h.why.time == "boosted"]
    assert boosted and all(w.time_boost is not None and w.time_boost > 1 for w in boosted)


async def test_explain_must_be_a_boolean(engine: MemoryEngine) -> None:
    with pytest.raises(InvalidRequest, match=r"fetch: `explain`"):
        await engine.fetch(FetchRequest("coffee", explain="yes"))  # type: ignore[arg-type]


def test_the_facade_takes_explain(tmp_path: Path) -> None:
    from tinymemory import Memory

    with Memory(tmp_path / "mem.db", namespace="team:acme/agent:writer", embedder=None) as mem:
        mem.store("The parser release ships on Friday.")
        mem.store("Lunch is at noon.")
        plain = mem.fetch("parser release")
        explained = mem.fetch("parser release", explain=True)
    assert plain.hits and all(h.why is None for h in plain.hits)
    assert [h.item.id for h in explained.hits] == [h.item.id for h in plain.hits]
    why = explained.hits[0].why
    assert why is not None and why.rank == 1 and why.lexical_rank == 1 and why.semantic is None


async def test_an_explicit_time_hint_says_it_came_first(engine: MemoryEngine) -> None:
    later = datetime(2026, 6, 1, tzinfo=UTC)
    await engine.store(
        NewItem(ItemKind.LEARNING, "Peanuts again, in June.", ItemMeta(namespace=MINE, observed_at=later))
    )
    hint = TimeHint(datetime(2026, 6, 1, tzinfo=UTC), datetime(2026, 6, 2, tzinfo=UTC))
    req = FetchRequest("peanuts", mode=FetchMode.LEXICAL, filter=MY, time_hint=hint, explain=True)
    hits = (await engine.fetch(req)).hits
    assert hits[0].item.text == "Peanuts again, in June."
    assert [h.why.time if h.why else None for h in hits] == ["first"] + [None] * (len(hits) - 1)
    assert [h.why.rank for h in hits if h.why] == list(range(1, len(hits) + 1))


async def test_a_day_named_outright_says_its_memory_came_first(tmp_path: Path) -> None:
    """day_first raises the score of memory dated to the day by its own words above the list's best,
    so its reason is "first", not the boost the other memory of the window got."""
    said, on_the_day = datetime(2022, 5, 2, 15, tzinfo=UTC), datetime(2022, 5, 1, 12, tzinfo=UTC)
    engine = make_engine(tmp_path / "d.db", embedder=None)
    try:

        def turn(text: str, when: datetime, thread: str) -> NewItem:
            return NewItem(ItemKind.CONVERSATION, text, ItemMeta(observed_at=when, thread_id=thread))

        await engine.store_many(
            [
                turn("Ana: which movie should I watch? I love a movie with a twist", NOW, "a"),
                turn("Ana: my favourite movie is a long one", on_the_day, "b"),  # said that day
                turn("Ana: finally saw Dune last night", said, "c"),  # its own words: 1 May
            ]
        )
        req = FetchRequest("What movie did Ana watch on 1 May 2022?", mode=FetchMode.LEXICAL, explain=True)
        why = {h.item.text: h.why for h in (await engine.fetch(req)).hits}
        dated, boosted = why["Ana: finally saw Dune last night"], why["Ana: my favourite movie is a long one"]
        assert dated is not None and dated.rank == 1
        assert (dated.time, dated.time_boost) == ("first", None)
        assert boosted is not None and boosted.time == "boosted" and boosted.time_boost == 1.25
        assert why["Ana: which movie should I watch? I love a movie with a twist"].time is None  # type: ignore[union-attr]
    finally:
        await engine.close()
