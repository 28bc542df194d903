"""Issuing credentials: a signed JWT (HS256 with the service's secret) or an opaque token in a token file.

`tinymemory token issue` calls these; tests and the development mode of `tinymemory serve` too.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

import jwt

from tinymemory.api import InvalidRequest
from tinymemory.policy import Identity
from tinymemory.service.auth import ADMIN_CLAIM, AGENT_CLAIM, KIND_CLAIM, USER_CLAIM, WORKSPACE_CLAIM
from tinymemory.service.token_file import TokenEntry, append_entry, new_token, token_sha256

DEFAULT_TTL = timedelta(days=30)


def issue_jwt(
    secret: str,
    workspace: str,
    user: str | None,
    agent: str | None = None,
    *,
    admin: bool = False,
    ttl: timedelta = DEFAULT_TTL,
    issuer: str | None = None,
    audience: str | None = None,
    now: datetime | None = None,
) -> str:
    """An HS256 token; `user=None` issues an API key for the workspace."""
    Identity(workspace, user, agent)  # the names follow the namespace grammar
    if ttl <= timedelta(0):
        raise InvalidRequest("token issue: `ttl` must be positive")
    issued = now or datetime.now(UTC)
    claims: dict[str, object] = {
        WORKSPACE_CLAIM: workspace,
        "iat": int(issued.timestamp()),
        "exp": int((issued + ttl).timestamp()),
        "jti": uuid.uuid4().hex,
    }
    if user is None:
        claims[KIND_CLAIM] = "api_key"
    else:
        claims[USER_CLAIM] = user
    if agent is not None:
        claims[AGENT_CLAIM] = agent
    if admin:
        claims[ADMIN_CLAIM] = True
    if issuer is not None:
        claims["iss"] = issuer
    if audience is not None:
        claims["aud"] = audience
    return jwt.encode(claims, secret, algorithm="HS256")


def issue_opaque(
    path: Path,
    workspace: str,
    user: str | None,
    agent: str | None = None,
    *,
    admin: bool = False,
    ttl: timedelta | None = None,
    label: str | None = None,
) -> str:
    """A random token whose SHA-256 is appended to the token file at `path`; the token itself is
    returned once and stored nowhere."""
    Identity(workspace, user, agent)
    token = new_token()
    expires = datetime.now(UTC) + ttl if ttl is not None else None
    append_entry(path, TokenEntry(token_sha256(token), workspace, user, agent, admin, expires, label))
    return token
