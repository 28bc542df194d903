"""The list page's views in a real headless Chromium: filter by type, pick two rows and forget them
through the bundled script's confirmation, then download the export of what is left. A screenshot of
the filtered list is saved as an artifact."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .browser import artifacts, chromium, sign_in, watched_page
from .conftest import RunningService
from .test_inspector_pages import remember

__all__ = ["artifacts", "chromium"]  # fixtures used by name


def test_filter_bulk_forget_and_export(service: RunningService, chromium: Any, artifacts: Path) -> None:
    token = service.token("acme", "vera")
    facts = [
        remember(service, token, f"Vera's errand {n}: {w}", type="fact")["id"]
        for n, w in enumerate(("post office", "bakery", "library"))
    ]
    remember(service, token, "Vera prefers green tea", type="preference")
    dialogs: list[str] = []
    with watched_page(chromium, accept_downloads=True) as (page, _requested, console, _failed):
        sign_in(page, service, token, "vera@acme")
        page.get_by_label("Type").fill("fact")
        page.get_by_role("button", name="Apply").click()
        page.wait_for_url("**type=fact*")
        rows = page.locator("ul.items li")
        assert rows.count() == 3
        assert "green tea" not in page.locator("ul.items").inner_text()
        shot = artifacts / "inspector-views.png"
        page.screenshot(path=str(shot), full_page=True)
        print(f"inspector screenshot: {shot}")

        page.check(f"input[name=id][value='{facts[0]}']")
        page.check(f"input[name=id][value='{facts[1]}']")
        page.once("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        page.click("form.bulk button")
        assert dialogs and "Forget the selected memories" in dialogs[0]
        assert "type=fact" in page.url, "a dismissed confirmation forgets nothing"

        page.once("dialog", lambda d: (dialogs.append(d.message), d.accept()))
        page.click("form.bulk button")
        page.wait_for_selector("text=Forgotten: 2.")

        page.goto(service.url + "/?tier=user&type=fact")
        with page.expect_download() as info:
            page.get_by_role("link", name="Export these (JSON lines)").click()
        saved = artifacts / "vera.jsonl"
        info.value.save_as(str(saved))
        lines = [json.loads(x) for x in saved.read_text().splitlines()]
        assert [x["id"] for x in lines] == [facts[2]]
    assert not [m for m in console if "Content Security Policy" in m], console
