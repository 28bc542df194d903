"""Tenant isolation through every route, over a real socket: a user never sees, opens, counts, forgets or
overwrites another user's memory (same workspace or another one), an unknown id and another tenant's id
answer alike, a user cannot forget what the workspace ingested, and another tenant's writes never move
a user's scores or order."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import pytest

from .conftest import RunningService

MEMORY = "/api/v1/memory"
SECRET = "quokkaberry"  # a word only alice's memories hold
UNKNOWN_ID = "m_000000000000000000000000"


@dataclass
class World:
    service: RunningService
    alice_ids: list[str]
    chunk_id: str

    def post(self, token: str, path: str, body: Any = None) -> Any:
        with self.service.client(token) as http:
            r = http.post(f"{MEMORY}{path}", json=body)
        assert r.status_code == 200, r.text
        return r.json()

    def get(self, token: str, path: str) -> Any:
        with self.service.client(token) as http:
            r = http.get(f"{MEMORY}{path}")
        assert r.status_code == 200, r.text
        return r.json()


@pytest.fixture(scope="module")
def world(service: RunningService) -> World:
    alice = service.token("acme", "alice")
    w = World(service, [], "")
    about = {"about_kind": "pet", "about_key": "alice-pet"}
    w.alice_ids.append(
        w.post(alice, "/remember", {"content": f"Alice's {SECRET} pie recipe uses rhubarb"})["id"]
    )
    w.alice_ids.append(
        w.post(alice, "/remember", {"content": f"Alice's cat is called {SECRET}", **about})["id"]
    )
    stored = w.post(
        alice, "/store", {"learning": {"text": f"Alice grows {SECRET} in the garden"}, "tags": [SECRET]}
    )
    w.alice_ids.append(stored["id"])
    doc = {"document": {"title": f"{SECRET} notes", "text": f"The {SECRET} harvest is in June."}}
    w.alice_ids.append(w.post(alice, "/store", doc)["id"])
    with service.client(service.token("acme", None)) as key:
        r = key.post(
            f"{MEMORY}/ingest", json={"name": "wiki/canteen.md", "text": "# Canteen\n\nSoup on Fridays."}
        )
        assert r.status_code == 200, r.text
    found = w.post(alice, "/recall", {"query": "soup fridays"})["memories"]
    w.chunk_id = next(m["id"] for m in found if m["type"] == "chunk")
    return w


def readers(service: RunningService) -> dict[str, str]:
    """Bob in alice's workspace, and an `alice` of another workspace."""
    return {"bob@acme": service.token("acme", "bob"), "alice@globex": service.token("globex", "alice")}


def every_read(w: World, token: str) -> dict[str, Any]:
    """What `token` gets back from every read route and tool, asked about alice's memories."""
    ids = w.alice_ids
    calls: list[tuple[str, dict[str, Any]]] = [
        ("memory__recall", {"query": f"{SECRET} pie cat garden harvest"}),
        ("memory__list", {}),
        ("memory__list", {"scope": "user"}),
        ("memory__open", {"memory_id": ids[0]}),
        ("memory_recall", {"question": f"what about {SECRET}?"}),
        ("memory_fetch", {"query": SECRET}),
        ("memory_fetch", {"query": SECRET, "filter": {"workspace": "acme", "tags_any": [SECRET]}}),
        ("memory_list", {}),
        ("memory_get", {"ids": ids}),
        ("memory_explore", {"facet": "tag"}),
    ]
    out: dict[str, Any] = {
        "recall": w.post(token, "/recall", {"query": f"{SECRET} pie cat garden harvest"}),
        "list": w.post(token, "/list", {}),
        "fetch": w.post(token, "/fetch", {"query": SECRET}),
        "get": w.post(token, "/get", {"ids": ids}),
        "explore": w.post(token, "/explore", {"facet": "kind"}),
        "context": w.get(token, "/context"),
    }
    for i, id_ in enumerate(ids):
        out[f"open-{i}"] = w.post(token, "/open", {"memory_id": id_})
    for i, (tool, arguments) in enumerate(calls):
        out[f"call-{i}-{tool}"] = w.post(token, "/tools/call", {"tool": tool, "arguments": arguments})
    return out


