"""memory__remember and memory__forget: writes land in the identity's own tier, forgets stay in it."""

from __future__ import annotations

from typing import Any

from tinymemory.api import (
    DEFAULT_CONFIDENCE,
    About,
    ForgetRequest,
    InvalidRequest,
    ItemKind,
    ItemMeta,
    NewItem,
    Source,
    utcnow,
)
from tinymemory.policy import render
from tinymemory.policy.gate.queue import queue_items, withdraw
from tinymemory.policy.gate.screen import PERSONAL, screen
from tinymemory.policy.session import PolicySession, earlier_versions
from tinymemory.tools.strict import Obj

# What a share answers: queued for the gate, or accepted and kept private (with the reason); a share
# queued without the identifiers it carried says so too (share_reason `scrubbed`).
KEPT_PRIVATE = "kept_private"
QUEUED = "queued"
NOT_OWN_MESSAGE = (
    "this memory is shared with other users (agent or institutional tier); only your own can be forgotten"
)


async def remember(session: PolicySession, raw: Obj) -> dict[str, Any]:
    """Store in the tier the identity writes to; about_kind + about_key supersede within that tier."""
    tool, a, policy = session.tool, session.args.remember, session.policy
    values = a.shape().read(tool, raw)
    tier = session.tiers.write_tier
    place = session.tiers.write_place
    if tier is None or place is None:  # PolicyTools offers no tools without a user; kept for direct use
        raise InvalidRequest(f"{tool}: this conversation names no user, so there is nowhere to remember")
    kind = values[a.type] or policy.default_type
    if not policy.writable(kind, tier):
        allowed = ", ".join(t for t in policy.writable_types((tier,))) or "none"
        raise InvalidRequest(
            f"{tool}: `type` `{kind}` may not be written to the {tier.value} tier (allowed there: {allowed})"
        )
    about_kind, about_key = values[a.about_kind], values[a.about_key]
    if (about_kind is None) != (about_key is None):
        given, missing = ("about_kind", "about_key") if about_key is None else ("about_key", "about_kind")
        raise InvalidRequest(f"{tool}: `{missing}` is required with `{given}`")
    if about_kind is None and kind in policy.require_about_for:
        raise InvalidRequest(
            f"{tool}: `about_kind` and `about_key` are required for memories of type `{kind}`"
        )
    confidence = values[a.confidence]
    item = NewItem(
        ItemKind.LEARNING,
        values[a.content] or "",
        ItemMeta(
            namespace=place,
            source=Source("agent", session.identity.agent),
            agent_id=session.identity.agent,
            learning_kind=kind,
            title=values[a.title],
            summary=values[a.summary],
            purpose=values[a.purpose],
            category=values[a.category],
            about=About(about_kind.strip(), (about_key or "").strip()) if about_kind is not None else None,
            observed_at=utcnow(),
        ),
        confidence=DEFAULT_CONFIDENCE if confidence is None else confidence,
    )
    target, reason = share_target(session, item.text) if values[a.share] else (None, None)
    stored = await session.engine.store(item)
    if target is not None:
        # After the user's copy: the candidate cites it. Should this write fail, the user's copy is
        # kept and a retry (a replay of it) queues the candidate again.
        await session.engine.store_many(
            queue_items(
                session.identity, target, stored.id, item.text, kind, item.confidence or 0.0, utcnow()
            )
        )
    status = "unchanged" if stored.replayed else "updated" if stored.superseded else "created"
    out: dict[str, Any] = {"id": stored.id, "status": status, "tier": tier.value}
    if stored.superseded:
        out["supersedes"] = list(stored.superseded)
    if values[a.share]:
        out["share"] = QUEUED if target is not None else KEPT_PRIVATE
        if reason is not None:
            out["share_reason"] = reason
    return out


def share_target(session: PolicySession, text: str) -> tuple[str | None, str | None]:
    """The agent a share is queued for (with `scrubbed` when its identifiers were taken out), or None
    and why it stays private. A personal fact is never queued: the gate would not publish it, so it is
    not kept anywhere but the user's own tier (see `gate.screen.screen`)."""
    gate = session.policy.gate
    agent = session.share_agent or session.identity.agent
    if not gate.enabled:
        return None, "no_gate"
    if not gate.accept.user_shares:
        return None, "user_shares_off"
    if agent is None:
        return None, "no_agent"
    verdict = screen(session.identity, text)
    if verdict == PERSONAL:
        return None, PERSONAL
    return agent, verdict


async def forget(session: PolicySession, raw: Obj) -> dict[str, Any]:
    """Soft-delete the memory and its earlier versions, only in the user's own tiers."""
    a = session.args.forget
    memory_id = a.shape().read(session.tool, raw).must(a.memory_id)
    current = await session.current(memory_id)
    if current is None:
        return render.not_found(memory_id)
    tiers = session.tiers
    own = tiers.own_reach
    if own is None or current.namespace not in own:
        return {"status": "not_allowed", "id": current.id, "message": NOT_OWN_MESSAGE}
    chain = [current, *await earlier_versions(session.engine, current, own)]
    versions = [v.id for v in chain]
    texts = [v.text for v in chain]
    result = await session.engine.forget(ForgetRequest(ids=tuple(versions), reach=own))
    await withdraw(session.engine, session.identity, texts)
    return {
        "status": "forgotten",
        "id": current.id,
        "versions": len([v for v in versions if v in result.forgotten]),
    }
