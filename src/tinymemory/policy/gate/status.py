"""What the gate holds for a workspace, for its admins: the candidates grouped as the job would group
them, how many distinct users back each group against how many it needs, when each expires, and the
decisions taken so far. Sharers appear only as counts: every text shown is scrubbed of every sharer the
agent's gate recorded, as the job scrubs what it compares and publishes."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from tinymemory.api import ListRequest, MemoryEngine, MetaFilter, Reach, format_rfc3339, utcnow
from tinymemory.policy.gate.job import Decision, queued_pairs, read_all, roster
from tinymemory.policy.gate.match import FactMatcher
from tinymemory.policy.gate.queue import (
    GATE_SOURCE,
    Candidate,
    agent_tier,
    candidate_node,
    decision_node,
    sharers_of,
)
from tinymemory.policy.gate.screen import scrub
from tinymemory.policy.policy import MemoryPolicy

MAX_DECISIONS = 100


async def gate_status(
    engine: MemoryEngine,
    workspace: str,
    policy: MemoryPolicy,
    matcher: FactMatcher,
    *,
    now: datetime | None = None,
    decisions: int = 50,
) -> dict[str, Any]:
    gate = policy.gate
    at = now or utcnow()
    agents = []
    for _, agent in await queued_pairs(engine, workspace):
        live = [c for c in map(Candidate.of, await read_all(engine, candidate_node(workspace, agent))) if c]
        sharers = sharers_of(await roster(engine, workspace, agent), live)
        texts = [scrub(c.text, sharers) for c in live]
        groups = []
        for group in matcher.group(texts):
            members = [live[i] for i in group]
            latest = max(m.shared_at for m in members)
            groups.append(
                {
                    "text": texts[group[0]],
                    "candidates": [m.id for m in members],
                    "distinct_subjects": len({m.subject for m in members}),
                    "needed": gate.min_distinct_subjects,
                    "first_shared_at": format_rfc3339(min(m.shared_at for m in members)),
                    "expires_at": format_rfc3339(latest + gate.window),
                    "expired": at - latest > gate.window,
                }
            )
        page = await engine.list(
            ListRequest(
                filter=MetaFilter(reach=Reach.exact(decision_node(workspace, agent))),
                limit=max(1, min(decisions, MAX_DECISIONS)),
            )
        )
        recent = []
        for item in page.items:
            d = Decision.of(item)
            if d is not None:
                when = item.meta.observed_at
                recent.append(
                    {
                        "candidate": d.candidate,
                        "decision": d.decision,
                        "fact": d.fact,
                        "at": format_rfc3339(when) if when else None,
                    }
                )
        shared = await read_all(engine, agent_tier(workspace, agent), MetaFilter(sources=(GATE_SOURCE,)))
        agents.append(
            {
                "agent": agent,
                "held": groups,
                "decisions": recent,
                "published": [
                    {"id": s.id, "text": scrub(s.text, sharers), "purpose": s.meta.purpose} for s in shared
                ],
            }
        )
    return {
        "workspace": workspace,
        "enabled": gate.enabled,
        "accept_user_shares": gate.accept.user_shares,
        "min_distinct_subjects": gate.min_distinct_subjects,
        "window_seconds": int(gate.window.total_seconds()),
        "agents": agents,
    }
