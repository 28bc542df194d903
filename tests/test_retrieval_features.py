"""The reranker's features and the model over them: each signal read from the read's own candidates."""

from __future__ import annotations

import math
import random
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

from tinymemory.api import FetchMode, FetchRequest, ForgetRequest, ItemKind, ItemMeta, NewItem, Source
from tinymemory.engines.sqlite import SqliteEngine, search
from tinymemory.retrieval import pipeline
from tinymemory.retrieval.config import DEFAULT_CONFIG
from tinymemory.retrieval.features import FEATURES, Candidate, feature_rows, is_question, named_sources, ranks
from tinymemory.retrieval.pipeline import Light, ScopeStats
from tinymemory.retrieval.speakers import named
from tinymemory.retrieval.text import default_analyzer

DAY = datetime(2024, 5, 8, 12, tzinfo=UTC)


def col(rows: list[list[float]], keys: list[int], key: int, name: str) -> float:
    return rows[keys.index(key)][FEATURES.index(name)]


def test_a_source_is_named_only_as_a_whole_word_in_any_case() -> None:
    assert named_sources("What did ana paint?", {"Ana", "Bob"}) == {"Ana"}
    assert named_sources("What did Banana say?", {"Ana"}) == set()
    assert named_sources("anything", {""}) == set()
    # a source without an id goes by its kind; `kind:name` by its name
    assert named_sources("what did Ana say", {"user:Ana", "user:Bob", "agent"}) == {"user:Ana"}


def test_a_question_is_a_text_ending_in_a_question_mark_before_any_trailing_note() -> None:
    assert is_question("Did you go? [shares a photo of a lake]")
    assert is_question("where to?  ")
    assert not is_question("I went. Why? Because.")


def test_equal_scores_share_a_rank() -> None:
    assert ranks([(1, 0.9), (2, 0.5), (3, 0.5), (4, 0.1)]) == {1: 0, 2: 1, 3: 1, 4: 3}
    # the same vector scored in float32 and in float64 ties on both engines
    assert ranks([(1, 0.060881726), (2, 0.060881723), (3, 0.05)]) == {1: 0, 2: 0, 3: 2}
    # relative, not absolute: tiny bm25 scores (a term in every row) still order
    assert ranks([(1, 2.0e-6), (2, 1.0e-6), (3, 1.0e-6)]) == {1: 0, 2: 1, 3: 1}


def test_features_read_neighbours_threads_and_speakers_from_the_pool() -> None:
    lex = [(1, 0.8), (2, 0.4), (3, 0.2)]
    sem = [(2, 0.9), (4, 0.3)]
    cands = {
        1: Candidate("Ana: what did you paint?", "Ana", ("n", "t1"), None, 2),
        2: Candidate("Bob: a sunrise over the lake", "Bob", ("n", "t1"), 1, None),
        3: Candidate("Bob: lovely", "Bob", ("n", "t2"), None, None),
        4: Candidate("Ana: hello", "Ana", None, None, None),
    }
    keys, rows = feature_rows(
        lex, sem, cands, query="What did Bob paint?", query_terms=["paint"], term_weights={}, terms_of={}
    )
    assert keys == [1, 2, 3, 4]
    assert col(rows, keys, 2, "speaker") == 1.0 and col(rows, keys, 1, "speaker") == 0.0
    assert col(rows, keys, 1, "question") == 1.0 and col(rows, keys, 2, "question") == 0.0
    # 2's neighbour is 1 (fused 0.5 * 1.0 + 0), 1's is 2 (0.5 * 1/3 + 0.5 * 1.0)
    assert col(rows, keys, 2, "neighbour") == 0.5
    assert abs(col(rows, keys, 1, "neighbour") - (0.5 / 3 + 0.5)) < 1e-9
    assert col(rows, keys, 3, "neighbour") == 0.0 and col(rows, keys, 3, "thread_count") == 0.0
    assert col(rows, keys, 1, "thread_count") == 0.1
    assert col(rows, keys, 4, "lex_rank") == 0.0 and col(rows, keys, 3, "cosine") == 0.3  # the pool's floor


