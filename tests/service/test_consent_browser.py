"""The privacy page in a real headless Chromium: the "Forget me" button asks first (a dismissed dialog
changes nothing), then erases everything the user owns; consent is given and withdrawn with the page's
buttons (withdrawing asks first); the page breaks no content security rule."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .browser import artifacts, chromium, remember, sign_in, watched_page
from .conftest import RunningService, start_service

POLICY = """\
retention: {default: 365d, categories: {memory:health: 30d, memory:location: 7d}}
consent: {required: [memory:health, memory:location]}
"""

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


def test_consent_is_given_and_withdrawn_from_the_page(tmp_path: Path, chromium: Any, artifacts: Path) -> None:
    (tmp_path / "policy.yaml").write_text(POLICY)
    service = start_service(tmp_path, policy=tmp_path / "policy.yaml")
    try:
        token = service.token("acme", "wanda")
        with watched_page(chromium) as (page, requested, console, failed):
            sign_in(page, service, token, "wanda@acme")
            page.click("text=Privacy")
            page.wait_for_url("**/consent")
            page.click("tr:has-text('memory:health') >> text=Give consent")
            page.wait_for_url("**/consent?notice=granted")
            row = page.inner_text("tr:has-text('memory:health')")
            assert "granted" in row and "Withdraw consent" in row
            assert "not given" in page.inner_text("tr:has-text('memory:location')")
            page.screenshot(path=str(artifacts / "inspector-privacy.png"), full_page=True)

            with service.client(token) as api:
                kept = api.post(
                    "/api/v1/memory/remember",
                    json={"content": "zebrabp88 blood pressure 120/80", "category": "memory:health"},
                )
            assert kept.status_code == 200, kept.text
            page.once("dialog", lambda dialog: dialog.dismiss())
            page.click("text=Withdraw consent")
            assert page.url.endswith("/consent?notice=granted")
            assert opened(service, token, kept.json()["id"]) == "opened"

            page.once("dialog", lambda dialog: dialog.accept())
            page.click("text=Withdraw consent")
            page.wait_for_url("**/consent?notice=withdrawn")
            assert "withdrawn" in page.inner_text("tr:has-text('memory:health')")
            assert opened(service, token, kept.json()["id"]) == "not_found"
        assert console == [], console
        assert failed == [], failed
        assert all(url.startswith(service.url) for url in requested), requested
    finally:
        service.stop()
