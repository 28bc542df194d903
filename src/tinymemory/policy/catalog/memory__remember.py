"""memory__remember: save or update a durable memory in the user's own tier, and optionally propose it
to the agent's other users through the shared-write gate."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from pydantic import Field

from tinymemory.api import (
    DEFAULT_CONFIDENCE,
    About,
    InvalidRequest,
    ItemKind,
    ItemMeta,
    NewItem,
    Source,
    utcnow,
)
from tinymemory.api.validate import MAX_TEXT_CHARS, fail
from tinymemory.policy.answers import TierName
from tinymemory.policy.arguments import Declared, word
from tinymemory.policy.consent import has_consent
from tinymemory.policy.gate.queue import queue_items
from tinymemory.policy.gate.screen import PERSONAL, TOO_LONG, screen
from tinymemory.policy.policy import normal_category
from tinymemory.policy.session import PolicyContext, PolicySession
from tinymemory.tools.answers import Answer
from tinymemory.tools.declaration import Tool
from tinymemory.tools.fields import Boolean, Number, Text, Token
from tinymemory.tools.strict import Obj

MAX_TITLE_CHARS = 512
MAX_CATEGORY_CHARS = 128
MAX_ABOUT_KIND_CHARS = 128
MAX_ABOUT_KEY_CHARS = 512
# What a share answers: queued for the gate, or accepted and kept private (with the reason); a share
# queued without the identifiers it carried says so too (share_reason `scrubbed`).
KEPT_PRIVATE = "kept_private"
QUEUED = "queued"

SHARE_RULE = (
    "Share only facts useful to every user of the agent, such as a policy, a product detail or a "
    "procedure; never personal facts about the user, their account or their circumstances."
)
UPDATE_RULE = (
    "To correct a fact, remember it again with the same about_kind and about_key: the new version "
    "replaces the earlier one in place. Use memory__forget only when a fact should be removed entirely."
)
SHARE = Boolean(  # the same under every policy (the MCP gateway reads it too, to pair it with `agent`)
    name="share",
    description=(
        "true to also propose this memory as knowledge for every user of the agent; it is "
        "saved for the user either way. " + SHARE_RULE
    ),
)
MAX_AGENT_NAME_CHARS = 128
# Only where the tools serve no agent of their own (the MCP gateway, `PolicyContext.gateway`): the agent
# a share is proposed to. The host resolves it (service/gateway.py), never the handler.
AGENT = Text(
    name="agent",
    description=(
        "With share: true, the name of an agent of this workspace whose users the fact would be proposed "
        "to. Required with share: true; not used without it."
    ),
    max_chars=MAX_AGENT_NAME_CHARS,
)
FALLBACK = (
    "Save or update a durable memory. Reusing about_kind and about_key replaces the earlier memory "
    "in place; use memory__forget only to remove a fact."
)


def describe(context: PolicyContext) -> str:
    if context.fallback:
        return FALLBACK
    text = (
        "Create or update a durable memory: a stable fact, a preference, or something the user asked "
        "you to remember. " + UPDATE_RULE
    )
    required = context.policy.require_about_for
    if required:
        text += f" about_kind and about_key are required for these types: {', '.join(required)}."
    text += " " + SHARE_RULE
    consent = context.policy.consent_required
    if consent:
        text += (
            " These categories need the user's consent before a memory of one is kept: "
            f"{', '.join(consent)}; without it such a memory is refused and nothing is stored."
        )
    return text


@dataclass(frozen=True, slots=True)
class RememberArgs(Declared):
    content: Text
    type: Token
    confidence: Number
    category: Text
    about_kind: Text
    about_key: Text
    purpose: Text
    title: Text
    summary: Text
    share: Boolean
    agent: Text | None  # the MCP gateway's only

    @classmethod
    def declare(cls, context: PolicyContext) -> RememberArgs:
        policy = context.policy
        writable = policy.writable_types()
        return cls(
            content=Text(
                name="content",
                description="The durable observation, stated so that it makes sense on its own.",
                required=True,
                max_chars=MAX_TEXT_CHARS,
            ),
            type=word(
                "a memory type",
                writable if context.enums else None,
                name="type",
                description=f"The memory type (default {policy.default_type}).",
            ),
            confidence=Number(
                name="confidence", description="How sure you are, from 0 to 1 (default 0.8).", low=0, high=1
            ),
            category=Text(
                name="category",
                description="Consent category used by retention and consent rules, e.g. memory:health.",
                max_chars=MAX_CATEGORY_CHARS,
            ),
            about_kind=Text(
                name="about_kind",
                description=(
                    "What sort of subject the memory is about, a stable category such as person, project "
                    "or preference. Used with about_key to find the memory again."
                ),
                max_chars=MAX_ABOUT_KIND_CHARS,
            ),
            about_key=Text(
                name="about_key",
                description="The subject's stable identifier within about_kind, for example a name or an id.",
                max_chars=MAX_ABOUT_KEY_CHARS,
            ),
            purpose=Text(name="purpose", description="Why this memory is worth keeping."),
            title=Text(
                name="title", description="A short title, for long content.", max_chars=MAX_TITLE_CHARS
            ),
            summary=Text(name="summary", description="A one-line summary, for long content."),
            share=SHARE,
            agent=AGENT if context.gateway else None,
        )


class Remembered(Answer):
    id: str
    status: Literal["created", "updated", "unchanged"]
    tier: TierName
    supersedes: list[str] | None = Field(None, description="the ids this version replaced")
    share: Literal["queued", "kept_private"] | None = Field(
        None, description="what became of a share request"
    )
    share_reason: (
        Literal["no_gate", "user_shares_off", "no_agent", "personal", "too_long", "scrubbed"] | None
    ) = Field(
        None,
        description="why a share stayed private, or `scrubbed`: queued without the identifiers it carried",
    )
    share_agent_id: str | None = Field(
        None,
        description="the registry id of the agent a share named with `agent` (the MCP gateway's "
        "memory__remember, which serves no agent of its own)",
    )


async def remember(session: PolicySession, a: RememberArgs, raw: Obj) -> dict[str, Any]:
    """Store in the tier the identity writes to; about_kind + about_key supersede within that tier."""
    tool, policy = session.tool, session.policy
    values = a.shape().read(tool, raw)
    tier = session.tiers.write_tier
    place = session.tiers.write_place
    if tier is None or place is None:  # PolicyTools offers no tools without a user; kept for direct use
        raise InvalidRequest(f"{tool}: this conversation names no user, so there is nowhere to remember")
    kind = values[a.type] or policy.default_type
    if not policy.writable(kind, tier):
        allowed = ", ".join(t for t in policy.writable_types((tier,))) or "none"
        raise fail(
            tool,
            a.type.name,
            f"`{kind}` may not be written to the {tier.value} tier (allowed there: {allowed})",
        )
    about_kind, about_key = values[a.about_kind], values[a.about_key]
    if (about_kind is None) != (about_key is None):
        given, missing = ("about_kind", "about_key") if about_key is None else ("about_key", "about_kind")
        raise fail(tool, missing, f"is required with `{given}`")
    if about_kind is None and kind in policy.require_about_for:
        raise InvalidRequest(
            f"{tool}: `about_kind` and `about_key` are required for memories of type `{kind}`"
        )
    category = values[a.category]
    if policy.needs_consent(category) and not await has_consent(
        session.engine, session.identity, category or ""
    ):
        raise fail(
            tool,
            a.category.name,
            f"`{normal_category(category)}` needs the user's consent, which they have not given; "
            "nothing was stored (the user can grant it, then remember again)",
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
            category=category,
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
    if verdict in (PERSONAL, TOO_LONG):
        return None, verdict
    return agent, verdict


TOOL: Tool[PolicyContext, PolicySession, RememberArgs] = Tool(
    name="memory__remember",
    description=describe,
    arguments=RememberArgs.declare,
    handler=remember,
    result=Remembered,
    answers="The memory was stored (or replaced its earlier version).",
    writes=True,
    replay_safe=True,
    route="/remember",
)
