"""Every answer memory__remember really gives, of each kind, is valid against the schema the service
serves for it at /openapi.json: a client generated from the document accepts each one (created, updated,
unchanged; a share queued, queued scrubbed, or kept private for each reason; the MCP gateway's share
naming its `agent`)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import jsonschema
import pytest

from .conftest import RunningService, start_service
from .test_gateway_mcp import call_ok, gateway, register_agent

GATED = "gate:\n  enabled: true\n"
SHARES_OFF = "gate:\n  enabled: true\n  accept:\n    userShares: false\n"


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningService]:
    tmp = tmp_path_factory.mktemp("remember")
    policies = tmp / "policies"
    policies.mkdir()
    (policies / "gated.yaml").write_text(GATED)
    (policies / "closed.yaml").write_text(SHARES_OFF)
    running = start_service(tmp, policy=policies)
    yield running
    running.stop()


def remembered_schema(service: RunningService) -> dict[str, Any]:
    """The served document's 200 schema of POST /api/v1/memory/remember, its components beside it."""
    with service.client() as http:
        doc = http.get("/openapi.json").json()
    answer = doc["paths"]["/api/v1/memory/remember"]["post"]["responses"]["200"]
    return {**answer["content"]["application/json"]["schema"], "components": doc["components"]}


def remember(service: RunningService, token: str, body: dict[str, Any]) -> dict[str, Any]:
    with service.client(token) as http:
        response = http.post("/api/v1/memory/remember", json=body)
    assert response.status_code == 200, response.text
    out: dict[str, Any] = response.json()
    return out


async def test_every_kind_of_answer_matches_the_served_schema(served: RunningService) -> None:
    schema = remembered_schema(served)
    register_agent(served, "gated", "support")
    plain = served.token("plain", "alice", "support")
    gated = served.token("gated", "alice", "support")
    answers: dict[str, dict[str, Any]] = {}
    about = {"about_kind": "preference", "about_key": "alice.drink"}
    answers["created"] = remember(served, plain, {"content": "Alice drinks tea", **about})
    answers["unchanged"] = remember(served, plain, {"content": "Alice drinks tea", **about})
    answers["updated"] = remember(served, plain, {"content": "Alice drinks coffee", **about})
    answers["no_gate"] = remember(served, plain, {"content": "The lift is out today", "share": True})
    closed = served.token("closed", "alice", "support")
    answers["user_shares_off"] = remember(served, closed, {"content": "The lift is out", "share": True})
    no_agent = served.token("gated", "bob")
    answers["no_agent"] = remember(served, no_agent, {"content": "The lift is out", "share": True})
    answers["queued"] = remember(served, gated, {"content": "The lift is out on Fridays", "share": True})
    answers["scrubbed"] = remember(
        served, gated, {"content": "Ask dave.jones@example.com for the office keys.", "share": True}
    )
    answers["personal"] = remember(served, gated, {"content": "My account number is 4711.", "share": True})
    answers["too_long"] = remember(served, gated, {"content": "The lift. " * 300, "share": True})
    async with gateway(served, served.token("gated", "carol")) as session:
        answers["gateway"] = await call_ok(
            session,
            "memory__remember",
            {"content": "The canteen closes at 3 pm", "share": True, "agent": "support"},
        )
    assert [a["status"] for a in (answers["created"], answers["unchanged"], answers["updated"])] == [
        "created",
        "unchanged",
        "updated",
    ]
    assert answers["queued"]["share"] == "queued" and "share_reason" not in answers["queued"]
    assert (answers["scrubbed"]["share"], answers["scrubbed"]["share_reason"]) == ("queued", "scrubbed")
    for reason in ("no_gate", "user_shares_off", "no_agent", "personal", "too_long"):
        assert (answers[reason]["share"], answers[reason]["share_reason"]) == ("kept_private", reason)
    assert answers["gateway"]["share"] == "queued" and answers["gateway"]["share_agent_id"]
    for kind, out in answers.items():
        try:
            jsonschema.validate(out, schema)
        except jsonschema.ValidationError as exc:
            raise AssertionError(f"the {kind} answer {out} breaks the served schema: {exc.message}") from None
