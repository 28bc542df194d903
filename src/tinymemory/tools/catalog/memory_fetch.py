"""memory_fetch: search memory, ranked, in the modes the engine serves (no memory_fetch without one)."""

from __future__ import annotations

from typing import Any

from tinymemory.api import FetchMode, FetchRequest, FetchResult
from tinymemory.api.validate import MAX_QUERY_CHARS
from tinymemory.tools.answers import Answer, Item
from tinymemory.tools.args import CURSOR, FILTER, LIMIT, REFERS_TO, time_hint
from tinymemory.tools.declaration import Tool
from tinymemory.tools.fields import Shape, Text, Token
from tinymemory.tools.preview import ResultBounds
from tinymemory.tools.render import DEFAULT_BOUNDS, shared, with_cursor
from tinymemory.tools.scope import MemoryTool, Modes, Session, scoped
from tinymemory.tools.spec import LONG_TEXTS
from tinymemory.tools.strict import Obj

QUERY = Text(name="query", description="What to search for.", required=True, max_chars=MAX_QUERY_CHARS)


def fetch_mode(modes: Modes) -> Token:
    """The modes the engine serves, and no other; hybrid is the default when it is among them."""
    default = FetchMode.HYBRID if FetchMode.HYBRID in modes else modes[0]
    return Token(
        name="mode",
        description=f"How to match (default {default.value}).",
        what="a fetch mode served here",
        choices=tuple(m.value for m in modes),
    )


def arguments(modes: Modes) -> Shape | None:
    """The arguments for an engine serving `modes`; None (not offered) when it serves none."""
    if not modes:
        return None
    return Shape((QUERY, fetch_mode(modes), FILTER, LIMIT, CURSOR, REFERS_TO))


class Fetched(Answer):
    hits: list[Item]
    next_cursor: str | None = None


async def fetch(session: Session, shape: Shape, raw: Obj) -> dict[str, Any]:
    got = shape.read(session.tool, raw)
    mode_name = got[fetch_mode(session.engine.descriptor.fetch_modes)]
    request = FetchRequest(
        query=got.must(QUERY),
        mode=FetchMode(mode_name) if mode_name else session.engine.descriptor.default_mode(),
        filter=scoped(session, got[FILTER]),
        limit=got.must(LIMIT),
        cursor=got[CURSOR],
        time_hint=time_hint(session.tool, got[REFERS_TO], session.zone),
    )
    return rendered(await session.engine.fetch(request), session.bounds)


def rendered(result: FetchResult, bounds: ResultBounds = DEFAULT_BOUNDS) -> dict[str, Any]:
    shell = with_cursor({"hits": []}, result.next_cursor)
    return shared(shell, "hits", [(h.item, h.score) for h in result.hits], bounds)


TOOL: MemoryTool = Tool(
    name="memory_fetch",
    description="Search memory and return the best matching memories, ranked, with a cursor for more. "
    + LONG_TEXTS,
    arguments=arguments,
    handler=fetch,
    result=Fetched,
    answers="Ranked items with their scores.",
    writes=False,
    route="/fetch",
    not_offered="this engine serves no fetch mode",
)
