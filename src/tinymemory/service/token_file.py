"""The token file: opaque bearer tokens for set-ups too small for a JWT signer.

A YAML or JSON document `{"tokens": [{"sha256", "workspace", "user"?, "agent"?, "admin"?, "expires_at"?,
"label"?}]}`. Only the SHA-256 of each token is kept, so the file reveals no credential; an entry without
`user` is an API key. The file is re-read when it changes, so tokens can be added or revoked without a
restart (service/token_cache.py).

What is wrong with a file is said here in one line for its operator (`serve` at start-up, `token
issue`, the running service's log), never to a caller: it names a path on the server and where the
parser stopped.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import secrets
import stat
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import yaml

from tinymemory.api import InvalidRequest, format_rfc3339, parse_rfc3339
from tinymemory.api.echo import echo
from tinymemory.policy import Identity

TOKEN_PREFIX = "tm_"
# 100,000 entries take about 16 MB as YAML; past this the file is refused rather than read into memory.
MAX_TOKEN_FILE_BYTES = 32 * 1024 * 1024
ENTRY_FIELDS = frozenset({"sha256", "workspace", "user", "agent", "admin", "expires_at", "label"})
_SHA256 = re.compile(r"[0-9a-f]{64}")
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml reads a large file ~4x faster
_DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


def token_sha256(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def new_token() -> str:
    return TOKEN_PREFIX + secrets.token_urlsafe(32)


class TokenFileProblem(Exception):
    """What is wrong with a token file, in one line for its operator. On purpose not a TinyMemoryError:
    it names the server's path and quotes the file, so no error handler ever sends it to a caller."""


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


@dataclass(frozen=True, slots=True)
class Parsed:
    entries: list[TokenEntry]
    as_json: bool  # written as JSON: rewritten as JSON (it also reads ~20x faster than YAML)


def read_bytes(path: Path) -> tuple[os.stat_result, bytes]:
    """The file's bytes and the status of the very file they came from (one open file, so a swap in
    between cannot mix two versions). Never waits on a FIFO, never reads a device or a folder."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise TokenFileProblem("does not exist (`tinymemory token issue --token-file` creates it)") from None
    except OSError as exc:
        raise TokenFileProblem(f"cannot be opened ({exc.strerror or exc})") from None
    st = os.fstat(fd)
    problem = _not_a_token_file(st)
    if problem is not None:
        os.close(fd)
        raise TokenFileProblem(problem)
    with os.fdopen(fd, "rb") as handle:
        try:
            data = handle.read(MAX_TOKEN_FILE_BYTES + 1)
        except OSError as exc:
            raise TokenFileProblem(f"cannot be read ({exc.strerror or exc})") from None
    if len(data) > MAX_TOKEN_FILE_BYTES:
        raise TokenFileProblem(f"grew past the {MAX_TOKEN_FILE_BYTES} bytes allowed while it was read")
    return st, data


def _not_a_token_file(st: os.stat_result) -> str | None:
    if stat.S_ISDIR(st.st_mode):
        return "is a folder, not a file"
    if not stat.S_ISREG(st.st_mode):
        return "is not a regular file (a pipe or a device cannot hold tokens)"
    if st.st_size > MAX_TOKEN_FILE_BYTES:
        return f"is {st.st_size} bytes, more than the {MAX_TOKEN_FILE_BYTES} allowed"
    return None


def parse_token_file(data: bytes) -> Parsed:
    """The entries of a token file's bytes; TokenFileProblem says, in one line, what is wrong."""
    document, as_json = _document(data)
    if document is None:
        return Parsed([], as_json)
    listed = document.get("tokens") if isinstance(document, dict) else None
    if not isinstance(document, dict) or not isinstance(listed, list | None):
        raise TokenFileProblem("must be an object with a `tokens` list")
    unknown = set(document) - {"tokens"}
    if unknown:  # a misspelt `tokens` would otherwise read as no tokens at all
        raise TokenFileProblem(f"has unknown top-level key(s) {_names(unknown)}; only `tokens` is read")
    entries: list[TokenEntry] = []
    first_at: dict[str, int] = {}
    for i, raw in enumerate(listed or []):
        entry = _entry(i, raw)
        first = first_at.setdefault(entry.sha256, i)
        if first != i:
            raise TokenFileProblem(
                f"`tokens[{i}]` repeats the sha256 of `tokens[{first}]`: one entry a token"
            )
        entries.append(entry)
    return Parsed(entries, as_json)


def _document(data: bytes) -> tuple[object, bool]:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise TokenFileProblem(f"is not UTF-8 text (byte {exc.start} is 0x{data[exc.start]:02x})") from None
    if not text.strip():
        return None, False
    try:
        return json.loads(text), True  # JSON first: it is YAML too, and parses much faster
    except RecursionError:
        raise TokenFileProblem("nests too deeply") from None
    except ValueError:
        pass
    try:
        return yaml.load(text, Loader=_LOADER), False  # a safe loader (CSafeLoader or SafeLoader)
    except RecursionError:
        raise TokenFileProblem("nests too deeply") from None
    except yaml.YAMLError as exc:
        raise TokenFileProblem(f"is not valid YAML or JSON ({_yaml_problem(exc)})") from None


