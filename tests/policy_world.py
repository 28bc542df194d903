"""Shared helpers of the policy tool tests: a real SQLite file, identities in one workspace, ground truth."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from typing import Any

from tinymemory.api import (
    GetRequest,
    ItemKind,
    ItemMeta,
    ListRequest,
    MemoryItem,
    MetaFilter,
    Namespace,
    NewItem,
)
from tinymemory.engines.sqlite import SqliteEngine
from tinymemory.policy import Identity, MemoryPolicy, PolicyTools

DANA = Identity("acme", "dana", "helper", verified=True)
EVE = Identity("acme", "eve", "helper", verified=True)
DANA_NO_AGENT = Identity("acme", "dana", verified=True)
GLOBEX_DANA = Identity("globex", "dana", "helper", verified=True)


def tools(
    engine: SqliteEngine, identity: Identity = DANA, policy: MemoryPolicy | None = None, **kw: Any
) -> PolicyTools:
    return PolicyTools.for_identity(engine, identity, policy, **kw)


async def ground_truth(engine: SqliteEngine) -> dict[str, tuple[Namespace, datetime | None]]:
    """Every active memory of the file, whatever its namespace: id -> (namespace, valid_to)."""
    out: dict[str, tuple[Namespace, datetime | None]] = {}
    cursor = None
    while True:
        page = await engine.list(ListRequest(filter=MetaFilter(), limit=1000, cursor=cursor))
        out.update({i.id: (i.namespace, i.valid_to) for i in page.items})
        cursor = page.next_cursor
        if cursor is None:
            break
    return out


async def stored(engine: SqliteEngine, memory_id: str) -> MemoryItem:
    got = await engine.get(GetRequest(ids=(memory_id,)))
    assert got.items, memory_id
    return got.items[0]


async def put(engine: SqliteEngine, namespace: str, text: str, confidence: float = 0.9, **meta: Any) -> str:
    """A memory written by the platform (ingestion, the gate), not through the tools."""
    meta.setdefault("learning_kind", "general")
    item = NewItem(ItemKind.LEARNING, text, replace(ItemMeta(Namespace.parse(namespace)), **meta), confidence)
    return (await engine.store(item)).id
