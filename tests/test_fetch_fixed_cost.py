"""What one fetch does once: one read transaction (where it is called for a small reach, else on a
reader thread), the query analysed once, a cursor sealed only for a page that has a next one, a busy
helper thread never waited for, a paged row decoded once, the reach's statistics read only when
weighed."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from test_sqlite_support import HashEmbedder, note, ns
from tinymemory.api import FetchMode, FetchRequest, MetaFilter, RecallRequest, validate
from tinymemory.engines.cursors import CursorCodec
from tinymemory.engines.sqlite import SqliteEngine
from tinymemory.engines.sqlite import engine as sqlite_engine
from tinymemory.retrieval import pipeline
from tinymemory.retrieval.config import DEFAULT_CONFIG
from tinymemory.retrieval.dates import mentions_time
from tinymemory.retrieval.query import QueryAnalysis
from tinymemory.retrieval.text import Analyzer, default_analyzer

T0 = datetime(2024, 3, 1, tzinfo=UTC)
USER = "team:acme/user:ana"


class QuickHash(HashEmbedder):
    """The test embedder, saying (as the static one does) that it embeds a query quicker than a hop."""

    inline_texts = 16


@pytest.fixture
async def engine(tmp_path: Path):  # type: ignore[no-untyped-def]
    async with SqliteEngine(tmp_path / "mem.db", embedder=QuickHash()) as eng:
        await eng.store_many(
            [
                note(f"garden note {i} about tomatoes and basil", at=USER, observed=T0 + timedelta(hours=i))
                for i in range(30)
            ]
            + [note(f"another user's tomatoes {i}", at="team:acme/user:bob") for i in range(10)]
        )
        yield eng


def counting(monkeypatch: pytest.MonkeyPatch, owner: Any, name: str) -> list[int]:
    """Count the calls of `owner.name` (the real one still runs)."""
    calls: list[int] = []
    real: Callable[..., Any] = getattr(owner, name)

    def spy(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(owner, name, spy)
    return calls


def where_read(monkeypatch: pytest.MonkeyPatch, engine: SqliteEngine) -> list[str]:
    """The names of the threads the engine's fetches read on (the real read still runs)."""
    names: list[str] = []
    real = engine.storage._fetch_in

    def spy(*args: Any) -> Any:
        names.append(threading.current_thread().name)
        return real(*args)

    monkeypatch.setattr(engine.storage, "_fetch_in", spy)
    return names


@pytest.mark.parametrize("mode", list(FetchMode))
async def test_a_fetch_is_one_read_transaction(
    engine: SqliteEngine, monkeypatch: pytest.MonkeyPatch, mode: FetchMode
) -> None:
    flt = MetaFilter(namespace=ns(USER))
    await engine.fetch(FetchRequest("tomatoes basil", mode=mode, filter=flt))  # opens the readers
    from tinymemory.engines.sqlite import db

    transactions = counting(monkeypatch, db, "in_read")
    res = await engine.fetch(FetchRequest("tomatoes basil", mode=mode, filter=flt))
    assert res.hits and all(h.item.namespace == ns(USER) for h in res.hits)
    assert len(transactions) == 1


@pytest.mark.parametrize("mode", list(FetchMode))
async def test_a_small_reach_read_again_runs_where_it_is_called_and_ranks_the_same(
    engine: SqliteEngine, monkeypatch: pytest.MonkeyPatch, mode: FetchMode
) -> None:
    """A reach's first fetch runs on a reader thread; once its reads are known to be small, the next
    runs on the calling thread (no hop), with the same page, scores and cursor. (Small here is at
    most a second: which reads are small is the next test's.)"""
    monkeypatch.setattr(sqlite_engine, "INLINE_READ_S", 1.0)
    flt = MetaFilter(namespace=ns(USER))
    req = FetchRequest("tomatoes basil", mode=mode, filter=flt, limit=5)
    names = where_read(monkeypatch, engine)
    first = await engine.fetch(req)
    again = await engine.fetch(req)
    assert names[0].startswith("tinymemory-sqlite-read") and names[1] == threading.current_thread().name
    assert [(h.item, h.score) for h in again.hits] == [(h.item, h.score) for h in first.hits]
    codec = await engine._cursors("fetch")
    assert first.next_cursor and again.next_cursor
    assert codec.open("fetch", "fetch", again.next_cursor) == codec.open("fetch", "fetch", first.next_cursor)
    later = [
        await engine.fetch(FetchRequest(req.query, mode=mode, filter=flt, limit=5, cursor=c))
        for c in (first.next_cursor, again.next_cursor)
    ]
    assert later[0].hits == later[1].hits


