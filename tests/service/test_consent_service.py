"""Consent, the export and "forget me" through the HTTP service: a verified user grants and withdraws
consent by category, downloads everything held about them as JSON lines, and erases it all; no read of
the API or the inspector finds the text afterwards, its bytes are gone from the store, and no request
reaches another user's data."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from dataclasses import replace
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from engines import make_engine
from test_retention_consent import stored_anywhere
from tinymemory.api import ItemKind, ItemMeta, Namespace, NewItem, utcnow

from .conftest import RunningService, start_service
from .test_inspector_pages import FORM, browser, csrf_of

POLICY = """\
retention: {default: 365d, categories: {memory:health: 30d}}
consent: {required: [memory:health]}
"""
SECRET = "zebrapulse31 the user's resting heart rate is 52"


STORES: dict[str, Path] = {}  # the service's store by its url: the path start_service names it by


@pytest.fixture(scope="module")
def running(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningService]:
    tmp = tmp_path_factory.mktemp("consent")
    (tmp / "policy.yaml").write_text(POLICY)
    service = start_service(tmp, policy=tmp / "policy.yaml")
    STORES[service.url] = tmp / "service.db"
    yield service
    service.stop()


def post(service: RunningService, token: str, path: str, body: dict[str, Any]) -> Any:
    with service.client(token) as http:
        return http.post(path, json=body)


def export_lines(service: RunningService, token: str) -> list[dict[str, Any]]:
    with service.client(token) as http:
        got = http.get("/api/v1/memory/export")
    assert got.status_code == 200, got.text
    assert got.headers["content-type"].startswith("application/x-ndjson")
    return [json.loads(line) for line in got.text.splitlines()]


def found_anywhere(service: RunningService, token: str, memory_id: str, word: str) -> list[str]:
    """Every read of the API and the inspector that still finds `word` or `memory_id`."""
    found = []
    with service.client(token) as http:
        for path, body in (
            ("/api/v1/memory/recall", {"query": word}),
            ("/api/v1/memory/list", {}),
            ("/api/v1/memory/open", {"memory_id": memory_id}),
            ("/api/v1/memory/fetch", {"query": word}),
            ("/api/v1/memory/get", {"ids": [memory_id]}),
        ):
            got = http.post(path, json=body)
            assert got.status_code == 200, (path, got.text)
            if word in got.text:
                found.append(path)
        context = http.get("/api/v1/memory/context")
        assert context.status_code == 200, context.text
        if word in context.text:
            found.append("context.md")
    with browser(service, token) as page:
        for path in ("/", f"/items/{memory_id}", f"/search?q={word}"):
            # the search page echoes the query in its box and its heading
            shown = page.get(path).text.replace(f'value="{word}"', "").replace(f"“{word}”", "")
            if word in shown:
                found.append(f"inspector {path}")
    return found


def test_consent_gates_remember_and_withdrawal_erases(running: RunningService) -> None:
    dana = running.token("acme", "dana", "helper")
    refused = post(running, dana, "/api/v1/memory/remember", {"content": SECRET, "category": "memory:health"})
    assert refused.status_code == 400
    assert refused.json()["error"]["message"].startswith("memory__remember: `category`")
    with running.client(dana) as http:
        guidance = http.get("/api/v1/memory/tool-guidance").json()
        assert http.get("/api/v1/memory/consent").json() == {
            "categories": [{"category": "memory:health", "state": "none", "at": None}]
        }
    remember = next(t for t in guidance["tools"] if t["name"] == "memory__remember")
    assert "memory:health" in remember["description"]

    granted = post(running, dana, "/api/v1/memory/consent/grant", {"category": "memory:health"})
    assert granted.status_code == 200 and granted.json()["state"] == "granted"
    kept = post(running, dana, "/api/v1/memory/remember", {"content": SECRET, "category": "memory:health"})
    assert kept.status_code == 200, kept.text
    memory_id = kept.json()["id"]
    assert found_anywhere(running, dana, memory_id, "zebrapulse31") != []
    with browser(running, dana) as page:
        shown = page.get(f"/items/{memory_id}").text
    assert "memory:health" in shown and "granted" in shown

    withdrawn = post(running, dana, "/api/v1/memory/consent/withdraw", {"category": "memory:health"})
    assert withdrawn.status_code == 200 and withdrawn.json()["erased"]["memories"] == 1
    assert found_anywhere(running, dana, memory_id, "zebrapulse31") == []
    assert not stored_anywhere(STORES[running.url], "zebrapulse31")


def test_consent_bodies_are_checked(running: RunningService) -> None:
    dana = running.token("acme", "dana", "helper")
    for body, field in (
        ({"category": "health"}, "category"),
        ({"category": "memory:work"}, "category"),
        ({"category": "memory:health", "user": "eve"}, "user"),
        ({}, "category"),
    ):
        got = post(running, dana, "/api/v1/memory/consent/grant", body)
        assert got.status_code == 400, body
        assert (
            got.json()["error"]["message"].startswith("consent grant:")
            and field in got.json()["error"]["message"]
        )
    assert post(running, "", "/api/v1/memory/consent/grant", {"category": "memory:health"}).status_code == 401
    key = running.token("acme", None)
    assert (
        post(running, key, "/api/v1/memory/consent/grant", {"category": "memory:health"}).status_code == 403
    )


def test_an_export_is_the_callers_own_and_forget_me_erases_it(running: RunningService) -> None:
    erin = running.token("acme", "erin", "helper")
    frank = running.token("acme", "frank", "helper")
    mine = post(
        running, erin, "/api/v1/memory/remember", {"content": "zebraerin5 erin's dog is called Rex"}
    ).json()["id"]
    post(running, frank, "/api/v1/memory/remember", {"content": "zebrafrank6 frank rides a blue bicycle"})
    lines = export_lines(running, erin)
    assert lines[0]["record"] == "subject" and lines[0]["user"] == "erin"
    assert any(r["record"] == "memory" and r["id"] == mine for r in lines)
    assert "zebrafrank6" not in json.dumps(lines)
    with running.client(erin) as http:
        assert http.get("/api/v1/memory/export", params={"user": "frank"}).status_code == 400
        assert http.get("/api/v1/memory/export").text.count("zebrafrank6") == 0
    with running.client() as http:
        assert http.get("/api/v1/memory/export").status_code == 401
    with running.client(running.token("acme", None)) as http:
        assert http.get("/api/v1/memory/export").status_code == 403

    assert post(running, erin, "/api/v1/memory/forget-me", {"confirm": False}).status_code == 400
    assert post(running, erin, "/api/v1/memory/forget-me", {}).status_code == 400
    done = post(running, erin, "/api/v1/memory/forget-me", {"confirm": True})
    assert done.status_code == 200 and done.json()["memories"] == 1
    assert found_anywhere(running, erin, mine, "zebraerin5") == []
    assert not stored_anywhere(STORES[running.url], "zebraerin5")
    assert [r["record"] for r in export_lines(running, erin)] == ["subject"]
    assert any("zebrafrank6" in json.dumps(r) for r in export_lines(running, frank))


def test_the_inspector_privacy_page_grants_withdraws_and_exports(running: RunningService) -> None:
    gina = running.token("acme", "gina", "helper")
    with browser(running, gina) as page:
        shown = page.get("/consent")
        assert shown.status_code == 200 and "memory:health" in shown.text and "Give consent" in shown.text
        assert "style=" not in shown.text and "<script>" not in shown.text
        assert "default-src 'self'" in shown.headers["content-security-policy"]
        csrf = csrf_of(shown.text)
        refused = page.post("/consent/grant", data={"category": "memory:health"}, headers=FORM)
        assert refused.status_code == 403
        assert (
            post(
                running, gina, "/api/v1/memory/remember", {"content": SECRET, "category": "memory:health"}
            ).status_code
            == 400
        )
        done = page.post("/consent/grant", data={"csrf": csrf, "category": "memory:health"}, headers=FORM)
        assert done.status_code == 303 and done.headers["location"] == "/consent?notice=granted"
        kept = post(
            running, gina, "/api/v1/memory/remember", {"content": SECRET, "category": "memory:health"}
        )
        memory_id = kept.json()["id"]
        after = page.get("/consent")
        assert "Withdraw consent" in after.text
        exported = page.get("/consent/export")
        assert exported.status_code == 200 and memory_id in exported.text
        csrf = csrf_of(after.text)
        gone = page.post("/consent/withdraw", data={"csrf": csrf, "category": "memory:health"}, headers=FORM)
        assert gone.status_code == 303
        assert memory_id not in page.get("/consent/export").text
    assert found_anywhere(running, gina, memory_id, "zebrapulse31") == []


def test_the_service_runs_retention_in_the_background(tmp_path: Path) -> None:
    (tmp_path / "policy.yaml").write_text(POLICY)
    store = tmp_path / "service.db"

    async def seed() -> str:
        async with make_engine(store) as engine:
            meta = replace(
                ItemMeta(Namespace.parse("workspace:acme/user:hana")),
                learning_kind="general",
                category="memory:health",
                observed_at=utcnow() - timedelta(days=31),
            )
            return (await engine.store(NewItem(ItemKind.LEARNING, SECRET, meta, 0.8))).id

    memory_id = asyncio.run(seed())
    service = start_service(tmp_path, policy=tmp_path / "policy.yaml", retention_seconds=0.1, gate_seconds=0)
    try:
        hana = service.token("acme", "hana")
        deadline = time.monotonic() + 30
        status = "opened"
        while status != "not_found" and time.monotonic() < deadline:
            status = post(service, hana, "/api/v1/memory/open", {"memory_id": memory_id}).json()["status"]
            time.sleep(0.05)
        assert status == "not_found"
        assert not stored_anywhere(store, "zebrapulse31")
    finally:
        service.stop()


def raw_post(service: RunningService, token: str, path: str, content: bytes) -> Any:
    with service.client(token) as http:
        return http.post(path, content=content, headers={"Content-Type": "application/json"})


def refused(got: Any, status: int, op: str, field: str) -> None:
    """A clear error of the library's kind: the status, the operation and the field named, no trace."""
    assert got.status_code == status, got.text
    message = got.json()["error"]["message"]
    assert message.startswith(f"{op}:") and field in message, message
    assert "Traceback" not in got.text


