"""The dashboard and the relations graph in a real headless Chromium: both pages render their SVG under
the strict policy (no console error, no policy violation), fetch nothing from elsewhere, and a graph
node is a keyboard-reachable link to its memory. Full-page screenshots are saved as artifacts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .browser import artifacts, chromium, remember, sign_in, watched_page
from .conftest import RunningService
from .test_inspector_dashboard import rel, store_direct

__all__ = ["artifacts", "chromium"]  # fixtures used by name


def test_dashboard_and_graph_pages(service: RunningService, chromium: Any, artifacts: Path) -> None:
    token = service.token("acme", "olga")
    remember(service, token, "Olga prefers the window seat")
    a, b, *_ = store_direct(
        service,
        "olga",
        [
            ("Olga works on Atlas", rel("Olga", "works_on", "Atlas")),
            ("Eve leads Atlas", rel("Eve", "leads", "Atlas")),
            ("Eve mentors Finn", rel("Eve", "mentors", "Finn")),
            ("Dana reviews Atlas", rel("Dana", "reviews", "Atlas")),
            ("Dana lives in Lyon", rel("Dana", "lives_in", "Lyon")),
            ("Olga likes green tea", rel("Olga", "likes", "green tea")),
        ],
    )
    with watched_page(chromium, viewport={"width": 1000, "height": 800}) as (
        page,
        requested,
        console,
        failed,
    ):
        sign_in(page, service, token, "olga@acme")

        page.goto(service.url + "/dashboard")
        assert page.locator("h1").inner_text() == "Dashboard"
        assert page.locator("figure.chart svg[role=img]").count() == 3
        bar = page.locator("#per-tier rect.bar").first
        assert bar.evaluate("e => getComputedStyle(e).fill") != "rgb(0, 0, 0)", "the stylesheet colours bars"
        page.locator("#per-type details summary").click()
        assert page.locator("#per-type table").is_visible()
        page.screenshot(path=str(artifacts / "inspector-dashboard.png"), full_page=True)

        page.goto(service.url + f"/items/{a}")
        page.click("text=See as a graph")
        page.wait_for_url(f"**/items/{a}/graph")
        assert page.locator("svg.graph-svg a.node").count() == 4
        page.click("text=Show 2 hops")
        page.wait_for_url("**/graph?hops=2")
        assert page.locator("svg.graph-svg a.node").count() == 6
        labels = page.locator("svg.graph-svg .edge-label").all_text_contents()
        assert sorted(labels) == ["leads", "likes", "lives_in", "mentors", "reviews"]
        page.screenshot(path=str(artifacts / "inspector-graph.png"), full_page=True)
        page.locator(f'svg.graph-svg a.node[href="/items/{b}"]').focus()
        page.keyboard.press("Enter")
        page.wait_for_url(f"**/items/{b}")
        assert page.locator("h1").inner_text() == "Eve leads Atlas"

    assert all(url.startswith(service.url) for url in requested), "the pages fetch nothing from elsewhere"
    assert failed == []  # no load failed, the favicon's included
    errors = [
        m for m in console if m.startswith(("error", "pageerror")) and "Failed to load resource" not in m
    ]
    assert not errors and not [m for m in console if "Content Security Policy" in m], console
