"""The inspector's dashboard pages: counts and growth of the caller's memory as charts (`/dashboard`),
and one memory's relations as a graph (`/items/{id}/graph`). Both read only the caller's tiers."""

from __future__ import annotations

from datetime import UTC, datetime

from fastapi import APIRouter, Request, Response

from tinymemory.api import InvalidRequest
from tinymemory.policy import MemoryPolicy
from tinymemory.service import deps
from tinymemory.service.inspector import charts, graph_view, history, pages, stats
from tinymemory.service.inspector.markup import EMPTY, Html, fill, item_url
from tinymemory.service.inspector.routes import guarded, not_found, page
from tinymemory.service.inspector.session import Session

router = APIRouter(include_in_schema=False)
HOPS = ("1", "2")


@router.get("/dashboard")
async def dashboard(request: Request) -> Response:
    async def run(request: Request, session: Session) -> Response:
        state = deps.service(request)
        identity = session.caller.identity()
        tiers = identity.tiers
        policy = state.policies.bound(identity.workspace) or MemoryPolicy.default()
        counts = await history.counts(state.engine, tiers)
        types = await stats.by_type(state.engine, tiers, policy.type_names(), sum(counts.values()))
        grown = await stats.growth(state.engine, tiers, counts, datetime.now(UTC))
        per_tier = [(t.value, counts.get(t, 0)) for t in tiers.present()]
        series = [charts.Series(t.value, v) for t, v in grown.per_tier.items()]
        earlier = (
            fill('<p class="meta">$n older memories are not in this chart.</p>', n=grown.earlier)
            if grown.earlier
            else EMPTY
        )
        body = fill(
            """<h1>Dashboard</h1>
<p class="meta">Active memories in your tiers (superseded and forgotten ones are not counted), by the
time each was observed (UTC).</p>
<section><h2>Per tier</h2>$tiers</section>
<section><h2>Per type</h2>$types</section>
<section><h2>Growth</h2>$growth$earlier</section>""",
            tiers=charts.bar_chart("per-tier", "Memories per tier", per_tier),
            types=charts.bar_chart("per-type", "Memories per type", types),
            growth=charts.column_chart(
                "growth", f"Memories observed per {grown.unit}, by tier", grown.labels(), series
            ),
            earlier=earlier,
        )
        return page(pages.layout("Dashboard", body, pages.nav(session.caller)))

    return await guarded(request, run)


def hops_of(request: Request) -> int:
    given = request.query_params.get("hops")
    if given is None or given == "":
        return 1
    if given not in HOPS:
        raise InvalidRequest("inspector: `hops` must be 1 or 2")
    return int(given)


@router.get("/items/{memory_id}/graph")
async def graph(request: Request, memory_id: str) -> Response:
    async def run(request: Request, session: Session) -> Response:
        hops = hops_of(request)
        engine = deps.service(request).engine
        tiers = session.caller.identity().tiers
        found = await history.versions(engine, tiers, memory_id)
        if found is None:
            return not_found(session)
        shown = await graph_view.neighbourhood(engine, tiers, found.item, hops)
        title = f"Relations of “{graph_view.label_of(found.item, 80)}”, {hops} hop{'s' if hops == 2 else ''}"
        other = 3 - hops
        body = fill(
            """<h1>$title</h1>
<p><a href="$back">Back to the memory</a> · <a href="$switch">Show $other hop$s</a></p>
$svg
<section><h2>As a list</h2>$listing</section>""",
            title=title,
            back=item_url(found.item.id),
            switch=item_url(found.item.id) + "/graph?hops=" + str(other),
            other=other,
            s="s" if other == 2 else "",
            svg=graph_view.svg(shown, title) if shown.nodes else Html(""),
            listing=graph_view.listing(shown),
        )
        return page(pages.layout("Relations", body, pages.nav(session.caller)))

    return await guarded(request, run)
