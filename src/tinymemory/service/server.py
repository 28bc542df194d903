"""Running the service: bind, announce where it listens, serve until a signal, then drain.

uvicorn stops accepting on SIGINT/SIGTERM, lets in-flight requests (writes among them) finish within
the grace period, then the app's lifespan closes the engine, so an acknowledged write is on disk.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import socket
import sys
from dataclasses import dataclass, replace
from datetime import timedelta
from pathlib import Path
from typing import TextIO

import uvicorn
from threadpoolctl import threadpool_limits  # type: ignore[import-untyped]

from tinymemory.engines import is_postgres_url, redact
from tinymemory.engines.paths import default_db_path
from tinymemory.service.app import create_app
from tinymemory.service.settings import ServiceSettings
from tinymemory.service.tokens import issue_jwt

DEV_WORKSPACE = "demo"
DEV_USER = "dev"
DEV_TTL = timedelta(days=7)
SECRET_SUFFIX = ".service-secret"


@dataclass(frozen=True, slots=True)
class DevCredentials:
    secret: str
    token: str


def dev_secret_path(db: str) -> Path:
    """Beside a SQLite file; for a postgresql:// store, in tinymemory's home folder, named after a hash
    of the URL without its password (so changing the password keeps the secret, and the name reveals
    nothing)."""
    if not is_postgres_url(db):
        return Path(db + SECRET_SUFFIX)
    digest = hashlib.sha256(redact(db).encode("utf-8")).hexdigest()[:16]
    return default_db_path().parent / f"postgres-{digest}{SECRET_SUFFIX}"


def dev_secret(db: str) -> str:
    """A per-store HS256 secret kept beside the store (owner-only), so dev tokens survive restarts."""
    path = dev_secret_path(db)
    if path.exists():
        return path.read_text(encoding="utf-8").strip()
    secret = os.urandom(32).hex()
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:  # another `serve --dev` on this store made it first: use theirs
        return path.read_text(encoding="utf-8").strip()
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(secret + "\n")
    return secret


def dev_credentials(settings: ServiceSettings) -> DevCredentials:
    secret = settings.jwt_secret or dev_secret(settings.db)
    token = issue_jwt(
        secret,
        DEV_WORKSPACE,
        DEV_USER,
        admin=True,
        ttl=DEV_TTL,
        issuer=settings.jwt_issuer,
        audience=settings.jwt_audience,
    )
    return DevCredentials(secret, token)


def bind(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # IPPROTO_TCP named explicitly: asyncio sets TCP_NODELAY on accepted connections only for sockets
    # whose protocol says TCP, and without it every keep-alive request waits on Nagle's algorithm.
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(2048)
    sock.set_inheritable(True)
    return sock


def base_url(sock: socket.socket, host: str) -> str:
    port = sock.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}"


def announce(out: TextIO, url: str, settings: ServiceSettings, dev: DevCredentials | None) -> None:
    lines = [
        f"tinymemory serve: listening on {url} (store: {redact(settings.db)})",
        f"  inspector  {url}/",
        f"  MCP        {url}/mcp",
        f"  OpenAPI    {url}/docs",
    ]
    if dev is not None:
        lines.append(f"  dev token  {dev.token}")
        lines.append(
            f"             (workspace {DEV_WORKSPACE}, user {DEV_USER}, admin; "
            f"expires in {DEV_TTL.days} days)"
        )
    out.write("\n".join(lines) + "\n")
    out.flush()


def serve(settings: ServiceSettings, *, dev: bool = False, out: TextIO = sys.stdout) -> None:
    creds = dev_credentials(settings) if dev else None
    if creds is not None and settings.jwt_secret is None:
        settings = replace(settings, jwt_secret=creds.secret)
    app = create_app(settings)
    sock = bind(settings.host, settings.port)
    config = uvicorn.Config(
        app,
        log_level="warning",
        timeout_graceful_shutdown=int(settings.grace_seconds),
        lifespan="on",
    )
    server = uvicorn.Server(config)
    announce(out, base_url(sock, settings.host), settings, creds)
    # Many requests at once, on few cores: one BLAS thread each. OpenBLAS's default of a thread per
    # core made every vector scan wait on the others' spinning threads (docs/benchmarks.md, service).
    with threadpool_limits(limits=1, user_api="blas"):
        asyncio.run(server.serve(sockets=[sock]))
