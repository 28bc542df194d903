"""Erasure: forget and then purge a set of one user's memories with everything derived from them.

One home for the cascade that retention, consent withdrawal and "forget me" all run:

1. the memories and their earlier versions are forgotten in the user's own subtree (every tier of
   theirs, whatever the agent); the engine's forget takes with them what cites them as evidence (a
   learning or a summary built from them), as it does for every forget;
2. their shares still waiting at the gate are withdrawn (`gate.queue.withdraw`);
3. their evidence in a published shared fact (the gate's decision records that count them) is
   removed; the fact stays only while `gate.minDistinctSubjects` other sharers still back it (its next
   version counts them), else it is withdrawn from the agent's tier with every version;
4. every node touched is purged, so the text's bytes leave the store.

`forget_me` runs it over everything the user owns and also drops what the gate and the consent record
kept about them, leaving one record that an erasure happened (a digest, counts, a time: no content).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, replace

from tinymemory.api import (
    About,
    ForgetRequest,
    InvalidRequest,
    ItemKind,
    ItemMeta,
    MemoryEngine,
    MemoryItem,
    MetaFilter,
    Namespace,
    NewItem,
    PurgeRequest,
    Reach,
    Source,
    utcnow,
)
from tinymemory.api.paging import list_all, newest
from tinymemory.api.timeutil import format_rfc3339
from tinymemory.policy.gate.job import (
    MERGED,
    PUBLISHED,
    SHARED_ABOUT,
    Decision,
    backers,
    queued_pairs,
    read_all,
    shared_purpose,
)
from tinymemory.policy.gate.queue import (
    SHARER_ABOUT,
    SUBJECT_KEY,
    agent_tier,
    candidate_node,
    decision_node,
    sharer_node,
    subject_of,
    withdraw,
)
from tinymemory.policy.identity import Identity
from tinymemory.policy.policy import MemoryPolicy
from tinymemory.policy.session import earlier_versions

ERASURE_SOURCE = "erasure"
CHUNK = 100


@dataclass
class ErasureReport:
    """What one erasure did, in counts only (it names no memory and no text)."""

    memories: int = 0  # the versions asked for and everything that cited them
    candidates: int = 0  # gate candidates withdrawn
    evidence: int = 0  # gate decision records that counted the user
    facts_kept: int = 0  # published facts other sharers still back (their count went down)
    facts_withdrawn: int = 0  # published facts left without enough sharers
    purged: int = 0  # rows deleted for good

    def add(self, other: ErasureReport) -> None:
        """Count `other` in too (a job erasing for several users reports once)."""
        for name, value in asdict(other).items():
            setattr(self, name, getattr(self, name) + value)

    def to_dict(self) -> dict[str, int]:
        """The counts as plain JSON, for a route, the CLI or a log line."""
        return asdict(self)


def user_node(identity: Identity) -> Namespace:
    """The root of every tier the user has: `workspace:W/user:U` and each `.../agent:A` under it."""
    if identity.user is None:
        raise InvalidRequest("erasure: this identity names no user")
    return Namespace.of(("workspace", identity.workspace), ("user", identity.user))


def user_reach(identity: Identity) -> Reach:
    return Reach.subtree(user_node(identity))


def consent_node(identity: Identity) -> Namespace:
    """Where one user's consent choices are kept (`workspace:W/consent:U`, outside every tier, so no
    read finds them); `consent` reads and writes it, "forget me" erases it."""
    if identity.user is None:
        raise InvalidRequest("consent: this identity names no user")
    return Namespace.of(("workspace", identity.workspace), ("consent", identity.user))


def erasure_log(workspace: str) -> Namespace:
    """Where "forget me" records that it happened: no identity's tiers reach it."""
    return Namespace.of(("workspace", workspace), ("erasure", "log"))


async def owned(engine: MemoryEngine, identity: Identity, flt: MetaFilter | None = None) -> list[MemoryItem]:
    """The user's active memories in every tier of theirs (optionally narrowed by `flt`)."""
    return await list_all(engine, replace(flt or MetaFilter(), reach=user_reach(identity)))


async def erase(
    engine: MemoryEngine, identity: Identity, items: Sequence[MemoryItem], policy: MemoryPolicy
) -> ErasureReport:
    """Forget and purge `items` (memories of `identity`'s own tiers; others are skipped) with their
    earlier versions and everything derived from them (see the module's steps)."""
    report = ErasureReport()
    reach = user_reach(identity)
    chain: dict[str, MemoryItem] = {}
    for item in items:
        if item.namespace not in reach:
            continue
        for v in (item, *await earlier_versions(engine, item, reach)):
            chain.setdefault(v.id, v)
    if not chain:
        return report
    ids = tuple(sorted(chain))
    forgotten: set[str] = set()
    for start in range(0, len(ids), CHUNK):
        result = await engine.forget(ForgetRequest(ids=ids[start : start + CHUNK], reach=reach))
        forgotten.update(result.forgotten)
    report.memories = len(forgotten)
    report.candidates = await withdraw(engine, identity, [v.text for v in chain.values()])
    await _take_evidence(engine, identity, policy, report, lambda d: d.source in forgotten)
    report.purged += (await engine.purge(PurgeRequest(reach=reach))).purged
    return report


