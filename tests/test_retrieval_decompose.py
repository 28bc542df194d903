"""The `decompose` stage: which questions split, how reads merge, and on the engine the switch names
that a split question's page is the merge of its parts' reads, pages alike through a cursor, and
moves nothing for another tenant's rows."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from engines import make_engine
from tinymemory.api import (
    FetchMode,
    FetchRequest,
    ItemKind,
    ItemMeta,
    MemoryEngine,
    MetaFilter,
    Namespace,
    NewItem,
    Reach,
    Source,
)
from tinymemory.retrieval.config import RetrievalConfig
from tinymemory.retrieval.decompose import sub_questions
from tinymemory.retrieval.pipeline import merge_reads, pool_size

NOW = datetime(2026, 3, 1, tzinfo=UTC)
MINE = Namespace.parse("tenant:a/user:u")
OTHER = Namespace.parse("tenant:b/user:v")
MY = MetaFilter(reach=Reach.exact(MINE))
TURNS = (
    ("Ana", "We watched Dune at the cinema last night, the sound was huge."),
    ("Ben", "Nice! I saw a film too, Arrival, on the sofa with tea."),
    ("Ana", "Movies with sand worms are my favourite kind of movies."),
    ("Ben", "My sister prefers comedies over anything with aliens."),
    ("Ana", "I also rewatched the Dune movie trailer three times."),
    ("Ben", "The garden needs weeding before the rain comes."),
    ("Ana", "I have seen every movie of that director, twice."),
    ("Ben", "Work was long today, the build broke again."),
)
QUESTION = "What movies have both Ana and Ben seen?"


def test_two_named_things_split_into_one_question_each() -> None:
    assert sub_questions(QUESTION) == (
        "What movies have both Ana seen?",
        "What movies have both Ben seen?",
    )
    assert sub_questions("Would I rather visit Rome or Paris?") == (
        "Would I rather visit Rome?",
        "Would I rather visit Paris?",
    )
    assert sub_questions("Where did Ana go in May, and what did she buy there?") == (
        "Where did Ana go in May",
        "what did she buy there?",
    )


def test_other_questions_are_read_once() -> None:
    for question in (
        "What did Ana paint?",
        "What books has Ana read?",
        "When did Ana go hiking and have a bad experience?",  # the second part has no question word
        "What and how much?",
        "what do ana and ben like?",  # names are capitalised words
        "",
    ):
        assert sub_questions(question) == (), question


def test_reads_merge_at_each_keys_best_score_first_read_first_on_ties() -> None:
    whole = [("a", 0.9), ("b", 0.5), ("c", 0.4)]
    part = [("c", 0.95), ("d", 0.5), ("a", 0.1)]
    assert merge_reads([whole, part]) == [("c", 0.95), ("a", 0.9), ("b", 0.5), ("d", 0.5)]
    assert merge_reads([whole]) == whole
    assert merge_reads([]) == []


async def _conversation(path: Path, others: bool = False, **kw: object) -> MemoryEngine:
    engine = make_engine(path, embedder="default", **kw)
    items = [
        NewItem(
            ItemKind.CONVERSATION,
            f"{who}: {text}",
            ItemMeta(
                namespace=MINE, observed_at=NOW + timedelta(minutes=i), thread_id="t1", source=Source(who)
            ),
        )
        for i, (who, text) in enumerate(TURNS)
    ]
    if others:  # another tenant's talk about the same people and films
        items += [
            NewItem(
                ItemKind.CONVERSATION,
                f"{who}: Ana and Ben have seen Dune and Arrival and every movie, {i}",
                ItemMeta(namespace=OTHER, observed_at=NOW, thread_id="t9", source=Source(who)),
            )
            for i, who in enumerate(("Ana", "Ben") * 4)
        ]
    await engine.store_many(items)
    return engine


def _texts(hits: object) -> list[tuple[str, float]]:
    return [(h.item.text, h.score) for h in hits]  # type: ignore[attr-defined]


async def test_a_split_question_pages_the_merge_of_its_parts_reads(tmp_path: Path) -> None:
    engine = await _conversation(tmp_path / "m.db")
    plain = await _conversation(tmp_path / "p.db", retrieval=RetrievalConfig().without("decompose"))
    try:
        for mode in engine.descriptor.fetch_modes:
            if mode is FetchMode.SEMANTIC:
                continue  # a semantic read is not pooled: nothing to merge, it is read once
            got = await engine.fetch(FetchRequest(QUESTION, mode=mode, filter=MY, limit=5))
            reads = []
            for text in (QUESTION, *sub_questions(QUESTION)):
                res = await plain.fetch(FetchRequest(text, mode=mode, filter=MY, limit=pool_size(5)))
                reads.append([(h.item.text, h.score) for h in res.hits])
            assert _texts(got.hits) == merge_reads(reads)[:5]
            whole = reads[0][:5]
            assert _texts(got.hits) != whole  # the parts' reads moved the order here
            # off, the same question is read once
            off = await plain.fetch(FetchRequest(QUESTION, mode=mode, filter=MY, limit=5))
            assert _texts(off.hits) == whole
    finally:
        await engine.close()
        await plain.close()


async def test_pages_through_a_cursor_follow_the_merged_order(tmp_path: Path) -> None:
    engine = await _conversation(tmp_path / "m.db")
    try:
        whole = await engine.fetch(FetchRequest(QUESTION, filter=MY, limit=6))
        seen: list[tuple[str, float]] = []
        res = await engine.fetch(FetchRequest(QUESTION, filter=MY, limit=2))
        seen += _texts(res.hits)
        while res.next_cursor is not None and len(seen) < 6:
            res = await engine.fetch(FetchRequest(QUESTION, filter=MY, limit=2, cursor=res.next_cursor))
            seen += _texts(res.hits)
        assert seen == _texts(whole.hits)
    finally:
        await engine.close()


async def test_an_explained_split_question_ranks_each_hit_where_the_merge_put_it(tmp_path: Path) -> None:
    engine = await _conversation(tmp_path / "m.db")
    try:
        plain = await engine.fetch(FetchRequest(QUESTION, filter=MY, limit=6))
        told = await engine.fetch(FetchRequest(QUESTION, filter=MY, limit=6, explain=True))
        assert _texts(told.hits) == _texts(plain.hits)
        for place, hit in enumerate(told.hits, start=1):
            assert hit.why is not None and hit.why.rank == place
            assert round(hit.why.score, 6) == hit.score
    finally:
        await engine.close()


@pytest.mark.parametrize("mode", [FetchMode.LEXICAL, FetchMode.HYBRID])
async def test_another_tenants_rows_move_nothing(tmp_path: Path, mode: FetchMode) -> None:
    alone = await _conversation(tmp_path / "a.db")
    crowded = await _conversation(tmp_path / "c.db", others=True)
    try:
        if mode not in alone.descriptor.fetch_modes:
            pytest.skip("no embedder here")
        a = await alone.fetch(FetchRequest(QUESTION, mode=mode, filter=MY, limit=8))
        c = await crowded.fetch(FetchRequest(QUESTION, mode=mode, filter=MY, limit=8))
        assert _texts(a.hits) == _texts(c.hits)
        assert all(h.item.meta.namespace == MINE for h in c.hits)
    finally:
        await alone.close()
        await crowded.close()
