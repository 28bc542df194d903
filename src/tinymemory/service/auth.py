"""Who is calling: bearer tokens verified by the service, turned into a `Caller`.

Three kinds of credential, in the Authorization header as `Bearer <token>`:

- a JWT signed HS256 (a shared secret) or RS256 (the service holds the public key), with the claims
  `workspace`, `sub` (the user), optional `agent` and `admin`, and a required `exp`;
- an opaque token listed (by its SHA-256) in the token file, for set-ups too small for a signer;
- either of them without a user: an API key, which names a workspace but no person.

A verified token with a user makes a verified user (memory tools, their own tiers). An API key may call
the institutional routes (ingest, guidance, the agent registry) and gets no memory tools. No token at
all is anonymous. The scope is always computed from here, never from a body field, a query parameter or
a header the caller chooses.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any

import jwt

from tinymemory.api import InvalidRequest
from tinymemory.policy import Identity
from tinymemory.service.errors import Forbidden, Unauthorized
from tinymemory.service.settings import ServiceSettings
from tinymemory.service.token_cache import CachedTokenFile

MAX_TOKEN_CHARS = 8192
# An opaque token given to a service that checks signed tokens only (it has no token file), in plain words.
NOT_RECOGNISED = (
    "this service does not recognise the token: it is not one of the signed tokens this service "
    "accepts; check that it was copied whole, or get a new one (`tinymemory token issue` makes one)"
)
# Verified JWTs remembered, each with its expiry, before the memo starts over (a bound on its memory).
MAX_VERIFIED = 4096
USER_CLAIM = "sub"
WORKSPACE_CLAIM = "workspace"
AGENT_CLAIM = "agent"
ADMIN_CLAIM = "admin"
KIND_CLAIM = "kind"  # "api_key" marks a JWT that names no user


class CallerKind(StrEnum):
    USER = "user"
    API_KEY = "api_key"
    ANONYMOUS = "anonymous"


@dataclass(frozen=True, slots=True)
class Caller:
    """A verified caller. `workspace` is None only for an anonymous caller."""

    kind: CallerKind
    workspace: str | None = None
    user: str | None = None
    agent: str | None = None
    admin: bool = False
    # The policy identity, made on first use and kept: a remembered JWT proves this same Caller on every
    # request, and making an Identity checks each of its names against the namespace grammar again.
    _identity: Identity | None = field(default=None, init=False, repr=False, compare=False)

    @classmethod
    def anonymous(cls) -> Caller:
        return cls(CallerKind.ANONYMOUS)

    @property
    def is_user(self) -> bool:
        return self.kind is CallerKind.USER

    def identity(self, *, agent: bool = True) -> Identity:
        """The policy identity; `agent=False` drops the token's agent (the MCP gateway serves none)."""
        known = self._identity
        if agent and known is not None:
            return known
        if self.workspace is None:
            raise Unauthorized("this route needs a bearer token")
        made = Identity(self.workspace, self.user, self.agent if agent else None, verified=self.is_user)
        if agent:
            object.__setattr__(self, "_identity", made)
        return made

    def need_workspace(self, op: str) -> str:
        if self.workspace is None:
            raise Unauthorized(f"{op}: this route needs a bearer token (Authorization: Bearer <token>)")
        return self.workspace

    def need_user(self, op: str) -> Identity:
        """A verified user, or 401 (anonymous) / 403 (an API key: no memory tools)."""
        self.need_workspace(op)
        if not self.is_user:
            raise Forbidden(f"{op}: memory routes are for a verified user; an API key names no user")
        return self.identity()

    def need_institutional(self, op: str) -> str:
        """An API key or an admin user may write the institutional tier."""
        workspace = self.need_workspace(op)
        if self.kind is CallerKind.API_KEY or self.admin:
            return workspace
        raise Forbidden(f"{op}: needs an API key or an admin token for workspace {workspace}")

    def label(self) -> str:
        if self.workspace is None:
            return "anonymous"
        who = self.user if self.user is not None else "api-key"
        return f"{who}@{self.workspace}"


