"""The service answers over a real socket: health, a verified user's remember and recall, 401 without a
token, and the one error body shape."""

from __future__ import annotations

from .conftest import RunningService


def test_health_and_ready(service: RunningService) -> None:
    with service.client() as http:
        assert http.get("/healthz").json() == {"status": "ok"}
        assert http.get("/readyz").json() == {"status": "ready"}


def test_remember_then_recall(service: RunningService) -> None:
    with service.client(service.token("acme", "smoke")) as http:
        saved = http.post("/api/v1/memory/remember", json={"content": "Smoke prefers green tea"})
        assert saved.status_code == 200, saved.text
        assert saved.json()["tier"] == "user"
        found = http.post("/api/v1/memory/recall", json={"query": "green tea"}).json()
        assert [m["id"] for m in found["memories"]][:1] == [saved.json()["id"]]


def test_anonymous_is_401_with_the_error_body(service: RunningService) -> None:
    with service.client() as http:
        r = http.post("/api/v1/memory/recall", json={"query": "tea"})
    assert r.status_code == 401
    body = r.json()
    assert body["error"]["kind"] == "unauthorized"
    assert body["request_id"] == r.headers["x-request-id"]