def _yaml_problem(exc: yaml.YAMLError) -> str:
    mark, problem = getattr(exc, "problem_mark", None), getattr(exc, "problem", None)
    if mark is not None and problem:
        return f"line {mark.line + 1}, column {mark.column + 1}: {problem}"
    return " ".join(str(exc).split())[:200]


def _names(keys: set[Any]) -> str:
    return ", ".join(f"`{echo(str(k), 40)}`" for k in sorted(map(str, keys))[:5])


def _entry(i: int, raw: object) -> TokenEntry:
    where = f"`tokens[{i}]`"
    if not isinstance(raw, dict):
        raise TokenFileProblem(f"{where} must be an object")
    unknown = set(raw) - ENTRY_FIELDS
    if unknown:
        raise TokenFileProblem(f"{where} has unknown field(s) {_names(unknown)}")
    digest = raw.get("sha256")
    if not isinstance(digest, str) or not _SHA256.fullmatch(digest):
        raise TokenFileProblem(f"{where}.sha256 must be 64 lowercase hex digits")
    try:
        identity = Identity(raw.get("workspace"), raw.get("user"), raw.get("agent"))  # type: ignore[arg-type]
    except InvalidRequest as exc:
        raise TokenFileProblem(f"{where}: {exc.message}") from None
    admin = raw.get("admin", False)
    if not isinstance(admin, bool):
        raise TokenFileProblem(f"{where}.admin must be true or false")
    label = raw.get("label")
    if label is not None and not isinstance(label, str):
        raise TokenFileProblem(f"{where}.label must be a string")
    expires = _expiry(f"tokens[{i}].expires_at", raw.get("expires_at"))
    return TokenEntry(digest, identity.workspace, identity.user, identity.agent, admin, expires, label)


def _expiry(field: str, value: object) -> datetime | None:
    """An RFC 3339 string, or the timestamp YAML makes of one written without quotes (with its offset)."""
    if value is None:
        return None
    if isinstance(value, datetime):
        if value.tzinfo is None:
            raise TokenFileProblem(f"`{field}` has no UTC offset (write e.g. 2030-01-31T00:00:00Z)")
        try:
            return value.astimezone(UTC)
        except OverflowError:
            raise TokenFileProblem(f"`{field}` is out of range") from None
    if isinstance(value, date):
        raise TokenFileProblem(f"`{field}` is a date without a time (write e.g. 2030-01-31T00:00:00Z)")
    if not isinstance(value, str):
        raise TokenFileProblem(f"`{field}` must be an RFC 3339 timestamp (e.g. 2030-01-31T00:00:00Z)")
    try:
        return parse_rfc3339(value, field=field)
    except InvalidRequest as exc:
        raise TokenFileProblem(exc.message) from None


def for_operator(op: str, path: Path, problem: TokenFileProblem) -> str:
    """The command line's one-line refusal: the flag, the path as given, what is wrong."""
    return f"{op}: `--token-file` {path}: {problem}"


def append_entry(path: Path, entry: TokenEntry, op: str = "token issue") -> None:
    """Append one entry: under an exclusive lock on the file (concurrent issues all land), never
    over a file that cannot be read, written whole to a new owner-only file renamed over the old."""
    target = Path(os.path.realpath(path))  # through a symlink: update the file it names
    with _locked(target, op, path):
        try:
            _, data = read_bytes(target)
            parsed = parse_token_file(data)
        except TokenFileProblem as exc:
            raise InvalidRequest(for_operator(op, path, exc)) from None
        doc = {"tokens": [e.to_dict() for e in (*parsed.entries, entry)]}
        if parsed.as_json or target.suffix == ".json":
            _write(target, json.dumps(doc, indent=2) + "\n")
        else:
            _write(target, yaml.dump(doc, Dumper=_DUMPER, sort_keys=False))


@contextlib.contextmanager
def _locked(target: Path, op: str, shown: Path) -> Iterator[None]:
    """An advisory lock on the token file itself (created empty when missing), taken again when the
    file was replaced while this process waited for it."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX: no lock
        yield
        return
    while True:
        try:
            fd = os.open(target, os.O_RDONLY | os.O_CREAT | getattr(os, "O_NONBLOCK", 0), 0o600)
        except IsADirectoryError:
            raise InvalidRequest(
                for_operator(op, shown, TokenFileProblem("is a folder, not a file"))
            ) from None
        except OSError as exc:
            problem = TokenFileProblem(f"cannot be opened ({exc.strerror or exc})")
            raise InvalidRequest(for_operator(op, shown, problem)) from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            try:
                current = os.fstat(fd).st_ino == os.stat(target).st_ino
            except OSError:  # renamed away meanwhile
                current = False
            if current:
                yield
                return
        finally:
            os.close(fd)


def _write(target: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:  # mkstemp: owner-only
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    with contextlib.suppress(OSError):  # the rename itself survives a crash once the folder is synced
        dir_fd = os.open(target.parent, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
