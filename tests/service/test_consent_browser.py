"""The privacy page in a real headless Chromium: the "Forget me" button asks first (a dismissed dialog
changes nothing), then erases everything the user owns; the page breaks no content security rule."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .browser import artifacts, chromium, remember, sign_in, watched_page
from .conftest import RunningService

__all__ = ["artifacts", "chromium"]  # fixtures used by name


def opened(service: RunningService, token: str, memory_id: str) -> str:
    with service.client(token) as api:
        status: str = api.post("/api/v1/memory/open", json={"memory_id": memory_id}).json()["status"]
    return status


def test_forget_me_asks_then_erases(service: RunningService, chromium: Any, artifacts: Path) -> None:
    token = service.token("acme", "wanda")
    memory_id = remember(service, token, "Wanda sits by the window")["id"]
    with watched_page(chromium) as (page, requested, console, failed):
        sign_in(page, service, token, "wanda@acme")
        page.click("text=Privacy")
        page.wait_for_url("**/consent")
        assert "No category of this workspace needs your consent." in page.inner_text("article")
        page.screenshot(path=str(artifacts / "inspector-privacy.png"), full_page=True)

        page.once("dialog", lambda dialog: dialog.dismiss())
        page.click("text=Forget me")
        assert page.url.endswith("/consent") and opened(service, token, memory_id) == "opened"

        page.once("dialog", lambda dialog: dialog.accept())
        page.click("text=Forget me")
        page.wait_for_url("**/consent?notice=forgotten")
        assert "Everything you owned is forgotten." in page.inner_text("article")
        assert opened(service, token, memory_id) == "not_found"
    assert console == [], console
    assert failed == [], failed
    assert all(url.startswith(service.url) for url in requested), requested
