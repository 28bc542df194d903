"""Reads specific to this engine: reach compiled to SQL, time hints, hybrid scores, recall, explore."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from test_sqlite_support import HashEmbedder, note, ns
from tinymemory.api import (
    ExploreRequest,
    Facet,
    FetchMode,
    FetchRequest,
    ForgetRequest,
    GetRequest,
    ListRequest,
    MetaFilter,
    Reach,
    RecallRequest,
    TimeHint,
)
from tinymemory.engines.sqlite import SqliteEngine, reads, search
from tinymemory.engines.sqlite.where import reach_sql

MONDAY = datetime(2024, 5, 6, 9, tzinfo=UTC)
TUESDAY = MONDAY + timedelta(days=1)


@pytest.fixture
async def engine(tmp_path: Path):  # type: ignore[no-untyped-def]
    async with SqliteEngine(tmp_path / "mem.db", embedder=HashEmbedder()) as eng:
        yield eng


async def test_subtree_reach_is_exact_about_segment_boundaries(engine: SqliteEngine) -> None:
    placed = {}
    for where in ("team:a_b", "team:a_b/agent:x", "team:aXb", "team:a_bc", "team:a_b0", ""):
        placed[where] = (await engine.store(note(f"memo in {where or 'root'}", at=where))).id
    got = await engine.list(ListRequest(filter=MetaFilter(reach=Reach.subtree(ns("team:a_b"))), limit=50))
    assert {i.id for i in got.items} == {placed["team:a_b"], placed["team:a_b/agent:x"]}
    everything = await engine.list(ListRequest(filter=MetaFilter(reach=Reach.subtree(ns(""))), limit=50))
    assert len(everything.items) == 6
    inherit = await engine.list(
        ListRequest(filter=MetaFilter(reach=Reach.of(ns("team:a_b/agent:x"))), limit=50)
    )
    assert {i.id for i in inherit.items} == {placed[""], placed["team:a_b"], placed["team:a_b/agent:x"]}
    assert reach_sql(Reach.subtree(ns("")), []) is None


async def test_time_hint_ranks_the_asked_day_first_and_drops_nothing(engine: SqliteEngine) -> None:
    about_tuesday = await engine.store(note("standup notes meeting", observed=MONDAY, event_from=TUESDAY))
    plain = await engine.store(note("standup notes meeting meeting standup", observed=MONDAY))
    hint = TimeHint(TUESDAY.replace(hour=0), TUESDAY.replace(hour=0) + timedelta(days=1))
    for mode in FetchMode:
        no_hint = [h.item.id for h in (await engine.fetch(FetchRequest("standup meeting", mode=mode))).hits]
        hinted = [
            h.item.id
            for h in (await engine.fetch(FetchRequest("standup meeting", mode=mode, time_hint=hint))).hits
        ]
        assert hinted[0] == about_tuesday.id and set(hinted) == set(no_hint) == {about_tuesday.id, plain.id}


async def test_hybrid_is_the_default_and_scores_are_unit_range_and_ordered(engine: SqliteEngine) -> None:
    await engine.store_many([note(f"river boat trip number {i}", confidence=0.5 + i / 40) for i in range(15)])
    res = await engine.fetch(FetchRequest("boat trip"))
    assert res.mode is FetchMode.HYBRID
    scores = [h.score for h in res.hits]
    assert scores == sorted(scores, reverse=True) and all(0 < s <= 1 for s in scores)


async def test_recall_cites_the_hits_it_quotes(engine: SqliteEngine) -> None:
    owner = await engine.store(note("Alice owns the billing service."))
    await engine.store(note("The office plant needs water."))
    res = await engine.recall(RecallRequest("who owns billing?", mode=FetchMode.LEXICAL))
    assert res.answer == "Alice owns the billing service."
    assert [c.id for c in res.citations] == [owner.id]


async def test_explore_orders_buckets_and_counts_missing(engine: SqliteEngine) -> None:
    for i, tags in enumerate([("x", "y"), ("y",), ("y",), ()]):
        await engine.store(note(f"n{i}", tags=tags, language="en" if i < 3 else None))
    tags = await engine.explore(ExploreRequest(Facet.TAG, limit=1))
    assert [(b.value, b.count) for b in tags.buckets] == [("y", 3)]
    assert (tags.total, tags.missing, tags.more_buckets, tags.truncated) == (4, 1, True, False)
    lang = await engine.explore(ExploreRequest(Facet.LANGUAGE))
    assert [(b.value, b.count) for b in lang.buckets] == [("en", 3)] and lang.missing == 1


async def test_get_keeps_request_order_and_confines_to_reach(engine: SqliteEngine) -> None:
    a = await engine.store(note("in a", at="team:a"))
    b = await engine.store(note("in b", at="team:b"))
    got = await engine.get(GetRequest((b.id, a.id, "m_unknown")))
    assert [i.id for i in got.items] == [b.id, a.id]
    scoped = await engine.get(GetRequest((b.id, a.id), reach=Reach.exact(ns("team:a"))))
    assert [i.id for i in scoped.items] == [a.id] and scoped.missing == (b.id,)


async def test_rows_forgotten_between_the_two_read_phases_are_dropped(engine: SqliteEngine) -> None:
    keep = await engine.store(note("violin lesson on thursday"))
    gone = await engine.store(note("violin concert tickets"))

    def phase_one(conn: sqlite3.Connection) -> tuple[int, search.Ranked]:
        snap = search.max_rowid(conn)
        return snap, search.lexical(conn, engine.analyzer, "violin", MetaFilter(), snap, 10)

    snapshot, ranked = await engine.storage._run("t", phase_one)
    assert len(ranked) == 2
    await engine.forget(ForgetRequest(ids=(gone.id,)))
    survivors = await engine.storage._run(
        "t", lambda c: search.still_visible(c, ranked, MetaFilter(), snapshot)
    )
    left = await engine.storage._run("t", lambda c: reads.items_by_rowid(c, [r for r, _ in survivors]))
    assert [i.id for i in left.values()] == [keep.id]
