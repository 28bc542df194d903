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
