"""memory__recall, memory__open and memory__list: every read confined to the identity's reach."""

from __future__ import annotations

from typing import Any

from tinymemory.api import (
    DEFAULT_LIMIT,
    ExpandRequest,
    FetchRequest,
    InvalidRequest,
    ItemKind,
    ListRequest,
    MetaFilter,
    Unsupported,
)
from tinymemory.policy import render
from tinymemory.policy.identity import Tier
from tinymemory.policy.render import Row
from tinymemory.policy.session import PolicySession
from tinymemory.tools.strict import Obj

GRAPH_ONLY = ("relation_types", "max_hops")
# An ingested document is recalled through its chunks (each with parent_title); the whole document
# beside them would repeat the best chunk's text.
RECALLED_KINDS = tuple(k for k in ItemKind if k is not ItemKind.DOCUMENT)


async def recall(session: PolicySession, raw: Obj) -> dict[str, Any]:
    """Ranked memories, then (with seed_name) the memories graph expansion reached that the search did
    not, each at most once, `limit` in all."""
    tool, a = session.tool, session.args.recall
    values = a.shape().read(tool, raw)
    for field in (a.relation_types, a.max_hops):
        if values.given(field) and not values.given(a.seed_name):
            raise InvalidRequest(f"{tool}: `{field.name}` is only used with `seed_name`, which is missing")
    types = tuple(dict.fromkeys((*(values[a.types] or ()), *(values[a.kinds] or ()))))
    limit = values[a.limit] or DEFAULT_LIMIT
    flt = MetaFilter(
        reach=session.tiers.read_reach,
        kinds=RECALLED_KINDS,
        learning_kinds=types,
        min_confidence=values[a.min_confidence],
        as_of=values[a.as_of],
    )
    descriptor = session.engine.descriptor
    mode = descriptor.default_mode()
    if mode is None:
        raise Unsupported(f"{tool}: this engine serves no search mode")
    query = values[a.query]
    assert query is not None
    found = await session.engine.fetch(FetchRequest(query=query, mode=mode, filter=flt, limit=limit))
    rows = [Row(h.item, h.score) for h in found.hits]
    seed = values[a.seed_name]
    if seed is not None:
        rows = await _expanded(
            session, rows, seed, values[a.relation_types] or (), values[a.max_hops], flt, limit
        )
    return render.memories(
        rows[:limit],
        session.tiers,
        previews=session.previews,
        threshold=session.policy.inline_threshold_bytes,
        bounds=session.bounds,
        shell={},
    )


async def _expanded(
    session: PolicySession,
    ranked: list[Row],
    seed: str,
    relation_types: tuple[str, ...],
    max_hops: int | None,
    flt: MetaFilter,
    limit: int,
) -> list[Row]:
    """Graph hits first (the model named the entity, so its neighbourhood is what it asked for), in
    hop order, carrying the search score when the search found them too; then the other ranked hits."""
    expand = getattr(session.engine, "expand", None)
    if expand is None:
        raise Unsupported(f"{session.tool}: this engine does not serve graph expansion (`seed_name`)")
    request = ExpandRequest(
        seed_name=seed, relation_types=relation_types, max_hops=max_hops or 1, filter=flt, limit=limit
    )
    result = await expand(request)
    scores = {r.item.id: r.score for r in ranked}
    rows = [Row(h.item, scores.get(h.item.id, 0.0), h.hop, h.via) for h in result.hits]
    reached = {r.item.id for r in rows}
    return rows + [r for r in ranked if r.item.id not in reached]


async def open_memory(session: PolicySession, raw: Obj) -> dict[str, Any]:
    a = session.args.open
    memory_id = a.shape().read(session.tool, raw).must(a.memory_id)
    item = await session.current(memory_id)
    if item is None:
        return render.not_found(memory_id)
    refs = []
    for r in item.meta.refs:
        available = r.status == "available"
        if available and session.media_probe is not None:
            available = await session.media_probe(r)
        refs.append(render.ref(r, available))
    return render.opened(item, refs, session.bounds)


async def list_memories(session: PolicySession, raw: Obj) -> dict[str, Any]:
    tool, a = session.tool, session.args.list
    values = a.shape().read(tool, raw)
    scope = values[a.scope] or "all"
    tiers = session.tiers
    if scope == "all":
        reach = tiers.read_reach
    else:
        tier = Tier(scope)
        if tiers.namespace(tier) is None:
            have = ", ".join(["all", *(t.value for t in tiers.present())])
            raise InvalidRequest(
                f"{tool}: `scope` `{scope}` is not a tier of this conversation (one of: {have})"
            )
        reach = tiers.reach_of((tier,))
    kind = values[a.type]
    flt = MetaFilter(reach=reach, learning_kinds=(kind,) if kind else ())
    listed = await session.engine.list(
        ListRequest(filter=flt, limit=values[a.limit] or DEFAULT_LIMIT, cursor=values[a.cursor])
    )
    shell: dict[str, Any] = {"memories": []}  # the memories first, then next_cursor
    if listed.next_cursor is not None:
        shell["next_cursor"] = listed.next_cursor
    return render.memories(
        [Row(item) for item in listed.items],
        tiers,
        previews=session.previews,
        threshold=session.policy.inline_threshold_bytes,
        bounds=session.bounds,
        shell=shell,
    )
