"""The two privacy rules: a read sees only its reach (scores and order included), and forgotten means
forgotten (no read finds what a forgotten item contributed)."""

from __future__ import annotations

from typing import Any

import pytest

from tinymemory.api import (
    ExploreRequest,
    Facet,
    FetchMode,
    FetchRequest,
    ForgetRequest,
    GetRequest,
    ItemKind,
    MemoryEngine,
    MetaFilter,
    NewItem,
    PurgeRequest,
    Reach,
    RecallRequest,
)

from .helpers import at, item, list_ids, ns

pytestmark = pytest.mark.asyncio  # every test here is async; marked so strict mode runs them

MINE = Reach.of(ns("team:acme/agent:writer"))


def modes(engine: MemoryEngine) -> list[FetchMode]:
    return list(engine.descriptor.fetch_modes)


async def reads(engine: MemoryEngine, query: str) -> list[object]:
    """Everything a reader confined to MINE gets back for `query`, in every served mode."""
    flt = MetaFilter(reach=MINE)
    out: list[object] = []
    for mode in modes(engine):
        result = await engine.fetch(FetchRequest(query, mode=mode, filter=flt, limit=20))
        out.append([(mode, h.item.id, h.score) for h in result.hits])
    recall = await engine.recall(RecallRequest(query, filter=flt, limit=20))
    out.append((recall.answer, [(c.id, c.score) for c in recall.citations]))
    out.append(await engine.explore(ExploreRequest(Facet.TAG, filter=flt)))
    out.append(await list_ids(engine, flt))
    return out


async def test_scores_do_not_reveal_another_tenants_words(engine: MemoryEngine) -> None:
    """The reported leak: `probe initech` vs `probe globex` scored differently once another team held
    "initech". Now nothing another team stores, forgets or purges moves a confined read."""
    place = "team:acme/agent:writer"
    await engine.store(item("probe initech", namespace=place, tags=("probe",)))
    await engine.store(item("probe globex", namespace=place, tags=("probe",)))
    await engine.store(item("weekly planning notes", namespace="team:acme"))
    before = [await reads(engine, q) for q in ("initech", "globex", "probe initech", "planning")]
    others = [item(f"initech contract {i} initech", namespace="team:other") for i in range(30)]
    others.append(item("initech", namespace="team:acme/agent:sibling"))
    for other in others:
        await engine.store(other)
    assert [await reads(engine, q) for q in ("initech", "globex", "probe initech", "planning")] == before
    await engine.forget(ForgetRequest(filter=MetaFilter(namespace=ns("team:other"))))
    assert [await reads(engine, q) for q in ("initech", "globex", "probe initech", "planning")] == before
    await engine.purge(PurgeRequest())
    assert [await reads(engine, q) for q in ("initech", "globex", "probe initech", "planning")] == before


async def test_the_two_probe_words_score_alike_inside_the_reach(engine: MemoryEngine) -> None:
    place = "team:acme/agent:writer"
    await engine.store(item("probe initech", namespace=place))
    await engine.store(item("probe globex", namespace=place))
    for i in range(5):
        await engine.store(item(f"initech {i}", namespace="team:other"))
    flt = MetaFilter(reach=MINE)
    a = (await engine.fetch(FetchRequest("initech", mode=FetchMode.LEXICAL, filter=flt))).hits
    b = (await engine.fetch(FetchRequest("globex", mode=FetchMode.LEXICAL, filter=flt))).hits
    assert len(a) == len(b) == 1
    assert a[0].score == b[0].score


def turns(place: str = "team:acme/agent:writer") -> list[NewItem]:
    texts = ["we set up the new laptop today", "my password is zebrasecret42", "remember to buy coffee beans"]
    return [
        item(t, ItemKind.CONVERSATION, namespace=place, thread_id="t1", observed_at=at(minutes=i))
        for i, t in enumerate(texts)
    ]