@pytest.mark.parametrize(
    ("path", "op"),
    [
        ("/api/v1/memory/consent/grant", "consent grant"),
        ("/api/v1/memory/consent/withdraw", "consent withdraw"),
    ],
)
def test_malformed_consent_requests_are_refused_and_write_nothing(
    running: RunningService, path: str, op: str
) -> None:
    ivy = running.token("acme", "ivy", "helper")
    for body, field in (
        ({"category": 5}, "category"),
        ({"category": None}, "category"),
        ({"category": ["memory:health"]}, "category"),
        ({"category": {"kind": "memory"}}, "category"),
        ({"category": "memory:"}, "category"),
        ({"category": ":health"}, "category"),
        ({"category": "memory health"}, "category"),
        ({"category": "memory:" + "h" * 400}, "category"),
        ({"category": "memory:health", "user": "eve"}, "user"),
    ):
        refused(post(running, ivy, path, body), 400, op, field)
    for content, field in ((b"[]", "body"), (b'"memory:health"', "body"), (b"{", "body"), (b"", "body")):
        refused(raw_post(running, ivy, path, content), 400, op, field)
    with running.client(ivy) as http:
        got = http.post(path, params={"user": "eve"}, json={"category": "memory:health"})
    refused(got, 400, op, "user")
    huge = json.dumps({"category": "memory:health", "pad": "x" * 2_000_000}).encode()
    big = raw_post(running, ivy, path, huge)
    assert big.status_code == 413 and big.json()["error"]["kind"] == "too_large", big.text
    agent_key = running.token("acme", None, "helper")  # an agent's key names no user
    assert post(running, agent_key, path, {"category": "memory:health"}).status_code == 403
    with running.client(ivy) as http:
        assert http.get("/api/v1/memory/consent").json()["categories"][0]["state"] == "none"
    assert [r["record"] for r in export_lines(running, ivy)] == ["subject"]


