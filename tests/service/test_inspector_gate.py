"""The inspector's share-gate page (`/gate`) against a real service with the gate on: an admin sees what
the gate holds and published, with distinct-user counts against the threshold, and never a sharer or an
identifier a share carried; anyone else learns nothing from it. Shares are driven through the HTTP API
and the gate is run through its admin route, as an operator would."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tinymemory.service.inspector.gate_pages import window_text

from .browser import artifacts, chromium, sign_in, watched_page
from .conftest import RunningService, start_service
from .test_inspector_pages import browser

__all__ = ["artifacts", "chromium"]  # fixtures used by name

POLICY = "gate:\n  enabled: true\n  minDistinctSubjects: 2\n  window: 7d\n"
AGENT = "frontdesk"
SHARERS = ("erin.vos", "frank.ode", "gisela.marx")
PUBLISHED = "The visitor badges are handed out by Erin Vos at reception."
HELD = "The Oslo office closes at 4 pm on Fridays; write to kari.nordmann@example.org for keys."
CARD = "4111 1111 1111 1111"
PRIVATE = f"My card {CARD} pays for the team lunch in Oslo."


def share(service: RunningService, user: str, text: str) -> dict[str, Any]:
    with service.client(service.token("acme", user, AGENT)) as api:
        got = api.post("/api/v1/memory/remember", json={"content": text, "share": True})
    assert got.status_code == 200, got.text
    out: dict[str, Any] = got.json()
    return out


@pytest.fixture(scope="module")
def gated(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningService]:
    """A service with the gate on: one fact published by two sharers, one held with a single sharer (its
    e-mail address scrubbed), and a share with a card number kept private."""
    tmp = tmp_path_factory.mktemp("gate-page")
    (tmp / "policy.yaml").write_text(POLICY)
    running = start_service(tmp, policy=tmp / "policy.yaml")
    try:
        for user in SHARERS[:2]:
            assert share(running, user, PUBLISHED)["share"] == "queued"
        with running.client(running.token("acme", None)) as api:
            assert api.post("/api/v1/gate/run").json()["published"] == 1
        held = share(running, SHARERS[2], HELD)
        assert held["share"] == "queued" and held.get("share_reason") == "scrubbed", held
        assert share(running, SHARERS[0], PRIVATE)["share"] == "kept_private"
        yield running
    finally:
        running.stop()


@pytest.fixture
def admin_page(gated: RunningService) -> str:
    with browser(gated, gated.token("acme", "root", admin=True)) as client:
        got = client.get("/gate")
    assert got.status_code == 200, got.text
    assert got.headers["content-type"].startswith("text/html")
    assert "script-src 'self'" in got.headers["content-security-policy"]
    return got.text


def section(page: str, name: str) -> str:
    found = re.search(rf'<section class="gate-{name}".*?</section>', page, re.S)
    assert found is not None, f"no {name} section"
    return found.group(0)


def test_an_admin_sees_held_and_published_facts_with_counts(admin_page: str) -> None:
    held = section(admin_page, "held")
    assert "The Oslo office closes at 4 pm on Fridays; write to [email] for keys." in held
    assert '<meter min="0" max="2" value="1"' in held and "1 of 2 users" in held
    published = section(admin_page, "published")
    assert "The visitor badges are handed out by [person] at reception." in published
    assert "reported by 2 users" in published
    decisions = section(admin_page, "decisions")
    assert decisions.count("published") >= 2  # one decision per candidate of the published fact
    assert "7d" in admin_page and AGENT in admin_page


def test_the_page_names_no_sharer_and_no_identifier(admin_page: str) -> None:
    text = admin_page.lower()
    for user in SHARERS:
        assert user not in text
        for part in user.split("."):
            assert re.search(rf"\b{part}\b", text) is None, part
    assert "kari.nordmann" not in text and "example.org" not in text
    digits = re.sub(r"\D", "", admin_page)
    assert CARD.replace(" ", "") not in digits and "4111" not in admin_page
    assert "team lunch" not in text


def test_a_user_who_is_not_an_admin_learns_nothing(gated: RunningService) -> None:
    with browser(gated, gated.token("acme", SHARERS[0], AGENT)) as client:
        got = client.get("/gate")
    assert got.status_code == 403
    assert "Not allowed" in got.text and "admins only" in got.text
    for leak in ("Oslo", "visitor badges", "[email]", "[person]", "meter", "of 2 users", "reported by"):
        assert leak not in got.text, leak


def test_signed_out_is_sent_to_sign_in(gated: RunningService) -> None:
    with httpx.Client(base_url=gated.url, timeout=30, follow_redirects=False) as client:
        got = client.get("/gate")
    assert got.status_code == 303 and got.headers["location"] == "/"


def test_another_workspaces_admin_sees_none_of_it(gated: RunningService) -> None:
    with browser(gated, gated.token("globex", "root", admin=True)) as client:
        got = client.get("/gate")
    assert got.status_code == 200
    assert "Oslo" not in got.text and "visitor badges" not in got.text
    assert "No share has reached the gate" in got.text


def test_the_gate_page_in_a_browser(gated: RunningService, chromium: Any, artifacts: Path) -> None:
    with watched_page(chromium, viewport={"width": 1100, "height": 900}) as (
        page,
        _requested,
        console,
        _failed,
    ):
        sign_in(page, gated, gated.token("acme", "root", admin=True), "root@acme")
        page.goto(gated.url + "/gate")
        assert page.locator("h1").inner_text() == "The share gate"
        assert page.locator(".gate-held meter").count() == 1
        assert "1 of 2 users" in page.locator(".gate-held").inner_text()
        assert "[person]" in page.locator(".gate-published").inner_text()
        shot = artifacts / "inspector-gate.png"
        page.screenshot(path=str(shot), full_page=True)
        print(f"inspector screenshot: {shot}")
        assert shot.stat().st_size > 0
        errors = [c for c in console if c.startswith(("error", "pageerror"))]
        assert errors == [], errors


def test_a_workspace_without_the_gate_says_so(service: RunningService) -> None:
    with browser(service, service.token("acme", "root", admin=True)) as client:
        got = client.get("/gate")
    assert got.status_code == 200
    assert "The gate is off" in got.text and "No share has reached the gate" in got.text


@pytest.mark.parametrize(
    ("seconds", "shown"), [(604800, "7d"), (5400, "1h30m"), (90061, "1d1h1m1s"), (45, "45s")]
)
def test_the_window_reads_as_the_policy_writes_it(seconds: int, shown: str) -> None:
    assert window_text(seconds) == shown
