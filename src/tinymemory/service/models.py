"""Pydantic models at the HTTP edge: the error body, request bodies, and the service's own answers.

The memory routes' request bodies are the tools' own JSON Schemas and their answers are the tools'
result dicts, returned as they are, documented by the result model each tool declares (its module in
tools/catalog/ or policy/catalog/). So the OpenAPI document, the validation and the answers can never
drift apart: those models forbid undeclared keys, and a test checks answers against the document.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from tinymemory.service.errors import ERROR_KINDS
from tinymemory.service.registry import MAX_NOTES_CHARS

ErrorKind = Literal[ERROR_KINDS]  # type: ignore[valid-type]

# JSONResponse's own options, in one encoder made once (json.dumps with options builds one per call)
_ANSWER_JSON = json.JSONEncoder(ensure_ascii=False, allow_nan=False, indent=None, separators=(",", ":"))


class Answer(JSONResponse):
    """A tool's answer: the same bytes as JSONResponse, without a new encoder for every answer."""

    def render(self, content: Any) -> bytes:
        return _ANSWER_JSON.encode(content).encode("utf-8")


class ErrorDetail(BaseModel):
    kind: ErrorKind = Field(description="the contract's error kind")
    message: str = Field(description="names the operation and the field at fault")


class ErrorBody(BaseModel):
    """Every error response, whatever raised it."""

    error: ErrorDetail
    request_id: str


ERROR_DESCRIPTIONS = {
    400: "Malformed request: a missing, mistyped, unknown or out-of-range value. Nothing was written.",
    401: "No bearer token, or one the service cannot verify.",
    403: "A verified caller this route is not for (an API key on a memory route, say).",
    404: "The named thing does not exist, or the caller cannot see it.",
    413: "The request body is over the service's limit.",
    503: "A dependency could not serve the request; retrying may help.",
}


def errors(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """The documented error responses of a route."""
    return {s: {"model": ErrorBody, "description": ERROR_DESCRIPTIONS[s]} for s in statuses}


def answer(model: Any, description: str, *statuses: int) -> dict[int | str, dict[str, Any]]:
    """A route's documented 200 (a tool result returned as is) and its error responses."""
    return {200: {"model": model, "description": description}, **errors(*statuses)}


class Strict(BaseModel):
    """A request body: unknown keys are errors and values are never coerced (`"yes"` is not true)."""

    model_config = ConfigDict(extra="forbid", strict=True)


# --- the service's own routes ------------------------------------------------------------------


class ToolCallBody(Strict):
    tool: str = Field(description="a memory__ tool (policy set) or a memory_ tool (seed 000 set)")
    arguments: dict[str, Any] | None = Field(default=None, description="the tool's arguments")


class ToolOutputModel(BaseModel):
    """What a host feeds back to the model: `text` always, `value` on success."""

    text: str
    is_error: bool
    value: dict[str, Any] | None
    error_kind: str | None


class ToolSpecModel(BaseModel):
    name: str
    description: str
    parameters: dict[str, Any]


class ToolList(BaseModel):
    tools: list[ToolSpecModel]


class GuidanceNotes(BaseModel):
    workspace: str | None
    agent: str | None


class Guidance(BaseModel):
    """The memory__ tools as the caller's workspace policy describes them."""

    model_config = ConfigDict(extra="forbid")

    version: int
    source: Literal["policy", "default", "fallback"]
    policy: str | None
    types: list[str] | None
    kinds: list[str] | None
    relation_types: list[str] | None
    require_about_for: list[str]
    inline_threshold_bytes: int | None
    notes: GuidanceNotes
    tools: list[ToolSpecModel]


class AgentBody(Strict):
    notes: str | None = Field(
        default=None, max_length=MAX_NOTES_CHARS, description="tool notes shown to this agent's model"
    )
    tools: bool = Field(default=True, description="offer the memory__ tools to this agent's users")
    retrieval: bool = Field(default=True, description="ambient retrieval (context.md) for this agent")


class AgentModel(BaseModel):
    name: str
    id: str
    notes: str | None
    tools: bool
    retrieval: bool
    updated_at: str | None


class AgentList(BaseModel):
    agents: list[AgentModel]


class IngestBody(Strict):
    name: str = Field(
        min_length=1,
        max_length=512,
        description="the document's stable name (a path); re-ingesting it replaces it",
    )
    text: str = Field(min_length=1, max_length=2_000_000, description="the document's text")
    media_type: Literal["text/markdown", "text/plain", "text/html"] = "text/markdown"
    title: str | None = Field(default=None, max_length=512)
    source: str = Field(default="api", min_length=1, max_length=256, description="where it comes from")


class IngestFailure(BaseModel):
    name: str
    message: str


class IngestReportModel(BaseModel):
    stored: list[str]
    replaced: list[str]
    unchanged: list[str]
    failed: list[IngestFailure]
    chunks: int


class ContextModel(BaseModel):
    markdown: str
    retrieval: bool = Field(description="false when the agent's ambient retrieval is switched off")
    budget_tokens: int
    items: int


class Health(BaseModel):
    status: str


class GateGroup(BaseModel):
    """Candidates the gate holds as one fact; sharers appear only as a count."""

    text: str
    candidates: list[str]
    distinct_subjects: int
    needed: int
    first_shared_at: str
    expires_at: str
    expired: bool


class GateDecision(BaseModel):
    candidate: str
    decision: Literal["published", "merged", "rejected", "withdrawn", "personal"]
    fact: str | None
    at: str | None


class GatePublished(BaseModel):
    id: str
    text: str
    purpose: str | None


class GateAgent(BaseModel):
    agent: str
    held: list[GateGroup]
    decisions: list[GateDecision]
    published: list[GatePublished]


class GateStatus(BaseModel):
    workspace: str
    enabled: bool
    accept_user_shares: bool
    min_distinct_subjects: int
    window_seconds: int
    agents: list[GateAgent]


class GateRunReport(BaseModel):
    pairs: int
    published: int
    merged: int
    held: int
    rejected: int
    withdrawn: int
    personal: int
    rescrubbed: int = Field(
        0, description="published facts given a version scrubbed of a sharer or identifier"
    )
    retracted: int = Field(0, description="published facts taken back as personal")
    shared_ids: list[str]