async def test_a_whole_store_read_and_a_read_beside_another_stay_on_reader_threads(
    engine: SqliteEngine, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sqlite_engine, "INLINE_READ_S", 1.0)
    names = where_read(monkeypatch, engine)
    whole = FetchRequest("tomatoes basil", mode=FetchMode.HYBRID)
    await engine.fetch(whole)
    await engine.fetch(whole)
    assert all(n.startswith("tinymemory-sqlite-read") for n in names)
    names.clear()
    small = FetchRequest("tomatoes basil", mode=FetchMode.HYBRID, filter=MetaFilter(namespace=ns(USER)))
    await engine.fetch(small)  # now known to be small
    names.clear()
    release = threading.Event()
    busy = asyncio.ensure_future(engine.storage._read("t", lambda c: release.wait(30)))
    await asyncio.sleep(0.05)  # the other read is under way on a reader thread
    try:
        await engine.fetch(small)
    finally:
        release.set()
        await busy
    await engine.fetch(small)  # alone again: where it is called
    me = threading.current_thread().name
    assert names[0].startswith("tinymemory-sqlite-read") and names[1] == me


@pytest.mark.parametrize("mode", list(FetchMode))
async def test_a_query_an_embedder_is_slow_to_embed_is_read_on_a_reader_thread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: FetchMode
) -> None:
    monkeypatch.setattr(sqlite_engine, "INLINE_READ_S", 1.0)
    async with SqliteEngine(tmp_path / "m.db", embedder=HashEmbedder()) as slow:  # says nothing
        await slow.store_many([note(f"basil note {i} tomatoes", at=USER) for i in range(12)])
        names = where_read(monkeypatch, slow)
        req = FetchRequest("basil tomatoes", mode=mode, filter=MetaFilter(namespace=ns(USER)))
        await slow.fetch(req)
        await slow.fetch(req)
    here = names[1] == threading.current_thread().name
    assert here == (mode is FetchMode.LEXICAL)


async def test_a_read_slower_than_small_stays_on_reader_threads(
    engine: SqliteEngine, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sqlite_engine, "INLINE_READ_S", 0.0)
    names = where_read(monkeypatch, engine)
    small = FetchRequest("tomatoes basil", mode=FetchMode.LEXICAL, filter=MetaFilter(namespace=ns(USER)))
    for _ in range(3):
        await engine.fetch(small)
    assert all(n.startswith("tinymemory-sqlite-read") for n in names)


async def test_a_read_sqlite_cannot_start_at_once_is_handed_on(engine: SqliteEngine) -> None:
    """A read where it is called never sleeps on a lock: SQLite's refusal (a lock held elsewhere) hands
    it to a reader thread (None); any other database error is the engine's Unavailable."""
    import sqlite3

    from tinymemory.api.errors import Unavailable
    from tinymemory.engines.sqlite.engine import SqliteStorage

    conn = engine.storage._db.here() or await engine.storage._db.open_here()
    assert conn is not None
    assert conn.execute("PRAGMA busy_timeout").fetchone()[0] == 0

    def refused(c: sqlite3.Connection) -> Any:
        raise sqlite3.OperationalError("database is locked")

    def broken(c: sqlite3.Connection) -> Any:
        raise sqlite3.OperationalError("no such table: items")

    assert SqliteStorage._read_here("fetch", conn, refused) is None
    with pytest.raises(Unavailable, match="fetch: database error"):
        SqliteStorage._read_here("fetch", conn, broken)
    assert not conn.in_transaction


