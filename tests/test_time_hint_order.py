"""An explicit time hint's promise, on the engine: the rows about the hinted days come first whatever
stage runs after the hint (the `decompose` stage's merge of several reads, the `links` stage's added
rows), and nothing is dropped. Engine-neutral: it runs on whichever engine tests/engines.py names."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from engines import make_engine
from tinymemory.api import FetchMode, FetchRequest, ItemKind, ItemMeta, MemoryEngine, NewItem, TimeHint
from tinymemory.retrieval.config import DEFAULT_CONFIG
from tinymemory.retrieval.decompose import sub_questions

DAY = datetime(2024, 3, 4, tzinfo=UTC)
HINT = TimeHint(start=DAY, end=DAY + timedelta(days=1))


def turn(text: str, days: int, thread: str = "s1") -> NewItem:
    """A conversation turn observed `days` after the hinted day, at noon."""
    when = DAY + timedelta(days=days, hours=12)
    return NewItem(ItemKind.CONVERSATION, text, meta=ItemMeta(thread_id=thread, observed_at=when))


async def order(engine: MemoryEngine, query: str, mode: FetchMode | None = None) -> list[str]:
    res = await engine.fetch(FetchRequest(query, mode=mode, time_hint=HINT, limit=20))
    scores = [h.score for h in res.hits]
    assert scores == sorted(scores, reverse=True)  # the order is the scores' order
    return [h.item.text for h in res.hits]


def first_then_rest(got: list[str], hinted: set[str], everything: set[str]) -> None:
    assert set(got[: len(hinted)]) == hinted  # the hinted rows first
    assert set(got) == everything  # nothing dropped


async def test_a_decomposed_question_keeps_the_hinted_rows_first(tmp_path: Path) -> None:
    question = "What did Ana and Ben cook for dinner?"
    assert len(sub_questions(question)) == 2  # the merge of three reads runs
    texts = [
        "Ben: I cooked a spicy curry for dinner, Ana loved the dinner",  # the best match, another day
        "Ben: we cooked dinner together, Ana and I cooked pasta",
        "Ana: a quiet evening",  # on the hinted day, a weak match
        "Ben: the weather turned cold",  # on the hinted day, no match at all
    ]
    engine = make_engine(tmp_path / "d.db", embedder=None)
    try:
        await engine.store_many([turn(texts[0], 2), turn(texts[1], 3), turn(texts[2], 0), turn(texts[3], 0)])
        got = await order(engine, question, FetchMode.LEXICAL)
        first_then_rest(got, {texts[2], texts[3]}, set(texts))
    finally:
        await engine.close()


async def test_rows_the_links_stage_adds_stay_below_the_hinted_rows(tmp_path: Path) -> None:
    engine = make_engine(tmp_path / "l.db", embedder="default")
    if FetchMode.HYBRID not in engine.descriptor.fetch_modes:
        await engine.close()
        pytest.skip("no embedder here")
    best = "Jon: the dance festival in Lisbon was loud, the dance went on all night"
    hinted = "Gina: they said Rita loved the dance"  # the hinted day; it names Rita, a rare name
    linked = "Jon: I talked with Rita about the old trams"  # holds Rita too: the links stage adds it
    other = "Gina: the garden needs weeding before the rain"
    try:
        await engine.store_many([turn(best, 2), turn(hinted, 0), turn(linked, 5, "s2"), turn(other, 7)])
        query = "Who enjoyed the dance festival?"
        got = await order(engine, query, FetchMode.HYBRID)
        res = await engine.fetch(FetchRequest(query, mode=FetchMode.HYBRID, time_hint=HINT, limit=20))
        linked_score = {h.item.text: h.score for h in res.hits}[linked]
        first_then_rest(got, {hinted}, set(got) | {best, hinted, linked})
        engine.retrieval = DEFAULT_CONFIG.without("links")  # type: ignore[attr-defined]
        res = await engine.fetch(FetchRequest(query, mode=FetchMode.HYBRID, time_hint=HINT, limit=20))
        assert linked_score != {h.item.text: h.score for h in res.hits}[linked]  # the links stage acted
    finally:
        await engine.close()
