"""Every route of the service does its job over a real socket: the memory__ tools, seed 000's operations,
the tool listing and calls, context.md, ingest, guidance with an agent's notes, the agent registry,
health and metrics, and the error body of unknown routes and methods."""

from __future__ import annotations

import re
from typing import Any

import pytest

from engines import is_postgres

from .conftest import RunningService

MEMORY = "/api/v1/memory"


def ok(response: Any, status: int = 200) -> Any:
    assert response.status_code == status, response.text
    return response.json()


def assert_error(response: Any, status: int, kind: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    body: dict[str, Any] = response.json()
    assert set(body) == {"error", "request_id"}
    assert set(body["error"]) == {"kind", "message"}
    assert body["error"]["kind"] == kind
    assert body["request_id"] == response.headers["x-request-id"]
    return body


# --- the memory__ tools ------------------------------------------------------------------------


def test_remember_recall_open_list_forget(service: RunningService) -> None:
    with service.client(service.token("acme", "rita")) as http:
        saved = ok(http.post(f"{MEMORY}/remember", json={"content": "Rita's locker is number 42"}))
        assert saved == {"id": saved["id"], "status": "created", "tier": "user"}
        again = ok(http.post(f"{MEMORY}/remember", json={"content": "Rita's locker is number 42"}))
        assert again == {**saved, "status": "unchanged"}

        found = ok(http.post(f"{MEMORY}/recall", json={"query": "locker number"}))["memories"]
        assert [m["id"] for m in found] == [saved["id"]]
        assert found[0]["content"] == "Rita's locker is number 42"
        assert found[0]["metadata"]["tier"] == "user"
        assert "score" in found[0]["metadata"]

        opened = ok(http.post(f"{MEMORY}/open", json={"memory_id": saved["id"]}))
        assert opened["status"] == "opened"
        assert (opened["id"], opened["content"]) == (saved["id"], "Rita's locker is number 42")

        listed = ok(http.post(f"{MEMORY}/list", json={}))["memories"]
        assert [m["id"] for m in listed] == [saved["id"]]

        gone = ok(http.post(f"{MEMORY}/forget", json={"memory_id": saved["id"]}))
        assert gone == {"status": "forgotten", "id": saved["id"], "versions": 1}
        assert ok(http.post(f"{MEMORY}/recall", json={"query": "locker number"})) == {"memories": []}
        assert ok(http.post(f"{MEMORY}/open", json={"memory_id": saved["id"]}))["status"] == "not_found"
        assert ok(http.post(f"{MEMORY}/list"))["memories"] == []  # an empty body is no arguments


def test_remember_with_about_supersedes_in_place(service: RunningService) -> None:
    with service.client(service.token("acme", "sam")) as http:
        about = {"about_kind": "person", "about_key": "sam-desk"}
        first = ok(http.post(f"{MEMORY}/remember", json={"content": "Sam sits on floor 2", **about}))
        second = ok(http.post(f"{MEMORY}/remember", json={"content": "Sam sits on floor 5", **about}))
        assert second["status"] == "updated"
        assert second["supersedes"] == [first["id"]]
        found = ok(http.post(f"{MEMORY}/recall", json={"query": "Sam floor"}))["memories"]
        assert [m["content"] for m in found] == ["Sam sits on floor 5"]
        assert found[0]["metadata"]["about_key"] == "sam-desk"


# --- seed 000's operations ---------------------------------------------------------------------


def test_store_fetch_get_explore(service: RunningService) -> None:
    with service.client(service.token("acme", "cora")) as http:
        learning = ok(http.post(f"{MEMORY}/store", json={"learning": {"text": "Cora deploys on Tuesdays"}}))
        assert learning["replayed"] is False
        replay = ok(http.post(f"{MEMORY}/store", json={"learning": {"text": "Cora deploys on Tuesdays"}}))
        assert replay == {"id": learning["id"], "replayed": True}
        doc = ok(
            http.post(
                f"{MEMORY}/store",
                json={
                    "document": {"title": "Runbook", "text": "Deploys need two reviewers."},
                    "tags": ["ops"],
                },
            )
        )

        hits = ok(http.post(f"{MEMORY}/fetch", json={"query": "deploys", "mode": "lexical"}))["hits"]
        assert {h["id"] for h in hits} == {learning["id"], doc["id"]}
        assert all("score" in h for h in hits)

        got = ok(http.post(f"{MEMORY}/get", json={"ids": [doc["id"], "m_unknown"]}))
        assert [i["id"] for i in got["items"]] == [doc["id"]]
        assert got["items"][0]["text"] == "Deploys need two reviewers."
        assert got["items"][0]["meta"]["tags"] == ["ops"]
        assert got["missing"] == ["m_unknown"]

        kinds = ok(http.post(f"{MEMORY}/explore", json={"facet": "kind"}))
        assert kinds["facet"] == "kind"
        assert {b["value"]: b["count"] for b in kinds["buckets"]} == {"learning": 1, "document": 1}
        assert kinds["total"] == 2


# --- tools over HTTP ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "names"),
    [
        ("", ["memory__remember", "memory__recall", "memory__open", "memory__list", "memory__forget"]),
        (
            "?set=policy",
            ["memory__remember", "memory__recall", "memory__open", "memory__list", "memory__forget"],
        ),
        (
            "?set=memory",
            [f"memory_{op}" for op in ("recall", "fetch", "list", "get", "explore", "store", "forget")],
        ),
    ],
)
def test_tools_lists_each_set(service: RunningService, query: str, names: list[str]) -> None:
    with service.client(service.token("acme", "tess")) as http:
        tools = ok(http.get(f"{MEMORY}/tools{query}"))["tools"]
    assert sorted(t["name"] for t in tools) == sorted(names)
    assert all(t["parameters"]["type"] == "object" and t["description"] for t in tools)