async def test_a_cursor_is_sealed_only_for_a_page_with_a_next_one(
    engine: SqliteEngine, monkeypatch: pytest.MonkeyPatch
) -> None:
    flt = MetaFilter(namespace=ns(USER))
    seals = counting(monkeypatch, CursorCodec, "seal")
    first = await engine.fetch(FetchRequest("tomatoes", mode=FetchMode.HYBRID, filter=flt, limit=25))
    assert first.next_cursor is not None and len(seals) == 1
    last = await engine.fetch(
        FetchRequest("tomatoes", mode=FetchMode.HYBRID, filter=flt, limit=25, cursor=first.next_cursor)
    )
    assert last.next_cursor is None and len(seals) == 1
    # recall answers from one page and returns no cursor: it seals none, though more hits follow
    answered = await engine.recall(RecallRequest("tomatoes", filter=flt, limit=3))
    assert answered.citations and len(seals) == 1


async def test_a_busy_helper_is_not_waited_for(engine: SqliteEngine) -> None:
    flt = MetaFilter(namespace=ns(USER))
    req = FetchRequest("tomatoes basil", mode=FetchMode.HYBRID, filter=flt)
    free = await engine.fetch(req)
    release = threading.Event()
    helper = engine.storage._helper
    busy = [helper.submit(release.wait, 30) for _ in range(helper._max_workers)]
    try:
        held = await asyncio.wait_for(engine.fetch(req), timeout=10)
    finally:
        release.set()
    assert all(b.result() for b in busy)
    assert [(h.item.id, h.score) for h in held.hits] == [(h.item.id, h.score) for h in free.hits]


def test_a_query_analysis_holds_what_each_stage_reads() -> None:
    analyzer = default_analyzer()
    for text in ("What did Ana paint last May?", "what do you know about me?", "tomatoes"):
        got = QueryAnalysis.of(text, analyzer)
        assert got.text == text
        assert list(got.terms) == analyzer.query_terms(text)
        assert got.content == analyzer.has_content_words(text)
        assert got.timed == mentions_time(text)


def test_query_terms_are_a_fresh_list_each_time() -> None:
    analyzer = Analyzer()
    terms = analyzer.query_terms("Which tomatoes did Ana plant?")
    terms.append("mutated")
    assert analyzer.query_terms("Which tomatoes did Ana plant?") == ["tomato", "ana", "plant"]


def test_an_analysed_query_ranks_as_its_text_does() -> None:
    analyzer = default_analyzer()
    text = "when did I paint the lake yesterday?"
    light = {
        1: pipeline.Light(None, 1_700_000_000_000_000, None, None, "I paint the lake at dawn", "Ana"),
        2: pipeline.Light(0.4, 1_700_000_100_000_000, None, None, "a walk by the lake?", "Bob"),
    }
    stats = pipeline.ScopeStats(2, 12, {"paint": 1, "lake": 2})
    lex, sem = [(1, 0.7), (2, 0.5)], [(2, 0.9), (1, 0.3)]
    for mode in FetchMode:
        pages = [
            pipeline.FetchRanking(mode, query, None, 0, 10, DEFAULT_CONFIG, analyzer).page(
                lex, sem, light, stats, None
            )
            for query in (text, QueryAnalysis.of(text, analyzer))
        ]
        assert pages[0] == pages[1]
    assert pipeline.FetchPlan.make(
        FetchMode.LEXICAL, QueryAnalysis.of(text, analyzer), 10, None, DEFAULT_CONFIG
    ) == (pipeline.FetchPlan.make(FetchMode.LEXICAL, text, 10, None, DEFAULT_CONFIG))


