"""TinyMemoryStore under attack: hostile input through every public method, tenants sharing one file,
forgetting, two threads on one store, and a process killed right after a write returned.

Every test runs on a real engine (SQLite in tmp_path, PostgreSQL under TINYMEMORY_TEST_ENGINE=postgres).
A bad call raises InvalidRequest naming the operation and field (or LangGraph's InvalidNamespaceError for
a bad label) and writes nothing.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from langgraph.store.base import InvalidNamespaceError, ListNamespacesOp

from engines import make_engine
from tinymemory.api import GetRequest, InvalidRequest, ListRequest, MetaFilter, Namespace, Reach
from tinymemory.integrations.langgraph import TinyMemoryStore
from tinymemory.integrations.langgraph_names import to_namespace


def open_store(path: Path, **kw: Any) -> TinyMemoryStore:
    return TinyMemoryStore(make_engine(path, embedder=kw.pop("embedder", None)), **kw)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[TinyMemoryStore]:
    with open_store(tmp_path / "lg.db") as s:
        yield s


def nested(depth: int, leaf: Any = 1) -> Any:
    value = leaf
    for _ in range(depth):
        value = {"x": value}
    return value


def refused(call: Callable[[], object], message: str) -> None:
    with pytest.raises(InvalidRequest) as err:
        call()
    assert str(err.value).startswith(message), (message, str(err.value))


# -- bad input ----------------------------------------------------------------------------------------


def test_bad_input_is_refused_in_our_words_and_writes_nothing(store: TinyMemoryStore) -> None:
    refused(lambda: store.search(("a",), filter=nested(1_000)), "search: `filter.x.x")
    deep_list: Any = []
    for _ in range(1_000):
        deep_list = [deep_list]
    refused(lambda: store.search(("a",), filter={"v": deep_list}), "search: `filter.v[0][0]")
    refused(lambda: store.search(("a",), filter={"v": {"$eq": nested(1_000)}}), "search: `filter.v.$eq")
    refused(lambda: store.put(("a",), "k", {"v": 1}, ttl=1e300), "put: `ttl` must be at most")
    refused(lambda: TinyMemoryStore(ttl={"default_ttl": 1e300}), "store: `ttl` must be at most")
    refused(lambda: store.batch(None), "batch: `ops` must be a list of operations")  # type: ignore[arg-type]
    refused(lambda: store.batch(5), "batch: `ops` must be a list of operations")  # type: ignore[arg-type]
    refused(
        lambda: store.batch([ListNamespacesOp(match_conditions=[1])]),  # type: ignore[list-item]
        "list_namespaces: `match_conditions[0]` must be a MatchCondition",
    )
    refused(
        lambda: store.batch([ListNamespacesOp(match_conditions=5)]),  # type: ignore[arg-type]
        "list_namespaces: `match_conditions` must be a tuple",
    )
    refused(lambda: store.put(("a",), "k" * 1_000_000, {"v": 1}), "put: `key` and `value` are too large")
    refused(lambda: store.put(("a",), "k", {"v": "x" * 1_000_000}), "put: `key` and `value` are too large")
    for label in ("a.b", "..", "a\x00", ""):
        with pytest.raises(InvalidNamespaceError):
            store.put((label,), "k", {"v": 1})
    assert store.search((), limit=100) == [] and store.list_namespaces() == []


def test_awkward_but_valid_input_round_trips(store: TinyMemoryStore) -> None:
    wide = {f"k{i}": i for i in range(10_000)}
    store.put(("a",), "wide", wide)
    store.put(("\ud800", "lg:x", "a/b", "*", "user:alice"), "\ud800\x00", {"text": "x\ud800\x00y"})
    store.put(("a",), "long", {"v": 1}, ttl=60 * 24 * 365 * 99)  # 99 years is fine
    wide_back = store.get(("a",), "wide")
    odd = store.get(("\ud800", "lg:x", "a/b", "*", "user:alice"), "\ud800\x00")
    assert wide_back is not None and wide_back.value == wide
    assert odd is not None and odd.value == {"text": "x\ud800\x00y"}
    assert store.search(("a",), limit=10**12, offset=0)[0].key in ("wide", "long")
    assert store.search(("a",), offset=10**12) == []


# -- tenants sharing one file ---------------------------------------------------------------------------


def test_crafted_labels_never_reach_another_base(tmp_path: Path) -> None:
    path = tmp_path / "lg.db"
    with (
        open_store(path, namespace="user:alice") as alice,
        open_store(path, namespace="user:bob") as bob,
        open_store(path) as root,
    ):
        bob.put(("mem",), "secret", {"text": "bob's pin is 4321"})
        for labels in (("user:bob", "mem"), ("lg:mem",), ("*",), ("a/b",)):
            root.put(labels, "secret", {"text": "planted"})
            assert alice.search(labels) == [] and alice.get(labels, "secret") is None
        assert alice.search((), limit=100) == [] and alice.list_namespaces() == []
        assert alice.search((), filter={"text": "bob's pin is 4321"}) == []
        alice.delete(("mem",), "secret")  # alice's own namespace: bob's item is not hers to delete
        kept = bob.get(("mem",), "secret")
        assert kept is not None and kept.value == {"text": "bob's pin is 4321"}
        assert [r.key for r in bob.search(("mem",), limit=100)] == ["secret"]  # nothing planted shows


# -- two threads on one store ---------------------------------------------------------------------------


def _chain(path: Path, labels: tuple[str, ...]) -> tuple[tuple[str, ...], set[str]]:
    """The active version's (first, own) ids, and which of them the engine still reads."""
    ns = to_namespace(Namespace.root(), labels, op="get")

    async def run() -> tuple[tuple[str, ...], set[str]]:
        engine = make_engine(path, embedder=None)
        try:
            active = (await engine.list(ListRequest(filter=MetaFilter(namespace=ns)))).items
            assert len(active) == 1
            ids = (*active[0].meta.evidence, active[0].id)
            got = await engine.get(GetRequest(ids, reach=Reach.subtree(ns)))
            return ids, {i.id for i in got.items}
        finally:
            await engine.close()

    return asyncio.run(run())


