"""The token file from outside: a real service on 127.0.0.1 whose file is broken, swapped, raced, made
huge or pointed elsewhere while it runs, and `tinymemory serve` / `tinymemory token issue` run as
processes on files they must refuse.

What must hold: a file the service cannot use fails closed (opaque tokens get 503, JWTs and anonymous
callers are untouched), no response says where the file is or quotes what the parser saw, the cause is
logged once for the operator, and nothing the CLI does damages a file it cannot read.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest

from tinymemory.service.auth import Authenticator
from tinymemory.service.settings import ServiceSettings
from tinymemory.service.token_file import MAX_TOKEN_FILE_BYTES, TokenEntry, new_token, token_sha256
from tinymemory.service.tokens import issue_opaque

from .conftest import RunningService, start_service

TINYMEMORY = [sys.executable, "-m", "tinymemory"]
RECALL = "/api/v1/memory/recall"
GUIDANCE = "/api/v1/memory/tool-guidance"
MCP_LIST = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
MCP_HEADERS = {"Accept": "application/json, text/event-stream"}
BAD_YAML = b"tokens:\n  - sha256: [unclosed\n    workspace: acme\n"


def put(path: Path, data: bytes) -> None:
    """Replace the file atomically (a new inode), as an editor or a deploy tool does."""
    tmp = path.with_name(path.name + ".writing")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def entry_yaml(token: str, user: str | None, extra: str = "") -> str:
    lines = f'  - sha256: "{token_sha256(token)}"\n    workspace: acme\n'
    if user is not None:
        lines += f"    user: {user}\n"
    return lines + extra


@pytest.fixture(scope="module")
def running(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningService]:
    service = start_service(tmp_path_factory.mktemp("token-file"))
    yield service
    service.stop()


@pytest.fixture
def tokens(running: RunningService) -> Iterator[dict[str, str]]:
    """A good file with a user token and an API key; put back after each test whatever it did."""
    path = running.settings.token_file
    assert path is not None
    made = {"user": new_token(), "key": new_token()}
    good = "tokens:\n" + entry_yaml(made["user"], "bob") + entry_yaml(made["key"], None)
    put(path, good.encode())
    yield made
    if path.is_dir() and not path.is_symlink():
        path.rmdir()
    elif path.exists() or path.is_symlink():
        path.unlink()
    put(path, good.encode())


def probes(service: RunningService, tokens: dict[str, str]) -> list[tuple[str, httpx.Response]]:
    """Every way a caller reaches the verifier, with an opaque token, an unknown one, none, and a JWT
    that is not well formed."""
    out: list[tuple[str, httpx.Response]] = []
    bearers = {
        "opaque user": tokens["user"],
        "opaque key": tokens["key"],
        "unknown opaque": new_token(),
        "anonymous": None,
        "malformed jwt": "a.b.c",
    }
    for name, token in bearers.items():
        with service.client(token) as http:
            out.append((f"{name} recall", http.post(RECALL, json={"query": "tea"})))
            out.append((f"{name} guidance", http.get(GUIDANCE)))
            out.append((f"{name} mcp", http.post("/mcp", json=MCP_LIST, headers=MCP_HEADERS)))
        if token is not None:
            with service.client(cookies={"tinymemory_inspector": token}) as http:
                out.append((f"{name} inspector", http.get("/")))
    return out


def assert_no_leak(
    service: RunningService, responses: list[tuple[str, httpx.Response]], *quotes: str
) -> None:
    path = service.settings.token_file
    assert path is not None
    secret_words = [str(path), str(path.parent), path.name, "yaml", "line 2", "column", *quotes]
    for name, response in responses:
        seen = (response.text + " " + json.dumps(dict(response.headers))).lower()
        for word in secret_words:
            assert word.lower() not in seen, (name, word, response.status_code, response.text)


def assert_fails_closed(responses: list[tuple[str, httpx.Response]]) -> None:
    """Opaque tokens, known or not, cannot be checked: 503 in the one error shape. The others are
    refused as they always are (anonymous and a malformed JWT: 401)."""
    for name, response in responses:
        expected = 503 if name.startswith(("opaque", "unknown")) else 401
        assert response.status_code == expected, (name, response.status_code, response.text)
        if expected == 503 and name.endswith("inspector"):  # a person's browser gets a page
            assert response.headers["content-type"].startswith("text/html"), (name, response.text)
            assert "Cannot check your sign-in" in response.text, (name, response.text)
        elif expected == 503:
            body = response.json()
            assert set(body) == {"error", "request_id"}, body
            assert body["error"]["kind"] == "unavailable", body
            if name.endswith("mcp"):
                assert body["error"]["message"].startswith("mcp: "), body


MALFORMED: dict[str, Callable[[Path, dict[str, str]], None]] = {
    "bad yaml": lambda p, t: put(p, BAD_YAML),
    "a list, not an object": lambda p, t: put(p, b"- one\n- two\n"),
    "tokens is not a list": lambda p, t: put(p, b"tokens: 5\n"),
    "a misspelt top-level key": lambda p, t: put(p, b"token:\n" + entry_yaml(t["user"], "bob").encode()),
    "an entry without workspace": lambda p, t: put(
        p, f'tokens:\n  - sha256: "{token_sha256(t["user"])}"\n'.encode()
    ),
    "one token twice, for two users": lambda p, t: put(
        p, ("tokens:\n" + entry_yaml(t["user"], "bob") + entry_yaml(t["user"], "mallory")).encode()
    ),
    "an expiry without an offset": lambda p, t: put(
        p, ("tokens:\n" + entry_yaml(t["user"], "bob", "    expires_at: 2099-01-01 00:00:00\n")).encode()
    ),
    "binary bytes": lambda p, t: put(p, b"\xff\xfe\x00\x01\x89PNG" * 64),
    "a NUL byte": lambda p, t: put(p, b"tokens: []\n\x00\n"),
    "over the size limit": lambda p, t: _sparse(p, MAX_TOKEN_FILE_BYTES + 1),
    "a folder": lambda p, t: (p.unlink(), p.mkdir()),
    "missing": lambda p, t: p.unlink(),
    "a dangling symlink": lambda p, t: (p.unlink(), p.symlink_to(p.with_name("nowhere.yaml"))),
    "unreadable": lambda p, t: p.chmod(0),
}


def _sparse(path: Path, size: int) -> None:
    tmp = path.with_name(path.name + ".writing")
    with tmp.open("wb") as out:
        out.truncate(size)
    os.replace(tmp, path)


@pytest.mark.parametrize("breakage", list(MALFORMED))
def test_a_file_broken_while_serving_fails_closed_and_says_nothing_of_it(
    running: RunningService, tokens: dict[str, str], breakage: str, caplog: pytest.LogCaptureFixture
) -> None:
    if breakage == "unreadable" and os.geteuid() == 0:
        pytest.skip("root reads a file whatever its mode")
    path = running.settings.token_file
    assert path is not None
    with running.client(tokens["user"]) as http:
        assert http.post(RECALL, json={"query": "tea"}).status_code == 200
    MALFORMED[breakage](path, tokens)
    with caplog.at_level(logging.WARNING):
        responses = probes(running, tokens)
        with running.client(running.token()) as http:  # a JWT needs no file
            assert http.post(RECALL, json={"query": "tea"}).status_code == 200
    assert_fails_closed(responses)
    assert_no_leak(running, responses, "unclosed", "png", "mallory")
    logged = [r for r in caplog.records if "token file" in r.getMessage()]
    assert len(logged) == 1, [r.getMessage() for r in logged]  # once, however many requests
    assert logged[0].levelno >= logging.WARNING and str(path) in logged[0].getMessage()


def test_the_last_good_set_is_not_kept_and_a_fixed_file_is_read_again(
    running: RunningService, tokens: dict[str, str]
) -> None:
    """An edit that breaks the file may have been a revocation: no token it listed is accepted until
    the file is fixed, and the fixed file counts at once."""
    path = running.settings.token_file
    assert path is not None
    put(path, BAD_YAML)
    with running.client(tokens["key"]) as http:
        assert http.get(GUIDANCE).status_code == 503
    put(path, ("tokens:\n" + entry_yaml(tokens["user"], "bob")).encode())
    with running.client(tokens["user"]) as http:
        assert http.post(RECALL, json={"query": "tea"}).status_code == 200
    with running.client(tokens["key"]) as http:
        assert http.get(GUIDANCE).status_code == 401


def test_an_edit_in_place_within_one_clock_tick_is_seen(
    running: RunningService, tokens: dict[str, str]
) -> None:
    """Revoking by rewriting one digest keeps the size; a file system's coarse clock may keep the
    modification time too. The service must still read the new content."""
    path = running.settings.token_file
    assert path is not None
    with running.client(tokens["user"]) as http:
        assert http.post(RECALL, json={"query": "tea"}).status_code == 200
    before = path.stat()
    replacement = new_token()
    text = path.read_text().replace(token_sha256(tokens["user"]), token_sha256(replacement))
    with path.open("r+") as out:  # same inode, same size
        out.write(text)
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert path.stat().st_size == before.st_size
    with running.client(tokens["user"]) as http:
        assert http.post(RECALL, json={"query": "tea"}).status_code == 401
    with running.client(replacement) as http:
        assert http.post(RECALL, json={"query": "tea"}).status_code == 200


def test_unquoted_yaml_timestamps_expire_entries(running: RunningService, tokens: dict[str, str]) -> None:
    path = running.settings.token_file
    assert path is not None
    late, soon = new_token(), new_token()
    put(
        path,
        (
            "tokens:\n"
            + entry_yaml(late, "old", "    expires_at: 2001-02-03T04:05:06Z\n")
            + entry_yaml(soon, "new", "    expires_at: 2999-02-03T04:05:06+02:00\n")
        ).encode(),
    )
    with running.client(late) as http:
        response = http.post(RECALL, json={"query": "tea"})
    assert response.status_code == 401 and "expired" in response.json()["error"]["message"]
    with running.client(soon) as http:
        assert http.post(RECALL, json={"query": "tea"}).status_code == 200


def test_a_hundred_thousand_entries_load_and_grow(running: RunningService, tokens: dict[str, str]) -> None:
    path = running.settings.token_file
    assert path is not None
    middle = new_token()
    entries = [
        TokenEntry(token_sha256(f"filler-{i}"), "acme", f"user{i}", label=f"seat {i}").to_dict()
        for i in range(100_000)
    ]
    entries[50_000] = TokenEntry(token_sha256(middle), "acme", "mid").to_dict()
    put(path, json.dumps({"tokens": entries}).encode())
    with running.client(middle) as http:
        assert http.post(RECALL, json={"query": "tea"}).status_code == 200
    added = issue_opaque(path, "acme", "newcomer")
    assert json.loads(path.read_text())["tokens"][-1]["user"] == "newcomer"  # still JSON, still fast
    for token in (middle, added):
        with running.client(token) as http:
            assert http.post(RECALL, json={"query": "tea"}).status_code == 200


def test_a_symlinked_file_is_followed_and_its_swap_seen(tmp_path: Path) -> None:
    """Secrets mounted by an orchestrator are symlinks swapped atomically to a new target."""
    first, second = new_token(), new_token()
    (tmp_path / "v1.yaml").write_text("tokens:\n" + entry_yaml(first, "ann"))
    (tmp_path / "v2.yaml").write_text("tokens:\n" + entry_yaml(second, "ben"))
    (tmp_path / "tokens.yaml").symlink_to(tmp_path / "v1.yaml")
    service = start_service(tmp_path)
    try:
        with service.client(first) as http:
            assert http.post(RECALL, json={"query": "tea"}).status_code == 200
        link = tmp_path / "tokens.yaml.new"
        link.symlink_to(tmp_path / "v2.yaml")
        os.replace(link, tmp_path / "tokens.yaml")
        with service.client(first) as http:
            assert http.post(RECALL, json={"query": "tea"}).status_code == 401
        with service.client(second) as http:
            assert http.post(RECALL, json={"query": "tea"}).status_code == 200
    finally:
        service.stop()


# --- the command line ----------------------------------------------------------------------------


def cli(*argv: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TINYMEMORY_")}
    return subprocess.run(
        [*TINYMEMORY, *argv], capture_output=True, text=True, env=env, timeout=timeout, check=False
    )


def one_line_refusal(done: subprocess.CompletedProcess[str], *words: str) -> str:
    assert done.returncode == 2, (done.returncode, done.stdout, done.stderr)
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    message: str = json.loads(lines[0])["message"]
    assert "--token-file" in message, message
    for word in words:
        assert word in message, message
    return message


BROKEN_AT_START: dict[str, tuple[Callable[[Path], None], str]] = {
    "missing": (lambda p: None, "does not exist"),
    "a folder": (lambda p: p.mkdir(), "folder"),
    "bad yaml": (lambda p: p.write_bytes(BAD_YAML), "line 3"),
    "wrong shape": (lambda p: p.write_bytes(b"- one\n"), "`tokens` list"),
    "binary bytes": (lambda p: p.write_bytes(b"\xff\xfe\x00\x01" * 64), "UTF-8"),
    "a fifo": (lambda p: os.mkfifo(p), "regular file"),
    "a symlink to a device": (lambda p: p.symlink_to("/dev/zero"), "regular file"),
    "one token twice": (
        lambda p: p.write_text("tokens:\n" + entry_yaml("t", "a") + entry_yaml("t", "b")),
        "tokens[1]",
    ),
}


@pytest.mark.parametrize("case", list(BROKEN_AT_START))
def test_serve_refuses_to_start_on_a_token_file_it_cannot_use(tmp_path: Path, case: str) -> None:
    path = tmp_path / "tokens.yaml"
    make, word = BROKEN_AT_START[case]
    make(path)
    try:
        done = cli(
            "serve",
            "--db",
            str(tmp_path / "s.db"),
            "--port",
            "0",
            "--no-embedder",
            "--token-file",
            str(path),
            timeout=30,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"serve started on a token file that is {case}")
    one_line_refusal(done, word, str(path))
    assert "listening" not in done.stdout


@pytest.mark.parametrize("case", ["bad yaml", "wrong shape", "binary bytes", "a folder", "one token twice"])
def test_token_issue_refuses_a_file_it_cannot_read_and_leaves_it_alone(tmp_path: Path, case: str) -> None:
    path = tmp_path / "tokens.yaml"
    make, word = BROKEN_AT_START[case]
    make(path)
    before = None if path.is_dir() else path.read_bytes()
    done = cli("token", "issue", "--workspace", "acme", "--user", "bob", "--token-file", str(path))
    one_line_refusal(done, word)
    assert done.stdout == ""
    assert path.is_dir() if before is None else path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tokens.yaml"]  # no stray temporary file


def test_concurrent_issues_lose_no_token(tmp_path: Path) -> None:
    """Each printed token is a promise: two `token issue` at once must both land in the file."""
    path = tmp_path / "tokens.yaml"
    issued: list[str] = []
    errors: list[BaseException] = []

    def issue_some() -> None:
        try:
            for _ in range(10):
                issued.append(issue_opaque(path, "acme", "bob"))
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=issue_some) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors, errors
    auth = Authenticator(ServiceSettings(db=str(tmp_path / "x.db"), token_file=path))
    missing = [t for t in issued if _refused(auth, t)]
    assert len(issued) == 80 and not missing, (
        f"{len(missing)} of {len(issued)} issued tokens are not in the file"
    )


def _refused(auth: Authenticator, token: str) -> bool:
    try:
        auth.caller("Bearer " + token)
    except Exception:
        return True
    return False
