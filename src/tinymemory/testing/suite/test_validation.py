"""Bad input is refused with InvalidRequest naming the field, and nothing is written."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from dataclasses import replace
from datetime import datetime
from typing import Any

import pytest

from tinymemory.api import (
    MAX_LIMIT,
    ExploreRequest,
    Facet,
    FetchRequest,
    ForgetRequest,
    GetRequest,
    InvalidRequest,
    ListRequest,
    MemoryEngine,
    MetaFilter,
    Namespace,
    RecallRequest,
    TimeHint,
)

from .helpers import at, ill_typed, item, list_ids

NAIVE = datetime(2024, 5, 1, 9, 0)
Call = Callable[[MemoryEngine], Awaitable[Any]]


def _bad_kind() -> Any:
    return replace(item("text"), kind=ill_typed("memo"))


def _namespace_as_string() -> Any:
    return replace(item("x"), meta=replace(item("x").meta, namespace=ill_typed("team:acme")))


BAD_CALLS: dict[str, tuple[Call, str]] = {
    "store unknown kind": (lambda e: e.store(_bad_kind()), "kind"),
    "store namespace as a string": (
        lambda e: e.store(_namespace_as_string()),
        "meta.namespace",
    ),
    "store empty text": (lambda e: e.store(item("")), "text"),
    "store blank text": (lambda e: e.store(item("   \n ")), "text"),
    "store confidence above one": (lambda e: e.store(item("x", confidence=1.5)), "confidence"),
    "store confidence below zero": (lambda e: e.store(item("x", confidence=-0.1)), "confidence"),
    "store naive observed_at": (lambda e: e.store(item("x", observed_at=NAIVE)), "meta.observed_at"),
    "store blank tag": (lambda e: e.store(item("x", tags=("ok", " "))), "meta.tags[1]"),
    "store NUL in text": (lambda e: e.store(item("a\x00b")), "text"),
    "store NUL in a tag": (lambda e: e.store(item("x", tags=("ok", "a\x00"))), "meta.tags[1]"),
    "store_many bad item": (
        lambda e: e.store_many([item("good one"), item("good two"), item("bad", confidence=2.0)]),
        "items[2].confidence",
    ),
    "store_many bad first item": (lambda e: e.store_many([_bad_kind(), item("good")]), "items[0].kind"),
    "list limit zero": (lambda e: e.list(ListRequest(limit=0)), "limit"),
    "list limit too big": (lambda e: e.list(ListRequest(limit=MAX_LIMIT + 1)), "limit"),
    "list unknown kind in filter": (
        lambda e: e.list(ListRequest(filter=MetaFilter(kinds=(ill_typed("memo"),)))),
        "filter.kinds",
    ),
    "list naive observed_after": (
        lambda e: e.list(ListRequest(filter=MetaFilter(observed_after=NAIVE))),
        "filter.observed_after",
    ),
    "list naive as_of": (lambda e: e.list(ListRequest(filter=MetaFilter(as_of=NAIVE))), "filter.as_of"),
    "list min_confidence out of range": (
        lambda e: e.list(ListRequest(filter=MetaFilter(min_confidence=1.2))),
        "filter.min_confidence",
    ),
    "list foreign cursor": (lambda e: e.list(ListRequest(cursor="not-a-cursor")), "cursor"),
    "list forged cursor": (lambda e: e.list(ListRequest(cursor="eyJhIjogMX0=")), "cursor"),
    "fetch empty query": (lambda e: e.fetch(FetchRequest(query="")), "query"),
    "fetch blank query": (lambda e: e.fetch(FetchRequest(query="  ")), "query"),
    "fetch NUL in query": (lambda e: e.fetch(FetchRequest(query="tea\x00")), "query"),
    "fetch limit zero": (lambda e: e.fetch(FetchRequest(query="x", limit=0)), "limit"),
    "fetch limit too big": (lambda e: e.fetch(FetchRequest(query="x", limit=MAX_LIMIT + 1)), "limit"),
    "fetch foreign cursor": (lambda e: e.fetch(FetchRequest(query="x", cursor="not-a-cursor")), "cursor"),
    "fetch naive time hint": (
        lambda e: e.fetch(FetchRequest(query="x", time_hint=TimeHint(NAIVE, at(days=1)))),
        "time_hint.start",
    ),
    "fetch unknown mode": (lambda e: e.fetch(FetchRequest(query="x", mode=ill_typed("fuzzy"))), "mode"),
    "recall empty question": (lambda e: e.recall(RecallRequest(question="")), "question"),
    "recall limit zero": (lambda e: e.recall(RecallRequest(question="x", limit=0)), "limit"),
    "recall limit too big": (lambda e: e.recall(RecallRequest(question="x", limit=MAX_LIMIT + 1)), "limit"),
    "explore unknown facet": (lambda e: e.explore(ExploreRequest(facet=ill_typed("namespace"))), "facet"),
    "explore limit zero": (lambda e: e.explore(ExploreRequest(facet=Facet.TAG, limit=0)), "limit"),
    "explore limit too big": (
        lambda e: e.explore(ExploreRequest(facet=Facet.TAG, limit=MAX_LIMIT + 1)),
        "limit",
    ),
    "get no ids": (lambda e: e.get(GetRequest(ids=())), "ids"),
    "forget empty filter": (lambda e: e.forget(ForgetRequest(filter=MetaFilter())), "filter"),
    "forget neither ids nor filter": (lambda e: e.forget(ForgetRequest()), "ids"),
    "forget no ids": (lambda e: e.forget(ForgetRequest(ids=())), "ids"),
}


@pytest.mark.parametrize("case", sorted(BAD_CALLS))
@pytest.mark.asyncio
async def test_bad_input_is_refused_naming_the_field(engine: MemoryEngine, case: str) -> None:
    keep = await engine.store(item("already stored"))
    call, field = BAD_CALLS[case]
    with pytest.raises(InvalidRequest) as err:
        await call(engine)
    message = str(err.value)
    assert field in message, message
    assert re.match(r"[a-z_]+: ", message), f"messages start with the lowercase operation: {message}"
    prose = re.sub(r"`[^`]*`|\b[A-Z][a-z]+[A-Z]\w*\b|\b[A-Z][a-z]+(?=\.)|\bNamespace\b", "", message)
    assert prose == prose.lower(), f"messages are lowercase (type names aside): {message}"
    assert await list_ids(engine) == [keep.id], "a refused request wrote something"


def test_a_bad_namespace_string_is_refused_by_the_parser() -> None:
    for bad in ("team:Acme/", "Team:acme", "team", "team:acme//agent:a", "/team:acme", "team:ac me"):
        with pytest.raises(InvalidRequest) as err:
            Namespace.parse(bad, field="meta.namespace")
        assert str(err.value).startswith("meta.namespace:")


@pytest.mark.asyncio
async def test_a_cursor_from_another_operation_is_refused(engine: MemoryEngine) -> None:
    await engine.store_many([item(f"cursor source {n}") for n in range(3)])
    listed = await engine.list(ListRequest(limit=1))
    assert listed.next_cursor is not None
    with pytest.raises(InvalidRequest) as err:
        await engine.fetch(FetchRequest(query="cursor source", limit=1, cursor=listed.next_cursor))
    assert "cursor" in str(err.value)


@pytest.mark.asyncio
async def test_a_cursor_for_another_query_is_refused(engine: MemoryEngine) -> None:
    """A cursor issued for a different query is foreign to this fetch: its position means nothing here."""
    await engine.store_many([item(f"penguin note {n}") for n in range(3)])
    fetched = await engine.fetch(FetchRequest(query="penguin", limit=1))
    assert fetched.next_cursor is not None
    with pytest.raises(InvalidRequest) as err:
        await engine.fetch(FetchRequest(query="note", limit=1, cursor=fetched.next_cursor))
    assert "cursor" in str(err.value)


@pytest.mark.asyncio
async def test_store_many_is_all_or_nothing(engine: MemoryEngine) -> None:
    batch = [item(f"batch member {n}") for n in range(5)]
    batch[3] = item("")
    with pytest.raises(InvalidRequest) as err:
        await engine.store_many(batch)
    assert "items[3].text" in str(err.value)
    assert await list_ids(engine) == []
