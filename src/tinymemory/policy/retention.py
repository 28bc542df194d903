"""The retention job: forget and purge every memory kept past the time its workspace's policy allows.

A memory's deadline is its `observed_at` (for memory__remember, when it was remembered) plus the
policy's retention for its tier and category (`MemoryPolicy.retention_for`: the most specific rule
wins). The job looks at the four tiers of every workspace (`workspace:W`, `.../agent:A`, `.../user:U`,
`.../user:U/agent:A`; the gate's, consent and erasure nodes are not tiers and are left alone), and asks
the engine only for what can be due: memories older than the shortest rule, and the versions a
correction replaced since then (`expired`). A user's
expired memories go through the erasure cascade (`erasure.erase`: what was derived from them, their
shares at the gate, their evidence in published facts); a shared or institutional memory is forgotten
with its earlier versions and purged from its tier. A dry run only counts, per tier and category.

Idempotent: what it erased is gone, so a second run (or two at once) finds nothing more to do.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from tinymemory.api import (
    ForgetRequest,
    MemoryEngine,
    MemoryItem,
    MetaFilter,
    Namespace,
    PurgeRequest,
    Reach,
    utcnow,
)
from tinymemory.api.paging import listed
from tinymemory.policy.erasure import ErasureReport, erase
from tinymemory.policy.identity import Identity, Tier
from tinymemory.policy.policy import MemoryPolicy, normal_category
from tinymemory.policy.session import earlier_versions

NO_CATEGORY = "(none)"


def tier_of(ns: Namespace) -> tuple[Tier, Identity] | None:
    """The tier a namespace is, with the identity that owns it, or None for any other node."""
    parts = [(s.kind, s.name) for s in ns.segments]
    if not parts or parts[0][0] != "workspace":
        return None
    ws = parts[0][1]
    kinds = tuple(k for k, _ in parts[1:])
    names = [n for _, n in parts[1:]]
    if kinds == ():
        return Tier.INSTITUTIONAL, Identity(ws)
    if kinds == ("agent",):
        return Tier.AGENT, Identity(ws, None, names[0])
    if kinds == ("user",):
        return Tier.USER, Identity(ws, names[0], verified=True)
    if kinds == ("user", "agent"):
        return Tier.USER_FOR_AGENT, Identity(ws, names[0], names[1], verified=True)
    return None


def deadline(policy: MemoryPolicy, tier: Tier, item: MemoryItem) -> datetime | None:
    """When `item` must be gone, or None when no rule limits it."""
    keep = policy.retention_for(tier, item.meta.category)
    if keep is None:
        return None
    return (item.meta.observed_at or item.valid_from) + keep


@dataclass
class RetentionReport:
    """Expired memories per tier and category (`tier/category`), and what erasing them did."""

    dry_run: bool = False
    expired: dict[str, int] = field(default_factory=dict)
    erased: ErasureReport = field(default_factory=ErasureReport)

    def to_dict(self) -> dict[str, object]:
        """The report as plain JSON, for a route, the CLI or a log line."""
        return {
            "dry_run": self.dry_run,
            "expired": dict(sorted(self.expired.items())),
            "erased": self.erased.to_dict(),
        }


class RetentionJob:
    """Runs retention over an engine. `policy_of(workspace)` gives each workspace's effective policy."""

    def __init__(
        self,
        engine: MemoryEngine,
        policy_of: Callable[[str], MemoryPolicy],
        *,
        now: Callable[[], datetime] = utcnow,
        policies: Iterable[MemoryPolicy] | None = None,
    ) -> None:
        """`policies`, when the host knows every policy `policy_of` can answer (a service's book): the
        job then reads only memories older than the shortest retention among them, and nothing at all
        when none sets one, instead of every memory of the store."""
        self.engine = engine
        self.policy_of = policy_of
        self.now = now
        self.horizon: timedelta | None = None
        self.idle = False
        self.examined = 0  # memories the last `expired` read from the engine
        if policies is not None:
            limits = [t for t in map(_shortest, policies) if t is not None]
            self.horizon = min(limits) if limits else None
            self.idle = not limits

    async def expired(self, workspace: str | None = None) -> list[tuple[Tier, Identity, MemoryItem]]:
        """Every memory of a tier past its deadline (in `workspace`, or in every workspace): the current
        version, or the newest of its earlier versions that is (the erasure takes the older ones).

        With a known horizon (the shortest rule of the policies in play) the engine is asked for two
        narrow sets only: the current memories observed at or before `now - horizon`, and the versions
        a correction replaced since then (those active at that instant: `MetaFilter.as_of`). A fresh
        memory is in neither. `examined` counts the memories the engine handed back."""
        now = self.now()
        self.examined = 0
        horizon = _shortest(self.policy_of(workspace)) if workspace else self.horizon
        if self.idle or (workspace is not None and horizon is None):
            return []  # no rule limits anything here
        reach = Reach.subtree(Namespace.of(("workspace", workspace))) if workspace else None
        scan = _Scan(self, now)
        # 1. Current versions that can be due. A memory stored without `observed_at` was stamped with
        # the store's clock, so every row has one and the filter dates each as `deadline` does.
        latest = now - horizon if horizon is not None else None
        flt = MetaFilter(reach=reach, observed_before=_just_after(latest) if latest else None)
        async for current in listed(self.engine, flt):
            self.examined += 1
            await scan.chain(current)
        if latest is None:  # a job told nothing of its policies has now seen every workspace
            limits = [t for t in scan.shortest.values() if t is not None]
            latest = now - min(limits) if limits else None
        if latest is None:
            return scan.out
        # 2. Versions a correction replaced after `latest`: their successors are younger than any rule
        # (so step 1 did not read them), they themselves may be past their own time.
        replaced = MetaFilter(reach=reach, as_of=latest, observed_before=_just_after(latest))
        async for version in listed(self.engine, replaced):
            self.examined += 1
            if version.is_active or version.id in scan.seen:
                continue  # step 1 looked at it, or walked past it
            await scan.chain(version)
        return scan.out

    async def run(self, workspace: str | None = None, *, dry_run: bool = False) -> RetentionReport:
        """Erase every expired memory (in `workspace`, or everywhere); `dry_run` only counts them."""
        report = RetentionReport(dry_run=dry_run)
        found = await self.expired(workspace)
        counts = Counter(f"{t.value}/{normal_category(i.meta.category) or NO_CATEGORY}" for t, _, i in found)
        report.expired = dict(counts)
        if dry_run:
            return report
        users: dict[tuple[str, str], list[MemoryItem]] = defaultdict(list)
        shared: dict[Namespace, list[MemoryItem]] = defaultdict(list)
        for _tier, owner, item in found:
            if owner.user is not None:
                users[(owner.workspace, owner.user)].append(item)
            else:
                shared[item.namespace].append(item)
        for (ws, user), items in sorted(users.items()):
            report.erased.add(
                await erase(self.engine, Identity(ws, user, verified=True), items, self.policy_of(ws))
            )
        for node, items in sorted(shared.items(), key=lambda kv: str(kv[0])):
            reach = Reach.exact(node)
            ids = sorted({v.id for i in items for v in (i, *await earlier_versions(self.engine, i, reach))})
            for start in range(0, len(ids), 100):
                result = await self.engine.forget(
                    ForgetRequest(ids=tuple(ids[start : start + 100]), reach=reach)
                )
                report.erased.memories += len(result.forgotten)
            report.erased.purged += (await self.engine.purge(PurgeRequest(reach=reach))).purged
        return report


