"""memory_explore: count memory by one facet, to see what is remembered (never by namespace)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeAlias

from tinymemory.api import ExploreRequest, ExploreResult, Facet
from tinymemory.tools.answers import Answer
from tinymemory.tools.args import FILTER, LIMIT
from tinymemory.tools.declaration import Tool, always
from tinymemory.tools.fields import Shape, Token
from tinymemory.tools.scope import MemoryTool, Session, scoped
from tinymemory.tools.strict import Obj

if TYPE_CHECKING:  # the enum built from the code's own, so the document follows it
    FacetName: TypeAlias = str
else:
    from typing import Literal

    FacetName = Literal[tuple(f.value for f in Facet)]

FACET = Token(
    name="facet",
    description="What to count by.",
    required=True,
    what="a facet",
    choices=tuple(f.value for f in Facet),
)
ARGUMENTS = Shape((FACET, FILTER, LIMIT))


class BucketModel(Answer):
    value: str
    count: int


class Explored(Answer):
    facet: FacetName
    buckets: list[BucketModel]
    total: int
    missing: int
    more_buckets: bool
    truncated: bool


async def explore(session: Session, shape: Shape, raw: Obj) -> dict[str, Any]:
    got = shape.read(session.tool, raw)
    request = ExploreRequest(
        facet=Facet(got.must(FACET)), filter=scoped(session, got[FILTER]), limit=got.must(LIMIT)
    )
    return rendered(await session.engine.explore(request))


def rendered(result: ExploreResult) -> dict[str, Any]:
    return {
        "facet": result.facet.value,
        "buckets": [{"value": b.value, "count": b.count} for b in result.buckets],
        "total": result.total,
        "missing": result.missing,
        "more_buckets": result.more_buckets,
        "truncated": result.truncated,
    }


TOOL: MemoryTool = Tool(
    name="memory_explore",
    description="Count memory by one facet (kind, source, tag, file...) to see what is remembered.",
    arguments=always(ARGUMENTS),
    handler=explore,
    result=Explored,
    answers="Counts of the caller's items by the facet's values.",
    writes=False,
    route="/explore",
)