def test_the_model_puts_the_named_speakers_memory_first_and_switches_off() -> None:
    stats = ScopeStats(docs=4, tokens=20, df={"paint": 2})
    lex = [(1, 0.5), (2, 0.5)]
    light = {
        1: Light(None, 1, None, None, "I paint on Sundays", "Ana", "n", "t", None, None),
        2: Light(None, 1, None, None, "I paint on Sundays", "Bob", "n", "t2", None, None),
    }
    common = dict(stats=stats, query="When does Bob paint?", analyzer=default_analyzer())
    ranked = pipeline.rank(FetchMode.LEXICAL, lex, [], light, cfg=DEFAULT_CONFIG, **common)  # type: ignore[arg-type]
    assert [r for r, _ in ranked] == [2, 1] and all(0 < s < 1 for _, s in ranked)
    off = DEFAULT_CONFIG.without("speaker")
    ranked = pipeline.rank(FetchMode.LEXICAL, lex, [], light, cfg=off, **common)  # type: ignore[arg-type]
    assert ranked[0][1] == ranked[1][1]  # nothing tells them apart
    plain = DEFAULT_CONFIG.without("rerank")
    assert pipeline.rank(FetchMode.LEXICAL, lex, [], light, cfg=plain, **common) == lex  # type: ignore[arg-type]


def test_a_memory_dated_in_the_asked_days_is_marked_and_switches_off() -> None:
    from tinymemory.api.timeutil import to_us

    may1, may2 = datetime(2024, 5, 1, tzinfo=UTC), datetime(2024, 5, 2, tzinfo=UTC)
    lex = [(1, 0.5), (2, 0.5), (3, 0.5)]
    said = to_us(datetime(2024, 5, 2, 9, tzinfo=UTC))
    light = {  # the same words; 1 is dated on the day asked about, 2 on another, 3 not at all
        1: Light(None, said, to_us(may1), to_us(may2) - 1, "we saw a film", "Ana", "n", "t"),
        2: Light(None, said, to_us(may2), to_us(may2) + 10, "we saw a film", "Ana", "n", "t"),
        3: Light(None, said, None, None, "we saw a film", "Ana", "n", "t"),
    }
    stats = ScopeStats(docs=3, tokens=15, df={"film": 3})
    analyzer = default_analyzer()
    asked = pipeline.TimeHint(start=may1, end=may2)
    keys, rows = pipeline.features_of(lex, [], light, stats, "Which film on 1 May?", analyzer, asked)
    assert [col(rows.tolist(), keys, k, "dated") for k in (1, 2, 3)] == [1.0, 0.0, 0.0]
    # no days named: a question asking a time marks every memory that carries a date of its own
    keys, rows = pipeline.features_of(lex, [], light, stats, "When did Ana see a film?", analyzer)
    assert [col(rows.tolist(), keys, k, "dated") for k in (1, 2, 3)] == [1.0, 1.0, 0.0]
    keys, rows = pipeline.features_of(lex, [], light, stats, "Which film did Ana see?", analyzer)
    assert [col(rows.tolist(), keys, k, "dated") for k in (1, 2, 3)] == [0.0, 0.0, 0.0]
    common = dict(stats=stats, query="When did Ana see a film?", analyzer=analyzer)
    ranked = pipeline.rank(FetchMode.LEXICAL, lex, [], light, cfg=DEFAULT_CONFIG, **common)  # type: ignore[arg-type]
    assert ranked[-1][0] == 3 and ranked[0][1] > ranked[-1][1]
    off = DEFAULT_CONFIG.without("dated")
    ranked = pipeline.rank(FetchMode.LEXICAL, lex, [], light, cfg=off, **common)  # type: ignore[arg-type]
    assert len({s for _, s in ranked}) == 1  # nothing else tells them apart


