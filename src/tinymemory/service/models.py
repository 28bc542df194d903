"""Pydantic models at the HTTP edge: the error body, and the shapes of the service's own routes.

The memory routes' request bodies are the tools' own JSON Schemas (one declaration per field, in
tinymemory.tools.fields), so the OpenAPI document and the validation can never drift apart.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from tinymemory.service.errors import ERROR_KINDS

ErrorKind = Literal[ERROR_KINDS]  # type: ignore[valid-type]


class ErrorDetail(BaseModel):
    kind: ErrorKind = Field(description="the contract's error kind")
    message: str = Field(description="names the operation and the field at fault")


class ErrorBody(BaseModel):
    """Every error response, whatever raised it."""

    error: ErrorDetail
    request_id: str


def errors(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """The documented error responses of a route."""
    described = {
        400: "Malformed request: a missing, mistyped, unknown or out-of-range value. Nothing was written.",
        401: "No bearer token, or one the service cannot verify.",
        403: "A verified caller this route is not for (an API key on a memory route, say).",
        404: "The named thing does not exist, or the caller cannot see it.",
        413: "The request body is over the service's limit.",
        503: "A dependency could not serve the request; retrying may help.",
    }
    return {s: {"model": ErrorBody, "description": described[s]} for s in statuses}


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ToolCallBody(Strict):
    tool: str = Field(description="a memory__ tool (policy set) or a memory_ tool (seed 000 set)")
    arguments: dict[str, Any] | None = Field(default=None, description="the tool's arguments")


class ToolOutputModel(BaseModel):
    """What a host feeds back to the model: `text` always, `value` on success."""

    text: str
    is_error: bool
    value: dict[str, Any] | None = None
    error_kind: str | None = None


class ToolSpecModel(BaseModel):
    name: str
    description: str
    parameters: dict[str, Any]


class ToolList(BaseModel):
    tools: list[ToolSpecModel]


class AgentBody(Strict):
    notes: str | None = Field(default=None, description="tool notes shown to this agent's model")
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
    name: str = Field(description="the document's stable name (a path); re-ingesting it replaces it")
    text: str = Field(description="the document's text")
    media_type: Literal["text/markdown", "text/plain", "text/html"] = "text/markdown"
    title: str | None = None
    source: str = Field(default="api", description="where the document comes from")


class IngestReportModel(BaseModel):
    stored: list[str]
    replaced: list[str]
    unchanged: list[str]
    failed: list[dict[str, str]]
    chunks: int


class ContextModel(BaseModel):
    markdown: str
    retrieval: bool = Field(description="false when the agent's ambient retrieval is switched off")
    budget_tokens: int
    items: int


class Health(BaseModel):
    status: str
