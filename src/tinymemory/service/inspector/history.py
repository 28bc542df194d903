"""What the inspector reads from the engine for one signed-in user: an item with its versions, the
newest items of a tier, and each tier's count. Every read is confined to the caller's read reach."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta

from tinymemory.api import (
    GetRequest,
    InvalidRequest,
    ItemKind,
    ListRequest,
    ListResult,
    MemoryEngine,
    MemoryItem,
    MetaFilter,
    Reach,
    format_rfc3339,
)
from tinymemory.api.validate import MAX_ID_CHARS
from tinymemory.policy import Tier, Tiers
from tinymemory.policy.session import MAX_VERSIONS
from tinymemory.service.inspector import stats

PAGE_SIZE = 20


@dataclass(frozen=True, slots=True)
class Versions:
    """The asked item and its supersession chain, oldest first (every version the caller may see)."""

    item: MemoryItem
    chain: tuple[MemoryItem, ...]

    def active_at(self, instant: datetime) -> MemoryItem | None:
        """The version that was active at `instant`: valid from its `valid_from` until its `valid_to`
        (the bitemporal columns of `MemoryItem`), or None when none was."""
        for version in self.chain:
            if version.valid_from <= instant and (version.valid_to is None or instant < version.valid_to):
                return version
        return None


async def _one(engine: MemoryEngine, tiers: Tiers, memory_id: str) -> MemoryItem | None:
    """The item `memory_id` names when the caller can see it; None for anything else, malformed ids
    included, so every miss looks the same."""
    if not memory_id or len(memory_id) > MAX_ID_CHARS or not memory_id.isprintable():
        return None
    try:
        got = await engine.get(GetRequest(ids=(memory_id,), reach=tiers.read_reach))
    except InvalidRequest:
        return None
    return got.items[0] if got.items else None


async def versions(engine: MemoryEngine, tiers: Tiers, memory_id: str) -> Versions | None:
    """The item and its history: `supersedes` followed back, `superseded_by` forward."""
    item = await _one(engine, tiers, memory_id)
    if item is None:
        return None
    older: list[MemoryItem] = []
    newer: list[MemoryItem] = []
    seen = {item.id}
    for link, out in (("supersedes", older), ("superseded_by", newer)):
        step: MemoryItem | None = item
        while step is not None and len(seen) < MAX_VERSIONS:
            wanted = getattr(step, link)
            if wanted is None or wanted in seen:
                break
            seen.add(wanted)
            step = await _one(engine, tiers, wanted)
            if step is not None:
                out.append(step)
    return Versions(item, (*reversed(older), item, *newer))


async def counts(engine: MemoryEngine, tiers: Tiers) -> dict[Tier, int]:
    """How many active items each of the caller's tiers holds."""
    present = tiers.present()
    return {tier: await stats.count(engine, MetaFilter(reach=tiers.reach_of((tier,)))) for tier in present}


FILTER_FIELDS = ("type", "source", "tag", "from", "to")
MAX_FILTER_CHARS = 200
EXPORT_PAGE = 200


@dataclass(frozen=True, slots=True)
class Filters:
    """The list page's filters (all optional): a type (an item kind or a learning kind), a source kind,
    a tag, and a range of days observed (`date_from` through `date_to`, both inclusive, UTC)."""

    type: str | None = None
    source: str | None = None
    tag: str | None = None
    date_from: date | None = None
    date_to: date | None = None

    def query(self) -> dict[str, str | None]:
        """The filters as URL parameters, so a next page or an export keeps them."""
        return {
            "type": self.type,
            "source": self.source,
            "tag": self.tag,
            "from": None if self.date_from is None else self.date_from.isoformat(),
            "to": None if self.date_to is None else self.date_to.isoformat(),
        }

    def meta_filter(self, reach: Reach) -> MetaFilter:
        kinds = (ItemKind(self.type),) if self.type in ItemKind.values() else ()
        learning = (self.type,) if self.type is not None and not kinds else ()
        after = None if self.date_from is None else datetime.combine(self.date_from, time(), UTC)
        before = (
            None if self.date_to is None else datetime.combine(self.date_to + timedelta(days=1), time(), UTC)
        )
        return MetaFilter(
            reach=reach,
            kinds=kinds,
            learning_kinds=learning,
            sources=(self.source,) if self.source else (),
            tags_any=(self.tag,) if self.tag else (),
            observed_after=after,
            observed_before=before,
        )


