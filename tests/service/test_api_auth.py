"""Who may call what, over a real socket: every credential the service verifies (HS256, RS256, the token
file), the ones it must refuse (expired, forged, other algorithms, malformed headers, bad claim names),
and the route rules (anonymous 401 everywhere, an API key 403 on memory routes, admin-only writes)."""

from __future__ import annotations

import base64
import contextlib
import hashlib
import hmac
import json
import socket
import time
from collections.abc import Callable
from typing import Any

import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import rsa

from .conftest import RunningService

MEMORY = "/api/v1/memory"
# Every route that runs memory tools for a verified user, with a body that is valid for it.
USER_ROUTES: list[tuple[str, str, dict[str, Any] | None]] = [
    ("POST", f"{MEMORY}/remember", {"content": "auth probe"}),
    ("POST", f"{MEMORY}/recall", {"query": "probe"}),
    ("POST", f"{MEMORY}/open", {"memory_id": "m_0"}),
    ("POST", f"{MEMORY}/list", {}),
    ("POST", f"{MEMORY}/forget", {"memory_id": "m_0"}),
    ("POST", f"{MEMORY}/store", {"learning": {"text": "auth probe"}}),
    ("POST", f"{MEMORY}/fetch", {"query": "probe"}),
    ("POST", f"{MEMORY}/get", {"ids": ["m_0"]}),
    ("POST", f"{MEMORY}/explore", {"facet": "kind"}),
    ("POST", f"{MEMORY}/tools/call", {"tool": "memory__list", "arguments": {}}),
    ("GET", f"{MEMORY}/context", None),
]
# Routes an API key (a workspace, no user) may call.
KEY_ROUTES: list[tuple[str, str, dict[str, Any] | None]] = [
    ("GET", f"{MEMORY}/tool-guidance", None),
    ("GET", f"{MEMORY}/tools", None),
    ("POST", f"{MEMORY}/ingest", {"name": "auth/handbook.md", "text": "# Handbook\n\nBadges open doors."}),
    ("GET", "/api/v1/agents", None),
    ("PUT", "/api/v1/agents/auth-probe", {"notes": "short answers"}),
    ("GET", "/api/v1/agents/auth-probe", None),
    ("DELETE", "/api/v1/agents/auth-probe", None),
]
ADMIN_ROUTES = [r for r in KEY_ROUTES if r[0] in ("PUT", "DELETE") or r[1].endswith("/ingest")]


def call(service: RunningService, token: str | None, method: str, path: str, body: Any = None) -> Any:
    with service.client(token) as http:
        return http.request(method, path, json=body)


def as_header(
    service: RunningService, header: str, method: str = "POST", path: str = f"{MEMORY}/recall"
) -> Any:
    with service.client() as http:
        return http.request(method, path, json={"query": "tea"}, headers={"Authorization": header})