class _Scan:
    """One `expired` pass: each workspace's policy read once, what is due, what was looked at."""

    def __init__(self, job: RetentionJob, now: datetime) -> None:
        self.job, self.now = job, now
        self.policies: dict[str, MemoryPolicy] = {}
        self.shortest: dict[str, timedelta | None] = {}
        self.out: list[tuple[Tier, Identity, MemoryItem]] = []
        self.seen: set[str] = set()

    async def chain(self, head: MemoryItem) -> None:
        """`head` if it is due, else the newest due version of those it replaced (a version a
        correction replaced expires by its own time, not its successor's; the cascade takes the older
        ones with it)."""
        place = tier_of(head.namespace)
        if place is None:
            return
        tier, owner = place
        ws = owner.workspace
        if ws not in self.policies:
            self.policies[ws] = self.job.policy_of(ws)
            self.shortest[ws] = _shortest(self.policies[ws])
        if self.shortest[ws] is None:
            return
        versions = [head]
        if head.supersedes is not None:
            earlier = await earlier_versions(self.job.engine, head, Reach.exact(head.namespace))
            self.job.examined += len(earlier)
            versions += earlier
        for version in versions:
            self.seen.add(version.id)
            if _due(self.policies[ws], tier, version, self.now):
                self.out.append((tier, owner, version))
                return


def _just_after(moment: datetime) -> datetime:
    """The exclusive bound that includes `moment` itself (times are kept to the microsecond)."""
    return moment + timedelta(microseconds=1)


def _due(policy: MemoryPolicy, tier: Tier, item: MemoryItem, now: datetime) -> bool:
    due = deadline(policy, tier, item)
    return due is not None and due <= now


def _shortest(policy: MemoryPolicy) -> timedelta | None:
    """The shortest retention a policy sets anywhere (None: it sets none, and nothing expires)."""
    spec = policy.retention
    values = [spec.default, *spec.categories.values()]
    for by_tier in spec.tiers.values():
        values += [by_tier.default, *by_tier.categories.values()]
    present = [v for v in values if v is not None]
    return min(present) if present else None
