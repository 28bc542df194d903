"""Queueing a share: the candidate the gate will weigh, kept apart from every tier a user reads.

A candidate lives in `workspace:W/gate:A` (A: the agent it is proposed to), one per user and fact: the
same user sharing the same fact again refreshes their candidate rather than adding a second voice. It
holds the fact already de-identified of its sharer, a one-way digest of the sharer (enough to count
distinct users, not to name one) and the id of the user's own copy (so a fact its sharer forgot is
withdrawn). A marker in the root node `gate:queue` tells the job which (workspace, agent) pairs have
candidates, and the roster `workspace:W/gate:A/log:sharers` keeps the id of every user who ever shared
with the agent, so that no publication and no status view names any of them, even one whose own
shares are long decided. Nothing here is in a user's reach.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from tinymemory.api import (
    About,
    ForgetRequest,
    ItemKind,
    ItemMeta,
    ListRequest,
    MemoryEngine,
    MemoryItem,
    MetaFilter,
    Namespace,
    NewItem,
    PurgeRequest,
    Reach,
    Source,
)
from tinymemory.policy.gate.match import normalise
from tinymemory.policy.gate.screen import own_text
from tinymemory.policy.identity import Identity

GATE_SOURCE = "gate"
CANDIDATE_ABOUT = "gate-candidate"
QUEUE_ABOUT = "gate-queue"
SHARER_ABOUT = "gate-sharer"
SUBJECT_KEY = "gate_subject"
SOURCE_KEY = "gate_source"
USER_KEY = "gate_user"  # the sharer, kept in the gate's own records only, to scrub them from a publication
QUEUE_NODE = Namespace.of(("gate", "queue"))


def candidate_node(workspace: str, agent: str) -> Namespace:
    return Namespace.of(("workspace", workspace), ("gate", agent))


def decision_node(workspace: str, agent: str) -> Namespace:
    return candidate_node(workspace, agent).child("log", "decisions")


def sharer_node(workspace: str, agent: str) -> Namespace:
    return candidate_node(workspace, agent).child("log", "sharers")


def agent_tier(workspace: str, agent: str) -> Namespace:
    return Namespace.of(("workspace", workspace), ("agent", agent))


def subject_of(identity: Identity) -> str:
    """A digest that tells two sharers apart without naming either."""
    return hashlib.sha256(f"{identity.workspace}\x00{identity.user}".encode()).hexdigest()[:32]


def fact_key(text: str) -> str:
    return hashlib.sha256(normalise(text).encode()).hexdigest()[:24]


def candidate_key(identity: Identity, text: str) -> str:
    """The about key of `identity`'s candidate for `text`: one per user and fact."""
    return _key(subject_of(identity), own_text(identity, text))


def _key(subject: str, clean: str) -> str:
    return f"{subject}.{fact_key(clean)}"


async def withdraw(engine: MemoryEngine, identity: Identity, texts: list[str]) -> int:
    """Take `identity`'s queued shares of `texts` out of the gate at once, bytes and all: what a user
    forgets is not kept for the gate to weigh. Other users' candidates never match (the key holds the
    sharer's digest). Returns how many were withdrawn."""
    workspace = Reach.subtree(Namespace.of(("workspace", identity.workspace)))
    withdrawn = 0
    for key in sorted({candidate_key(identity, t) for t in texts}):
        flt = MetaFilter(reach=workspace, sources=(GATE_SOURCE,), about=About(CANDIDATE_ABOUT, key))
        found = (await engine.list(ListRequest(filter=flt, limit=100))).items
        if not found:
            continue
        await engine.forget(ForgetRequest(ids=tuple(i.id for i in found), reach=workspace))
        for node in sorted({i.namespace for i in found}, key=str):
            await engine.purge(PurgeRequest(reach=Reach.exact(node)))
        withdrawn += len(found)
    return withdrawn


def queue_items(
    identity: Identity,
    agent: str,
    source_id: str,
    text: str,
    kind: str,
    confidence: float,
    now: datetime,
) -> list[NewItem]:
    """What one share leaves for the gate: the candidate, the sharer on the agent's roster, the marker."""
    subject = subject_of(identity)
    clean = own_text(identity, text)
    candidate = NewItem(
        ItemKind.LEARNING,
        clean,
        ItemMeta(
            namespace=candidate_node(identity.workspace, agent),
            source=Source(GATE_SOURCE, None),
            agent_id=agent,
            learning_kind=kind,
            observed_at=now,
            about=About(CANDIDATE_ABOUT, _key(subject, clean)),
            extra=((SUBJECT_KEY, subject), (SOURCE_KEY, source_id), (USER_KEY, identity.user or "")),
        ),
        confidence=confidence,
    )
    items = [candidate]
    if identity.user:
        items.append(sharer_item(identity.workspace, agent, subject, identity.user))
    return [*items, queue_marker(identity.workspace, agent)]


def sharer_item(workspace: str, agent: str, subject: str, user: str) -> NewItem:
    """One entry of the roster: the same user again is a replay."""
    return NewItem(
        ItemKind.DOCUMENT,
        user,
        ItemMeta(
            namespace=sharer_node(workspace, agent),
            source=Source(GATE_SOURCE, None),
            about=About(SHARER_ABOUT, subject),
        ),
    )


def sharers_of(recorded: dict[str, str], candidates: Iterable[Candidate]) -> list[str]:
    """The roster's ids and the ids the candidates hold (a candidate queued before the roster existed
    has its sharer only there), sorted so that two jobs scrub alike."""
    return sorted({*recorded.values(), *(c.user for c in candidates if c.user)})


def queue_marker(workspace: str, agent: str) -> NewItem:
    pair = f"{workspace}/{agent}"
    return NewItem(
        ItemKind.DOCUMENT,
        pair,
        ItemMeta(namespace=QUEUE_NODE, source=Source(GATE_SOURCE, None), about=About(QUEUE_ABOUT, pair)),
    )


@dataclass(frozen=True, slots=True)
class Candidate:
    """A queued share as the job reads it."""

    item: MemoryItem
    subject: str
    source_id: str
    user: str

    @classmethod
    def of(cls, item: MemoryItem) -> Candidate | None:
        extra = dict(item.meta.extra)
        subject, source = extra.get(SUBJECT_KEY), extra.get(SOURCE_KEY)
        if not subject or not source:
            return None
        return cls(item, subject, source, extra.get(USER_KEY, ""))

    @property
    def id(self) -> str:
        return self.item.id

    @property
    def text(self) -> str:
        return self.item.text

    @property
    def shared_at(self) -> datetime:
        assert self.item.meta.observed_at is not None  # engines fill it
        return self.item.meta.observed_at
