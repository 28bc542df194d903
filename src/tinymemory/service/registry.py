"""The agent registry of each workspace: name -> id, tool notes, and the memory switches.

Records are ordinary memories in the node `workspace:W/registry:agents`, one per agent, keyed by
`about=("agent", name)` so an update supersedes the record in place and a delete is a forget. Keeping
them in the engine means every engine (SQLite today, Postgres later) stores them with no extra table,
and no identity's tiers reach that node, so they never show up in a user's recall.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from tinymemory.api import (
    About,
    ForgetRequest,
    InvalidRequest,
    ItemKind,
    ItemMeta,
    ListRequest,
    MemoryEngine,
    MemoryItem,
    MetaFilter,
    Namespace,
    NewItem,
    NotFound,
    Reach,
    Source,
)
from tinymemory.api.paging import newest
from tinymemory.api.validate import check_unicode, fail
from tinymemory.policy import Identity, Registration
from tinymemory.service.fleet import ChangeCounter

REGISTRY_KIND = "registry"
REGISTRY_NAME = "agents"
ABOUT_KIND = "agent"
MAX_NOTES_CHARS = 4_000
MAX_AGENTS = 500  # per workspace: the registry is read whole
MAX_CACHED = 10_000  # cached lookups before the copy starts over
ID_PREFIX = "agt_"


def agent_id_of(workspace: str, name: str) -> str:
    """Derived from the name, so two creations racing each other mint the same id."""
    return ID_PREFIX + hashlib.sha256(f"{workspace}\x00{name}".encode()).hexdigest()[:16]


def registry_node(workspace: str) -> Namespace:
    return Namespace.of(("workspace", workspace), (REGISTRY_KIND, REGISTRY_NAME))


@dataclass(frozen=True, slots=True)
class AgentRecord:
    """One agent of a workspace. `id` is minted once and kept across updates."""

    name: str
    id: str
    notes: str | None = None
    tools: bool = True
    retrieval: bool = True
    updated_at: datetime | None = None

    def registration(self) -> Registration:
        return Registration(tools=self.tools, retrieval=self.retrieval)

    def to_dict(self) -> dict[str, object]:
        return {
            "name": self.name,
            "id": self.id,
            "notes": self.notes,
            "tools": self.tools,
            "retrieval": self.retrieval,
            "updated_at": self.updated_at.isoformat() if self.updated_at else None,
        }


def check_agent_name(op: str, name: object) -> str:
    """An agent's name follows the identity grammar (it becomes a namespace segment)."""
    if not isinstance(name, str):
        raise fail(op, "name", "must be a string")
    try:
        Identity("w", None, name)
    except InvalidRequest:
        raise fail(
            op, "name", "is not a valid agent name (letters, digits and ._@+=~-, at most 128)"
        ) from None
    return name


def check_agent_fields(op: str, name: object, notes: object, tools: object, retrieval: object) -> None:
    check_agent_name(op, name)
    if notes is not None:
        if not isinstance(notes, str):
            raise fail(op, "notes", "must be a string or null")
        check_unicode(op, "notes", notes)
        if len(notes) > MAX_NOTES_CHARS:
            raise fail(op, "notes", f"must be at most {MAX_NOTES_CHARS} characters")
    for field_name, value in (("tools", tools), ("retrieval", retrieval)):
        if not isinstance(value, bool):
            raise fail(op, field_name, "must be true or false")


def _record(item: MemoryItem) -> AgentRecord | None:
    try:
        body = json.loads(item.text)
    except ValueError:
        return None
    if not isinstance(body, dict) or item.meta.about is None:
        return None
    return AgentRecord(
        name=item.meta.about.key,
        id=str(body.get("id", "")),
        notes=body.get("notes"),
        tools=bool(body.get("tools", True)),
        retrieval=bool(body.get("retrieval", True)),
        updated_at=item.meta.observed_at,
    )