class Authenticator:
    """Verifies bearer tokens against the configured secret, public key and token file."""

    def __init__(self, settings: ServiceSettings) -> None:
        self._secret = settings.jwt_secret
        self._public_key = settings.jwt_public_key
        self._issuer = settings.jwt_issuer
        self._audience = settings.jwt_audience
        self._file = CachedTokenFile(settings.token_file) if settings.token_file is not None else None
        if self._file is not None:
            self._file.load("serve")  # a file the service cannot use stops it before it listens
        # A JWT that verified, by its exact text: the caller it proves and its `exp`. A signed token
        # cannot change, and this service's keys do not, so until `exp` it verifies to the same caller;
        # only verifications that succeeded are kept, and a token past its `exp` is verified again (and
        # refused as expired). Opaque tokens are never kept: the token file may revoke one at any time.
        self._verified: dict[str, tuple[Caller, int]] = {}

    @property
    def remembered(self) -> int:
        """How many verified JWTs are remembered now (at most MAX_VERIFIED)."""
        return len(self._verified)

    def caller(self, authorization: str | None) -> Caller:
        """The caller an Authorization header proves; anonymous without one. Raises Unauthorized for a
        header that is present but does not verify."""
        if authorization is None or not authorization.strip():
            return Caller.anonymous()
        scheme, _, token = authorization.strip().partition(" ")
        token = token.strip()
        if scheme.lower() != "bearer" or not token:
            raise Unauthorized("the Authorization header must be `Bearer <token>`")
        if len(token) > MAX_TOKEN_CHARS:
            raise Unauthorized(f"the bearer token is longer than {MAX_TOKEN_CHARS} characters")
        if token.count(".") == 2:
            known = self._verified.get(token)
            if known is not None:
                if known[1] > time.time():
                    return known[0]
                self._verified.pop(token, None)  # expired: verified again below, and refused
            return self._jwt(token)
        return self._opaque(token)

    def _opaque(self, token: str) -> Caller:
        if self._file is None:
            raise Unauthorized(NOT_RECOGNISED)
        entry = self._file.lookup(token)  # Unavailable (503) while the file cannot be used
        if entry is None:
            raise Unauthorized("the bearer token is not known to this service")
        if entry.expires_at is not None and entry.expires_at <= datetime.now(UTC):
            raise Unauthorized("the bearer token has expired")
        return _caller_of(entry.workspace, entry.user, entry.agent, entry.admin, api_key=entry.user is None)

    def _jwt(self, token: str) -> Caller:
        try:
            header = jwt.get_unverified_header(token)
        except jwt.PyJWTError:
            raise Unauthorized("the bearer token is not a well-formed JWT") from None
        alg = header.get("alg")
        key = {"HS256": self._secret, "RS256": self._public_key}.get(alg) if isinstance(alg, str) else None
        if key is None:
            accepted = [a for a, k in (("HS256", self._secret), ("RS256", self._public_key)) if k]
            raise Unauthorized(
                f"the token's algorithm {str(alg)[:16]!r} is not accepted here "
                f"(accepted: {', '.join(accepted) or 'none: no JWT key is configured'})"
            )
        try:
            claims: dict[str, Any] = jwt.decode(
                token,
                key,
                algorithms=[str(alg)],
                issuer=self._issuer,
                audience=self._audience,
                options={"require": ["exp", WORKSPACE_CLAIM], "verify_aud": self._audience is not None},
            )
        except jwt.ExpiredSignatureError:
            raise Unauthorized("the bearer token has expired") from None
        except jwt.InvalidSignatureError:
            raise Unauthorized("the bearer token's signature does not verify") from None
        except jwt.MissingRequiredClaimError as exc:
            raise Unauthorized(f"the bearer token lacks the `{exc.claim}` claim") from None
        except jwt.PyJWTError as exc:
            raise Unauthorized(f"the bearer token is not valid: {str(exc)[:120]}") from None
        api_key = claims.get(KIND_CLAIM) == "api_key"
        admin = claims.get(ADMIN_CLAIM, False)
        if not isinstance(admin, bool):
            raise Unauthorized("the bearer token's `admin` claim must be true or false")
        user = None if api_key else claims.get(USER_CLAIM)
        if not api_key and user is None:
            raise Unauthorized("the bearer token names no user (`sub`) and is not an API key")
        caller = _caller_of(
            claims.get(WORKSPACE_CLAIM), user, claims.get(AGENT_CLAIM), admin, api_key=api_key
        )
        self._remember(token, caller, claims["exp"])
        return caller

    def _remember(self, token: str, caller: Caller, exp: object) -> None:
        """Keep a verified JWT until its `exp` (PyJWT has checked that it is an integer in the future)."""
        if not isinstance(exp, int | float):
            return
        if len(self._verified) >= MAX_VERIFIED:
            self._verified.clear()
        self._verified[token] = (caller, int(exp))


def _caller_of(workspace: object, user: object, agent: object, admin: bool, *, api_key: bool) -> Caller:
    """Checks the names with the identity grammar; a bad claim is a token the service cannot trust."""
    try:
        identity = Identity(workspace, user, agent, verified=not api_key)  # type: ignore[arg-type]
    except InvalidRequest as exc:
        raise Unauthorized(f"the bearer token's claims are not valid: {exc.message}") from None
    return Caller(
        CallerKind.API_KEY if api_key else CallerKind.USER,
        identity.workspace,
        identity.user,
        identity.agent,
        admin,
    )
