"""Fuzz: odd values (lone surrogates, huge ints, NaN, wrong types, extreme offsets) for every argument of
the `Memory` facade and of `MemoryTools.call` either work or raise the library's own errors, and a call
that fails leaves the file as it was. Derandomized, so every run tries the same cases."""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tinymemory import Memory
from tinymemory.api import About, Facet, FetchMode, ItemKind, TimeHint, TinyMemoryError
from tinymemory.engines.sqlite import SqliteEngine
from tinymemory.tools import TOOL_NAMES, MemoryTools

FUZZ = settings(
    max_examples=150,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

surrogate_text = st.builds(lambda a, b: f"{a}\ud800{b}", st.text(max_size=5), st.text(max_size=5))
texts = st.one_of(
    st.text(max_size=20),
    surrogate_text,
    st.sampled_from(["", " ", "\n", "x" * 5000, "learning", "hybrid", "tag", "m_" + "0" * 24, "a:b\n"]),
)
numbers = st.one_of(
    st.integers(),
    st.sampled_from([10**400, -(2**64), 2**63, 0, 1, -1]),
    st.floats(allow_nan=True, allow_infinity=True),
)
instants = st.one_of(
    st.sampled_from(
        [
            datetime(1, 1, 1, tzinfo=timezone(timedelta(hours=23, minutes=59))),
            datetime(9999, 12, 31, 23, 59, 59, tzinfo=timezone(-timedelta(hours=23, minutes=59))),
            datetime(2024, 1, 1),  # naive
            datetime(2024, 1, 1, tzinfo=UTC),
        ]
    ),
    st.datetimes(timezones=st.just(UTC)),
)
scalars = st.one_of(st.none(), st.booleans(), numbers, texts, instants, st.just(b"bytes"), st.just(object()))
odd = st.recursive(
    scalars
    | st.sampled_from(
        [About("a", "b"), ("a",), ("a", "b", "c"), FetchMode.LEXICAL, Facet.TAG, ItemKind.CHUNK]
    )
    | st.builds(TimeHint, instants, instants),
    lambda inner: (
        st.lists(inner, max_size=4) | st.tuples(inner, inner) | st.dictionaries(texts, inner, max_size=3)
    ),
    max_leaves=6,
)

ITEM_KEYS = [
    "kind",
    "tags",
    "confidence",
    "learning_kind",
    "title",
    "about",
    "thread_id",
    "source",
    "observed_at",
]
FILTER_KEYS = ["kinds", "tags_any", "repo", "thread_id", "observed_after", "as_of", "min_confidence", "about"]
OTHER_KEYS = ["namespace", "reach", "bogus", "evidence", "refs", "extra", "parent"]


def state(path: Path) -> tuple[int, ...]:
    """What a write changes: rows, the last rowid, forgotten and superseded rows."""
    with sqlite3.connect(path) as conn:
        row = conn.execute(
            "SELECT count(*), coalesce(max(rowid), 0), count(forgotten_at), count(valid_to) FROM items"
        ).fetchone()
    return tuple(row)


@pytest.fixture
def mem(tmp_path: Path) -> Iterator[Memory]:
    with Memory(tmp_path / "mem.db", namespace="team:acme", embedder=None) as m:
        m.store("a seed memory about tomatoes", tags=["seed"])
        yield m


def keywords(keys: list[str]) -> st.SearchStrategy[dict[str, Any]]:
    return st.dictionaries(st.sampled_from(keys), odd, max_size=3)


calls = st.one_of(
    st.tuples(st.just("store"), st.tuples(odd), keywords(ITEM_KEYS + OTHER_KEYS)),
    st.tuples(st.just("store_many"), st.tuples(odd), st.just({})),
    st.tuples(st.just("item"), st.tuples(odd), keywords(ITEM_KEYS + OTHER_KEYS)),
    st.tuples(
        st.just("fetch"), st.tuples(odd), keywords(["mode", "limit", "cursor", "time_hint", *FILTER_KEYS])
    ),
    st.tuples(st.just("recall"), st.tuples(odd), keywords(["limit", *FILTER_KEYS, *OTHER_KEYS])),
    st.tuples(st.just("list"), st.just(()), keywords(["limit", "cursor", *FILTER_KEYS, *OTHER_KEYS])),
    st.tuples(st.just("get"), st.tuples(odd), st.just({})),
    st.tuples(st.just("explore"), st.tuples(odd), keywords(["limit", *FILTER_KEYS])),
    st.tuples(st.just("forget"), st.tuples(odd) | st.just(()), keywords(FILTER_KEYS + OTHER_KEYS)),
    st.tuples(st.just("purge"), st.lists(odd, max_size=1).map(tuple), st.just({})),
)


@FUZZ
@given(calls)
def test_facade_methods_raise_only_library_errors(
    mem: Memory, tmp_path: Path, call: tuple[str, tuple[Any, ...], dict[str, Any]]
) -> None:
    method, args, kwargs = call
    before = state(tmp_path / "mem.db")
    try:
        getattr(mem, method)(*args, **kwargs)
    except TinyMemoryError:
        assert state(tmp_path / "mem.db") == before


json_scalars = st.one_of(st.none(), st.booleans(), numbers, texts)
NESTED_KEYS = ["text", "learning_kind", "confidence", "evidence", "title", "turns", "role", "from", "to"]
NESTED_KEYS += [
    "kinds",
    "tags_any",
    "observed_after",
    "observed_before",
    "repo",
    "thread_id",
    "namespace",
    "bogus",
]
json_like = st.recursive(
    json_scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from(NESTED_KEYS) | texts, inner, max_size=3)
    ),
    max_leaves=8,
)
TOOL_KEYS = [
    "query",
    "question",
    "mode",
    "limit",
    "cursor",
    "filter",
    "refers_to",
    "instructions",
    "ids",
    "facet",
    "learning",
    "document",
    "conversation",
    "tags",
    "reach",
]


@pytest.fixture
async def tools(tmp_path: Path) -> AsyncIterator[MemoryTools]:
    async with SqliteEngine(tmp_path / "tools.db", embedder=None) as engine:
        scoped = MemoryTools(engine).placed_at("team:acme")
        await scoped.call("memory_store", {"learning": {"text": "a seed memory about tomatoes"}})
        yield scoped


@FUZZ
@given(
    st.sampled_from(TOOL_NAMES) | texts,
    st.dictionaries(st.sampled_from(TOOL_KEYS), json_like, max_size=4) | json_like,
)
async def test_tool_calls_raise_only_library_errors(
    tools: MemoryTools, tmp_path: Path, name: str, arguments: object
) -> None:
    before = state(tmp_path / "tools.db")
    try:
        await tools.call(name, arguments)
    except TinyMemoryError as exc:
        assert state(tmp_path / "tools.db") == before
        assert str(exc).encode("utf-8")  # the message itself can be rendered
