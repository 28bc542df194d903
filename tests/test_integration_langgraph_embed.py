"""TinyMemoryStore with the embeddings a LangGraph user brings, and the rest of what LangGraph's own store
suites check (bench/langgraph_suite.py runs those suites; these tests keep each behaviour in CI), on a
real engine: SQLite here, PostgreSQL under TINYMEMORY_TEST_ENGINE=postgres.

The embeddings are a small LangChain `Embeddings` of our own: character counts projected on fixed
random directions, so texts that share letters are near and an exact copy scores 1.
"""

from __future__ import annotations

import asyncio
import math
import random
import time
from collections import Counter
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from langchain_core.embeddings import Embeddings
from langgraph.store.base import InvalidNamespaceError, PutOp

from engines import make_engine
from tinymemory.api import InvalidRequest
from tinymemory.engines.sqlite import SqliteEngine
from tinymemory.integrations.langgraph import AsyncTinyMemoryStore, TinyMemoryStore
from tinymemory.integrations.langgraph_embed import as_embedder

DIMS = 64


class LetterEmbeddings(Embeddings):
    """Each character a fixed random direction; a text, its characters' directions weighted by count."""

    def __init__(self, dims: int = DIMS, seed: int = 7) -> None:
        self.dims = dims
        self.seed = seed
        self.model = f"letters-{seed}"  # names the vectors: other seeds are other embeddings
        self.calls = 0

    def _direction(self, ch: str) -> list[float]:
        rng = random.Random(f"{self.seed}:{ch}")
        return [rng.gauss(0, 1) for _ in range(self.dims)]

    def _one(self, text: str) -> list[float]:
        out = [0.0] * self.dims
        for ch, n in Counter(text).items():
            for i, x in enumerate(self._direction(ch)):
                out[i] += n * x
        norm = math.sqrt(sum(x * x for x in out)) or 1.0
        return [x / norm for x in out]

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.calls += 1
        return [self._one(t) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return self._one(text)


def cosine(a: list[float], b: list[float]) -> float:
    va, vb = np.asarray(a), np.asarray(b)
    return float(va @ vb / (np.linalg.norm(va) * np.linalg.norm(vb)))


def open_store(path: Path, index: dict[str, Any] | None, **kw: Any) -> TinyMemoryStore:
    """The store over the test engine, which embeds with the same embeddings as the store."""
    embedder = as_embedder("store", index["embed"], index["dims"]) if index and "embed" in index else None
    return TinyMemoryStore(make_engine(path, embedder=embedder), index=index, **kw)  # type: ignore[arg-type]


@pytest.fixture
def emb() -> LetterEmbeddings:
    return LetterEmbeddings()


@pytest.fixture
def store(tmp_path: Path, emb: LetterEmbeddings) -> Iterator[TinyMemoryStore]:
    with open_store(tmp_path / "lg.db", {"dims": DIMS, "embed": emb, "fields": ["text"]}) as s:
        yield s


# -- the index config as LangGraph users write it ----------------------------------------------------------


def test_the_index_config_is_kept_as_given_with_its_embeddings(
    store: TinyMemoryStore, emb: Embeddings
) -> None:
    assert store.index_config == {"dims": DIMS, "embed": emb, "fields": ["text"]}
    assert store.embeddings is emb


def test_a_query_is_scored_by_the_users_embeddings_cosine(
    store: TinyMemoryStore, emb: LetterEmbeddings
) -> None:
    store.put(("docs",), "d1", {"text": "zany zebra Xerxes"})
    store.put(("docs",), "d2", {"text": "something about dogs"})
    store.put(("docs",), "d3", {"text": "text about birds"})
    for query in ("Zany Xerxes", "dogs", "qqq"):
        hits = store.search(("docs",), query=query)
        want = {
            k: cosine(emb.embed_query(query), emb.embed_query(v))
            for k, v in [
                ("d1", "zany zebra Xerxes"),
                ("d2", "something about dogs"),
                ("d3", "text about birds"),
            ]
        }
        assert [h.key for h in hits] == sorted(want, key=lambda k: -want[k])
        for hit in hits:
            assert hit.score == pytest.approx(want[hit.key], abs=1e-4)


def test_an_item_is_scored_by_its_best_indexed_field(tmp_path: Path, emb: LetterEmbeddings) -> None:
    index = {"dims": DIMS, "embed": emb, "fields": ["a", "b", "c"]}
    with open_store(tmp_path / "lg.db", index) as store:
        store.put(("t",), "one", {"a": "xxx", "b": "yyy", "c": "zzz"})
        store.put(("t",), "two", {"a": "uuu", "b": "vvv", "c": "www", "skip": "zzz"})
        top = store.search(("t",), query="zzz")
        assert top[0].key == "one" and top[0].score == pytest.approx(1.0, abs=1e-4)
        assert top[1].score is not None and top[1].score < 0.9  # "zzz" is in an unindexed field of two
        top = store.search(("t",), query="uuu")
        assert top[0].key == "two" and top[0].score == pytest.approx(1.0, abs=1e-4)


def test_a_put_may_name_its_own_fields_or_none(store: TinyMemoryStore) -> None:
    store.put(("t",), "own", {"text": "aaa", "other": "ggg"}, index=["other"])
    store.put(("t",), "plain", {"text": "ggg"}, index=False)
    store.put(("t",), "text", {"text": "aab"})
    hits = store.search(("t",), query="ggg")
    assert hits[0].key == "own" and hits[0].score == pytest.approx(1.0, abs=1e-4)
    assert [h.key for h in hits][-1] == "plain" and hits[-1].score is None  # unindexed: found, unscored
    assert "plain" not in [h.key for h in store.search(("t",), query="ggg", limit=2)]


def test_an_update_is_embedded_again(store: TinyMemoryStore) -> None:
    store.put(("t",), "k", {"text": "zany zebra Xerxes"})
    store.put(("t",), "other", {"text": "plain words"})
    before = store.search(("t",), query="Zany Xerxes")[0]
    store.put(("t",), "k", {"text": "new text about dogs"})
    after = {h.key: h.score for h in store.search(("t",), query="Zany Xerxes")}
    assert before.key == "k" and after["k"] is not None and before.score is not None
    assert after["k"] < before.score


def test_pages_of_a_query_search_follow_one_order(store: TinyMemoryStore) -> None:
    for i in range(7):
        store.put(("t",), f"d{i}", {"text": f"test document number {i}" + "x" * i})
    every = store.search(("t",), query="test", limit=10)
    pages = [store.search(("t",), query="test", limit=2, offset=o) for o in (0, 2, 4, 6)]
    assert [h.key for page in pages for h in page] == [h.key for h in every]
    scores = [h.score for h in every]
    assert scores == sorted(scores, reverse=True)  # type: ignore[type-var]


def test_a_filter_bounds_a_query_search(store: TinyMemoryStore) -> None:
    store.put(("t",), "d1", {"text": "red apple", "color": "red", "score": 4.5})
    store.put(("t",), "d2", {"text": "red car", "color": "red", "score": 3.0})
    store.put(("t",), "d3", {"text": "green apple", "color": "green", "score": 4.0})
    assert [h.key for h in store.search(("t",), query="apple", filter={"color": "red"})] == ["d1", "d2"]
    hits = store.search(("t",), query="apple", filter={"score": {"$gte": 4.0}, "color": "green"})
    assert [h.key for h in hits] == ["d3"]


def test_odd_queries_still_find_the_item(store: TinyMemoryStore) -> None:
    store.put(("t",), "k", {"text": "test document"})
    for query in (None, "", "   ", "test " * 100, "test!@#$%^&*()", "这是中文"):
        assert [h.key for h in store.search(("t",), query=query)] == ["k"], query


def test_many_concurrent_async_calls_each_get_their_answer(store: TinyMemoryStore) -> None:
    async def run() -> None:
        ns = ("t", "many")
        await store.aput(ns, "first", {"text": "first"})
        calls: list[Any] = []
        for i in range(20):
            calls += [
                store.aput(ns, f"k{i}", {"text": f"v{i}"}),
                store.aget(ns, f"k{i}"),
                store.asearch(("t",), query=f"v{i}"),
                store.alist_namespaces(max_depth=1),
            ]
        results = await asyncio.gather(*calls)
        assert len(results) == 80
        assert all(r == [("t",)] for r in results[3::4])
        for i in range(20):
            item = await store.aget(ns, f"k{i}")
            assert item is not None and item.value == {"text": f"v{i}"}

    asyncio.run(run())


def test_text_fields_is_the_sqlite_stores_name_for_fields(tmp_path: Path, emb: LetterEmbeddings) -> None:
    index = {"dims": DIMS, "embed": emb, "text_fields": ["b"], "distance_type": "cosine"}
    with open_store(tmp_path / "lg.db", index) as store:
        assert store.index_config == index
        store.put(("t",), "k", {"a": "qqq", "b": "jjj"})
        assert store.search(("t",), query="jjj")[0].score == pytest.approx(1.0, abs=1e-4)


def test_a_function_can_be_the_embeddings(tmp_path: Path, emb: LetterEmbeddings) -> None:
    def embed(texts: list[str]) -> list[list[float]]:
        return emb.embed_documents(texts)

    async def aembed(texts: list[str]) -> list[list[float]]:
        return emb.embed_documents(texts)

    for fn in (embed, aembed):
        with open_store(tmp_path / f"{fn.__name__}.db", {"dims": DIMS, "embed": fn}) as store:
            store.put(("t",), "k", {"text": "abc"})
            store.put(("t",), "j", {"text": "xyz"})
            assert store.search(("t",), query='{"text": "abc"}')[0].key == "k"


def test_the_embeddings_name_their_vectors(emb: LetterEmbeddings) -> None:
    assert as_embedder("store", emb, DIMS).name == f"langchain:{__name__}.LetterEmbeddings:letters-7:{DIMS}"
    assert as_embedder("store", emb, 8).name.endswith(":8")


def test_bad_index_configs_are_refused_naming_the_field(tmp_path: Path, emb: LetterEmbeddings) -> None:
    cases: list[tuple[dict[str, Any], str]] = [
        ({"embed": emb}, "store: `index.embed` needs `index.dims`"),
        ({"dims": DIMS}, "store: `index.dims` is given without `index.embed`"),
        ({"dims": 0, "embed": emb}, "store: `index.dims` must be the length"),
        ({"dims": "64", "embed": emb}, "store: `index.dims` must be the length"),
        ({"dims": DIMS, "embed": "nosuchprovider:model"}, "store: `index.embed` cannot be used"),
        ({"dims": DIMS, "embed": 42}, "store: `index.embed` must be LangChain Embeddings"),
        ({"fields": ["a"], "text_fields": ["b"]}, "store: give `index.fields` or `index.text_fields`"),
        ({"distance_type": "l2"}, "store: `index.distance_type` must be `cosine`"),
        ({"ann": 1}, "store: `index.ann` is not a known index setting"),
    ]
    for index, message in cases:
        with pytest.raises(InvalidRequest) as err:
            TinyMemoryStore(path=tmp_path / "bad.db", index=index)  # type: ignore[arg-type]
        assert str(err.value).startswith(message), (message, str(err.value))


def test_vectors_of_another_length_than_dims_are_refused_and_nothing_is_written(
    tmp_path: Path, emb: LetterEmbeddings
) -> None:
    with open_store(tmp_path / "lg.db", {"dims": DIMS, "embed": emb}) as store:
        store.put(("t",), "k", {"text": "kept"})
    short = LetterEmbeddings(dims=DIMS - 1)
    with TinyMemoryStore(
        make_engine(tmp_path / "lg.db", embedder=None), index={"dims": DIMS, "embed": short}
    ) as s:
        with pytest.raises(
            InvalidRequest, match=r"^put: `index.embed` returned vectors of 63 numbers; `index.dims` is 64"
        ):
            s.put(("t",), "k", {"text": "new"})
        with pytest.raises(InvalidRequest, match=r"^search: `index.embed` returned vectors of 63"):
            s.search(("t",), query="anything")
        item = s.get(("t",), "k")
        assert item is not None and item.value == {"text": "kept"}


def test_new_embeddings_score_old_items_with_their_own_vectors(tmp_path: Path, emb: LetterEmbeddings) -> None:
    with open_store(tmp_path / "lg.db", {"dims": DIMS, "embed": emb, "fields": ["text"]}) as store:
        store.put(("t",), "a", {"text": "alpha beta"})
        store.put(("t",), "b", {"text": "gamma delta"})
    other = LetterEmbeddings(seed=99)
    with open_store(tmp_path / "lg.db", {"dims": DIMS, "embed": other, "fields": ["text"]}) as store:
        hits = {h.key: h.score for h in store.search(("t",), query="gamma")}
        assert hits["b"] == pytest.approx(
            cosine(other.embed_query("gamma"), other.embed_query("gamma delta")), abs=1e-4
        )
        assert hits["a"] == pytest.approx(
            cosine(other.embed_query("gamma"), other.embed_query("alpha beta")), abs=1e-4
        )


def test_a_search_scores_only_what_its_prefix_reaches(store: TinyMemoryStore) -> None:
    store.put(("users", "alice"), "m", {"text": "secret plan zzz"})
    store.put(("users", "bob"), "m", {"text": "lunch at noon"})
    hits = store.search(("users", "bob"), query="secret plan zzz")
    assert [(h.namespace, h.key) for h in hits] == [(("users", "bob"), "m")]


@pytest.mark.sqlite_only
def test_a_store_opened_from_a_path_embeds_with_the_users_embeddings(
    tmp_path: Path, emb: LetterEmbeddings
) -> None:
    with TinyMemoryStore(path=tmp_path / "lg.db", index={"dims": DIMS, "embed": emb}) as store:
        assert store.engine.descriptor.embedder == f"langchain:{__name__}.LetterEmbeddings:letters-7:{DIMS}"
        store.put(("t",), "k", {"text": "abc"})
        assert store.search(("t",), query='{"text": "abc"}')[0].score == pytest.approx(1.0, abs=1e-4)
    with pytest.raises(InvalidRequest, match=r"give `index\.embed` or `embedder`"):
        TinyMemoryStore(path=tmp_path / "lg.db", index={"dims": DIMS, "embed": emb}, embedder=None)


@pytest.mark.sqlite_only
def test_new_embeddings_reembed_the_engines_stale_items_on_the_first_query(tmp_path: Path) -> None:
    path = tmp_path / "lg.db"
    with TinyMemoryStore(path=path, index={"dims": DIMS, "embed": LetterEmbeddings()}) as store:
        store.put(("t",), "a", {"text": "alpha beta"})
        store.put(("t",), "b", {"text": "gamma delta"})
    other = LetterEmbeddings(seed=99)

    def stale() -> int:
        async def count() -> int:
            engine = SqliteEngine(path, embedder=as_embedder("store", other, DIMS))
            try:
                return (await engine.reembed()).stale_before
            finally:
                await engine.close()

        return asyncio.run(count())

    with TinyMemoryStore(path=path, index={"dims": DIMS, "embed": other}) as store:
        store.search(("t",))  # no query: nothing is embedded
        assert other.calls == 0
        assert [h.key for h in store.search(("t",), query="gamma delta")][:1] == ["b"]
        assert other.calls >= 1
    assert stale() == 0  # the store's first query search embedded the old items again


# -- the rest of what LangGraph's suites check -------------------------------------------------------------


def test_a_raw_batch_may_put_under_the_langgraph_root(store: TinyMemoryStore) -> None:
    with pytest.raises(InvalidNamespaceError):
        store.put(("langgraph", "foo"), "bar", {"v": 1})  # BaseStore's rule for put
    store.batch([PutOp(("langgraph", "foo"), "bar", {"v": 1})])
    item = store.get(("langgraph", "foo"), "bar")
    assert item is not None and item.value == {"v": 1}
    assert store.search(("langgraph", "foo"))[0].value == {"v": 1}
    store.delete(("langgraph", "foo"), "bar")
    assert store.get(("langgraph", "foo"), "bar") is None


def test_filter_keys_with_hyphens_digits_and_dotted_paths(store: TinyMemoryStore) -> None:
    store.put(("d",), "hyphen", {"access-level": "public", "user": {"access-level": "nested"}})
    store.put(("d",), "digit", {"123abc": "ok", "user": {"123abc": "ok2"}})
    store.put(("d",), "dotted", {"a.b": "literal", "a": {"b": "path"}})
    assert [r.key for r in store.search(("d",), filter={"access-level": "public"})] == ["hyphen"]
    assert [r.key for r in store.search(("d",), filter={"user.access-level": "nested"})] == ["hyphen"]
    assert [r.key for r in store.search(("d",), filter={"123abc": "ok"})] == ["digit"]
    assert [r.key for r in store.search(("d",), filter={"user.123abc": "ok2"})] == ["digit"]
    assert [r.key for r in store.search(("d",), filter={"a.b": "literal"})] == ["dotted"]  # the key first
    assert store.search(("d",), filter={"a.b": "path"}) == []


def test_a_filter_key_outside_the_sql_stores_charset_is_refused(store: TinyMemoryStore) -> None:
    """LangGraph's SQL stores accept filter keys of letters, digits, `_`, `.` and `-` only, and refuse
    any other with a ValueError saying "Invalid filter key"; so does this store, before reading."""
    store.put(("docs",), "public", {"access": "public"})
    store.put(("docs",), "private", {"access": "private", "password": "123"})
    malicious = "access') = 'public' OR '1'='1' OR json_extract(value, '$."
    for key in (malicious, "with space", "", "quote'", "ключ"):
        with pytest.raises(ValueError, match="Invalid filter key") as raised:
            store.search(("docs",), filter={key: "x"})
        assert isinstance(raised.value, InvalidRequest)
        assert raised.value.message.startswith("search: ")
    assert [i.key for i in store.search(("docs",), filter={"access": "public"})] == ["public"]


def test_a_search_prefix_may_be_a_list(store: TinyMemoryStore) -> None:
    store.put(("test", "docs"), "k", {"v": 1})
    assert [i.key for i in store.search(["test"])] == ["k"]  # type: ignore[arg-type]
    assert store.list_namespaces(prefix=["test"]) == [("test", "docs")]  # type: ignore[arg-type]


# -- TTL ---------------------------------------------------------------------------------------------------


def clocked(start: datetime) -> tuple[list[datetime], Callable[[], datetime]]:
    now = [start]
    return now, lambda: now[0]


def test_a_read_refreshes_only_when_asked_or_configured(tmp_path: Path) -> None:
    now, clock = clocked(datetime(2026, 1, 1, tzinfo=UTC))
    with open_store(tmp_path / "a.db", None, ttl={"default_ttl": 10}, clock=clock) as store:
        store.put(("t",), "k", {"v": 1})
        now[0] += timedelta(minutes=6)
        assert store.get(("t",), "k") is not None  # the config does not turn refresh_on_read on
        now[0] += timedelta(minutes=6)
        assert store.get(("t",), "k") is None
        store.put(("t",), "j", {"v": 1})
        now[0] += timedelta(minutes=6)
        assert store.get(("t",), "j", refresh_ttl=True) is not None  # asked
        now[0] += timedelta(minutes=6)
        assert store.get(("t",), "j") is not None
    with open_store(
        tmp_path / "b.db", None, ttl={"default_ttl": 10, "refresh_on_read": True}, clock=clock
    ) as s:
        s.put(("t",), "k", {"v": 1})
        now[0] += timedelta(minutes=6)
        assert s.search(("t",))[0].key == "k"  # configured: refreshed
        now[0] += timedelta(minutes=6)
        assert s.get(("t",), "k", refresh_ttl=False) is not None


def test_refresh_ttl_must_be_true_or_false(tmp_path: Path) -> None:
    with open_store(tmp_path / "lg.db", None) as store:
        with pytest.raises(InvalidRequest, match=r"^get: `refresh_ttl` must be true or false"):
            store.get(("t",), "k", refresh_ttl="yes")  # type: ignore[arg-type]
        with pytest.raises(InvalidRequest, match=r"^search: `refresh_ttl` must be true or false"):
            store.search(("t",), refresh_ttl=1)  # type: ignore[arg-type]


def wait_until(check: Callable[[], bool], seconds: float = 30.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.05)
    return check()


def test_the_ttl_sweeper_forgets_expired_items_until_stopped(tmp_path: Path) -> None:
    now, clock = clocked(datetime(2026, 1, 1, tzinfo=UTC))
    store = open_store(
        tmp_path / "lg.db", None, ttl={"default_ttl": 1, "sweep_interval_minutes": 0.001}, clock=clock
    )
    store.put(("t",), "k", {"v": 1})
    store.put(("t",), "keep", {"v": 1}, ttl=None)
    done = store.start_ttl_sweeper()
    assert store.start_ttl_sweeper() is done  # one sweeper
    now[0] += timedelta(minutes=2)
    assert wait_until(lambda: store.get(("t",), "k") is None and store.sweep_ttl() == 0)
    assert store.get(("t",), "keep") is not None
    assert store.stop_ttl_sweeper(timeout=30) is True
    assert done.done()
    store.start_ttl_sweeper(0.001)
    store.close()  # stops it too
    with pytest.raises(
        InvalidRequest, match="start_ttl_sweeper: `sweep_interval_minutes` must be a positive"
    ):
        open_store(tmp_path / "x.db", None).start_ttl_sweeper(-1)


def test_the_async_store_awaits_its_maintenance_and_refuses_sync_calls_on_a_loop(tmp_path: Path) -> None:
    now, clock = clocked(datetime(2026, 1, 1, tzinfo=UTC))

    async def run() -> None:
        engine = make_engine(tmp_path / "lg.db", embedder=None)
        async with AsyncTinyMemoryStore(engine, ttl={"default_ttl": 1}, clock=clock) as store:
            with pytest.raises(asyncio.InvalidStateError):
                store.put(("t",), "k", {"v": 1})
            with pytest.raises(asyncio.InvalidStateError):
                store.search(("t",))
            await store.aput(("t",), "k", {"v": 1})
            now[0] += timedelta(minutes=2)
            assert await store.sweep_ttl() == 1
            assert await store.aget(("t",), "k") is None
            done = await store.start_ttl_sweeper(0.001)
            assert await store.stop_ttl_sweeper(30) is True
            await asyncio.wait_for(done, 30)
        # off the loop, its sync calls work
        with AsyncTinyMemoryStore(make_engine(tmp_path / "lg2.db", embedder=None)) as other:
            await asyncio.to_thread(other.put, ("t",), "k", {"v": 2})
            item = await asyncio.to_thread(other.get, ("t",), "k")
            assert item is not None and item.value == {"v": 2}

    asyncio.run(run())


def test_a_put_embeds_its_texts_once(tmp_path: Path) -> None:
    emb = LetterEmbeddings()
    with open_store(tmp_path / "lg.db", {"dims": DIMS, "embed": emb, "fields": ["text"]}) as store:
        store.put(("t",), "k", {"text": "one text"})
        assert emb.calls == 1  # the engine's vector of the same text came from the store's call
        store.put(("t",), "k", {"text": "one text"})
        assert emb.calls == 2  # and nothing is kept past the put that embedded it