def turn(text: str, speaker: str, thread: str) -> NewItem:
    meta = ItemMeta(source=Source("user", speaker), thread_id=thread, observed_at=DAY)
    return NewItem(ItemKind.CONVERSATION, text, meta=meta)


async def test_a_forgotten_turn_is_nobodys_neighbour(tmp_path: Path) -> None:
    async with SqliteEngine(tmp_path / "m.db", embedder=None) as engine:
        first, middle, last = await engine.store_many(
            [turn("Ana: one", "Ana", "s1"), turn("Bob: two", "Bob", "s1"), turn("Ana: three", "Ana", "s1")]
        )
        await engine.forget(ForgetRequest(ids=(middle.id,)))
    with sqlite3.connect(tmp_path / "m.db") as conn:
        rowid = {i: r for r, i in conn.execute("SELECT rowid, id FROM items")}
        light = search.light_rows(conn, [rowid[first.id], rowid[last.id]], detailed=True)
    assert light[rowid[first.id]].after == rowid[last.id] and light[rowid[last.id]].before == rowid[first.id]
    assert light[rowid[first.id]].source == "Ana" and light[rowid[first.id]].thread == "s1"


async def test_a_reply_rises_with_the_question_that_names_the_words(tmp_path: Path) -> None:
    async with SqliteEngine(tmp_path / "m.db", embedder=None) as engine:
        _, a, _, _ = await engine.store_many(
            [
                turn("Ana: which lake did you paint for the exhibition?", "Ana", "s1"),
                turn("Bob: the one behind the old mill, at dawn", "Bob", "s1"),
                turn("Bob: I paint on Sundays", "Bob", "s2"),
                turn("Bob: the exhibition opens in June", "Bob", "s3"),
            ]
        )
        res = await engine.fetch(
            FetchRequest("which lake did Bob paint for the exhibition", mode=FetchMode.LEXICAL)
        )
        order = [h.item.id for h in res.hits]
        assert order.index(a.id) < 2, order  # the answer sits beside the question that names the words


def test_a_speaker_given_through_the_facade_is_named_by_the_question(tmp_path: Path) -> None:
    """`Memory.store(..., source="Ana")` keeps the speaker as the source's kind; the reranker reads it
    even though the name is nowhere in the text."""
    from tinymemory import Memory

    turns = [
        ("Bob", "I started a pottery class this spring, my first pottery class"),
        ("Ana", "me too, a pottery class on Tuesdays"),
        ("Bob", "the clay studio is near the station"),
    ]
    orders = {}
    for label, cfg in (("on", DEFAULT_CONFIG), ("off", DEFAULT_CONFIG.without("speaker"))):
        engine = SqliteEngine(tmp_path / f"{label}.db", retrieval=cfg)
        mem = Memory(namespace="team:acme/user:u1", engine=engine)
        try:
            for speaker, text in turns:
                mem.store(text, source=speaker, thread_id="s1")
            orders[label] = [h.item.text for h in mem.fetch("When did Ana start the pottery class?").hits]
        finally:
            mem.close()
    assert orders["on"][0] == turns[1][1]
    assert orders["off"][0] == turns[0][1]  # without the speaker, the closer wording wins