def _text(params: Mapping[str, str], name: str) -> str | None:
    given = params.get(name, "").strip()
    if not given:
        return None
    if len(given) > MAX_FILTER_CHARS or not given.isprintable():
        raise InvalidRequest(
            f"inspector: `{name}` must be printable text of at most {MAX_FILTER_CHARS} characters"
        )
    return given


def _day(params: Mapping[str, str], name: str) -> date | None:
    given = params.get(name, "").strip()
    if not given:
        return None
    try:
        if len(given) != 10:
            raise ValueError(given)
        return date.fromisoformat(given)
    except ValueError:
        raise InvalidRequest(f"inspector: `{name}` must be a date (YYYY-MM-DD)") from None


def filters_of(params: Mapping[str, str]) -> Filters:
    """The filters a request asks for; a bad value is an error naming its parameter."""
    out = Filters(
        type=_text(params, "type"),
        source=_text(params, "source"),
        tag=_text(params, "tag"),
        date_from=_day(params, "from"),
        date_to=_day(params, "to"),
    )
    if out.date_from is not None and out.date_to is not None and out.date_to < out.date_from:
        raise InvalidRequest("inspector: `to` must not be before `from`")
    return out


def agents_reach(tiers: Tiers, agent: str | None) -> Reach | None:
    """The user's per-agent memory: with an agent-scoped token only that agent's node (its tiers allow
    no other); with a plain user token the nodes below the user's own (one per agent), or the one
    `agent` names. Always under the caller's own user node, never another user's. None: no user."""
    if tiers.user_for_agent is not None:
        return Reach.exact(tiers.user_for_agent)
    if tiers.user is None:
        return None
    if agent is not None:
        return Reach.exact(tiers.user.child("agent", agent))
    return Reach.subtree(tiers.user)


def agent_of(item: MemoryItem) -> str | None:
    """The agent a per-agent memory belongs to: its namespace's last `agent:` step under a user."""
    segments = item.namespace.segments
    if len(segments) >= 3 and segments[-1].kind == "agent" and segments[-2].kind == "user":
        return segments[-1].name
    return None


async def listed(
    engine: MemoryEngine,
    reach: Reach,
    filters: Filters,
    cursor: str | None,
    limit: int = PAGE_SIZE,
    *,
    per_agent: bool = False,
) -> ListResult:
    """One page of the memory `reach` covers under `filters`, newest first; `per_agent` keeps only
    the per-agent memories (a user's subtree also holds the user's own node)."""
    got = await engine.list(ListRequest(filter=filters.meta_filter(reach), limit=limit, cursor=cursor))
    if not per_agent:
        return got
    return ListResult(tuple(i for i in got.items if agent_of(i) is not None), got.next_cursor)


async def every(
    engine: MemoryEngine, reach: Reach, filters: Filters, *, per_agent: bool = False
) -> AsyncIterator[MemoryItem]:
    """Every memory `reach` covers under `filters`, a page at a time (an export never holds them all)."""
    cursor: str | None = None
    while True:
        page = await listed(engine, reach, filters, cursor, EXPORT_PAGE, per_agent=per_agent)
        for item in page.items:
            yield item
        if page.next_cursor is None:
            return
        cursor = page.next_cursor


def agent_param(params: Mapping[str, str]) -> str | None:
    return _text(params, "agent")


def exported(item: MemoryItem, tiers: Tiers) -> dict[str, object]:
    """One memory as an export line: what the list shows, and the times in RFC 3339."""
    tier = tiers.tier_of(item.namespace)
    meta = item.meta
    return {
        "id": item.id,
        "text": item.text,
        "tier": tier.value if tier is not None else Tier.USER_FOR_AGENT.value,
        "type": meta.learning_kind or item.kind.value,
        "source": None if meta.source is None else meta.source.kind,
        "tags": list(meta.tags),
        "created_at": None if meta.observed_at is None else format_rfc3339(meta.observed_at),
        "updated_at": format_rfc3339(item.valid_from),
    }
