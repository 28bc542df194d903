"""The inspector in a real headless Chromium: sign in, search, open an item with its two versions, forget
it (through the bundled script's confirmation), and see it gone from search.

The browser is the system's Chromium; nothing is downloaded. Without it the test is skipped, unless the
CI variable is set, where a missing browser is a failure. A screenshot of the item page is saved as an
artifact (under $TINYMEMORY_ARTIFACTS, else pytest's temporary folder).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .browser import artifacts, chromium, remember, sign_in, watched_page
from .conftest import RunningService

__all__ = ["artifacts", "chromium"]  # fixtures used by name


def test_sign_in_search_history_forget(service: RunningService, chromium: Any, artifacts: Path) -> None:
    token = service.token("acme", "greta")
    first = remember(service, token, "Greta prefers the window seat on long flights")
    second = remember(service, token, "Greta now prefers the aisle seat on long flights")
    assert second["status"] == "updated" and second["supersedes"] == [first["id"]]

    dialogs: list[str] = []
    with watched_page(chromium) as (page, requested, console, _failed):
        sign_in(page, service, token, "greta@acme")
        assert page.locator(".tiers a[aria-current=page]").inner_text().startswith("user")
        cookies = {c["name"]: c for c in page.context.cookies()}
        assert cookies["tinymemory_inspector"]["httpOnly"] is True
        assert cookies["tinymemory_inspector"]["sameSite"] == "Strict"
        assert page.evaluate("document.cookie") == "", "the token is out of the script's reach"

        page.locator("body").press("/")  # the bundled script focuses the search box
        assert page.evaluate("document.activeElement.id") == "q"
        page.keyboard.type("aisle seat flights")
        page.keyboard.press("Enter")
        page.wait_for_url("**/search?q=*")
        hits = page.locator("ul.items li a")
        assert hits.count() == 1
        assert "aisle seat" in hits.first.inner_text()

        hits.first.click()
        page.wait_for_url(f"**/items/{second['id']}")
        history = page.locator("details.history")
        assert "History: 2 versions" in history.locator("summary").inner_text()
        versions = history.locator("ol.versions li").all_inner_texts()
        assert len(versions) == 2
        assert "aisle seat" in versions[0] and "current" in versions[0]
        assert "window seat" in versions[1]
        shot = artifacts / "inspector-item.png"
        page.screenshot(path=str(shot), full_page=True)
        print(f"inspector screenshot: {shot}")
        assert shot.stat().st_size > 0

        page.once("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        page.click("form.forget button")
        assert dialogs and "Forget this memory" in dialogs[0]
        assert page.url.endswith(f"/items/{second['id']}"), "a dismissed confirmation forgets nothing"

        page.once("dialog", lambda d: (dialogs.append(d.message), d.accept()))
        page.click("form.forget button")
        page.wait_for_selector("text=Forgotten")
        assert len(dialogs) == 2

        page.fill("#q", "seat flights")
        page.keyboard.press("Enter")
        page.wait_for_url("**/search?q=*")
        assert page.locator("ul.items li.empty").inner_text() == "No memory matches."
        page.goto(service.url + f"/items/{first['id']}")
        assert page.locator("h1").inner_text() == "Not found"

    assert all(url.startswith(service.url) for url in requested), "the page fetches nothing from elsewhere"
    assert not [m for m in console if "Content Security Policy" in m], console
