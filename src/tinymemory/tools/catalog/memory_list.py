"""memory_list: browse memory, newest first, a page at a time."""

from __future__ import annotations

from typing import Any

from tinymemory.api import ListRequest, ListResult
from tinymemory.tools.answers import Answer, Item
from tinymemory.tools.args import CURSOR, FILTER, LIMIT
from tinymemory.tools.declaration import Tool, always
from tinymemory.tools.fields import Shape
from tinymemory.tools.preview import ResultBounds
from tinymemory.tools.render import DEFAULT_BOUNDS, shared, with_cursor
from tinymemory.tools.scope import MemoryTool, Session, scoped
from tinymemory.tools.spec import LONG_TEXTS
from tinymemory.tools.strict import Obj

ARGUMENTS = Shape((FILTER, LIMIT, CURSOR))


class Listed(Answer):
    items: list[Item]
    next_cursor: str | None = None


async def list_items(session: Session, shape: Shape, raw: Obj) -> dict[str, Any]:
    got = shape.read(session.tool, raw)
    request = ListRequest(filter=scoped(session, got[FILTER]), limit=got.must(LIMIT), cursor=got[CURSOR])
    return rendered(await session.engine.list(request), session.bounds)


def rendered(result: ListResult, bounds: ResultBounds = DEFAULT_BOUNDS) -> dict[str, Any]:
    shell = with_cursor({"items": []}, result.next_cursor)
    return shared(shell, "items", [(i, None) for i in result.items], bounds)


TOOL: MemoryTool = Tool(
    name="memory_list",
    description="Browse memory, newest first, with a cursor for more. " + LONG_TEXTS,
    arguments=always(ARGUMENTS),
    handler=list_items,
    result=Listed,
    answers="A page of items, newest first; next_cursor when there are more.",
    writes=False,
)
