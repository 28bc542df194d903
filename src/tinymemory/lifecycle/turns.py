"""Conversation turns as the lifecycle stores and reads them (one memory per turn, in its thread)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from tinymemory.api import (
    ExploreRequest,
    Facet,
    ItemKind,
    ItemMeta,
    MemoryEngine,
    MemoryItem,
    MetaFilter,
    Namespace,
    NewItem,
    Source,
)
from tinymemory.api.paging import list_all

TURN_KEY = "turn"
ROLES = ("user", "agent")


@dataclass(frozen=True, slots=True)
class Turn:
    id: str
    index: int
    role: str
    text: str
    said_at: datetime


def new_turn(
    ns: Namespace, agent_id: str, thread_id: str, index: int, role: str, text: str, at: datetime
) -> NewItem:
    """Identity `thread:index`, so the same words said twice in one thread stay two turns."""
    return NewItem(
        ItemKind.CONVERSATION,
        text,
        ItemMeta(
            namespace=ns,
            source=Source(role),
            thread_id=thread_id,
            agent_id=agent_id,
            observed_at=at,
            extra=((TURN_KEY, str(index)),),
        ),
        identity=f"{thread_id}:{index}",
    )


async def count_turns(engine: MemoryEngine, ns: Namespace, thread_id: str) -> int:
    result = await engine.explore(
        ExploreRequest(Facet.KIND, _thread_filter(ns, thread_id, ItemKind.CONVERSATION), limit=1)
    )
    return result.total


async def read_turns(engine: MemoryEngine, ns: Namespace, thread_id: str) -> list[Turn]:
    """Every active turn of the thread, oldest first."""
    items = await list_all(engine, _thread_filter(ns, thread_id, ItemKind.CONVERSATION))
    turns = [_turn(item) for item in items]
    return sorted(turns, key=lambda t: (t.index, t.said_at, t.id))


def _thread_filter(ns: Namespace, thread_id: str, kind: ItemKind) -> MetaFilter:
    return MetaFilter(namespace=ns, thread_id=thread_id, kinds=(kind,))


def _turn(item: MemoryItem) -> Turn:
    extra = dict(item.meta.extra)
    try:
        index = int(extra.get(TURN_KEY, "-1"))
    except ValueError:
        index = -1
    role = item.meta.source.kind if item.meta.source else "user"
    said = item.meta.observed_at or item.valid_from
    return Turn(item.id, index, role, item.text, said)
