"""The models that document the memory__ tools' results: a memory, a page of memories, not_found.

Like `tools.answers` (whose `Answer` they build on), they only describe the plain dicts the tools return,
for the service's OpenAPI document and for tests.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, TypeAlias

from pydantic import Field

from tinymemory.policy.identity import Tier
from tinymemory.tools.answers import Answer

if TYPE_CHECKING:  # the enum built from the code's own, so the document follows it
    TierName: TypeAlias = str
else:
    TierName = Literal[(*Tier.values(), "other")]


class WhySignals(Answer):
    """The signals behind a recalled memory's score (recall with explain), from the caller's reach alone."""

    score: float = Field(description="the final score the results are ordered by")
    rank: int = Field(description="its place in the results, from 1")
    lexical: float | None = Field(None, description="the keyword (bm25) score, mapped into [0, 1)")
    lexical_rank: int | None = Field(None, description="its place among the keyword matches, from 1")
    semantic: float | None = Field(None, description="the meaning (cosine) similarity to the query")
    semantic_rank: int | None = Field(None, description="its place among the meaning matches, from 1")
    fused: float | None = Field(None, description="the two lists' fusion, when it ranked")
    features: dict[str, float] | None = Field(None, description="the reranker's inputs, by name")
    reranker: float | None = Field(None, description="the reranker's relevance, from 0 to 1")
    prior: float | None = Field(None, description="the confidence multiplier")
    coverage: float | None = Field(None, description="the coverage reranker's score, when it ran")
    time: Literal["boosted", "first"] | None = Field(
        None,
        description="a time the query names matched it: boosted, or ranked first (an explicit hint, or "
        "memory dated to the one day the query names)",
    )
    time_boost: float | None = Field(None, description="the multiplier a time the query names gave it")
    linked: str | None = Field(
        None, description="a rare name it shares with one of the best memories, when that gave its score"
    )


class MemoryMetadata(Answer):
    tier: TierName = Field(description="the tier the memory lives in")
    score: float | None = Field(None, description="its rank score (recall)")
    hop: int | None = Field(None, description="graph hops from seed_name (recall with seed_name)")
    via: str | None = Field(None, description="the relation that reached it")
    title: str | None = None
    summary: str | None = None
    category: str | None = None
    purpose: str | None = None
    parent_title: str | None = Field(None, description="the document an ingested chunk belongs to")
    about_kind: str | None = None
    about_key: str | None = None
    observed_at: str | None = Field(None, description="RFC 3339, when it was recorded")
    content_preview: str | None = Field(None, description="the body's opening when content is a preview")
    has_full_body: bool | None = Field(None, description="true when memory__open has the whole body")
    truncated: bool | None = Field(None, description="the content was cut to fit the result")
    bytes: int | None = Field(None, description="the whole body's size when truncated")
    why: WhySignals | None = Field(None, description="why it was returned (recall with explain)")


class Memory(Answer):
    id: str
    type: str = Field(description="the memory's type, or the item kind of a document or chunk")
    content: str = Field(description="the body; empty for a preview (see metadata.content_preview)")
    confidence: float | None = None
    metadata: MemoryMetadata


class Memories(Answer):
    memories: list[Memory]
    next_cursor: str | None = Field(None, description="pass back as `cursor` for the next page (list)")


class NotFoundResult(Answer):
    """The same answer for an unknown id, another tenant's id, a forgotten one, or not an id at all."""

    status: Literal["not_found"]
    id: str
    message: str
