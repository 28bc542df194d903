"""memory_forget: forget by ids or by a filter, never beyond the scope (invariant 3: ids are read back
under the reach first; a filter must say something and is confined to the reach)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from pydantic import Field

from tinymemory.api import ForgetRequest, ForgetResult, GetRequest, InvalidRequest, MetaFilter
from tinymemory.api.validate import fail
from tinymemory.tools.answers import Answer
from tinymemory.tools.args import FILTER, MAX_IDS
from tinymemory.tools.declaration import Tool, always
from tinymemory.tools.fields import Ids, Shape
from tinymemory.tools.scope import MemoryTool, Session
from tinymemory.tools.strict import Obj

IDS = Ids(name="ids", description=f"The ids to forget, 1 to {MAX_IDS}.", max_items=MAX_IDS)
ARGUMENTS = Shape((IDS, FILTER))


class Forgotten(Answer):
    forgotten: int = Field(description="how many memories were forgotten")
    skipped: list[str] = Field(description="ids not forgotten: unknown, already forgotten or out of reach")


async def forget(session: Session, shape: Shape, raw: Obj) -> dict[str, Any]:
    tool = session.tool
    obj = shape.closed(tool, raw)  # field by field: the either-or rule sits between them
    ids = IDS.read(tool, obj)
    has_filter = FILTER.given_in(obj)
    if ids is not None and has_filter:
        raise InvalidRequest(f"{tool}: give either `ids` or `filter`, not both")
    reach = session.scope.forgets
    if ids is not None:
        found = await session.engine.get(GetRequest(ids=ids, reach=reach))
        visible = {it.id for it in found.items}
        skipped = [i for i in ids if i not in visible]
        kept = tuple(i for i in ids if i in visible)
        if not kept:
            return rendered(0, skipped)
        return joined(await session.engine.forget(ForgetRequest(ids=kept, reach=reach)), skipped)
    if not has_filter:
        raise InvalidRequest(f"{tool}: give `ids` or a non-empty `filter`")
    flt = FILTER.read(tool, obj) or MetaFilter()
    if flt.is_empty():
        raise fail(
            tool, "filter", "must set at least one field (an empty filter would forget everything in reach)"
        )
    request = ForgetRequest(filter=replace(flt, namespace=None, reach=reach), reach=reach)
    return joined(await session.engine.forget(request), [])


def rendered(forgotten: int, skipped: list[str]) -> dict[str, Any]:
    return {"forgotten": forgotten, "skipped": skipped}


def joined(result: ForgetResult, skipped_before: list[str]) -> dict[str, Any]:
    """The engine's skips joined to the ids the tool skipped itself (outside the reach)."""
    return rendered(len(result.forgotten), [*skipped_before, *result.skipped])


TOOL: MemoryTool = Tool(
    name="memory_forget",
    description="Forget memories, by ids or by a filter that sets at least one field (not both).",
    arguments=always(ARGUMENTS),
    handler=forget,
    result=Forgotten,
    answers="How many memories were forgotten, and the ids skipped.",
    writes=True,
)
