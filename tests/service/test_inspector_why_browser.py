"""The search page's why part in a real headless Chromium, over a service with the default embedder: a
nonsense query lists nothing; a real one lists its memory once, with a closed why that opens on a click
to the signals in words. A full-page screenshot is saved as an artifact."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .browser import artifacts, chromium, sign_in, watched_page
from .conftest import RunningService, start_service
from .test_inspector_pages import remember

__all__ = ["artifacts", "chromium"]  # fixtures used by name

MEMORIES = (
    "I drink oat milk flat whites every morning.",
    "I am allergic to peanuts and shellfish.",
    "My sister lives in Lisbon.",
)


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningService]:
    running = start_service(Path(tmp_path_factory.mktemp("why-browser")), embedder="default")
    yield running
    running.stop()


def test_search_shows_why_and_cuts_nonsense(service: RunningService, chromium: Any, artifacts: Path) -> None:
    token = service.token("acme", "hana")
    for text in MEMORIES:
        remember(service, token, text)
    with watched_page(chromium) as (page, _requested, console, _failed):
        sign_in(page, service, token, "hana@acme")

        page.fill("#q", "zzqx blorft")
        page.press("#q", "Enter")
        page.wait_for_url("**/search?q=*")
        assert page.locator("ul.items li a").count() == 0
        assert page.locator("ul.items li.empty").inner_text() == "No memory matches."

        page.fill("#q", "what do I drink in the morning")
        page.press("#q", "Enter")
        page.wait_for_url("**/search?q=what*")
        first = page.locator("ul.items > li").first
        assert "oat milk flat whites" in first.locator("a").inner_text()
        assert first.inner_text().count("oat milk flat whites") == 1  # the text once
        why = first.locator("details.why")
        assert why.get_attribute("open") is None
        assert not why.locator("ul").is_visible()
        why.locator("summary").click()
        assert why.locator("ul").is_visible()
        said = why.locator("ul").inner_text()
        assert "Shares words with the search" in said and "1st by keywords" in said
        assert "by meaning" in said and "Final score" in said and "1st in the results" in said
        assert why.locator("table.features tr").count() > 5
        page.screenshot(path=str(artifacts / "inspector-why.png"), full_page=True)
        assert not [m for m in console if "Content Security Policy" in m], console
