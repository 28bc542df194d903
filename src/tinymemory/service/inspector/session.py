"""The inspector's browser session: the signed-in token in a cookie, and the CSRF token bound to it.

Only the inspector's pages read this cookie; the /api routes take the Authorization header alone, so a
cookie can never act on the API. The cookie holds the bearer token itself (HttpOnly, SameSite=Strict)
and is verified again on every page, so an expired or revoked token signs the browser out. Each form
that changes something carries an HMAC of the cookie under a key that lives only in this process, or
in the processes of one `serve --workers N`, which share it (service/fleet.py).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from urllib.parse import parse_qs, urlsplit

from fastapi import Request, Response

from tinymemory.api import InvalidRequest
from tinymemory.service import deps
from tinymemory.service.auth import Caller

COOKIE = "tinymemory_inspector"
# A browser keeps cookies of about 4 KB; a longer token could not come back, so sign-in refuses it.
MAX_COOKIE_TOKEN_CHARS = 3800
FORM_TYPE = "application/x-www-form-urlencoded"
MAX_FORM_FIELDS = 8


@dataclass(frozen=True, slots=True)
class Session:
    """A signed-in browser: the verified caller and the token its cookie holds."""

    caller: Caller
    token: str


class CsrfKey:
    """The key that binds a form's CSRF token to the session cookie: `key`, else a fresh one."""

    __slots__ = ("_key",)

    def __init__(self, key: bytes | None = None) -> None:
        self._key = key if key is not None else secrets.token_bytes(32)

    def token_for(self, session: Session) -> str:
        return hmac.new(self._key, session.token.encode(), hashlib.sha256).hexdigest()

    def verify(self, session: Session, given: str | None) -> bool:
        return given is not None and hmac.compare_digest(self.token_for(session), given)


def cookie_token(request: Request) -> str | None:
    token = request.cookies.get(COOKIE)
    return token if token else None


def signed_in(request: Request) -> Session | None:
    """The session the cookie proves, or None without a cookie. Raises Unauthorized when the cookie's
    token no longer verifies (expired, revoked, signed with a retired key)."""
    token = cookie_token(request)
    if token is None:
        return None
    return Session(deps.service(request).auth.caller("Bearer " + token), token)


def set_session(response: Response, request: Request, token: str) -> None:
    response.set_cookie(
        COOKIE,
        token,
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
        path="/",
    )


def clear_session(response: Response, request: Request) -> None:
    response.delete_cookie(
        COOKIE, httponly=True, samesite="strict", secure=request.url.scheme == "https", path="/"
    )


def same_origin(request: Request) -> bool:
    """A form post must come from this site: a browser's Origin header (when sent) names our host.
    SameSite=Strict already keeps the cookie off cross-site posts; this also stops a cross-site page
    from signing a browser in with someone else's token."""
    origin = request.headers.get("origin")
    if origin is None:
        return True
    host = request.headers.get("host")
    return host is not None and urlsplit(origin).netloc == host


async def form(request: Request, op: str) -> dict[str, str]:
    """The posted form's fields (the first value of each; none for an empty body); any other body is
    an error naming `op`."""
    fields = await form_lists(request, op, MAX_FORM_FIELDS)
    return {name: values[0] for name, values in fields.items()}


async def form_lists(request: Request, op: str, max_fields: int) -> dict[str, list[str]]:
    """Every value of each posted field (a bulk form repeats `id`), at most `max_fields` in all."""
    raw = await request.body()
    if not raw:
        return {}
    content_type = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    if content_type != FORM_TYPE:
        raise InvalidRequest(f"{op}: the body must be a form ({FORM_TYPE})")
    try:
        fields = parse_qs(
            raw.decode("ascii"), keep_blank_values=True, errors="strict", max_num_fields=max_fields
        )
    except ValueError:  # not ASCII, a bad percent-escape's UTF-8, or too many fields
        raise InvalidRequest(f"{op}: the form is not valid URL-encoded UTF-8 with a few fields") from None
    return fields