def test_consent_status_takes_no_parameter(running: RunningService) -> None:
    ivy = running.token("acme", "ivy", "helper")
    with running.client(ivy) as http:
        got = http.get("/api/v1/memory/consent", params={"user": "eve"})
    refused(got, 400, "consent status", "user")
    with running.client(running.token("acme", None, "helper")) as http:
        assert http.get("/api/v1/memory/consent").status_code == 403


def test_malformed_forget_me_requests_are_refused_and_erase_nothing(running: RunningService) -> None:
    jude = running.token("acme", "jude", "helper")
    kept = post(running, jude, "/api/v1/memory/remember", {"content": "zebrajude7 jude plays the oboe"})
    memory_id = kept.json()["id"]
    path, op = "/api/v1/memory/forget-me", "forget-me"
    for body, field in (
        ({"confirm": "true"}, "confirm"),
        ({"confirm": 1}, "confirm"),
        ({"confirm": None}, "confirm"),
        ({"confirm": [True]}, "confirm"),
        ({"confirm": True, "user": "eve"}, "user"),
        ({"confirm": False}, "confirm"),
        ({}, "confirm"),
    ):
        refused(post(running, jude, path, body), 400, op, field)
    for content in (b"[true]", b"true", b"{", b""):
        refused(raw_post(running, jude, path, content), 400, op, "body")
    with running.client(jude) as http:
        refused(http.post(path, params={"user": "eve"}, json={"confirm": True}), 400, op, "user")
    huge = json.dumps({"confirm": True, "pad": "x" * 2_000_000}).encode()
    assert raw_post(running, jude, path, huge).status_code == 413
    agent_key = running.token("acme", None, "helper")
    assert post(running, agent_key, path, {"confirm": True}).status_code == 403
    with running.client(jude) as http:
        assert http.post("/api/v1/memory/open", json={"memory_id": memory_id}).json()["status"] == "opened"


