"""Consent by category: a verified user grants or withdraws it; withdrawal erases what it covered.

A policy names the categories (`consent.required`) whose memories are kept only with the user's
consent. The record of one user's choices lives in `workspace:W/consent:U`, a node no identity's tiers
reach: one document per category (the about key), each choice a new version of it, so the history of
grants and withdrawals stays readable for the user's export. `memory__remember` asks `has_consent`
before it writes a memory of such a category; `withdraw_consent` runs the erasure cascade
(`erasure.erase`) over every memory of the category the user owns, in every tier of theirs.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from tinymemory.api import (
    About,
    InvalidRequest,
    ItemKind,
    ItemMeta,
    MemoryEngine,
    MemoryItem,
    MetaFilter,
    NewItem,
    Reach,
    Source,
    utcnow,
)
from tinymemory.api.echo import echo
from tinymemory.api.paging import list_all
from tinymemory.api.timeutil import format_rfc3339, parse_rfc3339
from tinymemory.policy.erasure import ErasureReport, consent_node, erase, owned
from tinymemory.policy.identity import Identity
from tinymemory.policy.policy import MemoryPolicy, is_category, normal_category
from tinymemory.policy.session import earlier_versions

CONSENT_ABOUT = "consent"
CONSENT_SOURCE = "consent"
GRANTED, WITHDRAWN = "granted", "withdrawn"


@dataclass(frozen=True, slots=True)
class ConsentChoice:
    """One choice of the user for one category, and when it was made."""

    category: str
    state: str
    at: datetime

    def to_dict(self) -> dict[str, str]:
        return {"category": self.category, "state": self.state, "at": format_rfc3339(self.at)}

    @classmethod
    def of(cls, item: MemoryItem) -> ConsentChoice | None:
        try:
            body = json.loads(item.text)
            return cls(str(body["category"]), str(body["state"]), parse_rfc3339(body["at"], field="at"))
        except (ValueError, KeyError, TypeError, InvalidRequest):
            return None


def _verified(identity: Identity, op: str) -> None:
    if not identity.is_verified_user:
        raise InvalidRequest(f"{op}: only a verified user can give or withdraw consent")


def _category(op: str, policy: MemoryPolicy, category: object, *, required: bool) -> str:
    """The category as the rules compare it; `required`: it must be one the policy asks consent for."""
    if not isinstance(category, str) or not is_category(normal_category(category) or ""):
        raise InvalidRequest(
            f"{op}: `category` `{echo(category)}` is not a category (kind:name, e.g. memory:health)"
        )
    cat = normal_category(category) or ""
    if required and not policy.needs_consent(cat):
        needed = ", ".join(policy.consent_required) or "none"
        raise InvalidRequest(
            f"{op}: `category` `{echo(cat)}` needs no consent here (categories that do: {needed})"
        )
    return cat


async def choices(engine: MemoryEngine, identity: Identity) -> dict[str, ConsentChoice]:
    """The user's current choice for each category they ever chose for."""
    found = await list_all(engine, MetaFilter(reach=Reach.exact(consent_node(identity))))
    out: dict[str, ConsentChoice] = {}
    for item in found:
        choice = ConsentChoice.of(item)
        if choice is not None:
            out[choice.category] = choice
    return out


async def history(engine: MemoryEngine, identity: Identity) -> list[ConsentChoice]:
    """Every choice the user made, oldest first (the current ones and the versions they replaced)."""
    reach = Reach.exact(consent_node(identity))
    out: list[ConsentChoice] = []
    for item in await list_all(engine, MetaFilter(reach=reach)):
        for version in (item, *await earlier_versions(engine, item, reach)):
            choice = ConsentChoice.of(version)
            if choice is not None:
                out.append(choice)
    return sorted(out, key=lambda c: (c.at, c.category, c.state))


async def has_consent(engine: MemoryEngine, identity: Identity, category: str) -> bool:
    """Whether the user's current choice for `category` is a grant."""
    cat = normal_category(category) or ""
    about = About(CONSENT_ABOUT, cat)
    found = await list_all(engine, MetaFilter(reach=Reach.exact(consent_node(identity)), about=about), 10)
    current = [c for c in map(ConsentChoice.of, found) if c is not None]
    return bool(current) and max(current, key=lambda c: c.at).state == GRANTED


async def _record(engine: MemoryEngine, identity: Identity, category: str, state: str) -> ConsentChoice:
    choice = ConsentChoice(category, state, utcnow())
    await engine.store(
        NewItem(
            ItemKind.DOCUMENT,
            json.dumps(choice.to_dict(), sort_keys=True),
            ItemMeta(
                namespace=consent_node(identity),
                source=Source(CONSENT_SOURCE, None),
                about=About(CONSENT_ABOUT, category),
            ),
        )
    )
    return choice


async def grant_consent(
    engine: MemoryEngine, identity: Identity, policy: MemoryPolicy, category: object
) -> dict[str, Any]:
    """Record the user's consent to keep memories of `category` (one the policy asks consent for)."""
    op = "consent grant"
    _verified(identity, op)
    cat = _category(op, policy, category, required=True)
    return (await _record(engine, identity, cat, GRANTED)).to_dict()


async def withdraw_consent(
    engine: MemoryEngine, identity: Identity, policy: MemoryPolicy, category: object
) -> dict[str, Any]:
    """Record the withdrawal, then forget and purge every memory of `category` the user owns, with
    everything derived from them (`erasure.erase`). The record is written first: a remember racing
    the erasure is refused from then on."""
    op = "consent withdraw"
    _verified(identity, op)
    cat = _category(op, policy, category, required=False)
    choice = await _record(engine, identity, cat, WITHDRAWN)
    mine = [i for i in await owned(engine, identity) if normal_category(i.meta.category) == cat]
    report: ErasureReport = await erase(engine, identity, mine, policy)
    return {**choice.to_dict(), "erased": report.to_dict()}


async def consent_status(engine: MemoryEngine, identity: Identity, policy: MemoryPolicy) -> dict[str, Any]:
    """Each category the policy asks consent for, with the user's current choice (`none` if never)."""
    current = await choices(engine, identity)
    rows = []
    for cat in policy.consent_required:
        c = current.get(cat)
        rows.append(
            {"category": cat, "state": c.state if c else "none", "at": format_rfc3339(c.at) if c else None}
        )
    return {"categories": rows}
