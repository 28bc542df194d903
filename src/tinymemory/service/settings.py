"""ServiceSettings: everything `tinymemory serve` is configured with (the CLI reads flags and TINYMEMORY_*
variables into it).

Secrets (the HS256 secret, the token file) are read from files or the environment, never from flags
that would show in a process list.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from tinymemory.api import InvalidRequest

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765
DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024
DEFAULT_GRACE_SECONDS = 10.0
DEFAULT_GATE_SECONDS = 60.0
DEFAULT_RETENTION_SECONDS = 3600.0

SECRET_ENV = "TINYMEMORY_JWT_SECRET"
SECRET_FILE_ENV = "TINYMEMORY_JWT_SECRET_FILE"


@dataclass(frozen=True, slots=True)
class ServiceSettings:
    """`db` is the store: a SQLite file or a postgresql:// URL (see engines.open_engine; kept out of the
    repr, as a URL may hold a password); `policy` a MemoryPolicy file (every workspace) or a folder of
    `<workspace>.yaml|.yml|.json` files (`_default.*` for the others). At least one way to verify tokens
    (an HS256 secret, an RS256 public key, or a token file) must be set, or every memory route is 401."""

    db: str = field(repr=False)
    policy: Path | None = None
    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT
    jwt_secret: str | None = field(default=None, repr=False)
    jwt_public_key: str | None = field(default=None, repr=False)
    jwt_issuer: str | None = None
    jwt_audience: str | None = None
    token_file: Path | None = None
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    embedder: str | None = "default"
    grace_seconds: float = DEFAULT_GRACE_SECONDS
    gate_seconds: float = DEFAULT_GATE_SECONDS  # how often the shared-write gate runs; 0: never
    retention_seconds: float = DEFAULT_RETENTION_SECONDS  # how often the retention job runs; 0: never

    def __post_init__(self) -> None:
        if not isinstance(self.port, int) or not 0 <= self.port <= 65535:
            raise InvalidRequest(f"serve: `port` must be 0..65535, got {self.port!r}")
        if not isinstance(self.max_body_bytes, int) or self.max_body_bytes < 1024:
            raise InvalidRequest("serve: `max_body_bytes` must be an integer of at least 1024")
        if (
            not isinstance(self.gate_seconds, int | float)
            or not math.isfinite(self.gate_seconds)
            or self.gate_seconds < 0
        ):
            raise InvalidRequest("serve: `gate_seconds` must be a number of seconds, 0 or more")
        if (
            not isinstance(self.retention_seconds, int | float)
            or not math.isfinite(self.retention_seconds)
            or self.retention_seconds < 0
        ):
            raise InvalidRequest("serve: `retention_seconds` must be a number of seconds, 0 or more")
        if self.jwt_secret is not None and len(self.jwt_secret.encode()) < 32:
            raise InvalidRequest("serve: the HS256 secret must be at least 32 bytes")

    @property
    def verifies_tokens(self) -> bool:
        return bool(self.jwt_secret or self.jwt_public_key or self.token_file)


def read_secret_file(path: str, what: str) -> str:
    try:
        return Path(path).expanduser().read_text(encoding="utf-8").strip()
    except OSError as exc:
        raise InvalidRequest(f"serve: cannot read the {what} `{path}`: {exc.strerror or exc}") from exc


def secret_from(env: Mapping[str, str] | None = None, secret_file: str | None = None) -> str | None:
    """The HS256 secret: a file named by flag or $TINYMEMORY_JWT_SECRET_FILE, else $TINYMEMORY_JWT_SECRET."""
    e = os.environ if env is None else env
    path = secret_file or e.get(SECRET_FILE_ENV)
    if path:
        return read_secret_file(path, "HS256 secret file")
    return e.get(SECRET_ENV) or None
