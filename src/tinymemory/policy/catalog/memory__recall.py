"""memory__recall: ranked memories from every tier the conversation reads, optionally widened along the
relations of a named entity (graph expansion) and read as of an earlier instant."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tinymemory.api import (
    MAX_HOPS,
    ExpandRequest,
    FetchRequest,
    ItemKind,
    MetaFilter,
    Unsupported,
)
from tinymemory.api.relations import MAX_ENTITY_CHARS
from tinymemory.api.validate import MAX_QUERY_CHARS, fail
from tinymemory.policy import render
from tinymemory.policy.answers import Memories
from tinymemory.policy.arguments import Declared, words
from tinymemory.policy.render import Row
from tinymemory.policy.session import PolicyContext, PolicySession
from tinymemory.tools.args import limit_field
from tinymemory.tools.declaration import Tool
from tinymemory.tools.fields import Boolean, Integer, Number, Text, Timestamp, TokenList
from tinymemory.tools.strict import Obj

# An ingested document is recalled through its chunks (each with parent_title); the whole document
# beside them would repeat the best chunk's text.
RECALLED_KINDS = tuple(k for k in ItemKind if k is not ItemKind.DOCUMENT)
FALLBACK = (
    "Search memory. seed_name, relation_types and max_hops follow relations between entities; as_of "
    "reads memory at an earlier instant. A long memory may come back as a preview "
    "(metadata.has_full_body): read it with memory__open."
)


def describe(context: PolicyContext) -> str:
    if context.fallback:
        return FALLBACK
    text = (
        "Search the memories visible in this conversation: the user's own, those the agent shares with "
        "all its users, and the workspace's. Results are ranked; each carries its tier and score in its "
        "metadata. With seed_name, memories relating that entity to others are added, each with hop and "
        "via in its metadata. as_of reads memory as it stood at an earlier instant."
    )
    if context.previews:
        threshold = context.policy.inline_threshold_bytes
        text += (
            f" A memory whose body is larger than {threshold} bytes comes back as a "
            "preview: its content is empty, metadata.content_preview holds its opening and "
            "metadata.has_full_body is true. Read the whole body with memory__open."
        )
    return text


@dataclass(frozen=True, slots=True)
class RecallArgs(Declared):
    query: Text
    types: TokenList
    kinds: TokenList
    limit: Integer
    min_confidence: Number
    seed_name: Text
    relation_types: TokenList
    max_hops: Integer
    as_of: Timestamp
    explain: Boolean

    @classmethod
    def declare(cls, context: PolicyContext) -> RecallArgs:
        policy, enums = context.policy, context.enums
        kinds = policy.type_names() if enums and policy.has_schema else None
        relations = policy.relation_names() if enums and policy.has_relations else None
        return cls(
            query=Text(
                name="query",
                description="What to look for, in natural language.",
                required=True,
                max_chars=MAX_QUERY_CHARS,
            ),
            types=words("a memory type", kinds, name="types", description="Only memories of these types."),
            kinds=words(
                "a memory type", kinds, name="kinds", description="Memory types to recall; merged into types."
            ),
            limit=limit_field("memories"),
            min_confidence=Number(
                name="min_confidence",
                description="Only memories at least this confident, from 0 to 1.",
                low=0,
                high=1,
            ),
            seed_name=Text(
                name="seed_name",
                description=(
                    "A named entity (a person, a project, a product) to start from: memories that relate "
                    "it to other entities are added to the results."
                ),
                max_chars=MAX_ENTITY_CHARS,
            ),
            relation_types=words(
                "a relation type",
                relations,
                name="relation_types",
                description="Follow only these relation types from seed_name (default: every type).",
            ),
            max_hops=Integer(
                name="max_hops",
                description=f"How many relations to follow from seed_name, 1 to {MAX_HOPS} (default 1).",
                low=1,
                high=MAX_HOPS,
            ),
            as_of=Timestamp(
                name="as_of",
                description=(
                    "Read memory as it stood at this instant (RFC 3339, e.g. 2024-05-08T13:56:00Z): the "
                    "versions that were active then."
                ),
            ),
            explain=Boolean(
                name="explain",
                description=(
                    "true to add metadata.why to each memory: the signals behind its score (keyword and "
                    "meaning matches with their ranks, the reranker's inputs and output, a time match, "
                    "the final score and rank). Off by default."
                ),
            ),
        )


async def recall(session: PolicySession, a: RecallArgs, raw: Obj) -> dict[str, Any]:
    """Ranked memories, then (with seed_name) the memories graph expansion reached that the search did
    not, each at most once, `limit` in all."""
    tool = session.tool
    values = a.shape().read(tool, raw)
    for field in (a.relation_types, a.max_hops):
        if values.given(field) and not values.given(a.seed_name):
            raise fail(tool, field.name, f"is only used with `{a.seed_name.name}`, which is missing")
    types = tuple(dict.fromkeys((*(values[a.types] or ()), *(values[a.kinds] or ()))))
    limit = values.must(a.limit)
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
    query = values.must(a.query)
    explain = values[a.explain] is True
    found = await session.engine.fetch(
        FetchRequest(query=query, mode=mode, filter=flt, limit=limit, explain=explain)
    )
    if explain:
        rows = [Row(h.item, h.score, why=h.why.as_json() if h.why is not None else None) for h in found.hits]
    else:
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
    hop order, carrying the search score (and its why) when the search found them too; then the other
    ranked hits."""
    expand = getattr(session.engine, "expand", None)
    if expand is None:
        raise Unsupported(f"{session.tool}: this engine does not serve graph expansion (`seed_name`)")
    request = ExpandRequest(
        seed_name=seed, relation_types=relation_types, max_hops=max_hops or 1, filter=flt, limit=limit
    )
    result = await expand(request)
    searched = {r.item.id: r for r in ranked}
    rows = [
        Row(h.item, s.score if s is not None else 0.0, h.hop, h.via, s.why if s is not None else None)
        for h in result.hits
        for s in (searched.get(h.item.id),)
    ]
    reached = {r.item.id for r in rows}
    return rows + [r for r in ranked if r.item.id not in reached]


TOOL: Tool[PolicyContext, PolicySession, RecallArgs] = Tool(
    name="memory__recall",
    description=describe,
    arguments=RecallArgs.declare,
    handler=recall,
    result=Memories,
    answers="Ranked memories from every tier the caller reads.",
    writes=False,
    route="/recall",
)
