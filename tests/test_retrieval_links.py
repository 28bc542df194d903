"""The `links` stage: which words are names, how linked memory joins an order, and on the engine the
switch names that a turn sharing a rare name with the best turns joins at the linking score times the
weight, that rarity is counted in the read's own reach only (another tenant's rows move nothing), that
a common name links nothing and that forgotten memory is never linked."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from engines import make_engine
from tinymemory.api import (
    FetchMode,
    FetchRequest,
    ForgetRequest,
    ItemKind,
    ItemMeta,
    MemoryEngine,
    MetaFilter,
    Namespace,
    NewItem,
    Reach,
    Source,
)
from tinymemory.retrieval.config import DEFAULT_CONFIG, LinksConfig, RetrievalConfig
from tinymemory.retrieval.links import holders, link_terms, linked, names
from tinymemory.retrieval.pipeline import FetchRanking, ScopeStats
from tinymemory.retrieval.text import default_analyzer

NOW = datetime(2026, 3, 1, tzinfo=UTC)
MINE = Namespace.parse("tenant:a/user:u")
OTHER = Namespace.parse("tenant:b/user:v")
MY = MetaFilter(reach=Reach.exact(MINE))
LINKING = "Jon: I flew to Lisbon for the dance festival last spring."
LINKED = "Gina: Those old trams in Lisbon rattled up every hill."
FILLER = (
    ("Gina", "The garden needs weeding before the rain comes."),
    ("Jon", "Work was long today, the build broke again."),
    ("Gina", "My sister prefers comedies over anything with aliens."),
    ("Jon", "We should repaint the kitchen this weekend."),
    ("Gina", "Dance classes start again on Monday evening."),
    ("Jon", "The festival tickets were cheaper than I thought."),
)
QUESTION = "Where did Jon fly for the dance festival?"


def _term(word: str) -> str:
    (term,) = default_analyzer().index_terms(word)
    return term


def test_names_are_capitalised_words_inside_a_sentence() -> None:
    an = default_analyzer()
    assert names(LINKING, an) == {_term("Lisbon")}  # not the label, not "I"
    assert names("Paris was grey. Then we saw Rome and Anna.", an) == {_term("Rome"), _term("Anna")}
    assert names("ana: all lower case, no names here", an) == frozenset()


def test_link_terms_skip_what_the_query_asks() -> None:
    an = default_analyzer()
    order = [(1, 0.9), (2, 0.5)]
    texts = {1: "Ana: we met Rita in Lisbon", 2: "Ben: and Rita again"}
    rita, lisbon = _term("Rita"), _term("Lisbon")
    assert link_terms(order, texts, an.query_terms("Who did Ana meet in Lisbon?"), an, 5) == {rita: 0.9}
    assert link_terms(order, texts, (), an, 1) == {rita: 0.9, lisbon: 0.9}


def test_linked_rows_join_below_their_link_and_common_words_link_nothing() -> None:
    order = [(1, 0.9), (2, 0.5), (3, 0.1)]
    words = {"Lisbon": 0.9, "Rita": 0.5}
    got = linked(order, words, {"Lisbon": [1, 7], "Rita": [2, 3, 8, 9]}, most=3, weight=0.7)
    assert got == [(1, 0.9), (7, pytest.approx(0.63)), (2, 0.5), (3, 0.1)]
    assert linked(order, words, {"Lisbon": [1]}, most=3, weight=0.7) == order  # held by one: no link
    assert linked(order, words, {"Lisbon": [1, 3]}, most=3, weight=0.05) == order  # keeps its better score


def test_linked_says_which_term_gave_a_memory_its_score() -> None:
    order = [(1, 0.9), (2, 0.5), (3, 0.1)]
    via: dict[int, str] = {}
    words = {"Lisbon": 0.9, "Rita": 0.5}
    linked(order, words, {"Lisbon": [1, 3], "Rita": [2, 3, 7]}, most=3, weight=0.7, via=via)
    # 3 is lifted by Lisbon (0.63 beats Rita's 0.35 and its own 0.1); 1 and 2 keep their own scores
    assert via == {3: "Lisbon", 7: "Rita"}


def test_holders_give_each_term_its_lowest_rows_up_to_n() -> None:
    rows = [("rome", 9), ("lisbon", 4), ("rome", 2), ("rome", 7), ("rome", 5), ("lisbon", 1)]
    assert holders(rows, 3) == {"lisbon": [1, 4], "rome": [2, 5, 7]}
    assert holders([], 3) == {}


def test_a_ranking_handed_new_candidates_ranks_them_anew() -> None:
    """Storage that reads again (a read retried elsewhere) must not get the first read's order."""
    plain = DEFAULT_CONFIG.without("rerank")
    ranking = FetchRanking(FetchMode.HYBRID, "paint", None, 0, 10, plain, default_analyzer())
    first, again = [(1, 0.9), (2, 0.4)], [(3, 0.8), (1, 0.7), (2, 0.1)]
    stats = ScopeStats(docs=3, tokens=30, df={"paint": 3})
    assert ranking.link_terms(first, [], {}, stats, None) == ()
    assert [k for k, _ in ranking.page(first, [], {}, stats, None)[0]] == [1, 2]
    assert [k for k, _ in ranking.page(again, [], {}, stats, None)[0]] == [3, 1, 2]