async def test_another_tenants_turns_in_a_thread_of_the_same_name_change_nothing(tmp_path: Path) -> None:
    """Neighbours are looked up inside the memory's own namespace: a tenant writing turns with the same
    thread id between ours moves neither our order nor our scores."""
    from tinymemory.api import MetaFilter, Namespace, Reach

    ours = Namespace.parse("team:acme/user:ana")
    theirs = Namespace.parse("team:other/user:eve")

    def at(ns: Namespace, text: str, speaker: str) -> NewItem:
        meta = ItemMeta(namespace=ns, source=Source("user", speaker), thread_id="s1", observed_at=DAY)
        return NewItem(ItemKind.CONVERSATION, text, meta=meta)

    mine = [
        at(ours, "Ana: which lake did you paint for the exhibition?", "Ana"),
        at(ours, "Bob: the one behind the old mill, at dawn", "Bob"),
        at(ours, "Ana: lovely, the mill is my favourite", "Ana"),
    ]
    noise = [at(theirs, "Eve: the lake by the mill was painted at dawn for the exhibition", "Eve")]
    results = {}
    for label, items in (("alone", mine), ("interleaved", [mine[0], *noise, mine[1], *noise, mine[2]])):
        async with SqliteEngine(tmp_path / f"{label}.db", embedder=None) as engine:
            stored = await engine.store_many(items)
            texts = {r.id: i.text for r, i in zip(stored, items, strict=True)}
            req = FetchRequest(
                "which lake did Bob paint", mode=FetchMode.LEXICAL, filter=MetaFilter(reach=Reach.exact(ours))
            )
            res = await engine.fetch(req)
            results[label] = [(texts[h.item.id], h.score) for h in res.hits]
    assert results["alone"] == results["interleaved"]


def reference_rows(
    lex: list[tuple[int, float]],
    sem: list[tuple[int, float]],
    cands: dict[int, Candidate],
    query: str,
    terms: list[str],
    weights: dict[str, float],
    terms_of: dict[int, frozenset[str]],
    window: tuple[int, int] | None = None,
) -> tuple[list[int], list[list[float]]]:
    """The features one key at a time, as they are defined (features.FEATURES): the oracle the
    column-at-a-time computation must equal float for float."""
    from tinymemory.retrieval.fusion import minmax
    from tinymemory.retrieval.rerank import coverage

    lex_n, sem_n = minmax(lex), minmax(sem)
    keys = list(dict.fromkeys([k for k, _ in lex] + [k for k, _ in sem]))
    lex_rank, sem_rank = ranks(lex), ranks(sem)
    cosines = dict(sem)
    floor = min(cosines.values()) if cosines else 0.0
    fused = {k: 0.5 * lex_n.get(k, 0.0) + 0.5 * sem_n.get(k, 0.0) for k in keys}
    rows = []
    for k in keys:
        c = cands.get(k, Candidate(""))
        tset = terms_of.get(k, frozenset())
        near = [fused[n] for n in (c.before, c.after) if n is not None and n in fused]
        mates = [
            fused[m]
            for m in keys
            if m != k and c.thread is not None and m in cands and cands[m].thread == c.thread
        ]
        rows.append(
            [
                lex_n.get(k, 0.0),
                sem_n.get(k, 0.0),
                1.0 / (1.0 + lex_rank[k] / 10.0) if k in lex_rank else 0.0,
                1.0 / (1.0 + sem_rank[k] / 10.0) if k in sem_rank else 0.0,
                cosines.get(k, floor),
                dict(lex).get(k, 0.0),
                1.0 if named(query, c.speakers()) else 0.0,
                coverage(terms, tset, weights) if terms else 0.0,
                max(near) if near else 0.0,
                max(mates) if mates else 0.0,
                len(mates) / 10.0,
                1.0 if is_question(c.text) else 0.0,
                math.log1p(len(tset)),
                dated(query, c.event, window),
            ]
        )
    return keys, rows


def dated(query: str, event: tuple[int, int] | None, window: tuple[int, int] | None) -> float:
    """The `dated` feature of one candidate, as defined: its own range overlaps the question's days;
    with none, the question asks a time and it has a range."""
    from tinymemory.retrieval.temporal import time_question

    if event is None:
        return 0.0
    if window is None:
        return 1.0 if time_question(query) is not None else 0.0
    return 1.0 if event[0] < window[1] and event[1] >= window[0] else 0.0


