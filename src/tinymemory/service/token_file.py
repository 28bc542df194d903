"""The token file: opaque bearer tokens for set-ups too small for a JWT signer.

A YAML or JSON document `{"tokens": [{"sha256", "workspace", "user"?, "agent"?, "admin"?, "expires_at"?,
"label"?}]}`. Only the SHA-256 of each token is kept, so the file reveals no credential; an entry without
`user` is an API key. The file is re-read when it changes, so tokens can be added or revoked without a
restart.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import yaml

from tinymemory.api import InvalidRequest, format_rfc3339, parse_rfc3339
from tinymemory.policy import Identity

TOKEN_PREFIX = "tm_"


def token_sha256(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def new_token() -> str:
    return TOKEN_PREFIX + secrets.token_urlsafe(32)


@dataclass(frozen=True, slots=True)
class TokenEntry:
    sha256: str
    workspace: str
    user: str | None = None
    agent: str | None = None
    admin: bool = False
    expires_at: datetime | None = None
    label: str | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"sha256": self.sha256, "workspace": self.workspace}
        for key in ("user", "agent", "label"):
            if getattr(self, key) is not None:
                out[key] = getattr(self, key)
        if self.admin:
            out["admin"] = True
        if self.expires_at is not None:
            out["expires_at"] = format_rfc3339(self.expires_at)
        return out


def _entry(i: int, raw: object, source: str) -> TokenEntry:
    where = f"token file {source}: `tokens[{i}]`"
    if not isinstance(raw, dict):
        raise InvalidRequest(f"{where} must be an object")
    unknown = set(raw) - {"sha256", "workspace", "user", "agent", "admin", "expires_at", "label"}
    if unknown:
        raise InvalidRequest(f"{where} has unknown field(s): {', '.join(sorted(map(str, unknown)))}")
    digest = raw.get("sha256")
    if not isinstance(digest, str) or len(digest) != 64 or not all(c in "0123456789abcdef" for c in digest):
        raise InvalidRequest(f"{where}.sha256 must be 64 lowercase hex digits")
    try:
        identity = Identity(raw.get("workspace"), raw.get("user"), raw.get("agent"))  # type: ignore[arg-type]
    except InvalidRequest as exc:
        raise InvalidRequest(f"{where}: {exc.message}") from None
    admin = raw.get("admin", False)
    if not isinstance(admin, bool):
        raise InvalidRequest(f"{where}.admin must be true or false")
    expires = raw.get("expires_at")
    if expires is not None:
        expires = parse_rfc3339(str(expires), field="expires_at", op=f"token file {source}")
    label = raw.get("label")
    if label is not None and not isinstance(label, str):
        raise InvalidRequest(f"{where}.label must be a string")
    return TokenEntry(digest, identity.workspace, identity.user, identity.agent, admin, expires, label)


def parse_token_file(text: str, source: str) -> list[TokenEntry]:
    try:
        data = yaml.safe_load(text) if text.strip() else {"tokens": []}
    except yaml.YAMLError as exc:
        raise InvalidRequest(f"token file {source}: not valid YAML or JSON ({str(exc)[:120]})") from None
    if not isinstance(data, dict) or not isinstance(data.get("tokens", []), list):
        raise InvalidRequest(f"token file {source}: must be an object with a `tokens` list")
    return [_entry(i, raw, source) for i, raw in enumerate(data.get("tokens", []))]


class TokenFile:
    """The entries of one token file, re-read when its modification time or size changes."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._stamp: tuple[int, int] | None = None
        self._by_digest: dict[str, TokenEntry] = {}

    def entries(self) -> list[TokenEntry]:
        self._refresh()
        return list(self._by_digest.values())

    def lookup(self, token: str) -> TokenEntry | None:
        self._refresh()
        # The key is a hash of a secret, so a dict lookup's timing tells an attacker nothing useful.
        return self._by_digest.get(token_sha256(token))

    def _refresh(self) -> None:
        try:
            st = self.path.stat()
        except FileNotFoundError:
            self._stamp, self._by_digest = None, {}
            return
        stamp = (st.st_mtime_ns, st.st_size)
        if stamp == self._stamp:
            return
        entries = parse_token_file(self.path.read_text(encoding="utf-8"), str(self.path))
        self._by_digest = {e.sha256: e for e in entries}
        self._stamp = stamp

    def add(self, entry: TokenEntry) -> None:
        """Append one entry, writing the file atomically with owner-only permissions."""
        current = self.entries() if self.path.exists() else []
        doc = {"tokens": [e.to_dict() for e in (*current, entry)]}
        tmp = self.path.with_name(self.path.name + ".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            if self.path.suffix == ".json":
                json.dump(doc, out, indent=2)
            else:
                yaml.safe_dump(doc, out, sort_keys=False)
        os.replace(tmp, self.path)
        self._stamp = None
