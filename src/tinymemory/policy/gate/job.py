"""The gate job: weigh the queued shares of each (workspace, agent) and publish, merge, hold or reject.

One pass, for every pair with candidates, with every sharer the agent's gate ever recorded (the
roster) scrubbed from every text it compares, publishes or keeps published:

1. check the published facts again: one that names a sharer (a user who shared after it was
   published) or carries an identifier gets a scrubbed version, one that is personal is taken back;
2. withdraw a candidate whose sharer forgot or corrected their own copy;
3. reject a candidate older than `gate.window` that was never published;
4. group the live candidates by "the same fact" (`match.FactMatcher`), on their scrubbed texts;
5. a group matching a fact the gate already published is merged into it as evidence (the shared
   memory's next version counts the new sharers); else a group with `gate.minDistinctSubjects`
   distinct sharers is published, de-identified, to the agent's shared tier; else it is held.

Every step is idempotent, so the job may stop anywhere and run again, and two jobs may run at once:
the published copy's id comes from its content (a second store is a replay), a decision record's
content is fixed by the candidate it decides, and forgetting a forgotten candidate does nothing.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from datetime import datetime

from tinymemory.api import (
    About,
    ForgetRequest,
    GetRequest,
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
from tinymemory.policy.gate.match import FactMatcher
from tinymemory.policy.gate.queue import (
    GATE_SOURCE,
    QUEUE_NODE,
    Candidate,
    agent_tier,
    candidate_node,
    decision_node,
    fact_key,
    sharer_item,
    sharer_node,
    sharers_of,
)
from tinymemory.policy.gate.screen import publishable, scrub
from tinymemory.policy.policy import MemoryPolicy
from tinymemory.policy.session import earlier_versions

PAGE = 500
SHARED_ABOUT = "shared-fact"
DECISION_ABOUT = "gate-decision"
FACT_TAG = "fact:"

PUBLISHED, MERGED, REJECTED, WITHDRAWN, PERSONAL = "published", "merged", "rejected", "withdrawn", "personal"


@dataclass
class GateReport:
    pairs: int = 0
    published: int = 0
    merged: int = 0
    held: int = 0
    rejected: int = 0
    withdrawn: int = 0
    personal: int = 0
    rescrubbed: int = 0
    retracted: int = 0
    shared_ids: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


async def read_all(engine: MemoryEngine, node: Namespace, flt: MetaFilter | None = None) -> list[MemoryItem]:
    """Every active item of one node, oldest first (the engine lists newest first, a page at a time)."""
    items = await list_all(engine, _in(flt or MetaFilter(), node), PAGE)
    return sorted(items, key=lambda i: (i.meta.observed_at or i.valid_from, i.id))


def _in(flt: MetaFilter, node: Namespace) -> MetaFilter:
    return replace(flt, reach=Reach.exact(node))


async def queued_pairs(engine: MemoryEngine, workspace: str | None = None) -> list[tuple[str, str]]:
    """The (workspace, agent) pairs that ever had a candidate, from the queue's markers."""
    pairs = []
    for marker in await read_all(engine, QUEUE_NODE):
        ws, _, agent = marker.text.partition("/")
        if agent and (workspace is None or ws == workspace):
            pairs.append((ws, agent))
    return sorted(set(pairs))


async def roster(engine: MemoryEngine, workspace: str, agent: str) -> dict[str, str]:
    """Every user who ever shared with `agent`, by digest: what a publication must never name."""
    entries = await read_all(engine, sharer_node(workspace, agent))
    return {i.meta.about.key: i.text for i in entries if i.meta.about and i.text}


def shared_purpose(sharers: int) -> str:
    noun = "user" if sharers == 1 else "users"
    return f"Shared knowledge of this agent, reported by {sharers} {noun} (published by the gate)"


@dataclass(frozen=True, slots=True)
class Decision:
    candidate: str
    decision: str
    fact: str | None
    subject: str
    # The sharer's own copy the candidate cited: what links a user's memory to the published fact it
    # backs, so erasing the memory takes its evidence away (None in records written before the link).
    source: str | None = None

    def item(self, workspace: str, agent: str) -> NewItem:
        body = {
            "candidate": self.candidate,
            "decision": self.decision,
            "fact": self.fact,
            "subject": self.subject,
        }
        if self.source is not None:
            body["source"] = self.source
        return NewItem(
            ItemKind.DOCUMENT,
            json.dumps(body, sort_keys=True),
            ItemMeta(
                namespace=decision_node(workspace, agent),
                source=Source(GATE_SOURCE, None),
                about=About(DECISION_ABOUT, self.candidate),
                tags=(FACT_TAG + self.fact,) if self.fact else (),
            ),
        )

    @classmethod
    def of(cls, item: MemoryItem) -> Decision | None:
        try:
            body = json.loads(item.text)
            source = body.get("source")
            return cls(
                str(body["candidate"]),
                str(body["decision"]),
                body.get("fact"),
                str(body["subject"]),
                str(source) if source is not None else None,
            )
        except (ValueError, KeyError, TypeError):
            return None