async def forget_me(engine: MemoryEngine, identity: Identity, policy: MemoryPolicy) -> ErasureReport:
    """Erase everything `identity`'s user owns in the workspace: every tier of theirs, their queued
    shares, their place on the gate's rosters, their evidence in published facts (a fact stays only
    while enough other sharers back it) and their consent record. Leaves one record that it happened,
    without content: the user's digest, the time and the counts."""
    if not identity.is_verified_user:  # what cannot be undone is done only for the user themself
        raise InvalidRequest("forget me: only a verified user can have everything they own forgotten")
    report = await erase(engine, identity, await owned(engine, identity), policy)
    subject = subject_of(identity)
    # Whatever the cascade could not link to a memory: every decision counting the user, any
    # candidate of theirs left (a copy forgotten earlier), their roster entries.
    await _take_evidence(engine, identity, policy, report, lambda _d: True)
    for _ws, agent in await queued_pairs(engine, identity.workspace):
        node = candidate_node(identity.workspace, agent)
        theirs = [i for i in await read_all(engine, node) if dict(i.meta.extra).get(SUBJECT_KEY) == subject]
        report.candidates += await _drop(engine, node, theirs, report)
        roster = sharer_node(identity.workspace, agent)
        entries = [
            i for i in await read_all(engine, roster) if i.meta.about and i.meta.about.kind == SHARER_ABOUT
        ]
        await _drop(
            engine, roster, [i for i in entries if i.meta.about and i.meta.about.key == subject], report
        )
    node = consent_node(identity)
    await engine.forget(ForgetRequest(filter=MetaFilter(namespace=node), reach=Reach.exact(node)))
    report.purged += (await engine.purge(PurgeRequest(reach=Reach.exact(node)))).purged
    report.purged += (await engine.purge(PurgeRequest(reach=user_reach(identity)))).purged
    record = {"subject": subject, "at": format_rfc3339(utcnow()), **report.to_dict()}
    await engine.store(
        NewItem(
            ItemKind.DOCUMENT,
            json.dumps(record, sort_keys=True),
            ItemMeta(namespace=erasure_log(identity.workspace), source=Source(ERASURE_SOURCE, None)),
        )
    )
    return report


async def _drop(
    engine: MemoryEngine, node: Namespace, items: Iterable[MemoryItem], report: ErasureReport
) -> int:
    """Forget and purge `items` of one node; how many there were."""
    ids = tuple(sorted({i.id for i in items}))
    if not ids:
        return 0
    for start in range(0, len(ids), CHUNK):
        await engine.forget(ForgetRequest(ids=ids[start : start + CHUNK], reach=Reach.exact(node)))
    report.purged += (await engine.purge(PurgeRequest(reach=Reach.exact(node)))).purged
    return len(ids)


async def _take_evidence(
    engine: MemoryEngine,
    identity: Identity,
    policy: MemoryPolicy,
    report: ErasureReport,
    matches: Callable[[Decision], bool],
) -> None:
    """Remove the gate's decision records that count the user for what `matches` selects, then weigh
    each published fact they backed again against the gate's own threshold."""
    subject = subject_of(identity)
    needed = policy.gate.min_distinct_subjects
    for _ws, agent in await queued_pairs(engine, identity.workspace):
        # The job puts every sharer on the roster before it decides anything of theirs: a user not on
        # it has no decision to look for, and the decision log is not read.
        roster = MetaFilter(
            reach=Reach.exact(sharer_node(identity.workspace, agent)), about=About(SHARER_ABOUT, subject)
        )
        if await newest(engine, roster) is None:
            continue
        node = decision_node(identity.workspace, agent)
        records = await read_all(engine, node)
        theirs: list[MemoryItem] = []
        facts: set[str] = set()
        for item in records:
            d = Decision.of(item)
            if d is None or d.subject != subject or not matches(d):
                continue
            theirs.append(item)
            if d.fact and d.decision in (PUBLISHED, MERGED):
                facts.add(d.fact)
        if not theirs:
            continue
        report.evidence += await _drop(engine, node, theirs, report)
        for key in sorted(facts):
            await _reweigh(engine, identity.workspace, agent, key, needed, report)


async def _reweigh(
    engine: MemoryEngine, workspace: str, agent: str, key: str, needed: int, report: ErasureReport
) -> None:
    """A published fact after a sharer's evidence left: kept with its new count while `needed`
    sharers remain, else forgotten and purged with every version."""
    tier = agent_tier(workspace, agent)
    reach = Reach.exact(tier)
    found = await list_all(engine, MetaFilter(reach=reach, about=About(SHARED_ABOUT, key)))
    if not found:
        return
    remaining = await backers(engine, workspace, agent, key)
    if len(remaining) >= needed:
        for fact in found:
            meta = replace(fact.meta, purpose=shared_purpose(len(remaining)))
            await engine.store(NewItem(fact.kind, fact.text, meta, fact.confidence))
        report.facts_kept += len(found)
        return
    stale = [v.id for f in found for v in (f, *await earlier_versions(engine, f, reach))]
    await engine.forget(ForgetRequest(ids=tuple(sorted(set(stale))), reach=reach))
    report.purged += (await engine.purge(PurgeRequest(reach=reach))).purged
    report.facts_withdrawn += len(found)
