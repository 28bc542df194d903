"""memory_get: read memories by id, whole, as many as fit in one result (the rest in `next_ids`)."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from tinymemory.api import GetRequest, GetResult
from tinymemory.tools.answers import Answer, Item
from tinymemory.tools.args import MAX_IDS
from tinymemory.tools.declaration import Tool, always
from tinymemory.tools.fields import Ids, Shape
from tinymemory.tools.preview import Preview, ResultBounds, json_size, preview, utf8_size
from tinymemory.tools.render import DEFAULT_BOUNDS, item
from tinymemory.tools.scope import MemoryTool, Session
from tinymemory.tools.strict import Obj

IDS = Ids(name="ids", description=f"The ids to read, 1 to {MAX_IDS}.", required=True, max_items=MAX_IDS)
ARGUMENTS = Shape((IDS,))


class Got(Answer):
    items: list[Item]
    missing: list[str] = Field(description="ids not found, or not visible to the caller")
    next_ids: list[str] | None = Field(None, description="ids that did not fit; ask for them again")


async def get(session: Session, shape: Shape, raw: Obj) -> dict[str, Any]:
    """Ids outside the reach come back as missing, exactly like unknown ids: nothing is revealed."""
    ids = shape.read(session.tool, raw).must(IDS)
    found = await session.engine.get(GetRequest(ids=ids, reach=session.scope.reach))
    return rendered(found, session.bounds)


def rendered(result: GetResult, bounds: ResultBounds = DEFAULT_BOUNDS) -> dict[str, Any]:
    """Whole texts, in order, while they fit; the ids of the rest go to `next_ids` for another call.

    Room for listing every id in `next_ids` is kept aside, so the bound holds however many are left
    out. A memory that cannot fit even alone, met while nothing has been included, comes back cut to
    the room left (marked truncated), so every call makes progress.
    """
    out: dict[str, Any] = {"items": [], "missing": list(result.missing)}
    used = json_size(out) + json_size({"next_ids": [it.id for it in result.items]})
    items: list[dict[str, Any]] = []
    later: list[str] = []
    for it in result.items:
        whole = item(it)
        cost = json_size(whole) + (1 if items else 0)
        if used + cost <= bounds.result_bytes:
            items.append(whole)
            used += cost
        elif not items:
            room = (
                bounds.result_bytes - used - json_size(item(it, None, Preview("", True, utf8_size(it.text))))
            )
            cut = item(it, None, preview(it.text, max(room, 0)))
            items.append(cut)
            used += json_size(cut)
        else:
            later.append(it.id)
    out["items"] = items
    if later:
        out["next_ids"] = later
    return out


TOOL: MemoryTool = Tool(
    name="memory_get",
    description="Read memories by id, with their whole text. Ids that cannot be read come back in missing. "
    "Ids that did not fit in this result come back in next_ids: call memory_get again with them. "
    "A text too long for any single result comes back cut, with truncated: true and its full size "
    "in bytes.",
    arguments=always(ARGUMENTS),
    handler=get,
    result=Got,
    answers="The items, in order, while they fit; the ids not found.",
    writes=False,
    route="/get",
)
