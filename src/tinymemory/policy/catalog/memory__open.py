"""memory__open: the whole body of a memory recall answered with a preview, with its media references.

Offered only beside memory__recall (see `policy.tools.offered_tools`): it exists to read recall's
previews.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any, Literal

from pydantic import Field

from tinymemory.api import MemoryItem, Ref
from tinymemory.policy import render
from tinymemory.policy.answers import NotFoundResult
from tinymemory.policy.arguments import IdArgs
from tinymemory.policy.render import memory_type
from tinymemory.policy.session import PolicyContext, PolicySession
from tinymemory.tools.answers import Answer
from tinymemory.tools.declaration import Tool
from tinymemory.tools.preview import ResultBounds, json_size, preview, utf8_size
from tinymemory.tools.strict import Obj

DESCRIPTION = (
    "Read the whole body of a memory that memory__recall returned as a preview (metadata.has_full_body), "
    "by its id. Answers status opened with the content, or status not_found."
)
FALLBACK = "Read the whole body of a memory that memory__recall returned as a preview."
ARGUMENTS = IdArgs.declare("The memory's id, from a memory__recall or memory__list result.")


class MediaRef(Answer):
    kind: str
    ref: str
    media_type: str | None = None
    sha256: str | None = None
    status: Literal["available", "unavailable"]
    url: str | None = None


class Opened(Answer):
    status: Literal["opened"]
    id: str
    type: str
    title: str | None = None
    content: str
    parent_title: str | None = None
    refs: list[MediaRef] | None = None
    truncated: bool | None = None
    bytes: int | None = None


OpenResult = Annotated[Opened | NotFoundResult, Field(discriminator="status")]


async def open_memory(session: PolicySession, a: IdArgs, raw: Obj) -> dict[str, Any]:
    memory_id = a.shape().read(session.tool, raw).must(a.memory_id)
    item = await session.current(memory_id)
    if item is None:
        return render.not_found(memory_id)
    refs = []
    for r in item.meta.refs:
        available = r.status == "available"
        if available and session.media_probe is not None:
            available = await session.media_probe(r)
        refs.append(ref(r, available))
    return opened(item, refs, session.bounds)


def ref(r: Ref, available: bool) -> dict[str, Any]:
    out: dict[str, Any] = {"kind": r.kind, "ref": r.ref}
    if r.media_type is not None:
        out["media_type"] = r.media_type
    if r.sha256 is not None:
        out["sha256"] = r.sha256
    out["status"] = "available" if available else "unavailable"
    if available and r.url is not None:
        out["url"] = r.url
    return out


def opened(item: MemoryItem, refs: Sequence[dict[str, Any]], bounds: ResultBounds) -> dict[str, Any]:
    """The whole body, unless it alone exceeds the result's budget: then its opening, marked truncated."""
    out: dict[str, Any] = {"status": "opened", "id": item.id, "type": memory_type(item)}
    if item.meta.title is not None:
        out["title"] = item.meta.title
    out["content"] = ""
    if item.meta.parent_title is not None:
        out["parent_title"] = item.meta.parent_title
    if refs:
        out["refs"] = list(refs)
    room = bounds.result_bytes - json_size({**out, "truncated": True, "bytes": utf8_size(item.text)})
    shown = preview(item.text, max(room, 0))
    out["content"] = shown.text
    if shown.truncated:
        out["truncated"] = True
        out["bytes"] = shown.full_bytes
    return out


TOOL: Tool[PolicyContext, PolicySession, IdArgs] = Tool(
    name="memory__open",
    description=lambda context: FALLBACK if context.fallback else DESCRIPTION,
    arguments=lambda _context: ARGUMENTS,
    handler=open_memory,
    result=OpenResult,
    answers="The whole body, or not_found (the same for any id the caller cannot see).",
    writes=False,
    route="/open",
)
