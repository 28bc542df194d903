"""fetch in each served mode, the descriptor's honesty, TimeHint boosts, and recall."""

from __future__ import annotations

import pytest

from tinymemory.api import (
    MAX_LIMIT,
    FetchMode,
    FetchRequest,
    InvalidRequest,
    MemoryEngine,
    RecallRequest,
    TimeHint,
)
from tinymemory.testing import EngineFactory

from .helpers import at, item, list_ids


def test_descriptor_is_well_formed(engine: MemoryEngine) -> None:
    d = engine.descriptor
    assert d.name and isinstance(d.name, str)
    assert d.version and isinstance(d.version, str)
    assert d.fetch_modes, "an engine must serve at least one fetch mode"
    assert all(isinstance(m, FetchMode) for m in d.fetch_modes)
    assert len(set(d.fetch_modes)) == len(d.fetch_modes)


def test_descriptor_matches_what_the_factory_promises(
    engine: MemoryEngine, engine_factory: EngineFactory
) -> None:
    modes = set(engine.descriptor.fetch_modes)
    if engine_factory.semantic:
        assert {FetchMode.SEMANTIC, FetchMode.HYBRID} <= modes
        assert engine.descriptor.embedder
    else:
        assert modes == {FetchMode.LEXICAL}


@pytest.mark.parametrize("mode", list(FetchMode), ids=str)
@pytest.mark.asyncio
async def test_each_mode_is_served_or_refused(engine: MemoryEngine, mode: FetchMode) -> None:
    target = await engine.store(item("the kettle is in the kitchen cupboard"))
    await engine.store(item("bicycles are stored in the garage"))
    request = FetchRequest(query="kettle kitchen", mode=mode)
    if mode in engine.descriptor.fetch_modes:
        result = await engine.fetch(request)
        assert result.mode is mode
        assert result.hits, f"{mode.value} fetch found nothing"
        assert result.hits[0].item.id == target.id
        scores = [h.score for h in result.hits]
        assert scores == sorted(scores, reverse=True)
    else:
        with pytest.raises(InvalidRequest) as err:
            await engine.fetch(request)
        assert "mode" in str(err.value)
        assert mode.value in str(err.value)


@pytest.mark.asyncio
async def test_no_mode_uses_the_descriptor_default(engine: MemoryEngine) -> None:
    await engine.store(item("anything at all"))
    result = await engine.fetch(FetchRequest(query="anything"))
    assert result.mode is engine.descriptor.default_mode()


@pytest.mark.asyncio
async def test_lexical_fetch_drops_non_matching_items(engine: MemoryEngine) -> None:
    if FetchMode.LEXICAL not in engine.descriptor.fetch_modes:
        pytest.skip("lexical fetch not served")
    hit = await engine.store(item("the wifi password is on the fridge"))
    await engine.store(item("completely different subject"))
    result = await engine.fetch(FetchRequest(query="wifi password", mode=FetchMode.LEXICAL))
    assert [h.item.id for h in result.hits] == [hit.id]


@pytest.mark.asyncio
async def test_semantic_fetch_finds_a_paraphrase(engine: MemoryEngine) -> None:
    if FetchMode.SEMANTIC not in engine.descriptor.fetch_modes:
        pytest.skip("semantic fetch not served")
    car = await engine.store(item("the automobile needs new tyres before winter"))
    await engine.store(item("bananas are rich in potassium"))
    await engine.store(item("the quarterly tax return is due in april"))
    result = await engine.fetch(FetchRequest(query="car maintenance", mode=FetchMode.SEMANTIC))
    assert result.hits[0].item.id == car.id


@pytest.mark.asyncio
async def test_fetch_limit_is_respected(engine: MemoryEngine) -> None:
    await engine.store_many([item(f"otter fact {n}") for n in range(6)])
    result = await engine.fetch(FetchRequest(query="otter fact", limit=4))
    assert len(result.hits) == 4
    assert result.next_cursor is not None


@pytest.mark.parametrize("mode", list(FetchMode), ids=str)
@pytest.mark.asyncio
async def test_time_hint_ranks_matching_items_first_and_drops_nothing(
    engine: MemoryEngine, mode: FetchMode
) -> None:
    if mode not in engine.descriptor.fetch_modes:
        pytest.skip(f"{mode.value} not served")
    # the strongest text match is not about the hinted days; the weakest is
    strong = await engine.store(item("release release release notes for the release", observed_at=at()))
    middle = await engine.store(item("release checklist", observed_at=at()))
    about_day = await engine.store(
        item("release retro", observed_at=at(), event_from=at(days=6), event_to=at(days=6, minutes=60))
    )
    hint = TimeHint(start=at(days=6), end=at(days=7))
    result = await engine.fetch(FetchRequest(query="release", mode=mode, time_hint=hint, limit=MAX_LIMIT))
    got = [h.item.id for h in result.hits]
    assert got[0] == about_day.id
    assert {strong.id, middle.id} <= set(got), "a time hint must never drop memory"

    recalled = await engine.recall(
        RecallRequest(question="release", time_hint=hint, limit=MAX_LIMIT, mode=mode)
    )
    cited = [c.id for c in recalled.citations]
    assert cited[0] == about_day.id
    assert {strong.id, middle.id} <= set(cited)


@pytest.mark.asyncio
async def test_recall_answers_with_citations(engine: MemoryEngine) -> None:
    fact = await engine.store(item("the team standup is at 9:30 every weekday"))
    await engine.store(item("the coffee machine is broken"))
    result = await engine.recall(RecallRequest(question="when is the team standup", limit=5))
    assert isinstance(result.answer, str)
    assert result.answer.strip()
    assert result.citations
    assert result.citations[0].id == fact.id
    for c in result.citations:
        assert c.item.id == c.id
    assert len(result.citations) <= 5


@pytest.mark.asyncio
async def test_recall_on_an_empty_engine_cites_nothing(engine: MemoryEngine) -> None:
    result = await engine.recall(RecallRequest(question="anything stored?"))
    assert result.citations == ()
    assert isinstance(result.answer, str)
    assert await list_ids(engine) == []
