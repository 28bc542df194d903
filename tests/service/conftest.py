"""A real service for the service tests: uvicorn on 127.0.0.1 (a free port) in a thread of its own, over
a real SQLite file (a fresh Postgres database with TINYMEMORY_TEST_ENGINE=postgres: tests/engines.py),
verifying HS256 and RS256 JWTs and a token file."""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import jwt
import pytest
import uvicorn
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from engines import store_target
from tinymemory.service.app import create_app
from tinymemory.service.settings import ServiceSettings
from tinymemory.service.tokens import issue_jwt, issue_opaque

SECRET = "test-secret-" + "x" * 40


@dataclass
class RunningService:
    url: str
    settings: ServiceSettings
    private_key: Any
    server: uvicorn.Server
    thread: threading.Thread
    app: Any = None
    opaque: dict[str, str] = field(default_factory=dict)

    def token(
        self,
        workspace: str = "acme",
        user: str | None = "alice",
        agent: str | None = None,
        *,
        admin: bool = False,
        ttl: timedelta = timedelta(hours=1),
    ) -> str:
        """An HS256 token signed with the service's secret (user=None: an API key)."""
        return issue_jwt(SECRET, workspace, user, agent, admin=admin, ttl=ttl)

    def rs256(self, claims: dict[str, Any]) -> str:
        return jwt.encode(claims, self.private_key, algorithm="RS256")

    def opaque_token(self, workspace: str, user: str | None, agent: str | None = None) -> str:
        assert self.settings.token_file is not None
        return issue_opaque(self.settings.token_file, workspace, user, agent)

    def client(self, token: str | None = None, **kw: Any) -> httpx.Client:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        return httpx.Client(base_url=self.url, headers=headers, timeout=30, **kw)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=30)


def free_socket() -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)  # TCP_NODELAY (see bind)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(512)
    return sock


def start_service(
    tmp: Path, *, policy: Path | None = None, embedder: str | None = None, **settings: Any
) -> RunningService:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    public_pem = (
        key.public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        .decode()
    )
    token_file = tmp / "tokens.yaml"
    if not token_file.exists() and not token_file.is_symlink():
        token_file.write_text("tokens: []\n")  # the service refuses to start without its file
    service_settings = ServiceSettings(
        db=store_target(tmp / "service.db"),
        policy=policy,
        jwt_secret=SECRET,
        jwt_public_key=public_pem,
        token_file=token_file,
        embedder=embedder,
        max_body_bytes=256 * 1024,
        **settings,
    )
    app = create_app(service_settings)
    sock = free_socket()
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=lambda: asyncio.run(server.serve(sockets=[sock])), daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the service did not start")
        time.sleep(0.02)
    port = sock.getsockname()[1]
    return RunningService(f"http://127.0.0.1:{port}", service_settings, key, server, thread, app)


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningService]:
    """One service per test module (lexical only, so it starts fast)."""
    running = start_service(tmp_path_factory.mktemp("service"))
    yield running
    running.stop()


@pytest.fixture
def expired_token() -> Callable[[], str]:
    def make() -> str:
        past = datetime.now(UTC) - timedelta(hours=2)
        return issue_jwt(SECRET, "acme", "alice", ttl=timedelta(hours=1), now=past)

    return make