def test_tools_with_an_unknown_set_is_400(service: RunningService) -> None:
    with service.client(service.token("acme", "tess")) as http:
        body = assert_error(http.get(f"{MEMORY}/tools?set=everything"), 400, "invalid_request")
    assert body["error"]["message"].startswith("tools: `set`")


def test_tools_call_runs_both_sets(service: RunningService) -> None:
    with service.client(service.token("acme", "tom")) as http:
        call = {"tool": "memory__remember", "arguments": {"content": "Tom's badge is blue"}}
        saved = ok(http.post(f"{MEMORY}/tools/call", json=call))
        assert saved["is_error"] is False and saved["error_kind"] is None
        assert saved["value"]["status"] == "created"
        assert saved["text"].startswith("{")

        call = {"tool": "memory_fetch", "arguments": {"query": "badge", "mode": "lexical"}}
        fetched = ok(http.post(f"{MEMORY}/tools/call", json=call))
        assert [h["id"] for h in fetched["value"]["hits"]] == [saved["value"]["id"]]

        recall = ok(
            http.post(
                f"{MEMORY}/tools/call", json={"tool": "memory_recall", "arguments": {"question": "badge?"}}
            )
        )
        assert [c["id"] for c in recall["value"]["citations"]] == [saved["value"]["id"]]


@pytest.mark.parametrize(
    ("call", "kind"),
    [
        ({"tool": "memory__recall", "arguments": {"qury": "tea"}}, "invalid_request"),
        ({"tool": "memory_fetch", "arguments": {}}, "invalid_request"),
        ({"tool": "memory__teleport", "arguments": {}}, "invalid_request"),
        ({"tool": "memory_get", "arguments": {"ids": []}}, "invalid_request"),
    ],
)
def test_tools_call_contract_error_is_tool_output(
    service: RunningService, call: dict[str, Any], kind: str
) -> None:
    with service.client(service.token("acme", "tom")) as http:
        out = ok(http.post(f"{MEMORY}/tools/call", json=call))
    assert out["is_error"] is True
    assert out["value"] is None
    assert out["error_kind"] == kind
    assert out["text"].startswith("error: ")


# --- context, ingest, guidance -----------------------------------------------------------------


def test_context_holds_the_callers_memories(service: RunningService) -> None:
    with service.client(service.token("acme", "cleo")) as http:
        saved = ok(http.post(f"{MEMORY}/remember", json={"content": "Cleo prefers morning meetings"}))
        brief = ok(http.get(f"{MEMORY}/context"))
        assert brief["retrieval"] is True and brief["budget_tokens"] == 1500
        assert brief["items"] >= 1
        assert saved["id"] in brief["markdown"] and "Cleo prefers morning meetings" in brief["markdown"]
        assert ok(http.get(f"{MEMORY}/context?budget_tokens=200"))["budget_tokens"] == 200
        for bad in ("10", "99999", "abc", "1e3"):
            body = assert_error(http.get(f"{MEMORY}/context?budget_tokens={bad}"), 400, "invalid_request")
            assert body["error"]["message"].startswith("context: `budget_tokens`")


