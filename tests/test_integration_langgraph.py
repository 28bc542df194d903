"""TinyMemoryStore against LangGraph's own InMemoryStore, on a real engine (SQLite here, PostgreSQL
under TINYMEMORY_TEST_ENGINE=postgres).

The differential test runs the same random sequences of put / delete / get / search (filters, limit,
offset) / list_namespaces / batch against both stores and compares what each returns. Where LangGraph
leaves the order open (a search without a query) the pages are compared as sets and sizes, and ours is
checked to be newest update first. Query ranking, batches, TTL, history, privacy and errors follow.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, TypeVar

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from langgraph.store.base import (
    GetOp,
    InvalidNamespaceError,
    Item,
    ListNamespacesOp,
    PutOp,
    SearchOp,
)
from langgraph.store.memory import InMemoryStore

from engines import make_engine
from tinymemory.api import (
    GetRequest,
    InvalidRequest,
    ListRequest,
    MemoryEngine,
    MetaFilter,
    Namespace,
    Reach,
)
from tinymemory.api.namespace import MAX_DEPTH
from tinymemory.integrations.langgraph import TinyMemoryStore
from tinymemory.integrations.langgraph_names import to_labels, to_namespace

BIG = 10_000
T = TypeVar("T")


def open_store(path: Path, *, embedder: Any = None, **kw: Any) -> TinyMemoryStore:
    return TinyMemoryStore(make_engine(path, embedder=embedder), **kw)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[TinyMemoryStore]:
    with open_store(tmp_path / "lg.db") as s:
        yield s


@pytest.fixture
def ranked(tmp_path: Path) -> Iterator[TinyMemoryStore]:
    """A store whose engine has the default embedder, so a query search is hybrid."""
    with open_store(tmp_path / "lg.db", embedder="default") as s:
        yield s


# -- the differential test ------------------------------------------------------------------------------

NAMESPACES = [
    ("a",),
    ("a", "b"),
    ("a", "c"),
    ("a", "b", "c"),
    ("b",),
    ("b", "a"),
    ("ünï code", "b"),
    ("with space",),
    ("a", "-x"),
]
PREFIXES = sorted({ns[:i] for ns in NAMESPACES for i in range(len(ns) + 1)})
KEYS = ["k1", "k2", "k3", "", " ", "ключ", "a/b"]
OPS = ["$eq", "$ne", "$gt", "$gte", "$lt", "$lte"]

# `n` and `f` are always there: LangGraph's in-memory store raises on an ordering filter over a
# missing field, where ours (like its SQL stores) finds no match
values = st.fixed_dictionaries(
    {"n": st.integers(0, 4), "f": st.floats(allow_nan=False, allow_infinity=False, width=32)},
    optional={
        "color": st.sampled_from(["red", "blue"]),
        "nested": st.fixed_dictionaries({"x": st.integers(0, 2)}),
        "tags": st.lists(st.sampled_from(["p", "q"]), max_size=2),
        "text": st.text(max_size=12),
        "none": st.none(),
    },
)
FILTERS: list[dict[str, Any] | None] = [
    None,
    {"n": 2},
    *({"n": {op: 2}} for op in OPS),
    {"n": {"$gte": 1, "$lt": 3}},
    {"f": {"$gt": 0}},
    {"color": "red"},
    {"color": {"$ne": "red"}},
    {"nested": {"x": 1}},
    {"nested": {"x": {"$gte": 1}}},
    {"tags": ["p"]},
    {"tags": []},
    {"none": None},
    {"color": "blue", "n": {"$lte": 2}},
]
filters = st.one_of(
    st.sampled_from(FILTERS),
    st.builds(lambda op, n: {"n": {op: n}}, st.sampled_from(OPS), st.integers(0, 4)),
    st.builds(lambda lo, hi: {"n": {"$gte": lo, "$lt": hi}}, st.integers(0, 4), st.integers(0, 5)),
)
namespaces = st.sampled_from(NAMESPACES)
keys = st.sampled_from(KEYS)
puts = st.tuples(st.just("put"), namespaces, keys, values)
deletes = st.tuples(st.just("delete"), namespaces, keys)
gets = st.tuples(st.just("get"), namespaces, keys)
searches = st.tuples(
    st.just("search"), st.sampled_from(PREFIXES), filters, st.integers(0, 6), st.integers(0, 3)
)
patterns = st.one_of(
    st.none(),
    st.lists(st.sampled_from(["a", "b", "c", "*"]), min_size=1, max_size=2).map(tuple),
)
listings = st.tuples(
    st.just("list"),
    patterns,
    patterns,
    st.sampled_from([None, 1, 2, 3]),
    st.integers(1, 8),
    st.integers(0, 3),
)
simple = st.one_of(puts, puts, deletes, gets, searches)
batches = st.tuples(st.just("batch"), st.lists(simple, min_size=2, max_size=4))
steps = st.lists(
    st.one_of(puts, puts, puts, deletes, gets, searches, listings, batches), min_size=8, max_size=30
)


def as_op(step: tuple[Any, ...]) -> Any:
    kind = step[0]
    if kind == "put":
        return PutOp(step[1], step[2], step[3])
    if kind == "delete":
        return PutOp(step[1], step[2], None)
    if kind == "get":
        return GetOp(step[1], step[2])
    return SearchOp(step[1], step[2], step[3], step[4])


def row(item: Item) -> tuple[tuple[str, ...], str, str]:
    return (item.namespace, item.key, json.dumps(item.value, sort_keys=True))


def check_times(item: Item) -> None:
    assert item.created_at.tzinfo is not None and item.updated_at.tzinfo is not None
    assert item.created_at <= item.updated_at


def same_get(ours: Item | None, ref: Item | None) -> None:
    assert (ours is None) == (ref is None)
    if ours is not None and ref is not None:
        assert row(ours) == row(ref)
        check_times(ours)


def full_search(store: Any, prefix: tuple[str, ...], flt: Any) -> list[tuple[tuple[str, ...], str, str]]:
    """Every match, as sorted rows; ours must also come newest update first."""
    found = store.search(prefix, filter=flt, limit=BIG)
    if isinstance(store, TinyMemoryStore):
        stamps = [i.updated_at for i in found]
        assert stamps == sorted(stamps, reverse=True)
        for item in found:
            check_times(item)
    rows = sorted(row(i) for i in found)
    assert len(set(rows)) == len(rows)
    return rows


def has_items(ref: InMemoryStore, ns: tuple[str, ...]) -> bool:
    return any(i.namespace == ns for i in ref.search(ns, limit=BIG))


def reference_namespaces(ref: InMemoryStore, step: tuple[Any, ...]) -> list[tuple[str, ...]]:
    """InMemoryStore's listing restricted to namespaces that hold items: it keeps listing a namespace
    after its last item is deleted (or after a get merely looked into it), where LangGraph's SQL stores,
    and ours, list the namespaces that hold items."""
    _, prefix, suffix, depth, limit, offset = step
    every = ref.list_namespaces(prefix=prefix, suffix=suffix, limit=BIG)
    held = [ns for ns in every if has_items(ref, ns)]
    if depth is not None:
        held = list({ns[:depth] for ns in held})
    return sorted(held)[offset : offset + limit]


def run_step(mine: TinyMemoryStore, ref: InMemoryStore, step: tuple[Any, ...]) -> None:
    if step[0] == "list":
        _, prefix, suffix, depth, limit, offset = step
        got = mine.list_namespaces(prefix=prefix, suffix=suffix, max_depth=depth, limit=limit, offset=offset)
        assert got == reference_namespaces(ref, step), step
        return
    seq = step[1] if step[0] == "batch" else [step]
    # a batch reads before it writes: its searches draw from the store as it was
    before: dict[int, list[Any]] = {}
    for i, s in enumerate(seq):
        if s[0] == "search":
            before[i] = full_search(mine, s[1], s[2])
            assert before[i] == full_search(ref, s[1], s[2]), s
    ops = [as_op(s) for s in seq]
    ours_all, theirs_all = mine.batch(ops), ref.batch(ops)
    for i, (s, ours, theirs) in enumerate(zip(seq, ours_all, theirs_all, strict=True)):
        if s[0] in ("put", "delete"):
            assert ours is None and theirs is None
        elif s[0] == "get":
            same_get(ours, theirs)
        else:
            assert len(ours) == len(theirs), s
            assert all(item.score is None for item in ours)
            assert {row(item) for item in ours} <= set(before[i])
            assert len({row(item) for item in ours}) == len(ours)


def clear(store: TinyMemoryStore) -> None:
    """Delete everything (the hypothesis examples share one engine) and purge it."""
    store.batch([PutOp(i.namespace, i.key, None) for i in store.search((), limit=BIG)])
    store.purge()
    assert store.list_namespaces() == []


def test_random_sequences_match_langgraphs_in_memory_store(store: TinyMemoryStore) -> None:
    @settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(seq=steps)
    def run(seq: list[tuple[Any, ...]]) -> None:
        clear(store)
        ref = InMemoryStore()
        for step in seq:
            run_step(store, ref, step)
        # the final state, through every filter, under the whole store and one prefix
        for prefix in ((), ("a",)):
            for flt in FILTERS:
                assert full_search(store, prefix, flt) == full_search(ref, prefix, flt), (prefix, flt)
        for pattern in (None, ("a",), ("*", "b")):
            step = ("list", pattern, None, None, BIG, 0)
            assert store.list_namespaces(prefix=pattern, limit=BIG) == reference_namespaces(ref, step)

    run()


# -- the namespace mapping -------------------------------------------------------------------------------

labels = st.text(min_size=1, max_size=20).filter(lambda s: "." not in s and "\x00" not in s)


@settings(max_examples=300, deadline=None)
@given(a=st.lists(labels, max_size=4).map(tuple), b=st.lists(labels, max_size=4).map(tuple))
def test_namespace_tuples_map_one_to_one_and_back(a: tuple[str, ...], b: tuple[str, ...]) -> None:
    base = Namespace.parse("app:bot")
    ns_a, ns_b = to_namespace(base, a, op="put"), to_namespace(base, b, op="put")
    assert Namespace.parse(str(ns_a)) == ns_a  # a valid tinymemory namespace, written and parsed back
    assert to_labels(base, ns_a) == a
    assert (ns_a == ns_b) == (a == b)
    assert ns_a.is_within(base)
    # a tuple's prefix maps onto a namespace prefix, so a search prefix is a subtree reach
    assert to_namespace(base, a[:1], op="search").segments == ns_a.segments[: base.depth + len(a[:1])]


def test_readable_labels_stay_readable_and_others_are_escaped() -> None:
    root = Namespace.root()
    assert str(to_namespace(root, ("users", "u-1"), op="put")) == "lg:users/lg:u-1"
    assert str(to_namespace(root, ("with space", "_x"), op="put")) == "lgx:xwith.20space/lgx:x_x"
    packed = to_namespace(root, ("ü" * 40,), op="put")  # too long escaped: base64 of its UTF-8
    assert str(packed).startswith("lgb:x") and to_labels(root, packed) == ("ü" * 40,)
    assert to_labels(root, Namespace.parse("team:acme")) is None  # not one this store wrote
    assert to_labels(root, Namespace.parse("lgx:xusers")) is None  # not the name `users` maps to


# -- query search, batches, history, TTL -----------------------------------------------------------------

MEMORIES = {
    "coffee": "The user prefers dark roast coffee, black, no sugar",
    "city": "The user lives in Lisbon, near the river",
    "pet": "The user has a grey cat called Miso",
    "job": "The user works as a nurse on night shifts",
}


def test_a_query_ranks_the_right_memory_first(ranked: TinyMemoryStore) -> None:
    for key, text in MEMORIES.items():
        ranked.put(("memories", "u1"), key, {"content": text})
    ranked.put(("memories", "u2"), "coffee", {"content": "The user drinks only green tea"})
    cases = {
        "what coffee does the user drink?": "coffee",
        "which city does the user live in": "city",
        "does the user have any pets": "pet",
        "what does the user work as": "job",
    }
    for query, key in cases.items():
        hits = ranked.search(("memories", "u1"), query=query, limit=4)
        assert hits[0].key == key, (query, [h.key for h in hits])
        assert all(h.namespace == ("memories", "u1") for h in hits)
        assert hits[0].score is not None and hits[0].score >= (hits[1].score or 0.0)
    # a query with a filter ranks only what passes it; offset pages through the same ranking
    hits = ranked.search(("memories",), query="coffee", filter={"content": {"$ne": MEMORIES["coffee"]}})
    assert ("memories", "u1", "coffee") not in {(*h.namespace, h.key) for h in hits}
    whole = [h.key for h in ranked.search(("memories", "u1"), query="user", limit=4)]
    assert [h.key for h in ranked.search(("memories", "u1"), query="user", limit=2, offset=2)] == whole[2:]


def test_index_fields_choose_what_is_ranked(tmp_path: Path) -> None:
    with open_store(tmp_path / "lg.db", embedder="default", index={"fields": ["title"]}) as store:
        store.put(("docs",), "a", {"title": "sourdough bread recipe", "body": "kubernetes cluster upgrade"})
        store.put(("docs",), "b", {"title": "kubernetes cluster upgrade", "body": "sourdough bread recipe"})
        store.put(("docs",), "c", {"title": "never ranked", "body": "kubernetes"}, index=False)
        # only the title is ranked; an unindexed item is still found, after the ranked ones, unscored
        hits = store.search(("docs",), query="kubernetes upgrade", limit=3)
        assert [h.key for h in hits] == ["b", "a", "c"] and hits[2].score is None
        assert [h.key for h in store.search(("docs",), query="sourdough", limit=3)] == ["a", "b", "c"]
        store.put(("docs",), "d", {"body": "no title at all"})  # nothing to index: also unranked
        keys = {h.key: h.score for h in store.search(("docs",), query="title", limit=10)}
        assert keys["d"] is None and keys["c"] is None


def test_a_batch_reads_before_it_writes_like_langgraph(store: TinyMemoryStore) -> None:
    ref = InMemoryStore()
    for s in (store, ref):
        s.put(("a",), "k", {"n": 1})
    ops = [
        PutOp(("a",), "k", {"n": 2}),
        GetOp(("a",), "k"),
        SearchOp(("a",), {"n": 1}),
        PutOp(("a",), "k", {"n": 3}),
        PutOp(("b",), "k", {"n": 4}),
        ListNamespacesOp(),
        PutOp(("b",), "k", None),
    ]
    ours, theirs = store.batch(ops), ref.batch(ops)
    assert ours[1] is not None and theirs[1] is not None and ours[1].value == theirs[1].value == {"n": 1}
    assert [i.value for i in ours[2]] == [i.value for i in theirs[2]] == [{"n": 1}]
    assert ours[5] == theirs[5] == [("a",)]
    after = store.get(("a",), "k")
    assert after is not None and after.value == {"n": 3}  # the last put of a key wins
    assert store.get(("b",), "k") is None


async def test_abatch_and_the_async_methods(store: TinyMemoryStore) -> None:
    await asyncio.gather(*(store.aput(("users", f"u{i}"), "k", {"n": i}) for i in range(8)))
    got = await store.abatch([GetOp(("users", f"u{i}"), "k") for i in range(8)])
    assert [g.value["n"] for g in got if g is not None] == list(range(8))
    assert len(await store.asearch(("users",), filter={"n": {"$gte": 4}})) == 4
    assert await store.alist_namespaces(prefix=("users",), max_depth=1) == [("users",)]
    await store.adelete(("users", "u0"), "k")
    assert await store.aget(("users", "u0"), "k") is None
    assert store.get(("users", "u1"), "k") is not None  # the sync methods share the same engine


def test_updates_keep_created_at_and_timestamps_round_trip(store: TinyMemoryStore) -> None:
    store.put(("a",), "k", {"v": 1})
    first = store.get(("a",), "k")
    store.put(("a",), "k", {"v": 1})  # the same value again is still an update
    second = store.get(("a",), "k")
    assert first is not None and second is not None
    assert second.created_at == first.created_at and second.updated_at > first.updated_at
    assert second.created_at.tzinfo is not None
    listed = store.search(("a",))[0]
    assert (listed.created_at, listed.updated_at) == (second.created_at, second.updated_at)


def beside(path: Path, read: Callable[[MemoryEngine], Awaitable[T]]) -> T:
    """Run `read` on a second engine over the same store: what tinymemory itself sees there."""

    async def run() -> T:
        engine = make_engine(path, embedder=None)
        try:
            return await read(engine)
        finally:
            await engine.close()

    return asyncio.run(run())


def test_a_delete_forgets_every_version_of_the_key(tmp_path: Path, store: TinyMemoryStore) -> None:
    for v in range(3):
        store.put(("a",), "k", {"v": v})
    ns = to_namespace(Namespace.root(), ("a",), op="get")

    async def versions(engine: MemoryEngine) -> tuple[tuple[str, str], set[str]]:
        active = (await engine.list(ListRequest(filter=MetaFilter(namespace=ns)))).items
        assert len(active) == 1 and len(active[0].meta.evidence) == 1
        ids = (active[0].meta.evidence[0], active[0].id)
        return ids, {i.id for i in (await engine.get(GetRequest(ids))).items}

    (first, last), found = beside(tmp_path / "lg.db", versions)
    assert found == {first, last}  # the history is there, superseded
    store.delete(("a",), "k")
    gone = beside(tmp_path / "lg.db", lambda e: e.get(GetRequest((first, last), reach=Reach.subtree(ns))))
    assert gone.items == () and {t.id for t in gone.forgotten} == {first, last}
    store.put(("a",), "k", {"v": 9})  # a fresh start, with no history behind it
    again = store.get(("a",), "k")
    assert again is not None and again.value == {"v": 9} and again.created_at == again.updated_at


def test_ttl_expires_refreshes_and_sweeps(tmp_path: Path) -> None:
    now = [datetime(2030, 1, 1, tzinfo=UTC)]
    with open_store(tmp_path / "lg.db", clock=lambda: now[0], ttl={"refresh_on_read": True}) as store:
        assert store.supports_ttl
        store.put(("a",), "short", {"v": 1}, ttl=10)
        store.put(("a",), "kept", {"v": 2})
        now[0] += timedelta(minutes=8)
        assert store.get(("a",), "short") is not None  # read at 8 minutes: expiry moves to 18
        now[0] += timedelta(minutes=8)
        assert store.get(("a",), "short", refresh_ttl=False) is not None
        now[0] += timedelta(minutes=3)  # 19 minutes: past the refreshed expiry
        assert store.get(("a",), "short") is None
        assert [i.key for i in store.search(("a",))] == ["kept"]
        assert store.list_namespaces() == [("a",)]
        assert store.sweep_ttl() == 1
        store.put(("a",), "short", {"v": 3})
        item = store.get(("a",), "short")
        assert item is not None and item.value == {"v": 3}


def test_searches_never_rank_by_or_show_what_is_outside_the_prefix(tmp_path: Path) -> None:
    """The first privacy rule: items outside the prefix change no result and no score inside it."""

    def scores(extra: bool) -> list[tuple[str, float | None]]:
        path = tmp_path / f"lg-{extra}.db"
        with open_store(path, embedder="default") as store:
            for key, text in MEMORIES.items():
                store.put(("team", "a"), key, {"content": text})
            if extra:
                for i in range(12):
                    store.put(("team", "b"), f"x{i}", {"content": "coffee coffee the user coffee roast"})
                store.put(("teams",), "k", {"content": "dark roast coffee"})
            hits = store.search(("team", "a"), query="dark roast coffee", limit=10)
            assert all(h.namespace == ("team", "a") for h in hits)
            return [(h.key, h.score) for h in hits]

    assert scores(extra=True) == scores(extra=False)


def test_a_base_namespace_keeps_stores_apart_and_tinymemory_can_read_them(tmp_path: Path) -> None:
    path = tmp_path / "lg.db"
    with open_store(path, namespace="app:bot") as bot, open_store(path, namespace="app:other") as other:
        bot.put(("users", "u1"), "k", {"content": "likes jazz"})
        other.put(("users", "u1"), "k", {"content": "likes opera"})
        assert bot.list_namespaces() == [("users", "u1")]
        assert [i.value for i in bot.search(("users",))] == [{"content": "likes jazz"}]

    async def read(engine: MemoryEngine) -> list[str]:
        reach = Reach.subtree(Namespace.parse("app:bot/lg:users"))
        return [i.text for i in (await engine.list(ListRequest(filter=MetaFilter(reach=reach)))).items]

    assert beside(path, read) == ['{"content": "likes jazz"}']


# -- errors ------------------------------------------------------------------------------------------------


def test_bad_input_raises_langgraphs_errors_or_ours(store: TinyMemoryStore) -> None:
    for bad in (("a.b",), ("",), ("langgraph", "x"), ()):
        with pytest.raises(InvalidNamespaceError):
            store.put(bad, "k", {"v": 1})
    with pytest.raises(InvalidNamespaceError):
        store.batch([PutOp(("a", "b.c"), "k", {"v": 1})])  # straight to batch, skipping BaseStore's check
    with pytest.raises(InvalidNamespaceError):
        store.batch([SearchOp(("a", 1))])  # type: ignore[arg-type]
    cases: list[tuple[Any, str]] = [
        (lambda: store.put(("a",), "k", {"v": {1, 2}}), "put: `value.v` is a set"),
        (lambda: store.put(("a",), "k", {"v": {1: 2}}), "put: `value.v` has a key that is not a string"),
        (lambda: store.put(("a",), "k", ["v"]), "put: `value` must be a dict"),
        (lambda: store.put(("a",), "k", {"v": float("nan")}), "put: `value.v` is nan"),
        (lambda: store.put(("a",), "k", {"v": 1}, index="text"), "put: `index` must be a list"),
        (lambda: store.put(("a",), "k", {"v": 1}, ttl=-1), "put: `ttl` must be a positive number"),
        (lambda: store.put(tuple("x" * (MAX_DEPTH + 1)), "k", {}), "put: `namespace` has 17 labels"),
        (lambda: store.put(("x" * 200,), "k", {}), "put: `namespace[0]` is too long"),
        (lambda: store.search(("a",), filter={"v": {"$near": 1}}), "search: `filter.v` uses `$near`"),
        (lambda: store.search(("a",), filter={"v": {"$gt": "x"}}), "search: `filter.v.$gt` must be a number"),
        (lambda: store.search(("a",), limit=-1), "search: `limit` must be a whole number"),
        (lambda: store.search(("a",), query="q" * 10_001), "search: `query` is longer than"),
        (lambda: store.list_namespaces(max_depth=-1), "list_namespaces: `max_depth` must be"),
        (lambda: store.batch(["get"]), "batch: `ops[0]` must be a GetOp"),  # type: ignore[list-item]
        (lambda: TinyMemoryStore(index={"dims": 3, "embed": "x"}), "store: `index.embed` cannot be used"),
    ]
    for call, message in cases:
        with pytest.raises(InvalidRequest) as err:
            call()
        assert str(err.value).startswith(message), (message, str(err.value))
    assert store.search(("a",)) == []  # nothing was written by any of them


def test_what_json_can_hold_round_trips_exactly(store: TinyMemoryStore) -> None:
    value = {
        "text": "nul \x00 and surrogate \ud800 and ünïcödé",
        "big": 2**70,
        "f": -0.0,
        "tiny": 5e-324,
        "nested": {"list": [1, "two", None, True, {"x": [[]]}]},
        "tuple": (1, 2),
        "long": "x" * 10_000,
    }
    store.put(("a", "weird label ☃"), "\x00key", value)
    got = store.get(("a", "weird label ☃"), "\x00key")
    assert got is not None
    assert got.value == {**value, "tuple": [1, 2]} and got.key == "\x00key"
    assert store.list_namespaces() == [("a", "weird label ☃")]


def test_a_closed_store_refuses_calls(tmp_path: Path) -> None:
    store = open_store(tmp_path / "lg.db")
    store.close()
    with pytest.raises(RuntimeError, match="closed"):
        store.get(("a",), "k")
