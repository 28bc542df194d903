"""The gate end to end through the service: three users of one agent share the same fact through the MCP
gateway; after the gate runs, a fourth user's memory__recall finds the shared copy in the agent tier,
and no user's private copy is visible to another."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from engines import is_postgres

from .conftest import RunningService, start_service
from .test_gateway_mcp import call_ok, gateway

POLICY = "gate:\n  enabled: true\n  minDistinctSubjects: 2\n  window: 7d\n"
SHARES = {
    "alice": "The Munich warehouse ships orders until 3 pm on weekdays.",
    "bob": "On weekdays the Munich warehouse ships orders until 15:00.",
    "carol": "The Munich warehouse ships orders until 3pm on weekdays.",
}


@pytest.fixture(scope="module")
def gated(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningService]:
    tmp = tmp_path_factory.mktemp("gated")
    (tmp / "policy.yaml").write_text(POLICY)
    running = start_service(tmp, policy=tmp / "policy.yaml", embedder="default")
    yield running
    running.stop()


async def test_three_sharers_through_the_gateway_become_the_agents_knowledge(gated: RunningService) -> None:
    admin = gated.token("acme", "root", admin=True)
    with gated.client(admin) as http:
        assert http.put("/api/v1/agents/support", json={"notes": "Be brief."}).status_code in (200, 201)
    private: dict[str, str] = {}
    for user, text in SHARES.items():
        async with gateway(gated, gated.token("acme", user)) as session:
            out = await call_ok(
                session, "memory__remember", {"content": text, "share": True, "agent": "support"}
            )
            assert out["share"] == "queued" and out["tier"] == "user"
            private[user] = out["id"]
    with gated.client(admin) as http:
        held = http.get("/api/v1/gate").json()["agents"][0]["held"]
        assert [g["distinct_subjects"] for g in held] == [3]
        report = http.post("/api/v1/gate/run").json()
    assert report["published"] == 1, report
    [shared_id] = report["shared_ids"]

    with gated.client(gated.token("acme", "dave", "support")) as http:
        hits = http.post(
            "/api/v1/memory/recall", json={"query": "until when does the Munich warehouse ship?"}
        )
    memories = hits.json()["memories"]
    assert memories[0]["id"] == shared_id and memories[0]["metadata"]["tier"] == "agent"
    assert not set(private.values()) & {m["id"] for m in memories}

    for user in SHARES:
        with gated.client(gated.token("acme", user)) as http:
            seen = {
                m["id"]
                for m in http.post("/api/v1/memory/recall", json={"query": "Munich warehouse"}).json()[
                    "memories"
                ]
            }
            others = {i for u, i in private.items() if u != user}
            assert private[user] in seen and not (seen & others)
            opened = http.post("/api/v1/memory/open", json={"memory_id": next(iter(others))}).json()
            assert opened["status"] == "not_found"


def test_gate_routes_are_for_admins(gated: RunningService) -> None:
    with gated.client(gated.token("acme", "erin")) as http:
        assert http.get("/api/v1/gate").status_code == 403
        assert http.post("/api/v1/gate/run").status_code == 403
    with gated.client() as http:
        assert http.get("/api/v1/gate").status_code == 401
    with gated.client(gated.token("acme", None)) as http:
        assert http.get("/api/v1/gate").json()["enabled"] is True
    if not is_postgres():
        assert Path(gated.settings.db).exists()


def test_the_gate_status_names_no_sharer(gated: RunningService) -> None:
    # frank's copy names erin, another sharer of the agent: neither the status nor the publication may.
    badges = "The visitor badges are handed out by erin at reception."
    for user in ("erin", "frank"):
        with gated.client(gated.token("globex", user, "front")) as http:
            out = http.post("/api/v1/memory/remember", json={"content": badges, "share": True}).json()
            assert out["share"] == "queued", out
    with gated.client(gated.token("globex", None)) as http:
        status = http.get("/api/v1/gate")
        assert status.status_code == 200
        [agent] = status.json()["agents"]
        assert [g["distinct_subjects"] for g in agent["held"]] == [2]
        assert "erin" not in status.text and "frank" not in status.text
        assert http.post("/api/v1/gate/run").json()["published"] == 1
        after = http.get("/api/v1/gate")
        assert "erin" not in after.text and "frank" not in after.text
        assert [p["text"] for p in after.json()["agents"][0]["published"]] == [
            "The visitor badges are handed out by [person] at reception."
        ]