def test_a_valid_request_passes_its_checks_uncopied() -> None:
    modes = (FetchMode.LEXICAL, FetchMode.SEMANTIC, FetchMode.HYBRID)
    req = FetchRequest("tomatoes", mode=FetchMode.HYBRID, filter=MetaFilter(namespace=ns(USER)))
    assert validate.check_fetch(req, modes) is req
    cet = datetime(2024, 3, 1, 13, tzinfo=timezone(timedelta(hours=1)))
    timed = FetchRequest("tomatoes", filter=MetaFilter(observed_after=cet))
    checked = validate.check_fetch(timed, modes)  # a time in another zone comes back in UTC
    assert checked is not timed and checked.filter.observed_after == cet
    assert checked.filter.observed_after is not None and checked.filter.observed_after.tzinfo is UTC


async def test_a_small_file_holds_its_vectors_and_ranks_the_same(
    engine: SqliteEngine, monkeypatch: pytest.MonkeyPatch
) -> None:
    flt = MetaFilter(namespace=ns(USER))
    pages = {}
    for mode in (FetchMode.SEMANTIC, FetchMode.HYBRID):
        res = await engine.fetch(FetchRequest("basil tomatoes", mode=mode, filter=flt, limit=12))
        pages[mode] = [(h.item.id, h.score) for h in res.hits]
    matrix = engine.storage._matrix
    assert matrix is not None and matrix.loaded  # a 40-row file: its vectors are held after one read
    monkeypatch.setattr(sqlite_engine, "MATRIX_FILE_ROWS", 0)  # every read takes the reach's from SQL
    async with SqliteEngine(engine.path, embedder=HashEmbedder()) as fresh:
        for mode, page in pages.items():
            res = await fresh.fetch(FetchRequest("basil tomatoes", mode=mode, filter=flt, limit=12))
            assert [(h.item.id, h.score) for h in res.hits] == page
        assert fresh.storage._matrix is not None and not fresh.storage._matrix.loaded


