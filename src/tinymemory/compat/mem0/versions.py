"""A mem0 memory's versions and its history, from the engine's bitemporal records.

Every version of a memory shares `About("mem0", id)`; each links to the one it superseded, so the
history is the active version's chain walked back: the first version is ADD, each later one UPDATE.

`delete` forgets every version (forget means forgotten). What mem0 keeps after a delete, the history
of its events, is written first as a small log item beside the memory (namespace `.../log:mem0`,
source `mem0-log`, invisible to this API's reads): the events' kinds and version ids and the delete
time, nothing more than the engine's own tombstones tell (an id and when it was forgotten). So
`history` after a delete still shows ADD, UPDATE, DELETE, with neither texts nor their times.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from tinymemory.api import (
    MAX_IDS,
    About,
    GetRequest,
    ItemKind,
    ItemMeta,
    MemoryEngine,
    MemoryItem,
    MetaFilter,
    Namespace,
    NewItem,
    Reach,
    Source,
)
from tinymemory.api.paging import newest
from tinymemory.compat.mem0.shapes import Fields, about, iso

LOG_SOURCE = "mem0-log"
LOG_ABOUT = "mem0-log"
_EVENT = "mem0.event."
MAX_VERSIONS = 10_000  # a chain longer than this is cut (a guard against a cycle in damaged data)


@dataclass(frozen=True, slots=True)
class Event:
    """One history entry; `text`s and times are None for the events of a deleted memory."""

    id: str
    event: str
    old_memory: str | None = None
    new_memory: str | None = None
    created_at: str | None = None
    updated_at: str | None = None
    is_deleted: bool = False
    actor_id: str | None = None
    role: str | None = None

    def as_dict(self, memory_id: str) -> dict[str, Any]:
        """The entry as mem0's `history` lists it."""
        return {
            "id": self.id,
            "memory_id": memory_id,
            "old_memory": self.old_memory,
            "new_memory": self.new_memory,
            "event": self.event,
            "created_at": self.created_at,
            "updated_at": self.updated_at,
            "is_deleted": self.is_deleted,
            "actor_id": self.actor_id,
            "role": self.role,
        }


async def find_active(engine: MemoryEngine, flt: MetaFilter, memory_id: str) -> MemoryItem | None:
    """The active version of `memory_id` that `flt` (a scope's read filter) allows, if any."""
    return await newest(engine, replace(flt, about=about(memory_id)))


async def find_log(engine: MemoryEngine, reach: Reach, memory_id: str) -> MemoryItem | None:
    """The delete log of `memory_id` within `reach`, if it was ever deleted there."""
    return await newest(
        engine, MetaFilter(reach=reach, sources=(LOG_SOURCE,), about=About(LOG_ABOUT, memory_id))
    )


async def chains(engine: MemoryEngine, actives: Sequence[MemoryItem], reach: Reach) -> list[list[MemoryItem]]:
    """Each active version's chain, oldest first, read level by level in batches of ids."""
    walked: list[list[MemoryItem]] = [[a] for a in actives]
    frontier = {a.supersedes: i for i, a in enumerate(actives) if a.supersedes}
    seen = {a.id for a in actives}
    for _ in range(MAX_VERSIONS):
        if not frontier:
            break
        ids = [i for i in frontier if i not in seen]
        nxt: dict[str, int] = {}
        for at in range(0, len(ids), MAX_IDS):
            got = await engine.get(GetRequest(ids=tuple(ids[at : at + MAX_IDS]), reach=reach))
            for item in got.items:
                seen.add(item.id)
                owner = frontier[item.id]
                walked[owner].append(item)
                if item.supersedes and item.supersedes not in seen:
                    nxt[item.supersedes] = owner
        frontier = nxt
    return [list(reversed(chain)) for chain in walked]


def chain_events(chain: Sequence[MemoryItem]) -> list[Event]:
    """ADD for the first version, UPDATE for each later one, as mem0 records them."""
    out: list[Event] = []
    previous: MemoryItem | None = None
    for version in chain:
        fields = Fields.of(version)
        updated = iso(version.meta.observed_at or version.valid_from)
        out.append(
            Event(
                id=version.id,
                event="ADD" if previous is None else "UPDATE",
                old_memory=None if previous is None else previous.text,
                new_memory=version.text,
                created_at=fields.created_at,
                updated_at=fields.created_at if previous is None else updated,
                actor_id=fields.actor_id,
                role=fields.role,
            )
        )
        previous = version
    return out


def logged_events(log: MemoryItem | None) -> list[Event]:
    """The content-free events a delete log kept."""
    if log is None:
        return []
    out: list[Event] = []
    for _key, value in sorted(p for p in log.meta.extra if p[0].startswith(_EVENT)):
        kind, event_id, at = json.loads(value)
        out.append(Event(id=event_id, event=kind, updated_at=at, is_deleted=kind == "DELETE"))
    return out


def delete_log(memory_id: str, ns: Namespace, events: Sequence[Event], now: datetime) -> NewItem:
    """The log item of a delete: the earlier events stripped of texts and times, then DELETE."""
    kept = [(e.event, e.id, e.updated_at if e.event == "DELETE" else None) for e in events]
    kept.append(("DELETE", str(uuid.uuid5(uuid.NAMESPACE_URL, f"{memory_id}/{iso(now)}")), iso(now)))
    extra = tuple((f"{_EVENT}{i:06d}", json.dumps(e)) for i, e in enumerate(kept))
    return NewItem(
        ItemKind.LEARNING,
        f"mem0 memory {memory_id} was deleted",
        ItemMeta(
            namespace=ns.child("log", "mem0"),
            source=Source(LOG_SOURCE),
            about=About(LOG_ABOUT, memory_id),
            learning_kind="event",
            observed_at=now,
            extra=extra,
        ),
        identity=uuid.uuid4().hex,
    )