class AgentRegistry:
    """Reads and writes agent records through the engine.

    `cached` answers from a short-lived copy: every request of a token that names an agent looks its
    record up, and a registry changes rarely. This process's own writes clear the copy at once, and so
    do those of the other workers of the same `serve` (through `changes`, the fleet's counter); another
    process's (a replica, the CLI) show within `CACHE_SECONDS`."""

    CACHE_SECONDS = 5.0

    def __init__(
        self,
        engine: MemoryEngine,
        *,
        clock: Callable[[], float] = time.monotonic,
        changes: ChangeCounter | None = None,
    ) -> None:
        self._engine = engine
        self._clock = clock
        self._changes = changes
        self._seen = changes.read() if changes is not None else 0
        self._cache: dict[tuple[str, str], tuple[float, AgentRecord | None]] = {}

    async def cached(self, workspace: str, name: str) -> AgentRecord | None:
        key = (workspace, name)
        if self._changes is not None:
            # Read before the store: a change landing during the read below shows on the next call.
            seen = self._changes.read()
            if seen != self._seen:
                self._cache.clear()
                self._seen = seen
        now = self._clock()
        hit = self._cache.get(key)
        if hit is not None and hit[0] > now:
            return hit[1]
        record = await self.get(workspace, name)
        if len(self._cache) >= MAX_CACHED:
            self._cache.clear()
        self._cache[key] = (now + self.CACHE_SECONDS, record)
        return record

    async def list(self, workspace: str) -> list[AgentRecord]:
        node = registry_node(workspace)
        result = await self._engine.list(
            ListRequest(filter=MetaFilter(reach=Reach.exact(node)), limit=MAX_AGENTS)
        )
        records = [r for r in map(_record, result.items) if r is not None]
        return sorted(records, key=lambda r: r.name)

    async def get(self, workspace: str, name: str) -> AgentRecord | None:
        node = registry_node(workspace)
        item = await newest(self._engine, MetaFilter(reach=Reach.exact(node), about=About(ABOUT_KIND, name)))
        return _record(item) if item is not None else None

    async def put(
        self,
        workspace: str,
        name: str,
        *,
        notes: str | None = None,
        tools: bool = True,
        retrieval: bool = True,
    ) -> tuple[AgentRecord, bool]:
        """Create or replace an agent's record; returns it and whether it was created."""
        op = "agents put"
        check_agent_fields(op, name, notes, tools, retrieval)
        previous = await self.get(workspace, name)
        if previous is None and len(await self.list(workspace)) >= MAX_AGENTS:
            raise fail(op, "name", f"this workspace already has {MAX_AGENTS} agents")
        agent_id = previous.id if previous is not None else agent_id_of(workspace, name)
        body = {"id": agent_id, "notes": notes, "tools": tools, "retrieval": retrieval}
        await self._engine.store(
            NewItem(
                ItemKind.DOCUMENT,
                json.dumps(body, sort_keys=True, ensure_ascii=False),
                ItemMeta(
                    namespace=registry_node(workspace),
                    source=Source("service", "registry"),
                    title=name,
                    about=About(ABOUT_KIND, name),
                ),
            )
        )
        self._changed(workspace, name)
        stored = await self.get(workspace, name)
        assert stored is not None  # just written, in the same engine
        return stored, previous is None

    async def delete(self, workspace: str, name: str) -> AgentRecord:
        record = await self.get(workspace, name)
        if record is None:
            raise NotFound(f"agents delete: no agent named `{name[:128]}` in workspace {workspace}")
        node = registry_node(workspace)
        await self._engine.forget(
            ForgetRequest(
                filter=MetaFilter(namespace=node, about=About(ABOUT_KIND, name)), reach=Reach.exact(node)
            )
        )
        self._changed(workspace, name)
        return record

    def _changed(self, workspace: str, name: str) -> None:
        self._cache.pop((workspace, name), None)
        if self._changes is not None:
            self._changes.bump()