def assert_error(response: Any, status: int, kind: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    body: dict[str, Any] = response.json()
    assert set(body) == {"error", "request_id"}
    assert body["error"]["kind"] == kind
    assert body["request_id"] == response.headers["x-request-id"]
    if status == 401:
        assert response.headers["www-authenticate"] == "Bearer"
    return body


def claims(**extra: Any) -> dict[str, Any]:
    return {"workspace": "acme", "sub": "alice", "exp": int(time.time()) + 600, **extra}


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def hand_signed(header: dict[str, Any], payload: dict[str, Any], key: bytes) -> str:
    """A JWT signed HS256 by hand, with any header (PyJWT refuses to sign with a PEM as the secret)."""
    signing_input = f"{b64(json.dumps(header).encode())}.{b64(json.dumps(payload).encode())}"
    signature = hmac.new(key, signing_input.encode(), hashlib.sha256).digest()
    return f"{signing_input}.{b64(signature)}"


# --- verified users ----------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["hs256", "rs256", "opaque"])
def test_each_credential_kind_proves_its_own_user(service: RunningService, kind: str) -> None:
    user = f"cred-{kind}"
    token = {
        "hs256": lambda: service.token("acme", user),
        "rs256": lambda: service.rs256(claims(sub=user)),
        "opaque": lambda: service.opaque_token("acme", user),
    }[kind]()
    saved = call(service, token, "POST", f"{MEMORY}/remember", {"content": f"{user} keeps bees on the roof"})
    assert saved.status_code == 200, saved.text
    assert saved.json()["tier"] == "user"
    found = call(service, token, "POST", f"{MEMORY}/recall", {"query": "bees roof"}).json()
    assert [m["id"] for m in found["memories"]] == [saved.json()["id"]]
    other = call(
        service, service.token("acme", "someone-else"), "POST", f"{MEMORY}/recall", {"query": "bees"}
    )
    assert other.json()["memories"] == []


def test_a_token_for_another_workspace_is_that_workspace(service: RunningService) -> None:
    acme = service.token("acme", "walt")
    call(service, acme, "POST", f"{MEMORY}/remember", {"content": "Walt parks in bay seven"})
    globex = service.token("globex", "walt")  # same user name, another workspace
    assert call(service, globex, "POST", f"{MEMORY}/recall", {"query": "parks bay"}).json() == {
        "memories": []
    }
    assert call(service, acme, "POST", f"{MEMORY}/recall", {"query": "parks bay"}).json()["memories"]


# --- refused credentials -----------------------------------------------------------------------


def test_expired_token_is_401(service: RunningService, expired_token: Callable[[], str]) -> None:
    body = assert_error(
        call(service, expired_token(), "POST", f"{MEMORY}/recall", {"query": "x"}), 401, "unauthorized"
    )
    assert "expired" in body["error"]["message"]


def test_expired_rs256_token_is_401(service: RunningService) -> None:
    token = service.rs256(claims(exp=int(time.time()) - 60))
    assert_error(call(service, token, "POST", f"{MEMORY}/list", {}), 401, "unauthorized")


@pytest.mark.parametrize("forger", ["hs256-other-secret", "rs256-other-key", "hs256-with-public-key"])
def test_forged_signature_is_401(service: RunningService, forger: str) -> None:
    if forger == "hs256-other-secret":
        token = jwt.encode(claims(), "another-secret-" + "y" * 40, algorithm="HS256")
    elif forger == "rs256-other-key":
        other = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        token = jwt.encode(claims(), other, algorithm="RS256")
    else:  # algorithm confusion: the public key used as an HMAC secret
        assert service.settings.jwt_public_key is not None
        token = hand_signed(
            {"alg": "HS256", "typ": "JWT"}, claims(), service.settings.jwt_public_key.encode()
        )
    body = assert_error(as_header(service, f"Bearer {token}"), 401, "unauthorized")
    assert "signature" in body["error"]["message"]


def test_alg_none_is_401(service: RunningService) -> None:
    token = jwt.encode(claims(), None, algorithm="none")
    body = assert_error(as_header(service, f"Bearer {token}"), 401, "unauthorized")
    assert "'none'" in body["error"]["message"]


def test_unaccepted_algorithm_is_401(service: RunningService) -> None:
    token = jwt.encode(claims(), "k" * 64, algorithm="HS512")
    assert_error(as_header(service, f"Bearer {token}"), 401, "unauthorized")


@pytest.mark.parametrize(
    "header",
    [
        "Basic x",
        "Bearer",
        "bearer",
        "garbage",
        "Bearer a.b.c",
        "Bearer x.y.z.w",
        "Token abc",
        "Bearer tm_unknown",
    ],
)
def test_malformed_or_unknown_header_is_401(service: RunningService, header: str) -> None:
    assert_error(as_header(service, header), 401, "unauthorized")


def test_ten_kilobyte_token_is_401_without_being_verified(service: RunningService) -> None:
    body = assert_error(as_header(service, "Bearer " + "a" * 10_240), 401, "unauthorized")
    assert "longer than" in body["error"]["message"]


@pytest.mark.parametrize(
    "bad",
    [
        {"workspace": "ac me"},
        {"workspace": "../etc"},
        {"workspace": ""},
        {"sub": "alice/bob"},
        {"sub": "x" * 200},
        {"sub": ["alice"]},
        {"agent": "w:x"},
        {"agent": 5},
        {"admin": "yes"},
        {"exp": "soon"},
    ],
)
def test_jwt_with_invalid_claims_is_401(service: RunningService, bad: dict[str, Any]) -> None:
    secret = service.settings.jwt_secret
    assert secret is not None
    token = jwt.encode(claims(**bad), secret, algorithm="HS256")
    assert_error(as_header(service, f"Bearer {token}"), 401, "unauthorized")
    assert_error(as_header(service, f"Bearer {service.rs256(claims(**bad))}"), 401, "unauthorized")


@pytest.mark.parametrize("missing", ["workspace", "exp", "sub"])
def test_jwt_missing_a_required_claim_is_401(service: RunningService, missing: str) -> None:
    payload = claims()
    del payload[missing]
    assert_error(as_header(service, f"Bearer {service.rs256(payload)}"), 401, "unauthorized")


# --- what each caller may reach ----------------------------------------------------------------


@pytest.mark.parametrize(("method", "path", "body"), USER_ROUTES + KEY_ROUTES)
def test_anonymous_is_401_on_every_api_route(
    service: RunningService, method: str, path: str, body: Any
) -> None:
    assert_error(call(service, None, method, path, body), 401, "unauthorized")


@pytest.mark.parametrize(("method", "path", "body"), USER_ROUTES)
def test_api_key_is_403_on_memory_routes(service: RunningService, method: str, path: str, body: Any) -> None:
    for key in (service.token("acme", None), service.opaque_token("acme", None)):
        assert_error(call(service, key, method, path, body), 403, "forbidden")


def test_api_key_reaches_guidance_ingest_and_the_registry(service: RunningService) -> None:
    key = service.token("acme", None)
    statuses = [call(service, key, m, p, b).status_code for m, p, b in KEY_ROUTES]
    assert statuses == [200, 200, 200, 200, 201, 200, 200]
    assert call(service, key, "GET", f"{MEMORY}/tools").json() == {"tools": []}  # offered no tools


def test_opaque_api_key_reaches_ingest(service: RunningService) -> None:
    key = service.opaque_token("acme", None)
    r = call(
        service, key, "POST", f"{MEMORY}/ingest", {"name": "auth/opaque.md", "text": "Opaque keys ingest."}
    )
    assert r.status_code == 200, r.text


@pytest.mark.parametrize(("method", "path", "body"), ADMIN_ROUTES)
def test_non_admin_user_is_403_on_institutional_writes(
    service: RunningService, method: str, path: str, body: Any
) -> None:
    assert_error(call(service, service.token("acme", "alice"), method, path, body), 403, "forbidden")


def test_admin_user_may_ingest_and_change_the_registry(service: RunningService) -> None:
    admin = service.token("acme", "root", admin=True)
    statuses = [call(service, admin, m, p, b).status_code for m, p, b in ADMIN_ROUTES]
    assert statuses == [200, 201, 200]


def test_a_verified_user_reads_guidance_and_the_registry(service: RunningService) -> None:
    user = service.token("acme", "alice")
    assert call(service, user, "GET", f"{MEMORY}/tool-guidance").status_code == 200
    assert call(service, user, "GET", "/api/v1/agents").status_code == 200


def test_health_routes_need_no_token(service: RunningService) -> None:
    for path in ("/healthz", "/readyz", "/metrics"):
        assert call(service, None, "GET", path).status_code == 200


def raw_request(service: RunningService, authorization: bytes) -> bytes:
    """The status line the service answers to an Authorization header no HTTP client would send."""
    host, port = service.url.removeprefix("http://").split(":")
    body = b'{"query": "tea"}'
    head = (
        f"POST {MEMORY}/recall HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n"
    ).encode()
    with socket.create_connection((host, int(port)), timeout=30) as conn:
        conn.sendall(head + b"Authorization: " + authorization + b"\r\n\r\n" + body)
        answer = b""
        with contextlib.suppress(ConnectionResetError):
            while chunk := conn.recv(65536):
                answer += chunk
    return answer.split(b"\r\n", 1)[0]


@pytest.mark.parametrize(
    "authorization",
    [
        b"Bearer tm_abc\x00def",  # a NUL byte
        b"Bearer " + b"a" * 1_000_000,  # a megabyte
        b"Bearer tm_\xe9\xe9\xe9",  # not ASCII (latin-1 on the wire)
        b"Bearer \xe9.\xe9.\xe9",  # not ASCII, shaped like a JWT
        b"Bearer eyJhbGciOiJIUzI1NiJ9.\xff\xfe.x",
    ],
)
def test_hostile_authorization_bytes_are_refused_and_the_service_stays_up(
    service: RunningService, authorization: bytes
) -> None:
    status = raw_request(service, authorization)
    assert status.split(b" ")[1] in (b"400", b"401", b"431"), status
    assert call(service, service.token(), "POST", f"{MEMORY}/recall", {"query": "tea"}).status_code == 200


def test_a_token_the_service_cannot_read_is_explained_plainly(tmp_path: Any) -> None:
    """A service that checks only signed tokens, given something else (a token-file entry, a token cut
    short, an API key of another product): the message says what to do, in plain words."""
    from tinymemory.service.auth import Authenticator
    from tinymemory.service.errors import Unauthorized
    from tinymemory.service.settings import ServiceSettings

    auth = Authenticator(ServiceSettings(db=str(tmp_path / "x.db"), jwt_secret="s" * 40))
    with pytest.raises(Unauthorized) as refused:
        auth.caller("Bearer tm_0123456789abcdef")
    message = refused.value.message
    assert message.startswith("this service does not recognise the token")
    assert "JWT" not in message and "token file" not in message
    assert "tinymemory token issue" in message