@pytest.mark.parametrize("who", ["bob@acme", "alice@globex"])
def test_no_read_route_returns_another_tenants_memory(world: World, who: str) -> None:
    token = readers(world.service)[who]
    answers = every_read(world, token)
    for route, answer in answers.items():
        text = json.dumps(answer)
        assert SECRET not in text, route
        for id_ in world.alice_ids:
            # an id may only come back as the caller's own argument: in open's not_found or get's missing
            if route.startswith("open") or route.startswith("call-3"):
                assert answer.get("status", json.loads(answer.get("text", "{}")).get("status")) == "not_found"
            elif route in ("get",) or route.endswith("memory_get"):
                continue
            else:
                assert id_ not in text, route
    assert answers["get"]["items"] == [] and answers["get"]["missing"] == world.alice_ids
    assert SECRET not in answers["context"]["markdown"]


def test_alices_own_reads_do_see_them(world: World) -> None:
    """The control: the same reads with alice's token find her memories (so the test above can fail)."""
    answers = every_read(world, world.service.token("acme", "alice"))
    assert SECRET in json.dumps(answers["recall"]) and SECRET in answers["context"]["markdown"]
    assert [i["id"] for i in answers["get"]["items"]] == world.alice_ids


@pytest.mark.parametrize("who", ["bob@acme", "alice@globex"])
def test_open_of_another_tenants_id_is_exactly_not_found(world: World, who: str) -> None:
    token = readers(world.service)[who]
    unknown = world.post(token, "/open", {"memory_id": UNKNOWN_ID})
    for id_ in world.alice_ids:
        theirs = world.post(token, "/open", {"memory_id": id_})
        assert theirs == {**unknown, "id": id_}
        assert theirs["status"] == "not_found"
        via_tool = world.post(token, "/tools/call", {"tool": "memory__open", "arguments": {"memory_id": id_}})
        unknown_tool = world.post(
            token, "/tools/call", {"tool": "memory__open", "arguments": {"memory_id": UNKNOWN_ID}}
        )
        assert via_tool["value"] == {**unknown_tool["value"], "id": id_}
        assert world.post(token, "/get", {"ids": [id_]}) == {"items": [], "missing": [id_]}
        assert world.post(token, "/forget", {"memory_id": id_}) == {
            **world.post(token, "/forget", {"memory_id": UNKNOWN_ID}),
            "id": id_,
        }


@pytest.mark.parametrize("who", ["bob@acme", "alice@globex"])
def test_forget_and_store_cannot_touch_another_tenants_memory(world: World, who: str) -> None:
    token = readers(world.service)[who]
    for id_ in world.alice_ids:
        assert world.post(token, "/forget", {"memory_id": id_})["status"] == "not_found"
    forgot = world.post(
        token, "/tools/call", {"tool": "memory_forget", "arguments": {"ids": world.alice_ids}}
    )
    assert forgot["value"]["forgotten"] == 0
    everything = world.post(
        token,
        "/tools/call",
        {"tool": "memory_forget", "arguments": {"filter": {"kinds": ["learning", "document"]}}},
    )
    assert everything["is_error"] is False, everything["text"]
    # the same content and the same about key, written by the other tenant, are theirs alone
    same = world.post(
        token, "/store", {"learning": {"text": f"Alice grows {SECRET} in the garden"}, "tags": [SECRET]}
    )
    assert same["replayed"] is False and same["id"] not in world.alice_ids
    about = {"about_kind": "pet", "about_key": "alice-pet"}
    mine = world.post(token, "/remember", {"content": "A different cat", **about})
    assert mine["status"] == "created" and "supersedes" not in mine
    world.post(token, "/forget", {"memory_id": mine["id"]})
    world.post(token, "/tools/call", {"tool": "memory_forget", "arguments": {"ids": [same["id"]]}})

    alice = world.service.token("acme", "alice")
    got = world.post(alice, "/get", {"ids": world.alice_ids})
    assert [i["id"] for i in got["items"]] == world.alice_ids
    cat = world.post(alice, "/recall", {"query": f"cat {SECRET}"})["memories"]
    assert any(m["content"] == f"Alice's cat is called {SECRET}" for m in cat)


