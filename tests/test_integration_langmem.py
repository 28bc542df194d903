"""LangMem's memory tools (the real langmem package) over a TinyMemoryStore: no LLM, offline.

The tools are called as an agent would call them: once with the store handed to the tool, once inside
a LangGraph entrypoint, where the tool finds the store with `get_store()` and fills its namespace
template from the run's config.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from langgraph.func import entrypoint
from langmem import create_manage_memory_tool, create_search_memory_tool

from engines import make_engine
from tinymemory.integrations.langgraph import TinyMemoryStore


@pytest.fixture(autouse=True)
def offline(monkeypatch: pytest.MonkeyPatch) -> None:
    """No tracing service is called from a test."""
    for name in ("LANGSMITH_TRACING", "LANGCHAIN_TRACING_V2"):
        monkeypatch.setenv(name, "false")


@pytest.fixture
def store(tmp_path: Path) -> Iterator[TinyMemoryStore]:
    with TinyMemoryStore(make_engine(tmp_path / "lm.db", embedder="default")) as s:
        yield s


def memory_id(reply: str) -> str:
    found = re.search(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", reply)
    assert found is not None, reply
    return found.group(0)


def contents(store: TinyMemoryStore, namespace: tuple[str, ...]) -> dict[str, Any]:
    return {item.key: item.value["content"] for item in store.search(namespace, limit=100)}


def test_the_tools_create_update_search_and_delete_memories(store: TinyMemoryStore) -> None:
    ns = ("memories", "user-1")
    manage = create_manage_memory_tool(namespace=ns, store=store)
    search = create_search_memory_tool(namespace=ns, store=store)

    coffee = memory_id(manage.invoke({"content": "User prefers dark roast coffee", "action": "create"}))
    city = memory_id(manage.invoke({"content": "User lives in Lisbon"}))
    assert contents(store, ns) == {coffee: "User prefers dark roast coffee", city: "User lives in Lisbon"}

    reply = manage.invoke({"content": "User switched to green tea", "action": "update", "id": coffee})
    assert reply == f"updated memory {coffee}"
    assert contents(store, ns)[coffee] == "User switched to green tea"

    found = json.loads(search.invoke({"query": "what does the user drink? tea"}))
    assert found[0]["key"] == coffee and found[0]["value"] == {"content": "User switched to green tea"}
    assert found[0]["namespace"] == list(ns) and found[0]["score"] is not None
    assert {f["key"] for f in found} == {coffee, city}
    assert json.loads(search.invoke({"query": "tea", "limit": 1, "offset": 1}))[0]["key"] == city

    assert manage.invoke({"action": "delete", "id": city}) == f"Deleted memory {city}"
    assert contents(store, ns) == {coffee: "User switched to green tea"}
    assert [f["key"] for f in json.loads(search.invoke({"query": "Lisbon"}))] == [coffee]
    # another user's namespace sees none of it
    other = create_search_memory_tool(namespace=("memories", "user-2"), store=store)
    assert json.loads(other.invoke({"query": "tea"})) == []


async def test_the_tools_find_the_store_inside_a_langgraph_entrypoint(store: TinyMemoryStore) -> None:
    manage = create_manage_memory_tool(namespace=("memories", "{langgraph_user_id}"))
    search = create_search_memory_tool(
        namespace=("memories", "{langgraph_user_id}"), response_format="content_and_artifact"
    )

    @entrypoint(store=store)
    async def remember(facts: list[str]) -> list[str]:
        return [await manage.ainvoke({"content": fact}) for fact in facts]

    @entrypoint(store=store)
    async def recall(query: str) -> list[Any]:
        call = {"name": "search_memory", "args": {"query": query}, "id": "call-1", "type": "tool_call"}
        message = await search.ainvoke(call)
        return list(message.artifact)

    alice = {"configurable": {"langgraph_user_id": "alice"}}
    bob = {"configurable": {"langgraph_user_id": "bob"}}
    await remember.ainvoke(["Alice's cat is called Miso", "Alice works night shifts"], alice)
    await remember.ainvoke(["Bob is allergic to peanuts"], bob)

    hits = await recall.ainvoke("what is the cat's name", alice)
    assert hits[0].value == {"content": "Alice's cat is called Miso"}
    assert {h.namespace for h in hits} == {("memories", "alice")}
    assert [h.value["content"] for h in await recall.ainvoke("allergies", bob)] == [
        "Bob is allergic to peanuts"
    ]
    assert store.list_namespaces(prefix=("memories",)) == [("memories", "alice"), ("memories", "bob")]
