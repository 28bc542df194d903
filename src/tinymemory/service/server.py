"""Running the service: bind, announce where it listens, serve until a signal, then drain.

uvicorn stops accepting on SIGINT/SIGTERM, lets in-flight requests (writes among them) finish within
the grace period, then the app's lifespan closes the engine, so an acknowledged write is on disk.

With `workers` above 1 this process is a supervisor (uvicorn's own, `uvicorn.supervisors.Multiprocess`):
it binds the socket once, starts that many worker processes that accept on it, each with its own engine
over the one store, replaces a worker that dies, and on SIGINT/SIGTERM passes SIGTERM to every worker
and waits for each to drain. The workers share a `Fleet` (service/fleet.py): the gate runs in one of
them, and a registry change or an inspector form made through one counts in all.
"""

from __future__ import annotations

import hashlib
import os
import signal
import socket
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import timedelta
from pathlib import Path
from types import FrameType
from typing import Any, TextIO

import uvicorn
from fastapi import FastAPI
from threadpoolctl import threadpool_limits  # type: ignore[import-untyped]
from uvicorn.config import STARTUP_FAILURE
from uvicorn.supervisors import Multiprocess

from tinymemory.engines import is_postgres_url, redact
from tinymemory.engines.paths import default_db_path
from tinymemory.service.app import create_app
from tinymemory.service.auth import Authenticator
from tinymemory.service.edge import Receive, Scope, Send
from tinymemory.service.fleet import Fleet
from tinymemory.service.policies import PolicyBook
from tinymemory.service.settings import ServiceSettings
from tinymemory.service.tokens import issue_jwt

DEV_WORKSPACE = "demo"
DEV_USER = "dev"
DEV_TTL = timedelta(days=7)
SECRET_SUFFIX = ".service-secret"
WORKER_HEALTHCHECK_S = 30


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


def announce(
    out: TextIO, url: str, settings: ServiceSettings, dev: DevCredentials | None, workers: int = 1
) -> None:
    lines = [
        f"tinymemory serve: listening on {url} (store: {redact(settings.db)})",
        f"  inspector  {url}/",
        f"  MCP        {url}/mcp",
        f"  OpenAPI    {url}/docs",
    ]
    if workers > 1:
        lines.append(f"  workers    {workers} processes (supervisor {os.getpid()})")
    if dev is not None:
        lines.append(f"  dev token  {dev.token}")
        lines.append(
            f"             (workspace {DEV_WORKSPACE}, user {DEV_USER}, admin; "
            f"expires in {DEV_TTL.days} days)"
        )
    out.write("\n".join(lines) + "\n")
    out.flush()


def one_blas_thread() -> Any:
    """Many requests at once, on few cores: one BLAS thread each. OpenBLAS's default of a thread per
    core made every vector scan wait on the others' spinning threads (docs/benchmarks.md, service)."""
    return threadpool_limits(limits=1, user_api="blas")


class WorkerApp:
    """The ASGI app of one worker, built inside the worker on its first call (the lifespan's start-up):
    the supervisor hands each new worker this (settings and fleet, pickled), never an open engine."""

    def __init__(self, settings: ServiceSettings, fleet: Fleet) -> None:
        self.settings, self.fleet = settings, fleet
        self._app: FastAPI | None = None
        self._blas: Any = None

    def __getstate__(self) -> tuple[ServiceSettings, Fleet]:
        return self.settings, self.fleet

    def __setstate__(self, state: tuple[ServiceSettings, Fleet]) -> None:
        self.__init__(*state)  # type: ignore[misc]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self._app is None:
            self._blas = one_blas_thread()
            self._app = create_app(self.settings, fleet=self.fleet)
        await self._app(scope, receive, send)


@contextmanager
def quiet_exit() -> Iterator[None]:
    """SIGINT or SIGTERM before the server starts, or re-raised by uvicorn after it drained, ends the
    process with status 0 (uvicorn re-raises the signal it caught, which would otherwise kill the
    process after a clean shutdown)."""

    def leave(signum: int, frame: FrameType | None) -> None:
        raise SystemExit(0)

    previous = {sig: signal.signal(sig, leave) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def serve(settings: ServiceSettings, *, dev: bool = False, workers: int = 1, out: TextIO = sys.stdout) -> int:
    """Serve until SIGINT/SIGTERM; the exit status (0 after a clean shutdown)."""
    creds = dev_credentials(settings) if dev else None
    if creds is not None and settings.jwt_secret is None:
        settings = replace(settings, jwt_secret=creds.secret)  # every worker verifies the one dev token
    if workers > 1:
        return supervise(settings, workers, creds, out)
    with quiet_exit():
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
        with one_blas_thread():
            server.run(sockets=[sock])  # uvicorn's loop: uvloop when installed, as in each worker
    return 0


def supervise(settings: ServiceSettings, workers: int, creds: DevCredentials | None, out: TextIO) -> int:
    """`workers` processes on one socket until SIGINT/SIGTERM; STARTUP_FAILURE (3) when a worker could
    not start (the same cause would stop every replacement)."""
    # What one process checks before it listens, checked here too, so a bad policy or token file stops
    # the service with the same one-line error rather than in each worker.
    PolicyBook.load(settings.policy)
    Authenticator(settings)
    fleet = Fleet.create()
    try:
        config = uvicorn.Config(
            WorkerApp(settings, fleet),
            workers=workers,
            # The supervisor pings each worker and replaces one that does not answer in time. A worker
            # answers once it has imported the web stack, which took over uvicorn's 5 s default on two
            # busy cores, and a worker killed for that was replaced in a loop.
            timeout_worker_healthcheck=WORKER_HEALTHCHECK_S,
            interface="asgi3",
            log_level="warning",
            timeout_graceful_shutdown=int(settings.grace_seconds),
            lifespan="on",
        )
        sock = bind(settings.host, settings.port)
        supervisor = Multiprocess(config, sockets=[sock])
        announce(out, base_url(sock, settings.host), settings, creds, workers=workers)
        supervisor.run()
    finally:
        fleet.remove()
    failed = any(p.exitcode == STARTUP_FAILURE for p in supervisor.processes)
    return STARTUP_FAILURE if failed else 0