async def test_a_forgotten_turn_is_not_found_through_its_neighbours(engine: MemoryEngine) -> None:
    stored = [(await engine.store(t)).id for t in turns()]
    await engine.forget(ForgetRequest(ids=(stored[1],)))
    for mode in modes(engine):
        for reach in (None, MINE):
            hits = (
                await engine.fetch(
                    FetchRequest("zebrasecret42", mode=mode, filter=MetaFilter(reach=reach), limit=50)
                )
            ).hits
            if mode is FetchMode.LEXICAL:
                assert hits == ()
            assert stored[1] not in [h.item.id for h in hits]
    await engine.purge(PurgeRequest())
    lex = await engine.fetch(FetchRequest("zebrasecret42", mode=FetchMode.LEXICAL))
    assert lex.hits == ()
    # the neighbours are still found by their own words, and now by each other's
    hits = (await engine.fetch(FetchRequest("coffee beans", mode=FetchMode.LEXICAL))).hits
    assert stored[2] in [h.item.id for h in hits]


async def test_forgetting_a_turn_forgets_what_cites_it(engine: MemoryEngine) -> None:
    stored = [(await engine.store(t)).id for t in turns()]
    learning = await engine.store(
        item(
            "the user's password is zebrasecret42", namespace="team:acme/agent:writer", evidence=(stored[1],)
        )
    )
    summary = await engine.store(
        item(
            "they talked about a laptop and a password",
            ItemKind.SUMMARY,
            namespace="team:acme/agent:writer",
            evidence=(stored[0], stored[1]),
        )
    )
    unrelated = await engine.store(
        item("prefers tea", namespace="team:acme/agent:writer", evidence=(stored[2],))
    )
    result = await engine.forget(ForgetRequest(ids=(stored[1],)))
    assert result.forgotten[0] == stored[1]
    assert set(result.forgotten) == {stored[1], learning.id, summary.id}
    got = await engine.get(GetRequest(ids=(learning.id, summary.id, unrelated.id)))
    assert [i.id for i in got.items] == [unrelated.id]
    for mode in modes(engine):
        hits = (await engine.fetch(FetchRequest("zebrasecret42 password", mode=mode, limit=50))).hits
        assert {learning.id, summary.id, stored[1]}.isdisjoint(h.item.id for h in hits)


async def test_a_cascade_never_leaves_the_reach(engine: MemoryEngine) -> None:
    stored = [(await engine.store(t)).id for t in turns()]
    elsewhere = await engine.store(item("copied note", namespace="team:other", evidence=(stored[1],)))
    await engine.forget(ForgetRequest(ids=(stored[1],), reach=MINE))
    assert [i.id for i in (await engine.get(GetRequest(ids=(elsewhere.id,)))).items] == [elsewhere.id]


@pytest.mark.parametrize("field", ["confidence", "title", "learning_kind"])
async def test_storing_again_with_a_correction_makes_a_new_version(engine: MemoryEngine, field: str) -> None:
    old = {"confidence": 0.5, "title": "Old title", "learning_kind": "fact"}
    new = {"confidence": 0.9, "title": "New title", "learning_kind": "preference"}

    def make(values: dict[str, Any]) -> NewItem:
        confidence: float = values["confidence"] if field == "confidence" else 0.5
        meta = {k: v for k, v in values.items() if k == field and k != "confidence"}
        return item("ships on fridays", confidence=confidence, observed_at=at(), tags=("ops",), **meta)

    first = await engine.store(make(old))
    second = await engine.store(make(new))
    assert second.replayed is False
    assert second.id != first.id
    assert second.superseded == (first.id,)
    got = (await engine.get(GetRequest(ids=(first.id, second.id)))).items
    current = next(i for i in got if i.id == second.id)
    previous = next(i for i in got if i.id == first.id)
    assert current.is_active and not previous.is_active
    if field == "confidence":
        assert current.confidence == pytest.approx(0.9)
    elif field == "title":
        assert current.meta.title == "New title"
    else:
        assert current.meta.learning_kind == "preference"
    assert current.meta.tags == ("ops",)
    assert await list_ids(engine) == [second.id]
    # the same correction again is a replay of the new version
    again = await engine.store(make(new))
    assert (again.id, again.replayed) == (second.id, True)
    # leaving a field out keeps it: not a correction
    plain = await engine.store(item("ships on fridays", observed_at=at()))
    assert (plain.id, plain.replayed) == (second.id, True)
