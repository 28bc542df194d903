"""A user's export: everything the platform holds about one verified user, as JSON records.

Records, one per line when served (`GET /api/v1/memory/export`), each with a `record` kind:

- `subject`: who the export is for and when it was made;
- `memory`: every version of every memory in the user's tiers (`user`, each `user_for_agent`), with
  its tier, agent, type, content, metadata and validity;
- `gate_candidate`: their shares still waiting at a gate (the de-identified text the gate holds);
- `gate_sharer`: each agent whose gate keeps them on its roster;
- `gate_evidence`: each gate decision that counts them, with the published fact it backs, if any;
- `consent`: every consent choice they made.

Nothing here reads outside the user's own subtree, their consent node and the records the gate keeps
under their digest: another user's memory never enters an export.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from tinymemory.api import About, InvalidRequest, MemoryEngine, MemoryItem, MetaFilter, Reach, utcnow
from tinymemory.api.paging import list_all
from tinymemory.api.timeutil import format_rfc3339
from tinymemory.policy.consent import history
from tinymemory.policy.erasure import owned, user_reach
from tinymemory.policy.gate.job import SHARED_ABOUT, Decision, queued_pairs, read_all
from tinymemory.policy.gate.queue import (
    SHARER_ABOUT,
    SUBJECT_KEY,
    agent_tier,
    candidate_node,
    decision_node,
    sharer_node,
    subject_of,
)
from tinymemory.policy.identity import Identity
from tinymemory.policy.retention import tier_of
from tinymemory.policy.session import earlier_versions

META_FIELDS = ("title", "summary", "category", "purpose", "learning_kind", "parent_title")


def _when(value: Any) -> str | None:
    return format_rfc3339(value) if value is not None else None


def memory_record(item: MemoryItem) -> dict[str, Any]:
    """One version of one of the user's memories, as the export shows it."""
    place = tier_of(item.namespace)
    meta = item.meta
    metadata = {name: getattr(meta, name) for name in META_FIELDS if getattr(meta, name, None) is not None}
    if meta.about is not None:
        metadata["about_kind"], metadata["about_key"] = meta.about.kind, meta.about.key
    return {
        "record": "memory",
        "id": item.id,
        "tier": place[0].value if place else None,
        "agent": place[1].agent if place else None,
        "kind": item.kind.value,
        "content": item.text,
        "confidence": item.confidence,
        "metadata": metadata,
        "observed_at": _when(meta.observed_at),
        "valid_from": _when(item.valid_from),
        "valid_to": _when(item.valid_to),
        "supersedes": item.supersedes,
    }


async def export_user(engine: MemoryEngine, identity: Identity) -> AsyncIterator[dict[str, Any]]:
    """Every record held about `identity`'s user, one at a time (see the module)."""
    if not identity.is_verified_user:
        raise InvalidRequest("export: only a verified user can export their memory")
    yield {
        "record": "subject",
        "workspace": identity.workspace,
        "user": identity.user,
        "exported_at": format_rfc3339(utcnow()),
    }
    reach = user_reach(identity)
    for item in await owned(engine, identity):
        for version in (item, *await earlier_versions(engine, item, reach)):
            yield memory_record(version)
    subject = subject_of(identity)
    for ws, agent in await queued_pairs(engine, identity.workspace):
        for c in await read_all(engine, candidate_node(ws, agent)):
            if dict(c.meta.extra).get(SUBJECT_KEY) == subject:
                yield {
                    "record": "gate_candidate",
                    "agent": agent,
                    "id": c.id,
                    "content": c.text,
                    "shared_at": _when(c.meta.observed_at),
                }
        for s in await read_all(engine, sharer_node(ws, agent)):
            if s.meta.about == About(SHARER_ABOUT, subject):
                yield {"record": "gate_sharer", "agent": agent}
        tier = Reach.exact(agent_tier(ws, agent))
        for item in await read_all(engine, decision_node(ws, agent)):
            d = Decision.of(item)
            if d is None or d.subject != subject:
                continue
            fact = None
            if d.fact:
                found = await list_all(engine, MetaFilter(reach=tier, about=About(SHARED_ABOUT, d.fact)), 10)
                fact = {"id": found[0].id, "content": found[0].text} if found else None
            yield {
                "record": "gate_evidence",
                "agent": agent,
                "decision": d.decision,
                "source": d.source,
                "at": _when(item.meta.observed_at),
                "published": fact,
            }
    for choice in await history(engine, identity):
        yield {"record": "consent", **choice.to_dict()}