async def backers(engine: MemoryEngine, workspace: str, agent: str, key: str) -> set[str]:
    """The sharers counted for a published fact (from the gate's decision records): what a merge
    counts, and what an erasure weighs against `gate.minDistinctSubjects`."""
    records = await read_all(engine, decision_node(workspace, agent), MetaFilter(tags_any=(FACT_TAG + key,)))
    return {d.subject for d in map(Decision.of, records) if d and d.decision in (PUBLISHED, MERGED)}


class GateJob:
    """Runs the gate over an engine. `policy_of(workspace)` gives each workspace's effective policy."""

    def __init__(
        self,
        engine: MemoryEngine,
        policy_of: Callable[[str], MemoryPolicy],
        matcher: FactMatcher,
        *,
        now: Callable[[], datetime] = utcnow,
    ) -> None:
        self.engine = engine
        self.policy_of = policy_of
        self.matcher = matcher
        self.now = now

    async def run(self, workspace: str | None = None) -> GateReport:
        report = GateReport()
        for ws, agent in await queued_pairs(self.engine, workspace):
            report.pairs += 1
            await self.run_pair(ws, agent, report)
        return report

    async def run_pair(self, workspace: str, agent: str, report: GateReport) -> None:
        gate = self.policy_of(workspace).gate
        if not gate.enabled:
            return
        now = self.now()
        candidates = [
            c for c in map(Candidate.of, await read_all(self.engine, candidate_node(workspace, agent))) if c
        ]
        if not candidates:
            return
        sharers = await self._sharers(workspace, agent, candidates)
        decided = await self._decided(workspace, agent, [c.id for c in candidates])
        settled = [c for c in candidates if c.id in decided]
        todo = [c for c in candidates if c.id not in decided]
        alive = await self._alive_sources({c.source_id for c in todo})
        decisions: list[Decision] = []
        live: list[Candidate] = []
        for c in todo:
            if c.source_id not in alive:
                decisions.append(Decision(c.id, WITHDRAWN, None, c.subject, c.source_id))
            elif now - c.shared_at > gate.window:
                decisions.append(Decision(c.id, REJECTED, None, c.subject, c.source_id))
            else:
                live.append(c)
        shared = await read_all(self.engine, agent_tier(workspace, agent), MetaFilter(sources=(GATE_SOURCE,)))
        shared = await self._recheck(workspace, agent, shared, sharers, report)
        texts = [scrub(c.text, sharers) for c in live]
        for group in self.matcher.group(texts):
            members = [live[i] for i in group]
            text = texts[group[0]]
            decisions += await self._weigh(
                workspace, agent, members, text, sharers, shared, gate.min_distinct_subjects, report
            )
        await self._record(workspace, agent, decisions, report)
        await self._retire(
            workspace, agent, [*settled, *(c for c in candidates if c.id in {d.candidate for d in decisions})]
        )

    async def _sharers(self, workspace: str, agent: str, candidates: list[Candidate]) -> list[str]:
        """Every sharer of the agent's gate. A candidate queued before the roster existed adds its
        sharer to it here, before the candidate (and with it the only record of them) is retired."""
        recorded = await roster(self.engine, workspace, agent)
        missing = {c.subject: c.user for c in candidates if c.user and recorded.get(c.subject) != c.user}
        if missing:
            await self.engine.store_many(
                [sharer_item(workspace, agent, subject, user) for subject, user in sorted(missing.items())]
            )
        return sharers_of(recorded, candidates)

    async def _recheck(
        self,
        workspace: str,
        agent: str,
        shared: list[MemoryItem],
        sharers: list[str],
        report: GateReport,
    ) -> list[MemoryItem]:
        """The published facts as they may stay. One that names a sharer (a user who shared after it
        was published) or carries an identifier (a spelling the detectors learnt since) gets a
        scrubbed version; one that is personal even scrubbed is taken back. The version that named
        someone is forgotten and purged, so no history read finds it."""
        kept: list[MemoryItem] = []
        stale: list[str] = []
        reach = Reach.exact(agent_tier(workspace, agent))
        for s in shared:
            if publishable(s.text, sharers):
                kept.append(s)
                continue
            stale += [s.id, *(v.id for v in await earlier_versions(self.engine, s, reach))]
            clean = scrub(s.text, sharers)
            if not publishable(clean, sharers):
                report.retracted += 1
                continue
            stored = await self.engine.store(NewItem(s.kind, clean, s.meta, s.confidence))
            kept.append((await self.engine.get(GetRequest(ids=(stored.id,)))).items[0])
            report.rescrubbed += 1
            report.shared_ids.append(stored.id)
        if stale:
            await self.engine.forget(ForgetRequest(ids=tuple(stale), reach=reach))
            await self.engine.purge(PurgeRequest(reach=reach))
        return kept

    async def _weigh(
        self,
        workspace: str,
        agent: str,
        members: list[Candidate],
        text: str,
        sharers: list[str],
        shared: list[MemoryItem],
        needed: int,
        report: GateReport,
    ) -> list[Decision]:
        """`text` is the group's first member (the earliest share: a fixed choice, so two jobs publish
        the same text), scrubbed of every sharer of the agent."""
        first = members[0]
        if not publishable(text, sharers):
            return [Decision(m.id, PERSONAL, None, m.subject, m.source_id) for m in members]
        existing = next((s for s in shared if self.matcher.same(s.text, text)), None)
        if existing is not None:
            key = existing.meta.about.key if existing.meta.about else fact_key(existing.text)
            subjects = await self._subjects(workspace, agent, key) | {m.subject for m in members}
            stored = await self.engine.store(
                self._shared_item(workspace, agent, existing.text, key, len(subjects), first)
            )
            report.merged += len(members)
            report.shared_ids.append(stored.id)
            return [Decision(m.id, MERGED, key, m.subject, m.source_id) for m in members]
        subjects = {m.subject for m in members}
        if len(subjects) < needed:
            report.held += len(members)
            return []
        key = fact_key(text)
        stored = await self.engine.store(self._shared_item(workspace, agent, text, key, len(subjects), first))
        shared.append((await self.engine.get(GetRequest(ids=(stored.id,)))).items[0])
        report.published += 1
        report.shared_ids.append(stored.id)
        return [Decision(m.id, PUBLISHED, key, m.subject, m.source_id) for m in members]

    def _shared_item(
        self, workspace: str, agent: str, text: str, key: str, sharers: int, first: Candidate
    ) -> NewItem:
        """The published copy: the fact, its type, and how many users reported it; no sharer in it."""
        return NewItem(
            ItemKind.LEARNING,
            text,
            ItemMeta(
                namespace=agent_tier(workspace, agent),
                source=Source(GATE_SOURCE, None),
                agent_id=agent,
                learning_kind=first.item.meta.learning_kind,
                purpose=shared_purpose(sharers),
                about=About(SHARED_ABOUT, key),
            ),
            confidence=first.item.confidence,
        )

    async def _subjects(self, workspace: str, agent: str, key: str) -> set[str]:
        return await backers(self.engine, workspace, agent, key)

    async def _decided(self, workspace: str, agent: str, ids: list[str]) -> set[str]:
        node = decision_node(workspace, agent)
        found: set[str] = set()
        for cid in ids:
            decided = MetaFilter(reach=Reach.exact(node), about=About(DECISION_ABOUT, cid))
            if await newest(self.engine, decided) is not None:
                found.add(cid)
        return found

    async def _alive_sources(self, ids: set[str]) -> set[str]:
        """Sources still the current version of their sharer's memory (forgotten or corrected: not)."""
        alive: set[str] = set()
        ordered = sorted(ids)
        for start in range(0, len(ordered), 100):
            got = await self.engine.get(GetRequest(ids=tuple(ordered[start : start + 100])))
            alive |= {i.id for i in got.items if i.forgotten_at is None and i.superseded_by is None}
        return alive

    async def _record(
        self, workspace: str, agent: str, decisions: list[Decision], report: GateReport
    ) -> None:
        if decisions:
            await self.engine.store_many([d.item(workspace, agent) for d in decisions])
        for d in decisions:
            if d.decision == REJECTED:
                report.rejected += 1
            elif d.decision == WITHDRAWN:
                report.withdrawn += 1
            elif d.decision == PERSONAL:
                report.personal += 1

    async def _retire(self, workspace: str, agent: str, done: list[Candidate]) -> None:
        """Decided candidates leave the queue, bytes and all (their decision records stay): a withdrawn
        one held a fact its sharer forgot."""
        if not done:
            return
        reach = Reach.exact(candidate_node(workspace, agent))
        ids = tuple(sorted({c.id for c in done}))
        for start in range(0, len(ids), 100):
            await self.engine.forget(ForgetRequest(ids=ids[start : start + 100], reach=reach))
        await self.engine.purge(PurgeRequest(reach=reach))