def test_an_export_refuses_what_names_no_user(running: RunningService) -> None:
    with running.client(running.token("acme", None, "helper")) as http:
        got = http.get("/api/v1/memory/export")
    assert got.status_code == 403 and "Traceback" not in got.text
    with running.client(running.token("acme", "kim", "helper")) as http:
        for params in ({"user": "eve"}, {"workspace": "globex"}, {"format": "json"}):
            refused(http.get("/api/v1/memory/export", params=params), 400, "export", next(iter(params)))


def test_the_privacy_pages_forms_refuse_bad_input(running: RunningService) -> None:
    lena = running.token("acme", "lena", "helper")
    with browser(running, lena) as page:
        csrf = csrf_of(page.get("/consent").text)
        for data in (
            {"csrf": csrf},
            {"csrf": csrf, "category": "health"},
            {"csrf": csrf, "category": "memory:work"},
        ):
            got = page.post("/consent/grant", data=data, headers=FORM)
            assert got.status_code == 400 and "category" in got.text and "Traceback" not in got.text, got.text
        got = page.post("/consent/forget-me", data={"csrf": csrf, "confirm": "yes"}, headers=FORM)
        assert got.status_code == 400 and "confirm" in got.text
        assert "Give consent" in page.get("/consent").text  # nothing was recorded
