"""context.md: the token-budgeted brief a host injects at the start of a session.

One ranked read per Brief (the engine's default fetch mode; its hits become the section's lines, each
with its id), then the stored learnings newest and most confident first. Briefs are read with fetch,
not recall: context.md lists memories, so a synthesised answer (an LLM call per brief, when one is
configured) would cost time and determinism and add nothing.

Each memory appears once: a learning in the brief named for its kind when that brief found it, else in
the first section that found it. Over budget, learnings go
first, then the last brief's lines, then the brief before it. Deterministic for one store and clock.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime

from tinymemory.api import (
    FetchRequest,
    ItemKind,
    ListRequest,
    MemoryEngine,
    MemoryItem,
    MetaFilter,
    Reach,
    utcnow,
)
from tinymemory.context.pack import ContextPack, PackItem, PackSection, fit, trailing_order
from tinymemory.context.recall import DEFAULT_LINE_CHARS, _engine_label
from tinymemory.context.tokens import one_line

log = logging.getLogger(__name__)

DEFAULT_BUDGET_TOKENS = 1_500
_BROAD_READ = 4  # a brief not named for a learning kind reads this many times its limit, then skips
_MIN_TIME = datetime.min.replace(tzinfo=UTC)


@dataclass(frozen=True, slots=True)
class Brief:
    """One question the brief answers, narrowed by an optional filter (its reach is the spec's)."""

    title: str
    question: str
    filter: MetaFilter = field(default_factory=MetaFilter)
    limit: int = 5


# The questions avoid "user": every learning mentions the user, so the word ranks nothing and costs a
# scan of all of them.
DEFAULT_BRIEFS: tuple[Brief, ...] = (
    Brief(
        "About the user",
        "name, role, job, employer, home, family and background",
        MetaFilter(kinds=(ItemKind.LEARNING,), learning_kinds=("fact",)),
    ),
    Brief(
        "Active work",
        "current projects, tasks, goals, plans and decisions in progress",
        MetaFilter(kinds=(ItemKind.LEARNING, ItemKind.SUMMARY)),
    ),
    Brief(
        "Preferences and standing instructions",
        "preferences, likes, dislikes, favourites and standing instructions: always, never, prefer",
        MetaFilter(kinds=(ItemKind.LEARNING,), learning_kinds=("preference", "instruction")),
    ),
    Brief(
        "Recent important events",
        "recent important events, appointments, meetings, dates and decisions",
        MetaFilter(kinds=(ItemKind.LEARNING,), learning_kinds=("event", "decision")),
    ),
)


@dataclass(frozen=True, slots=True)
class ContextSpec:
    """What context.md holds. `reach` confines every read (None reads the whole store)."""

    briefs: tuple[Brief, ...] = DEFAULT_BRIEFS
    budget_tokens: int = DEFAULT_BUDGET_TOKENS
    reach: Reach | None = None
    learnings_reach: Reach | None = None  # where the learnings list reads; None: `reach`
    learnings_limit: int = 50
    line_chars: int = DEFAULT_LINE_CHARS
    title: str = "Context"
    learnings_title: str = "Learnings"
    now: Callable[[], datetime] = utcnow


async def compile(engine: MemoryEngine, spec: ContextSpec | None = None) -> ContextPack:
    """Build context.md. An empty engine (or reach) yields a pack whose markdown is ""."""
    return fit_brief(await draft(engine, spec))


def fit_brief(pack: ContextPack) -> ContextPack:
    """Trim a draft to its budget: learnings first, then the last brief, then the one before."""
    return fit(pack, trailing_order(pack))


async def draft(engine: MemoryEngine, spec: ContextSpec | None = None) -> ContextPack:
    """Everything context.md would hold before the budget is applied (one read per brief)."""
    spec = spec or ContextSpec()
    seen: set[str] = set()
    sections: list[PackSection] = []
    skipped: list[str] = []
    # A learning whose kind some brief is named for (its filter's learning_kinds) belongs there: a
    # broader brief (active work reads every learning and summary) skips it, and reads more to fill up.
    claimed = {kind for brief in spec.briefs for kind in brief.filter.learning_kinds}
    for brief in spec.briefs:
        named = bool(brief.filter.learning_kinds)
        try:
            result = await engine.fetch(
                FetchRequest(
                    query=brief.question,
                    filter=replace(brief.filter, reach=spec.reach),
                    limit=brief.limit if named else brief.limit * _BROAD_READ,
                )
            )
        except Exception:
            log.warning("context.md: brief `%s` failed and was skipped", brief.title, exc_info=True)
            skipped.append(brief.title)
            continue
        lines = []
        for hit in result.hits:
            if hit.item.id in seen or (not named and hit.item.meta.learning_kind in claimed):
                continue
            seen.add(hit.item.id)
            lines.append(_line(hit.item, hit.score, spec.line_chars))
            if len(lines) == brief.limit:
                break
        sections.append(PackSection(brief.title, tuple(lines)))
    learnings = await _learnings(engine, spec)
    sections.append(
        PackSection(
            spec.learnings_title,
            tuple(_line(item, 0.0, spec.line_chars) for item in learnings if item.id not in seen),
        )
    )
    return ContextPack(
        sections=tuple(sections),
        generated_at=spec.now(),
        engine=_engine_label(engine),
        budget_tokens=spec.budget_tokens,
        title=spec.title,
        skipped=tuple(skipped),
    )


async def _learnings(engine: MemoryEngine, spec: ContextSpec) -> list[MemoryItem]:
    """Active learnings in reach: newest first, then most confident, then id (a total order)."""
    try:
        result = await engine.list(
            ListRequest(
                filter=MetaFilter(reach=spec.learnings_reach or spec.reach, kinds=(ItemKind.LEARNING,)),
                limit=spec.learnings_limit,
            )
        )
    except Exception:
        log.warning("context.md: listing learnings failed and was skipped", exc_info=True)
        return []
    return sorted(
        result.items,
        key=lambda it: (
            -(it.meta.observed_at or _MIN_TIME).timestamp(),
            -(it.confidence if it.confidence is not None else 0.0),
            it.id,
        ),
    )


def _line(item: MemoryItem, score: float, limit: int) -> PackItem:
    return PackItem(item.id, item.kind, one_line(item.text, limit), round(score, 6))
