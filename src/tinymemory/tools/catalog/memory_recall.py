"""memory_recall: answer a question from memory, with the memories the answer cites."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from tinymemory.api import RecallRequest, RecallResult
from tinymemory.api.validate import MAX_QUERY_CHARS
from tinymemory.tools.answers import Answer, Item
from tinymemory.tools.args import FILTER, LIMIT, REFERS_TO, time_hint
from tinymemory.tools.declaration import Tool, always
from tinymemory.tools.fields import Shape, Text
from tinymemory.tools.preview import ResultBounds, clip
from tinymemory.tools.render import DEFAULT_BOUNDS, shared
from tinymemory.tools.scope import MemoryTool, Session, scoped
from tinymemory.tools.spec import LONG_TEXTS
from tinymemory.tools.strict import Obj

QUESTION = Text(
    name="question",
    description="The question to answer from memory.",
    required=True,
    max_chars=MAX_QUERY_CHARS,
)
INSTRUCTIONS = Text(
    name="instructions",
    description="How to phrase the answer (length, format, focus).",
    max_chars=MAX_QUERY_CHARS,
)
ARGUMENTS = Shape((QUESTION, FILTER, LIMIT, INSTRUCTIONS, REFERS_TO))


class Recalled(Answer):
    answer: str = Field(description="a short answer, clipped with … when it is longer than a preview")
    citations: list[Item] = Field(description="the memories the answer cites")


async def recall(session: Session, shape: Shape, raw: Obj) -> dict[str, Any]:
    got = shape.read(session.tool, raw)
    request = RecallRequest(
        question=got.must(QUESTION),
        filter=scoped(session, got[FILTER]),
        limit=got.must(LIMIT),
        instructions=got[INSTRUCTIONS],
        time_hint=time_hint(session.tool, got[REFERS_TO], session.zone),
    )
    return rendered(await session.engine.recall(request), session.bounds)


def rendered(result: RecallResult, bounds: ResultBounds = DEFAULT_BOUNDS) -> dict[str, Any]:
    """The answer is free text with nothing to read further, so a long one is clipped with `…`."""
    rows = [(c.item, c.score) for c in result.citations]
    return shared({"answer": clip(result.answer, bounds.preview_bytes)}, "citations", rows, bounds)


TOOL: MemoryTool = Tool(
    name="memory_recall",
    description="Answer a question from memory. Returns a short answer and the memories it cites. "
    + LONG_TEXTS,
    arguments=always(ARGUMENTS),
    handler=recall,
    result=Recalled,
    answers="A short answer and the memories it cites.",
    writes=False,
)