def test_bad_link_settings_name_the_field() -> None:
    with pytest.raises(ValueError, match=r"`links.weight`"):
        RetrievalConfig(links=LinksConfig(weight=1.5))
    with pytest.raises(ValueError, match=r"`links.most`"):
        RetrievalConfig(links=LinksConfig(most=1))
    with pytest.raises(ValueError, match=r"`links.top`"):
        RetrievalConfig(links=LinksConfig(top=-1))


def _turn(ns: Namespace, who: str, text: str, i: int, thread: str | None) -> NewItem:
    at = NOW + timedelta(minutes=i)
    meta = ItemMeta(namespace=ns, observed_at=at, thread_id=thread, source=Source(who))
    return NewItem(ItemKind.CONVERSATION, f"{who}: {text}", meta)


async def _store(
    path: Path, *, others: int = 0, more_lisbon: int = 0, threads: bool = True, **kw: object
) -> MemoryEngine:
    engine = make_engine(path, embedder="default", **kw)
    s1, s2 = ("s1", "s2") if threads else (None, None)
    items = [_turn(MINE, "Jon", LINKING.split(": ", 1)[1], 0, s1)]
    items += [_turn(MINE, who, text, i + 1, s1) for i, (who, text) in enumerate(FILLER)]
    items.append(_turn(MINE, "Gina", LINKED.split(": ", 1)[1], 20, s2))
    items += [_turn(MINE, "Gina", f"Lisbon again, note {i}.", 30 + i, "s3") for i in range(more_lisbon)]
    items += [_turn(OTHER, "Jon", f"Lisbon trams and Lisbon hills, {i}", i, "t9") for i in range(others)]
    await engine.store_many(items)
    return engine


def _scores(hits: object) -> dict[str, float]:
    return {h.item.text: h.score for h in hits}  # type: ignore[attr-defined]


async def _read(engine: MemoryEngine) -> dict[str, float]:
    if FetchMode.HYBRID not in engine.descriptor.fetch_modes:
        pytest.skip("no embedder here")
    res = await engine.fetch(FetchRequest(QUESTION, mode=FetchMode.HYBRID, filter=MY, limit=20))
    return _scores(res.hits)


def _linked_at(got: dict[str, float], weight: float) -> bool:
    return got.get(LINKED) == pytest.approx(got[LINKING] * weight, abs=2e-6)  # hits round to 6 places


async def test_a_turn_naming_the_best_turns_rare_name_joins_at_the_linking_score(tmp_path: Path) -> None:
    on = await _store(tmp_path / "on.db")
    off = await _store(tmp_path / "off.db", retrieval=DEFAULT_CONFIG.without("links"))
    try:
        with_links, without = await _read(on), await _read(off)
        assert _linked_at(with_links, DEFAULT_CONFIG.links.weight)
        assert not _linked_at(without, DEFAULT_CONFIG.links.weight)
        assert with_links[LINKED] > without[LINKED]
        # everything else keeps its score
        assert {t: s for t, s in with_links.items() if t != LINKED} == {
            t: s for t, s in without.items() if t != LINKED
        }
    finally:
        await on.close()
        await off.close()


async def test_explain_names_the_link_that_placed_a_linked_turn(tmp_path: Path) -> None:
    on = await _store(tmp_path / "on.db")
    off = await _store(tmp_path / "off.db", retrieval=DEFAULT_CONFIG.without("links"))
    try:
        if FetchMode.HYBRID not in on.descriptor.fetch_modes:
            pytest.skip("no embedder here")
        req = FetchRequest(QUESTION, mode=FetchMode.HYBRID, filter=MY, limit=20, explain=True)
        whys = {h.item.text: h.why for h in (await on.fetch(req)).hits}
        assert all(w is not None for w in whys.values())
        lifted = {t: w.linked for t, w in whys.items() if w is not None and w.linked}
        assert lifted == {LINKED: _term("Lisbon")}
        got = whys[LINKED]
        assert got is not None and got.as_json()["linked"] == _term("Lisbon")
        plain = [h.why for h in (await off.fetch(req)).hits]
        assert all(w is not None and w.linked is None for w in plain)
        # explaining changes no score nor order
        quiet = await on.fetch(FetchRequest(QUESTION, mode=FetchMode.HYBRID, filter=MY, limit=20))
        assert [(h.item.text, h.score) for h in quiet.hits] == [
            (t, round(w.score, 6)) for t, w in whys.items() if w is not None
        ]
    finally:
        await on.close()
        await off.close()