def random_pool(
    rng: random.Random,
) -> tuple[list[tuple[int, float]], list[tuple[int, float]], dict[int, Candidate]]:
    """Two best-first lists over shared keys, with ties, and candidates in and out of threads."""
    keys = rng.sample(range(1, 400), rng.randint(0, 60))
    scores = [rng.choice([0.5, 0.25, round(rng.random(), rng.randint(1, 6))]) for _ in keys]
    lex = sorted(zip(keys[: len(keys) * 2 // 3], scores, strict=False), key=lambda kv: -kv[1])
    sem_keys = keys[len(keys) // 3 :]
    sem = sorted(((k, rng.choice([0.3, rng.random()])) for k in sem_keys), key=lambda kv: -kv[1])
    words = ["paint", "lake", "Ana", "Bob", "dawn", "mill", "what", "?"]
    cands = {}
    for k in keys:
        thread = ("n", rng.choice(["t1", "t2"])) if rng.random() < 0.6 else None
        near = [rng.choice(keys) if rng.random() < 0.7 else None for _ in range(2)]
        text = rng.choice(["", "", "Ana: ", "Bob: "]) + " ".join(
            rng.choice(words) for _ in range(rng.randint(0, 6))
        )
        extra = rng.choice([None, None, '{"tags":["Ana"]}', '{"extra":[["speaker","Bob"]]}'])
        source = rng.choice(["Ana", "user:Bob", "user", None])
        start = rng.randint(0, 20)
        event = rng.choice([None, (start, start + rng.randint(0, 5))])
        cands[k] = Candidate(text, source, thread, near[0], near[1], extra, event)
    return lex, sem, cands


def test_feature_columns_equal_the_features_key_by_key() -> None:
    from tinymemory.retrieval.features import feature_columns
    from tinymemory.retrieval.rerank_model import MODELS, linear, relevance_of, relevances

    rng = random.Random(24)
    analyzer = default_analyzer()
    for _ in range(300):
        lex, sem, cands = random_pool(rng)
        terms = rng.sample(["paint", "lake", "ana", "dawn"], rng.randint(0, 3))
        weights = {t: rng.random() for t in terms}
        terms_of = {k: frozenset(analyzer.index_terms(c.text)) for k, c in cands.items()}
        query = rng.choice(["what did Ana paint", "when did Ana paint"])
        start = rng.randint(0, 20)
        window = rng.choice([None, (start, start + rng.randint(1, 6))])
        args = dict(query=query, query_terms=terms, term_weights=weights, terms_of=terms_of, window=window)
        want_keys, want = reference_rows(lex, sem, cands, query, terms, weights, terms_of, window)
        keys, got = feature_columns(lex, sem, cands, **args)  # type: ignore[arg-type]
        assert keys == want_keys and got.tolist() == want
        assert feature_rows(lex, sem, cands, **args) == (want_keys, want)  # type: ignore[arg-type]
        for bias, model in MODELS.values():
            laid = linear(model, frozenset(rng.sample(FEATURES, rng.randint(0, 3))))
            assert relevances(got, bias, laid) == [relevance_of(row, bias, laid) for row in want]


def test_coverages_equal_coverage_text_by_text() -> None:
    from tinymemory.retrieval.rerank import coverage, coverages

    rng = random.Random(7)
    vocab = ["paint", "lake", "ana", "dawn", "mill"]
    for _ in range(300):
        terms = rng.sample(vocab, rng.randint(0, 5))
        weights = {t: rng.choice([0.0, rng.random() * 3]) for t in terms if rng.random() < 0.8}
        texts = [frozenset(rng.sample(vocab, rng.randint(0, 5))) for _ in range(rng.randint(0, 20))]
        assert coverages(terms, weights, texts) == [coverage(terms, t, weights) for t in texts]


def test_who_said_it_is_read_from_source_tags_metadata_and_the_texts_label() -> None:
    from tinymemory.retrieval.speakers import label_of, speakers

    assert label_of("Ana: I painted a sunrise") == "Ana"
    assert label_of("Mary Ann Lee: hi there") == "Mary Ann Lee"
    assert label_of("assistant: sure") == "assistant"
    for text in ("see https://example.org", "at 10:30 we met", "I said: no", "a note:\nplain"):
        assert label_of(text) is None, text
    assert speakers("I painted", "Ana") == {"Ana"}
    assert speakers("I painted", "user:Ana") == {"Ana"}
    assert speakers("I painted", "user", '{"tags":["speaker:Ana","travel"]}') == {"user", "Ana"}
    # a plain tag that reads as a name is a participant on a turn of a thread, not on a note
    assert speakers("I painted", "user", '{"tags":["Ana","travel"]}', turn=True) == {"user", "Ana"}
    assert speakers("I painted", "user", '{"tags":["Ana","travel"]}', turn=False) == {"user"}
    assert speakers("I painted", None, '{"extra":[["mem0.actor_id","Ana"],["turn","3"]]}') == {"Ana"}
    assert speakers("Ana: I painted", "user") == {"user", "Ana"}


def test_a_given_name_names_a_speaker_of_several_words() -> None:
    assert named_sources("What did Mary paint?", {"Mary Ann", "Ann"}) == {"Mary Ann"}


PLACEMENTS = ("source", "tag", "metadata", "label")


def placed(speaker: str, words: str, placement: str, thread: str) -> NewItem:
    """One turn with its speaker where a host might put it: the source, a tag, a metadata pair, or
    only the text's leading label (the text holds no name otherwise)."""
    source = Source("user", speaker) if placement == "source" else Source("user")
    tags = (speaker,) if placement == "tag" else ()
    extra = (("speaker", speaker),) if placement == "metadata" else ()
    text = f"{speaker}: {words}" if placement == "label" else words
    meta = ItemMeta(source=source, tags=tags, extra=extra, thread_id=thread, observed_at=DAY)
    return NewItem(ItemKind.CONVERSATION, text, meta=meta)


CHAT = [
    ("Ana", "I finally finished the painting of the lake at sunrise", "s1"),
    ("Bob", "I finished a painting too, the lake at sunset with the old mill", "s1"),
    ("Ana", "my sister visits in June, we will hike the ridge", "s2"),
    ("Bob", "my brother visits in June, we will go sailing on the lake", "s2"),
    ("Ana", "the pottery class on Tuesdays is my favourite evening", "s3"),
    ("Bob", "the pottery studio near the station has a kiln", "s3"),
]
CHAT_QUESTIONS = {
    "What did Bob finish painting?": "Bob",
    "Who visits Ana in June?": "Ana",
    "What does Ana like about the pottery class?": "Ana",
    "What did Ana paint?": "Ana",
    "What will Bob do with his brother?": "Bob",
}


async def test_the_speaker_decides_alike_wherever_the_host_puts_it(tmp_path: Path) -> None:
    """The same small conversation stored four ways: the speaker as the source, as a tag, as a metadata
    pair, or only as the text's label. Every question naming a speaker gets that speaker's turn first,
    and the speaker feature is the same for every hit, in every placement."""
    firsts: dict[str, list[str]] = {}
    for placement in PLACEMENTS:
        async with SqliteEngine(tmp_path / f"{placement}.db", embedder=None) as engine:
            stored = await engine.store_many([placed(s, w, placement, t) for s, w, t in CHAT])
            who = {r.id: s for r, (s, _, _) in zip(stored, CHAT, strict=True)}
            firsts[placement] = []
            for question, speaker in CHAT_QUESTIONS.items():
                res = await engine.fetch(FetchRequest(question, mode=FetchMode.LEXICAL, explain=True))
                assert who[res.hits[0].item.id] == speaker, (placement, question)
                for hit in res.hits:
                    assert hit.why is not None and hit.why.features is not None
                    said = who[hit.item.id] == speaker
                    assert dict(hit.why.features)["speaker"] == (1.0 if said else 0.0), (placement, question)
                firsts[placement].append(res.hits[0].item.text.removeprefix(f"{speaker}: "))
    assert all(v == firsts["source"] for v in firsts.values()), firsts


def test_a_window_narrows_the_filter_to_the_named_days_and_keeps_open_sides() -> None:
    from tinymemory.api import MetaFilter, TimeHint
    from tinymemory.retrieval.temporal import FAR_FUTURE

    april, may = datetime(2022, 4, 1, tzinfo=UTC), datetime(2022, 5, 1, tzinfo=UTC)
    narrowed = pipeline.window_filter(MetaFilter(thread_id="s1"), TimeHint(april, may))
    assert (narrowed.observed_after, narrowed.observed_before, narrowed.thread_id) == (april, may, "s1")
    # the fetch's own bounds still hold; an open end leaves its side as the filter has it
    own = MetaFilter(observed_after=datetime(2022, 4, 10, tzinfo=UTC))
    assert pipeline.window_filter(own, TimeHint(april, FAR_FUTURE)) == own
    assert pipeline.merged([(1, 0.9), (2, 0.5)], [(3, 0.7), (2, 0.5)]) == [(1, 0.9), (3, 0.7), (2, 0.5)]


async def test_a_question_naming_a_month_finds_memory_of_that_month_worded_otherwise(tmp_path: Path) -> None:
    """Seventy short notes match the question's one content word as well as the long note of April 2022
    and score above it (bm25 favours short rows). A fetch of ten pools fifty rows per ranker, and every
    page of it comes from that pool: only the window's second read (the question's days) brings the
    note into it."""
    april = datetime(2022, 4, 20, 12, tzinfo=UTC)
    long_note = (
        "Dyed my hair a bright shade of purple last week and I look like a completely different person"
    )
    target = NewItem(ItemKind.LEARNING, long_note, ItemMeta(observed_at=april))
    noise = [
        NewItem(
            ItemKind.LEARNING,
            f"I look fine, note {i}",
            ItemMeta(observed_at=datetime(2023, 1 + i % 12, 1 + i % 28, tzinfo=UTC)),
        )
        for i in range(70)
    ]
    found = {}
    for label, cfg in (("on", DEFAULT_CONFIG), ("off", DEFAULT_CONFIG.without("window"))):
        async with SqliteEngine(tmp_path / f"{label}.db", embedder=None, retrieval=cfg) as engine:
            stored = await engine.store_many([*noise, target])
            seen: list[str] = []
            cursor = None
            while True:
                req = FetchRequest(
                    "How did my look change in April 2022?", mode=FetchMode.LEXICAL, cursor=cursor
                )
                res = await engine.fetch(req)
                seen += [h.item.id for h in res.hits]
                if res.next_cursor is None:
                    break
                cursor = res.next_cursor
            assert len(seen) == len(set(seen))
            found[label] = (stored[-1].id in seen, len(seen))
    assert found == {"on": (True, 51), "off": (False, 50)}


def test_relevances_clip_far_logits_as_relevance_of_does() -> None:
    import numpy as np

    from tinymemory.retrieval.rerank_model import linear, relevance_of, relevances

    laid = linear({"lex_rank": 1.0, "cosine": -1.0}, frozenset())
    rows = [[0.0] * len(FEATURES) for _ in range(4)]
    logits = [(0.0, 500.5), (0.0, 60.9), (0.0, 59.5), (1.0, 2.0)]  # z = -500, -60.4, -59, -0.5
    for row, (lex_rank, cosine) in zip(rows, logits, strict=True):
        row[FEATURES.index("lex_rank")], row[FEATURES.index("cosine")] = lex_rank, cosine
    got = relevances(np.array(rows), 0.5, laid)
    assert got == [relevance_of(row, 0.5, laid) for row in rows]
    assert 0.0 < got[0] == got[1] < got[2] < got[3] < 1.0  # past -60 every logit reads as -60
