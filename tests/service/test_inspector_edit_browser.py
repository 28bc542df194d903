"""Adding and correcting a memory in a real headless Chromium: the add form is filled from the keyboard,
the item's Edit link opens the correction form prefilled, and saving shows two versions, the older one
readable through `as_of`. Screenshots of the form and of the corrected item are saved as artifacts."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .browser import artifacts, chromium, sign_in, watched_page
from .conftest import RunningService

__all__ = ["artifacts", "chromium"]  # fixtures used by name
ITEM = re.compile(r"/items/m_[0-9a-z]+$")


def test_add_then_correct_shows_two_versions(service: RunningService, chromium: Any, artifacts: Path) -> None:
    token = service.token("acme", "vera")
    with watched_page(chromium) as (page, requested, console, _failed):
        sign_in(page, service, token, "vera@acme")

        page.goto(service.url + "/new")
        assert page.evaluate("document.activeElement.id") == "content", "the text is focused first"
        page.keyboard.type("Vera's book club meets on Tuesdays")
        page.keyboard.press("Tab")
        assert page.evaluate("document.activeElement.id") == "type"
        page.keyboard.press("Tab")
        page.keyboard.type("event")
        page.keyboard.press("Tab")
        assert page.evaluate("document.activeElement.id") == "about_key"
        page.keyboard.type("book club")
        page.keyboard.press("Tab")
        assert page.evaluate("document.activeElement.id") == "title"
        page.keyboard.type("Book club")
        shot = artifacts / "inspector-edit-form.png"
        page.screenshot(path=str(shot), full_page=True)
        page.keyboard.press("Enter")  # submits from a text field
        page.wait_for_url(ITEM)
        first_url = page.url
        assert page.locator("h1").inner_text() == "Book club"
        assert "History: 1 version" in page.locator("details.history summary").inner_text()
        before = datetime.now(UTC).isoformat()

        page.click("text=Edit")
        page.wait_for_url("**/edit")
        assert page.input_value("#content") == "Vera's book club meets on Tuesdays"
        assert page.input_value("#title") == "Book club"
        assert "event: book club" in page.locator(".memory-form").inner_text()
        page.fill("#content", "Vera's book club now meets on Thursdays")
        page.click(".memory-form button[type=submit]")
        page.wait_for_url(ITEM)
        assert page.url != first_url
        assert "Thursdays" in page.locator("pre.content").inner_text()
        history = page.locator("details.history")
        assert "History: 2 versions" in history.locator("summary").inner_text()
        versions = history.locator("ol.versions li").all_inner_texts()
        assert len(versions) == 2 and "Thursdays" in versions[0] and "Tuesdays" in versions[1]

        page.fill("#as_of", before)
        page.click(".as-of button")
        page.wait_for_selector("text=At ")
        page.click("text=this one")
        page.wait_for_url(first_url)
        assert "Tuesdays" in page.locator("pre.content").inner_text()
        assert "A newer version replaced this one" in page.locator("article").inner_text()
        page.click("text=see the current version")
        page.wait_for_selector("text=History: 2 versions")
        item_shot = artifacts / "inspector-edit.png"
        page.screenshot(path=str(item_shot), full_page=True)
        print(f"inspector screenshots: {shot} {item_shot}")
        assert shot.stat().st_size > 0 and item_shot.stat().st_size > 0

    assert all(url.startswith(service.url) for url in requested), "the page fetches nothing from elsewhere"
    assert not [m for m in console if "Content Security Policy" in m], console
