"""Holistic recall: one read across several scopes, fused, deduplicated and fitted to a budget.

Each scope is a Reach with a weight (say the agent's own node 1.0, its team 0.7, the root 0.5). Every
scope is fetched with the same query; the ranked lists are merged by weighted reciprocal-rank fusion
(scores from different reaches are not comparable, ranks are), an item found by several scopes counts
once, and the lowest-ranked items are dropped first when the pack is over budget.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from tinymemory.api import (
    FetchMode,
    FetchRequest,
    ItemKind,
    MemoryEngine,
    MemoryItem,
    MetaFilter,
    Namespace,
    Reach,
    TimeHint,
    utcnow,
)
from tinymemory.context.pack import ContextPack, PackItem, PackSection, fit
from tinymemory.context.tokens import one_line

log = logging.getLogger(__name__)

RRF_K = 60
DEFAULT_PACK_BUDGET = 800
DEFAULT_LINE_CHARS = 320

# Sections a pack is grouped into, in render order.
SECTION_OF_KIND: dict[ItemKind, str] = {
    ItemKind.LEARNING: "Learnings",
    ItemKind.SUMMARY: "Conversation",
    ItemKind.CONVERSATION: "Conversation",
    ItemKind.CHUNK: "Documents",
    ItemKind.DOCUMENT: "Documents",
}
SECTION_ORDER = ("Learnings", "Documents", "Conversation")


@dataclass(frozen=True, slots=True)
class Scope:
    """One term of a holistic read: where to look and how much its hits weigh."""

    reach: Reach | None
    weight: float = 1.0
    label: str = ""


def lineage_scopes(ns: Namespace, *, decay: float = 0.7) -> tuple[Scope, ...]:
    """The node itself, then each ancestor up to the root, each weighing `decay` times the one below."""
    out: list[Scope] = []
    weight = 1.0
    for node in ns.lineage():
        out.append(Scope(Reach.exact(node), weight, str(node) or "root"))
        weight *= decay
    return tuple(out)


def _as_scopes(scopes: Sequence[Scope] | Reach | None) -> tuple[Scope, ...]:
    if scopes is None:
        return (Scope(None, 1.0, "all"),)
    if isinstance(scopes, Reach):
        return (Scope(scopes, 1.0, str(scopes)),)
    return tuple(scopes)


async def recall(
    engine: MemoryEngine,
    query: str,
    scopes: Sequence[Scope] | Reach | None = None,
    *,
    budget_tokens: int = DEFAULT_PACK_BUDGET,
    limit: int = 10,
    filter: MetaFilter | None = None,
    mode: FetchMode | None = None,
    time_hint: TimeHint | None = None,
    exclude: frozenset[str] = frozenset(),
    line_chars: int = DEFAULT_LINE_CHARS,
    now: Callable[[], datetime] = utcnow,
    title: str = "Relevant memory",
) -> ContextPack:
    """Read `query` across `scopes` and return one budgeted pack (best first within each section).

    A scope whose fetch fails is skipped and logged, so one bad term never empties the pack. Ids in
    `exclude` (e.g. turns already folded into a summary) are left out.
    """
    base = filter or MetaFilter()
    fused: dict[str, float] = {}
    found: dict[str, tuple[MemoryItem, str]] = {}
    skipped: list[str] = []
    for scope in _as_scopes(scopes):
        try:
            result = await engine.fetch(
                FetchRequest(
                    query=query,
                    mode=mode,
                    filter=replace(base, reach=scope.reach),
                    limit=limit,
                    time_hint=time_hint,
                )
            )
        except Exception:
            log.warning("holistic recall: scope `%s` failed and was skipped", scope.label, exc_info=True)
            skipped.append(scope.label)
            continue
        for rank, hit in enumerate(h for h in result.hits if h.item.id not in exclude):
            fused[hit.item.id] = fused.get(hit.item.id, 0.0) + scope.weight / (RRF_K + rank + 1)
            found.setdefault(hit.item.id, (hit.item, scope.label))
    ranked = sorted(fused, key=lambda i: (-fused[i], i))
    by_section: dict[str, list[PackItem]] = {name: [] for name in SECTION_ORDER}
    for item_id in ranked:
        item, label = found[item_id]
        section = SECTION_OF_KIND.get(item.kind, "Other")
        by_section.setdefault(section, []).append(
            PackItem(item_id, item.kind, one_line(item.text, line_chars), round(fused[item_id], 6), label)
        )
    sections = tuple(PackSection(name, tuple(items)) for name, items in by_section.items() if items)
    pack = ContextPack(
        sections=sections,
        generated_at=now(),
        engine=_engine_label(engine),
        budget_tokens=budget_tokens,
        title=title,
        query=query,
        skipped=tuple(skipped),
    )
    return fit(pack, _score_order(pack))


def _score_order(pack: ContextPack) -> list[tuple[int, int]]:
    """Lowest fused score first, wherever it sits."""
    keyed = [(item.score, s, i) for s, sec in enumerate(pack.sections) for i, item in enumerate(sec.items)]
    keyed.sort(key=lambda k: (k[0], -k[1], -k[2]))
    return [(s, i) for _, s, i in keyed]


def _engine_label(engine: MemoryEngine) -> str:
    d = engine.descriptor
    return f"{d.name} {d.version}"
