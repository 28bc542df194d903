"""What the service keeps between requests, and what it must never let one request take from another: a
verified JWT is remembered until its `exp` (and refused after it), never across tokens; an opaque token
is checked against the token file on every request (a revocation holds at once); the memory__ tools are
built once per policy, agent notes and registration and rebound to each caller's own tiers."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import jwt
import pytest

from tinymemory.api import InvalidRequest
from tinymemory.engines import open_engine
from tinymemory.policy import Identity, PolicyTools
from tinymemory.service import auth as auth_module
from tinymemory.service.auth import MAX_VERIFIED, Authenticator, CallerKind
from tinymemory.service.errors import Forbidden, Unauthorized
from tinymemory.service.policies import PolicyBook
from tinymemory.service.registry import AgentRegistry
from tinymemory.service.settings import ServiceSettings
from tinymemory.service.state import MAX_BOUND_TOOLS, ServiceState
from tinymemory.service.tokens import issue_jwt, issue_opaque

from .conftest import SECRET, RunningService


def authenticator(tmp_path: Path) -> Authenticator:
    token_file = tmp_path / "tokens.yaml"
    token_file.write_text("tokens: []\n")
    return Authenticator(ServiceSettings(db=str(tmp_path / "x.db"), jwt_secret=SECRET, token_file=token_file))


def bearer(token: str) -> str:
    return f"Bearer {token}"


def test_a_verified_jwt_is_not_verified_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    auth = authenticator(tmp_path)
    decoded: list[str] = []
    real = jwt.decode

    def counting(token: str, *args: Any, **kwargs: Any) -> Any:
        decoded.append(token)
        return real(token, *args, **kwargs)

    monkeypatch.setattr(auth_module.jwt, "decode", counting)
    token = issue_jwt(SECRET, "acme", "alice", "helper")
    first = auth.caller(bearer(token))
    again = auth.caller(bearer(token))
    assert again == first
    assert (again.workspace, again.user, again.agent, again.kind) == (
        "acme",
        "alice",
        "helper",
        CallerKind.USER,
    )
    assert decoded == [token]


def test_each_token_proves_only_its_own_caller(tmp_path: Path) -> None:
    auth = authenticator(tmp_path)
    tokens = {user: issue_jwt(SECRET, "acme", user, "helper") for user in ("alice", "bob", "carol")}
    for _ in range(3):
        for user, token in tokens.items():
            assert auth.caller(bearer(token)).user == user
    api_key = issue_jwt(SECRET, "acme", None)
    assert auth.caller(bearer(api_key)).kind is CallerKind.API_KEY
    assert auth.caller(bearer(api_key)).user is None


def test_a_remembered_jwt_is_refused_once_it_expires(tmp_path: Path) -> None:
    auth = authenticator(tmp_path)
    exp = int(time.time()) + 2
    token = jwt.encode({"workspace": "acme", "sub": "alice", "exp": exp}, SECRET, algorithm="HS256")
    assert auth.caller(bearer(token)).user == "alice"
    while time.time() < exp + 0.05:
        time.sleep(0.05)
    with pytest.raises(Unauthorized) as refused:
        auth.caller(bearer(token))
    assert refused.value.message == "the bearer token has expired"


def test_a_refused_jwt_is_refused_every_time(tmp_path: Path) -> None:
    auth = authenticator(tmp_path)
    forged = issue_jwt("another-secret-" + "y" * 40, "acme", "alice")
    past = datetime.now(UTC) - timedelta(hours=2)
    expired = issue_jwt(SECRET, "acme", "alice", ttl=timedelta(hours=1), now=past)
    for token, message in (
        (forged, "the bearer token's signature does not verify"),
        (expired, "the bearer token has expired"),
    ):
        for _ in range(2):
            with pytest.raises(Unauthorized) as refused:
                auth.caller(bearer(token))
            assert refused.value.message == message
    assert auth.remembered == 0


def test_remembered_jwts_are_bounded(tmp_path: Path) -> None:
    auth = authenticator(tmp_path)
    for i in range(MAX_VERIFIED + 10):
        token = jwt.encode(
            {"workspace": "acme", "sub": f"u{i}", "exp": int(time.time()) + 3600}, SECRET, algorithm="HS256"
        )
        assert auth.caller(bearer(token)).user == f"u{i}"
        assert auth.remembered <= MAX_VERIFIED


def test_a_revoked_opaque_token_is_refused_at_once(tmp_path: Path) -> None:
    auth = authenticator(tmp_path)
    path = tmp_path / "tokens.yaml"
    token = issue_opaque(path, "acme", "alice")
    assert auth.caller(bearer(token)).user == "alice"
    assert auth.caller(bearer(token)).user == "alice"
    path.write_text("tokens: []\n")  # the revocation: the token's entry is gone
    with pytest.raises(Unauthorized) as refused:
        auth.caller(bearer(token))
    assert refused.value.message == "the bearer token is not known to this service"


async def test_tools_are_rebound_to_each_callers_own_tiers(tmp_path: Path) -> None:
    settings = ServiceSettings(db=str(tmp_path / "s.db"), jwt_secret=SECRET, embedder=None)
    auth = Authenticator(settings)
    async with open_engine(settings.db, embedder=None) as engine:
        state = ServiceState(settings, engine, auth, PolicyBook.load(None), AgentRegistry(engine))
        alice = auth.caller(bearer(issue_jwt(SECRET, "acme", "alice", "helper")))
        bob = auth.caller(bearer(issue_jwt(SECRET, "acme", "bob", "helper")))
        other = auth.caller(bearer(issue_jwt(SECRET, "globex", "alice", "helper")))
        saved = await (await state.policy_tools(alice)).call(
            "memory__remember", {"content": "alice keeps her keys in the blue drawer", "type": "fact"}
        )
        assert saved["status"] == "created"
        for caller in (alice, bob, other, alice):
            tools = await state.policy_tools(caller)
            assert tools.identity == caller.identity()
            found = await tools.call("memory__recall", {"query": "keys blue drawer"})
            ids = [m["id"] for m in found["memories"]]
            assert ids == ([saved["id"]] if caller is alice else [])
        gateway = await state.policy_tools(alice, gateway=True)
        assert gateway.identity == alice.identity(agent=False)
        mine, theirs = await state.policy_tools(alice), await state.policy_tools(bob)
        assert mine.specs() == theirs.specs()


def test_a_caller_makes_its_identity_once(tmp_path: Path) -> None:
    auth = authenticator(tmp_path)
    token = issue_jwt(SECRET, "acme", "alice", "helper")
    alice = auth.caller(bearer(token))
    made = alice.identity()
    assert alice.identity() is made and alice.need_user("memory") is made
    assert made == Identity("acme", "alice", "helper", verified=True)
    gateway = alice.identity(agent=False)
    assert gateway.agent is None and alice.identity() is made
    fresh = authenticator(tmp_path).caller(bearer(token))  # nothing made yet: still the same caller
    assert fresh == alice and hash(fresh) == hash(alice)
    assert "_identity" not in repr(alice)
    key = auth.caller(bearer(issue_jwt(SECRET, "acme", None)))
    with pytest.raises(Forbidden):
        key.need_user("memory")


async def test_a_callers_rebound_tools_are_kept_for_that_caller_alone(tmp_path: Path) -> None:
    settings = ServiceSettings(db=str(tmp_path / "k.db"), jwt_secret=SECRET, embedder=None)
    auth = Authenticator(settings)
    async with open_engine(settings.db, embedder=None) as engine:
        state = ServiceState(settings, engine, auth, PolicyBook.load(None), AgentRegistry(engine))
        alice = auth.caller(bearer(issue_jwt(SECRET, "acme", "alice", "helper")))
        bob = auth.caller(bearer(issue_jwt(SECRET, "acme", "bob", "helper")))
        mine = await state.policy_tools(alice)
        assert await state.policy_tools(alice) is mine
        theirs = await state.policy_tools(bob)
        assert theirs is not mine and theirs.identity == bob.identity()
        gateway = await state.policy_tools(alice, gateway=True)
        assert gateway is not mine and gateway.identity == alice.identity(agent=False)
        assert await state.policy_tools(alice) is mine
        for i in range(MAX_BOUND_TOOLS + 5):
            other = auth.caller(bearer(issue_jwt(SECRET, "acme", f"u{i}", "helper")))
            assert (await state.policy_tools(other)).identity.user == f"u{i}"
        assert len(state._bound) <= MAX_BOUND_TOOLS
        assert (await state.policy_tools(alice)).identity == alice.identity()


async def test_rebound_refuses_an_identity_offered_other_tools(tmp_path: Path) -> None:
    async with open_engine(str(tmp_path / "r.db"), embedder=None) as engine:
        tools = PolicyTools.for_identity(engine, Identity("acme", "alice", "helper", verified=True))
        bob = Identity("acme", "bob", verified=True)
        other = tools.rebound(bob)
        assert other.identity == bob and other.ambient_reach() == bob.tiers.read_reach
        assert tools.identity.user == "alice" and other.names() == tools.names()
        with pytest.raises(InvalidRequest):
            tools.rebound(Identity("acme", "bob"))


def test_a_callers_tools_follow_their_agents_registration_as_it_changes(service: RunningService) -> None:
    """The same token, before and after its agent's notes and switches change: the tools it is offered
    and what it may call follow the registry at once, whatever was built for it before."""
    memory = "/api/v1/memory"
    with (
        service.client(service.token("acme", None)) as key,
        service.client(service.token("acme", "tess", "concierge")) as http,
    ):
        assert key.put("/api/v1/agents/concierge", json={"notes": "Say hello first."}).status_code == 201
        tools = http.get(f"{memory}/tools").json()["tools"]
        assert "Say hello first." in tools[0]["description"]
        assert http.post(f"{memory}/recall", json={"query": "hello"}).status_code == 200
        assert key.put("/api/v1/agents/concierge", json={"notes": "Say goodbye last."}).status_code == 200
        tools = http.get(f"{memory}/tools").json()["tools"]
        assert "Say goodbye last." in tools[0]["description"]
        assert "Say hello first." not in tools[0]["description"]
        assert key.put("/api/v1/agents/concierge", json={"tools": False}).status_code == 200
        assert http.get(f"{memory}/tools").json()["tools"] == []
        refused = http.post(f"{memory}/recall", json={"query": "hello"})
        assert refused.status_code == 403 and refused.json()["error"]["kind"] == "unsupported"


async def test_what_start_up_built_is_left_out_of_later_collections(tmp_path: Path) -> None:
    import gc

    from tinymemory.service.app import YOUNG_COLLECTION_THRESHOLD, create_app

    gc.unfreeze()
    before = gc.get_threshold()
    gc.set_threshold(700, *before[1:])
    app = create_app(ServiceSettings(db=str(tmp_path / "m.db"), jwt_secret=SECRET, gate_seconds=0))
    try:
        async with app.router.lifespan_context(app):
            assert gc.get_freeze_count() > 0
            assert gc.is_tracked(app) and app.state.service.ready
            assert gc.get_threshold() == (YOUNG_COLLECTION_THRESHOLD, *before[1:])
    finally:
        gc.unfreeze()
        gc.set_threshold(*before)


def test_minted_request_ids_are_random_and_never_repeat() -> None:
    import re

    from tinymemory.service.edge import RequestIds

    ids = RequestIds()
    minted = [ids.mint() for _ in range(1000)]  # past one draw of random bytes
    assert len(set(minted)) == 1000 and all(re.fullmatch(r"[0-9a-f]{32}", m) for m in minted)
    assert len(set(RequestIds().mint() for _ in range(4))) == 4  # a new pool draws afresh