def test_a_user_cannot_forget_what_the_workspace_ingested(world: World) -> None:
    alice = world.service.token("acme", "alice")
    chunk = world.chunk_id
    assert world.post(alice, "/open", {"memory_id": chunk})["status"] == "opened"  # she reads it
    policy = world.post(alice, "/forget", {"memory_id": chunk})
    assert policy["status"] == "not_allowed"
    core = world.post(alice, "/tools/call", {"tool": "memory_forget", "arguments": {"ids": [chunk]}})
    assert core["is_error"] is False and core["value"]["forgotten"] == 0
    assert chunk in core["value"]["skipped"]
    swept = world.post(
        alice, "/tools/call", {"tool": "memory_forget", "arguments": {"filter": {"kinds": ["chunk"]}}}
    )
    assert swept["value"]["forgotten"] == 0
    for who in ("alice", "bob"):
        token = world.service.token("acme", who)
        assert world.post(token, "/open", {"memory_id": chunk})["status"] == "opened"


def test_another_tenants_writes_never_move_a_users_scores_or_order(service: RunningService) -> None:
    """The first privacy rule through HTTP: pia's ranked reads are identical before and after quinn (her
    workspace) and rex (another workspace) store 200 and 50 memories full of pia's query words."""
    pia = service.token("privacy", "pia")
    with service.client(pia) as http:
        topics = ["budget review", "team lunch", "server upgrade", "holiday plan", "desk move", "printer jam"]
        for i in range(12):
            http.post(f"{MEMORY}/remember", json={"content": f"Note {i} about the {topics[i % 6]}"})
        for text in ("The lighthouse keeper retires in May", "Ask the lighthouse keeper about the lamp"):
            http.post(f"{MEMORY}/remember", json={"content": text})
        http.post(f"{MEMORY}/store", json={"learning": {"text": "Lighthouse tours need a keeper present"}})

    def ranked() -> list[Any]:
        with service.client(pia) as http:
            return [
                http.post(f"{MEMORY}/recall", json={"query": "lighthouse keeper"}).json(),
                http.post(f"{MEMORY}/fetch", json={"query": "lighthouse keeper", "mode": "lexical"}).json(),
                http.post(
                    f"{MEMORY}/tools/call",
                    json={
                        "tool": "memory_recall",
                        "arguments": {"question": "who is the lighthouse keeper?"},
                    },
                ).json(),
            ]

    before = ranked()
    assert len(before[0]["memories"]) == 3
    assert any(m["metadata"]["score"] > 0 for m in before[0]["memories"])  # a comparison that means something
    for token, count in ((service.token("privacy", "quinn"), 200), (service.token("elsewhere", "rex"), 50)):
        with service.client(token) as http:
            for i in range(count):
                text = f"lighthouse keeper keeper lighthouse log {i}: the lighthouse keeper lit the lamp"
                assert http.post(f"{MEMORY}/remember", json={"content": text}).status_code == 200
    after = ranked()
    assert after == before


def test_counts_never_include_another_tenants_items(world: World) -> None:
    """explore's counts are reads too: a new user of the workspace counts only what the workspace shares."""
    zed = world.service.token("acme", "zed")
    shared = {"document": 1, "chunk": 1}  # the ingested page
    for facet, expected in (("kind", shared), ("tag", {})):
        got = world.post(zed, "/explore", {"facet": facet})
        assert {b["value"]: b["count"] for b in got["buckets"]} == expected
    assert world.post(zed, "/explore", {"facet": "kind"})["total"] == 2
    alice = world.service.token("acme", "alice")
    alices = world.post(alice, "/explore", {"facet": "kind"})
    assert alices["total"] == 2 + len(world.alice_ids)  # the control: her own count does include them
