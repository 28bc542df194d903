"""The five read tools. Each reads its arguments strictly, then confines the read to the scope's reach."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from tinymemory.api import (
    ExploreRequest,
    Facet,
    FetchMode,
    FetchRequest,
    GetRequest,
    ListRequest,
    MetaFilter,
    RecallRequest,
    Unsupported,
)
from tinymemory.tools import args as arguments
from tinymemory.tools import render
from tinymemory.tools.args import Obj
from tinymemory.tools.scope import Session


def scoped(session: Session, flt: MetaFilter | None) -> MetaFilter:
    """Invariant 2: whatever the model asked (or no filter at all), the reach is the host's."""
    return replace(flt or MetaFilter(), namespace=None, reach=session.scope.reach)


async def recall(session: Session, args: Obj) -> dict[str, Any]:
    got = arguments.RECALL.read(session.tool, args)
    request = RecallRequest(
        question=got.must(arguments.QUESTION),
        filter=scoped(session, got[arguments.FILTER]),
        limit=got.must(arguments.LIMIT),
        instructions=got[arguments.INSTRUCTIONS],
        time_hint=arguments.time_hint(session.tool, got[arguments.REFERS_TO], session.zone),
    )
    return render.recall(await session.engine.recall(request), session.bounds)


async def fetch(session: Session, args: Obj) -> dict[str, Any]:
    tool = session.tool
    modes = session.engine.descriptor.fetch_modes
    if not modes:
        raise Unsupported(f"{tool}: this engine serves no fetch mode, so {tool} is not offered")
    mode_field = arguments.fetch_mode(modes)
    got = arguments.fetch(modes).read(tool, args)
    mode_name = got[mode_field]
    request = FetchRequest(
        query=got.must(arguments.QUERY),
        mode=FetchMode(mode_name) if mode_name else session.engine.descriptor.default_mode(),
        filter=scoped(session, got[arguments.FILTER]),
        limit=got.must(arguments.LIMIT),
        cursor=got[arguments.CURSOR],
        time_hint=arguments.time_hint(tool, got[arguments.REFERS_TO], session.zone),
    )
    return render.fetch(await session.engine.fetch(request), session.bounds)


async def list_items(session: Session, args: Obj) -> dict[str, Any]:
    got = arguments.LIST.read(session.tool, args)
    request = ListRequest(
        filter=scoped(session, got[arguments.FILTER]),
        limit=got.must(arguments.LIMIT),
        cursor=got[arguments.CURSOR],
    )
    return render.listing(await session.engine.list(request), session.bounds)


async def get(session: Session, args: Obj) -> dict[str, Any]:
    """Ids outside the reach come back as missing, exactly like unknown ids: nothing is revealed."""
    ids = arguments.GET.read(session.tool, args).must(arguments.GET_IDS)
    found = await session.engine.get(GetRequest(ids=ids, reach=session.scope.reach))
    return render.get(found, session.bounds)


async def explore(session: Session, args: Obj) -> dict[str, Any]:
    got = arguments.EXPLORE.read(session.tool, args)
    request = ExploreRequest(
        facet=Facet(got.must(arguments.FACET)),
        filter=scoped(session, got[arguments.FILTER]),
        limit=got.must(arguments.LIMIT),
    )
    return render.explore(await session.engine.explore(request))