def test_concurrent_puts_to_one_key_keep_one_history_that_a_delete_forgets(tmp_path: Path) -> None:
    path = tmp_path / "lg.db"
    with open_store(path) as store:

        async def two_at_once() -> None:
            await asyncio.gather(*(store.aput(("c",), "same", {"v": i}) for i in range(4)))

        asyncio.run(two_at_once())
        ids, found = _chain(path, ("c",))
        assert len(ids) == 2 and found == set(ids)  # the last version cites the key's first one

        errors: list[BaseException] = []

        def work(tag: str) -> None:
            try:
                for i in range(15):
                    store.put(("t",), "same", {"v": f"{tag}{i}"})
                    assert store.get(("t",), "same") is not None
                    store.search(("t",), query="v")
            except BaseException as exc:
                errors.append(exc)

        threads = [threading.Thread(target=work, args=(t,)) for t in "xy"]
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
        assert not any(t.is_alive() for t in threads) and errors == []
        ids_t, _ = _chain(path, ("t",))
        assert len(ids_t) == 2  # two threads, still one history
        store.delete(("c",), "same")
        store.delete(("t",), "same")
        assert store.search((), limit=100) == []
    # every version the key ever had cites the first: forgetting it forgot them all
    for labels, chain in ((("c",), ids), (("t",), ids_t)):
        assert asyncio.run(_readable(path, labels, chain)) == []


async def _readable(path: Path, labels: tuple[str, ...], ids: tuple[str, ...]) -> list[str]:
    ns = to_namespace(Namespace.root(), labels, op="get")
    engine = make_engine(path, embedder=None)
    try:
        return [i.id for i in (await engine.get(GetRequest(ids, reach=Reach.subtree(ns)))).items]
    finally:
        await engine.close()


# -- a killed process --------------------------------------------------------------------------------

_WRITER = r"""
import sys
from tinymemory.integrations.langgraph import TinyMemoryStore
store = TinyMemoryStore(path=sys.argv[1], embedder=None)
for i in range(5):
    store.put(("a",), f"k{i}", {"text": f"value {i}"})
store.delete(("a",), "k3")
print("acknowledged", flush=True)
sys.stdin.read()
"""


@pytest.mark.sqlite_only
def test_an_acknowledged_write_survives_kill_9(tmp_path: Path) -> None:
    path = tmp_path / "lg.db"
    child = subprocess.Popen(
        [sys.executable, "-c", _WRITER, str(path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "acknowledged"
    finally:
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
    with TinyMemoryStore(path=path, embedder=None) as store:
        assert sorted(r.key for r in store.search(("a",))) == ["k0", "k1", "k2", "k4"]
        assert store.get(("a",), "k3") is None


def test_opening_with_the_wrong_things_is_refused_by_name(tmp_path: Path) -> None:
    path = tmp_path / "lg.db"
    refused(lambda: TinyMemoryStore("lg.db"), "store: `engine` must be a MemoryEngine")  # type: ignore[arg-type]
    refused(lambda: TinyMemoryStore(path=path, embedder="bogus"), "store: `embedder` must be an Embedder")
    refused(lambda: TinyMemoryStore(path=path, embedder=5), "store: `embedder` must be an Embedder")
    refused(lambda: TinyMemoryStore(path=path, bogus=1), "store: `bogus` is not a known argument")  # type: ignore[call-arg]