async def test_a_page_row_read_again_is_decoded_once(
    engine: SqliteEngine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A row comes back from the file as it was written: a later fetch that pages it again reuses its
    decoded item (equal to a fresh decoding), and a row whose columns changed is decoded anew."""
    from tinymemory.engines.sqlite import reads

    flt = MetaFilter(namespace=ns(USER))
    req = FetchRequest("tomatoes basil", mode=FetchMode.HYBRID, filter=flt, limit=5)
    first = await engine.fetch(req)
    decoded = counting(monkeypatch, reads, "decode_row")
    again = await engine.fetch(req)
    assert again.hits == first.hits and decoded == []
    fresh = await engine.storage._read("t", lambda c: reads.items_by_rowid(c, [1, 2], reads.decode_row))
    held = await engine.storage._read("t", lambda c: reads.items_by_rowid(c, [1, 2], engine.storage._decoded))
    assert held == fresh
    # a forgotten row reads differently (forgotten_at): its old decoding is never handed out
    from tinymemory.api import ForgetRequest

    await engine.forget(ForgetRequest(ids=(first.hits[0].item.id,)))
    after = await engine.storage._read(
        "t", lambda c: reads.items_by_rowid(c, [1, 2], engine.storage._decoded)
    )
    direct = await engine.storage._read("t", lambda c: reads.items_by_rowid(c, [1, 2], reads.decode_row))
    assert after == direct


async def test_a_purge_drops_the_decoded_rows(engine: SqliteEngine) -> None:
    from tinymemory.api import ForgetRequest, PurgeRequest

    flt = MetaFilter(namespace=ns(USER))
    res = await engine.fetch(FetchRequest("tomatoes basil", mode=FetchMode.HYBRID, filter=flt, limit=5))
    assert engine.storage._decoded.cache_info().currsize > 0
    await engine.forget(ForgetRequest(ids=(res.hits[0].item.id,)))
    await engine.purge(PurgeRequest())
    assert engine.storage._decoded.cache_info().currsize == 0


async def test_a_pooled_row_outside_a_thread_is_read_once_and_ranks_the_same(
    engine: SqliteEngine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A candidate's light columns never change once written (outside a thread): a later fetch that
    pools it again takes them from the engine's cache, equal to a fresh read, with the same page."""
    from tinymemory.engines.sqlite import search

    flt = MetaFilter(namespace=ns(USER))
    req = FetchRequest("tomatoes basil", mode=FetchMode.HYBRID, filter=flt, limit=5)
    first = await engine.fetch(req)
    reads = counting(monkeypatch, search, "light_rows")
    again = await engine.fetch(req)
    assert [(h.item, h.score) for h in again.hits] == [(h.item, h.score) for h in first.hits]
    assert len(reads) == 1  # the fetch's own call, served whole from the cache (a miss reads again)
    rowids = list(range(1, 31))
    kept = engine.storage._light.split(rowids)[0]
    fresh = await engine.storage._read("t", lambda c: search.light_rows(c, rowids, True))
    assert kept and kept == {r: fresh[r] for r in kept}


async def test_a_turn_of_a_thread_is_read_again_as_its_thread_grows(tmp_path: Path) -> None:
    """A turn's neighbours change when its thread grows, so its light columns are never kept."""
    from tinymemory.api import ItemKind, ItemMeta, NewItem, Source
    from tinymemory.engines.sqlite import search

    def turn(text: str) -> NewItem:
        meta = ItemMeta(namespace=ns(USER), source=Source("user", "ana"), thread_id="s1", observed_at=T0)
        return NewItem(ItemKind.CONVERSATION, text, meta)

    cache = search.LightCache()
    async with SqliteEngine(tmp_path / "m.db", embedder=None) as eng:
        await eng.store_many([turn("Ana: tomatoes first")])
        before = await eng.storage._read("t", lambda c: search.light_rows(c, [1], True, cache=cache))
        assert before[1].thread == "s1" and before[1].after is None
        await eng.store_many([turn("Ana: basil next")])
        after = await eng.storage._read("t", lambda c: search.light_rows(c, [1], True, cache=cache))
        assert after[1].after == 2  # read again: the new turn is its neighbour


async def test_a_forget_and_a_purge_empty_the_light_rows(engine: SqliteEngine) -> None:
    from tinymemory.api import ForgetRequest, PurgeRequest

    flt = MetaFilter(namespace=ns(USER))
    req = FetchRequest("tomatoes basil", mode=FetchMode.HYBRID, filter=flt, limit=5)
    res = await engine.fetch(req)
    rowids = list(range(1, 41))
    assert engine.storage._light.split(rowids)[0]
    await engine.forget(ForgetRequest(ids=(res.hits[0].item.id,)))
    assert engine.storage._light.split(rowids)[0] == {}  # the forgotten text is not held
    await engine.fetch(req)
    assert engine.storage._light.split(rowids)[0]
    await engine.forget(ForgetRequest(ids=(res.hits[1].item.id,)))
    await engine.fetch(req)
    await engine.purge(PurgeRequest())
    assert engine.storage._light.split(rowids)[0] == {}


@pytest.mark.parametrize("mode", list(FetchMode))
async def test_the_reach_statistics_are_read_only_for_a_stage_that_weighs_terms(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: FetchMode
) -> None:
    """bm25 and the rerankers weigh terms by the reach's statistics; a semantic read that neither
    reranker reorders does not read them, and ranks as it did."""
    from dataclasses import replace

    from tinymemory.engines.sqlite import search
    from tinymemory.retrieval.config import RerankConfig

    coverage = replace(DEFAULT_CONFIG, rerank=RerankConfig(coverage=True))
    flt = MetaFilter(namespace=ns(USER))
    for cfg, reads_stats in ((DEFAULT_CONFIG, mode is not FetchMode.SEMANTIC), (coverage, True)):
        async with SqliteEngine(tmp_path / "m.db", embedder=HashEmbedder(), retrieval=cfg) as eng:
            await eng.store_many([note(f"basil note {i} tomatoes", at=USER) for i in range(12)])
            stats = counting(monkeypatch, search, "scope_stats")
            res = await eng.fetch(FetchRequest("basil tomatoes", mode=mode, filter=flt, limit=5))
            assert res.hits and len(stats) == (1 if reads_stats else 0)
            monkeypatch.undo()


async def test_a_read_that_would_first_read_many_new_vectors_goes_to_a_reader_thread(
    engine: SqliteEngine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After a bulk store the matrix reads the new rows' vectors on the next semantic read: that read
    is handed to a reader thread, and the next, with nothing new, runs where it is called again."""
    monkeypatch.setattr(sqlite_engine, "INLINE_READ_S", 1.0)
    small = FetchRequest("tomatoes basil", mode=FetchMode.HYBRID, filter=MetaFilter(namespace=ns(USER)))
    want = await engine.fetch(small)
    names = where_read(monkeypatch, engine)
    await engine.store_many(
        [
            note(f"a bulk note {i} about rain", at="team:acme/user:bob")
            for i in range(sqlite_engine.INLINE_NEW_ROWS + 1)
        ]
    )
    got = [await engine.fetch(small) for _ in range(2)]
    me = threading.current_thread().name
    # the first read begins where it is called, finds the new rows and is read on a reader thread
    assert len(names) == 3 and names[0] == names[2] == me and names[1].startswith("tinymemory-sqlite-read")
    assert got[0].hits == got[1].hits == want.hits


async def test_candidates_carry_their_stored_analysis_only_where_it_is_their_texts(tmp_path: Path) -> None:
    """The light columns carry the lexical index's stored analysis of a row whose indexed text is its
    body alone, so the rerankers split it instead of analysing the text again: the very terms the text
    analyses to. A row with a title or a summary (whose analysis is stored per field) carries none, and
    the rerankers analyse its text as before; either way a fetch's features are the same."""
    from tinymemory.api import ItemKind, ItemMeta, NewItem
    from tinymemory.engines.sqlite import search
    from tinymemory.retrieval.text import term_set

    texts = ["Ana's tomatoes, 3 kinds; the basil wilted!", "Café visits in Zürich", "the and of", "?!"]
    items = [NewItem(ItemKind.LEARNING, t, ItemMeta(namespace=ns(USER), observed_at=T0)) for t in texts]
    items.append(NewItem(ItemKind.LEARNING, "the tomatoes", ItemMeta(namespace=ns(USER), title="Of the")))
    items.append(NewItem(ItemKind.LEARNING, "basil", ItemMeta(namespace=ns(USER), summary="and the basil")))
    an = default_analyzer()
    async with SqliteEngine(tmp_path / "m.db", embedder=None) as eng:
        await eng.store_many(items)
        light = await eng.storage._read("t", lambda c: search.light_rows(c, list(range(1, 7)), True))
    for rowid in range(1, 5):
        lt = light[rowid]
        assert lt.analysed is not None
        assert pipeline.terms_of(lt, an) == term_set(an, lt.text or "") == frozenset(lt.analysed.split())
    for rowid in (5, 6):
        assert light[rowid].analysed is None
        assert pipeline.terms_of(light[rowid], an) == term_set(an, light[rowid].text or "")
    bare = {r: lt._replace(analysed=None) for r, lt in light.items()}
    lex = [(r, 1.0 / r) for r in light]
    stats = pipeline.ScopeStats(6, 30, {"tomato": 2, "basil": 2})
    with_stored = pipeline.features_of(lex, [], light, stats, "tomatoes and basil", an)
    analysed_here = pipeline.features_of(lex, [], bare, stats, "tomatoes and basil", an)
    assert with_stored[0] == analysed_here[0] and (with_stored[1] == analysed_here[1]).all()