def test_context_is_empty_when_the_agents_retrieval_is_off(service: RunningService) -> None:
    with service.client(service.token("acme", None)) as admin:
        ok(admin.put("/api/v1/agents/quiet-bot", json={"retrieval": False}), 201)
    with service.client(service.token("acme", "cleo", "quiet-bot")) as http:
        ok(http.post(f"{MEMORY}/remember", json={"content": "Cleo drinks oat milk"}))
        assert ok(http.get(f"{MEMORY}/context")) == {
            "markdown": "",
            "retrieval": False,
            "budget_tokens": 1500,
            "items": 0,
        }


def test_ingest_reaches_every_user_of_the_workspace_only(service: RunningService) -> None:
    doc = {"name": "policies/travel.md", "text": "# Travel\n\nTrain tickets over 200 euros need approval."}
    with service.client(service.token("acme", None)) as key:
        report = ok(key.post(f"{MEMORY}/ingest", json=doc))
        assert report == {
            "stored": ["policies/travel.md"],
            "replaced": [],
            "unchanged": [],
            "failed": [],
            "chunks": 1,
        }
        again = ok(key.post(f"{MEMORY}/ingest", json=doc))
        assert again["unchanged"] == ["policies/travel.md"]
    with service.client(service.token("acme", "ivan")) as http:
        found = ok(http.post(f"{MEMORY}/recall", json={"query": "train tickets approval"}))["memories"]
        assert {m["metadata"]["tier"] for m in found} == {"institutional"}
        chunks = [m for m in found if m["type"] == "chunk"]
        assert len(found) == len(chunks) == 1 and "200 euros" in chunks[0]["content"]  # not the document too
        assert chunks[0]["metadata"]["parent_title"] == "Travel"
    with service.client(service.token("globex", "ivan")) as other:
        assert ok(other.post(f"{MEMORY}/recall", json={"query": "train tickets approval"})) == {
            "memories": []
        }
        assert ok(other.post(f"{MEMORY}/fetch", json={"query": "train tickets"}))["hits"] == []


def test_guidance_carries_the_named_agents_notes(service: RunningService) -> None:
    with service.client(service.token("acme", None)) as key:
        ok(key.put("/api/v1/agents/helpdesk", json={"notes": "Only remember ticket numbers."}), 201)
        plain = ok(key.get(f"{MEMORY}/tool-guidance"))
    assert plain["notes"] == {"workspace": None, "agent": None}
    assert plain["source"] == "default"
    assert [t["name"] for t in plain["tools"]][:2] == ["memory__remember", "memory__recall"]

    with service.client(service.token("acme", "una", "helpdesk")) as http:
        mine = ok(http.get(f"{MEMORY}/tool-guidance"))
    assert mine["notes"]["agent"] == "Only remember ticket numbers."
    assert "Only remember ticket numbers." in mine["tools"][0]["description"]
    with service.client(service.token("acme", "una")) as http:
        assert ok(http.get(f"{MEMORY}/tool-guidance"))["notes"]["agent"] is None
    with service.client(service.token("acme", "una", "unregistered-bot")) as http:
        assert ok(http.get(f"{MEMORY}/tool-guidance"))["notes"]["agent"] is None
    with service.client(service.token("globex", "una", "helpdesk")) as http:  # same name, other workspace
        assert ok(http.get(f"{MEMORY}/tool-guidance"))["notes"]["agent"] is None


# --- the agent registry ------------------------------------------------------------------------