async def test_rarity_is_counted_in_the_reach_and_another_tenants_rows_move_nothing(tmp_path: Path) -> None:
    alone = await _store(tmp_path / "a.db")
    crowded = await _store(tmp_path / "c.db", others=6)
    try:
        a, c = await _read(alone), await _read(crowded)
        assert _linked_at(c, DEFAULT_CONFIG.links.weight)
        assert a == c
    finally:
        await alone.close()
        await crowded.close()


async def test_a_name_many_memories_hold_links_nothing(tmp_path: Path) -> None:
    engine = await _store(tmp_path / "m.db", more_lisbon=3)
    try:
        assert not _linked_at(await _read(engine), DEFAULT_CONFIG.links.weight)
    finally:
        await engine.close()


async def test_memory_outside_a_thread_links_nothing(tmp_path: Path) -> None:
    # measured on learnings and documents (bench/memory_eval.py): linking them cost R@5
    engine = await _store(tmp_path / "n.db", threads=False)
    try:
        assert not _linked_at(await _read(engine), DEFAULT_CONFIG.links.weight)
    finally:
        await engine.close()


async def test_forgotten_memory_is_never_linked(tmp_path: Path) -> None:
    engine = await _store(tmp_path / "f.db")
    try:
        before = await engine.fetch(FetchRequest(QUESTION, mode=FetchMode.HYBRID, filter=MY, limit=20))
        if FetchMode.HYBRID not in engine.descriptor.fetch_modes:
            pytest.skip("no embedder here")
        gone = next(h.item.id for h in before.hits if h.item.text == LINKED)
        await engine.forget(ForgetRequest(ids=(gone,), reach=Reach.exact(MINE)))
        after = await _read(engine)
        assert LINKED not in after
    finally:
        await engine.close()


@pytest.mark.sqlite_only
async def test_the_one_read_of_holders_finds_what_the_lexical_ranker_finds(tmp_path: Path) -> None:
    """SQLite's single statement against the lexical ranker it replaced (one read per term, own text
    only): the whole store and one reach, a name only a neighbouring turn holds (context) left out, a
    forgotten turn left out, another tenant's rows outside the reach, and the cap."""
    import sqlite3

    from tinymemory.engines.sqlite import search

    engine = await _store(tmp_path / "h.db", others=2)
    try:
        gone = await engine.store(_turn(MINE, "Jon", "Rita flew to Lisbon and to Porto.", 40, "s4"))
        await engine.store(_turn(MINE, "Gina", "Porto was lovely.", 41, "s4"))
        await engine.forget(ForgetRequest(ids=(gone.id,), reach=Reach.exact(MINE)))
        terms = [_term(w) for w in ("Lisbon", "Porto", "Rita", "Gina", "Jon", "trams")]
        conn = sqlite3.connect(tmp_path / "h.db")
        try:
            snapshot = search.max_rowid(conn)
            for flt in (MetaFilter(), MY):
                got = search.link_holders(conn, terms, lambda ts, _: list(ts), 4, flt, snapshot)
                want = {}
                for t in terms:
                    rows = sorted(r for r, _ in search.lexical_of(conn, [t], flt, snapshot, 1000))[:4]
                    if rows:
                        want[t] = rows
                assert got == want, flt
            mine = search.link_holders(conn, terms, lambda ts, _: list(ts), 4, MY, snapshot)
            whole = search.link_holders(conn, terms, lambda ts, _: list(ts), 4, MetaFilter(), snapshot)
            # the turn after the linking one holds Lisbon in its context field only: not a holder
            assert len(mine[_term("Lisbon")]) == 2 and len(whole[_term("Lisbon")]) == 4  # the cap
            assert _term("Rita") not in mine  # only the forgotten turn said it
            assert len(mine[_term("Porto")]) == 1  # the forgotten turn's neighbour's context is not its own
            assert _term("trams") in mine and _term("trams") in whole
        finally:
            conn.close()
    finally:
        await engine.close()
