"""What the gate holds for a workspace, for its admins: the candidates grouped as the job would group
them, how many distinct users back each group against how many it needs, when each expires, and the
decisions taken so far. Sharers appear only as counts."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from tinymemory.api import ListRequest, MemoryEngine, MetaFilter, Reach, format_rfc3339, utcnow
from tinymemory.policy.gate.job import Decision, queued_pairs, read_all
from tinymemory.policy.gate.match import FactMatcher
from tinymemory.policy.gate.queue import GATE_SOURCE, Candidate, agent_tier, candidate_node, decision_node
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
        groups = []
        for group in matcher.group([c.text for c in live]):
            members = [live[i] for i in group]
            latest = max(m.shared_at for m in members)
            groups.append(
                {
                    "text": members[0].text,
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
                "published": [{"id": s.id, "text": s.text, "purpose": s.meta.purpose} for s in shared],
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