def test_agents_crud_keeps_the_id(service: RunningService) -> None:
    with service.client(service.token("acme", None)) as key:
        created = ok(key.put("/api/v1/agents/scribe", json={"notes": "v1"}), 201)
        assert re.fullmatch(r"agt_[0-9a-f]{16}", created["id"])
        assert (created["notes"], created["tools"], created["retrieval"]) == ("v1", True, True)
        updated = ok(key.put("/api/v1/agents/scribe", json={"notes": "v2", "tools": False}), 200)
        assert updated["id"] == created["id"]
        assert (updated["notes"], updated["tools"]) == ("v2", False)
        assert ok(key.get("/api/v1/agents/scribe")) == updated
        assert "scribe" in [a["name"] for a in ok(key.get("/api/v1/agents"))["agents"]]
        assert ok(key.delete("/api/v1/agents/scribe")) == updated
        assert_error(key.get("/api/v1/agents/scribe"), 404, "not_found")
        assert_error(key.delete("/api/v1/agents/scribe"), 404, "not_found")
        assert "scribe" not in [a["name"] for a in ok(key.get("/api/v1/agents"))["agents"]]
        recreated = ok(key.put("/api/v1/agents/scribe", json={}), 201)
        # The id derives from the workspace and the name (as the agent's tier does), so a recreated
        # agent, or two creations racing each other, get the same one.
        assert recreated["id"] == created["id"]
    with service.client(service.token("globex", None)) as other:
        assert_error(other.get("/api/v1/agents/scribe"), 404, "not_found")


def test_an_agent_with_tools_off_offers_none(service: RunningService) -> None:
    with service.client(service.token("acme", None)) as key:
        ok(key.put("/api/v1/agents/mute-bot", json={"tools": False}), 201)
    with service.client(service.token("acme", "vera", "mute-bot")) as http:
        assert ok(http.get(f"{MEMORY}/tools"))["tools"] == []
        assert_error(http.post(f"{MEMORY}/recall", json={"query": "x"}), 403, "unsupported")


# --- health, metrics, errors, request ids ------------------------------------------------------


def test_health_ready_and_metrics(service: RunningService) -> None:
    with service.client() as http:
        assert ok(http.get("/healthz")) == {"status": "ok"}
        assert ok(http.get("/readyz")) == {"status": "ready"}
        http.get("/healthz")
        metrics = http.get("/metrics")
    assert metrics.status_code == 200
    assert metrics.headers["content-type"].startswith("text/plain")
    text = metrics.text
    assert re.search(
        r'tinymemory_http_requests_total\{method="GET",route="/healthz",status="200"\} [1-9]', text
    )
    if store_reports_its_size():
        assert re.search(r"^tinymemory_store_bytes [1-9][0-9.e+]*$", text, re.MULTILINE)
    else:
        assert "tinymemory_store_bytes" not in text  # no size known: no gauge, never a made-up one


def store_reports_its_size() -> bool:
    """A SQLite file is measured on disk; a Postgres store only when its engine has store_bytes()."""
    if not is_postgres():
        return True
    from tinymemory.engines.postgres import PostgresEngine

    return hasattr(PostgresEngine, "store_bytes")


def test_unknown_route_is_404_with_the_error_body(service: RunningService) -> None:
    with service.client(service.token("acme", "alice")) as http:
        assert_error(http.get("/api/v1/memory/nothing-here"), 404, "not_found")
        assert_error(http.post("/api/v2/memory/recall", json={}), 404, "not_found")


def test_wrong_method_is_405_with_the_error_body(service: RunningService) -> None:
    with service.client(service.token("acme", "alice")) as http:
        for method, path in [
            ("GET", f"{MEMORY}/recall"),
            ("DELETE", f"{MEMORY}/ingest"),
            ("POST", "/healthz"),
        ]:
            body = assert_error(http.request(method, path), 405, "invalid_request")
            assert path in body["error"]["message"]


def test_request_id_is_echoed_kept_or_replaced(service: RunningService) -> None:
    with service.client() as http:
        minted = http.get("/healthz").headers["x-request-id"]
        assert re.fullmatch(r"[0-9a-f]{32}", minted)
        assert http.get("/healthz", headers={"X-Request-ID": "trace-7.a:b_c"}).headers["x-request-id"] == (
            "trace-7.a:b_c"
        )
        for unsafe in ("has space", "x" * 65, "<script>", "a/b", "ü"):
            r = http.get("/healthz", headers={"X-Request-ID": unsafe.encode()})
            assert re.fullmatch(r"[0-9a-f]{32}", r.headers["x-request-id"]), unsafe
        error = http.post(f"{MEMORY}/recall", json={}, headers={"X-Request-ID": "caller-1"})
        assert error.headers["x-request-id"] == "caller-1"
        assert error.json()["request_id"] == "caller-1"
