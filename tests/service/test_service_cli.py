"""`tinymemory token issue`, `tinymemory agents ...` and `tinymemory serve`'s flag errors, as a user runs
them: real processes, real files, the service's own verifier."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from engines import store_target
from tinymemory.service.auth import Authenticator, CallerKind
from tinymemory.service.errors import Unauthorized
from tinymemory.service.settings import ServiceSettings

SECRET = "cli-secret-" + "y" * 40
TINYMEMORY = [sys.executable, "-m", "tinymemory"]


def cli(
    *argv: str, env: dict[str, str] | None = None, timeout: int = 120
) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith("TINYMEMORY_")}
    base.update(env or {})
    return subprocess.run(
        [*TINYMEMORY, *argv], capture_output=True, text=True, env=base, timeout=timeout, check=False
    )


def refused(done: subprocess.CompletedProcess[str], *words: str) -> None:
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr
    message = json.loads(done.stderr.strip().splitlines()[-1])["message"]
    for word in words:
        assert word in message, message


def test_issued_jwt_verifies_as_that_user(tmp_path: Path) -> None:
    done = cli(
        "token",
        "issue",
        "--workspace",
        "acme",
        "--user",
        "alice",
        "--agent",
        "helper",
        env={"TINYMEMORY_JWT_SECRET": SECRET},
    )
    assert done.returncode == 0, done.stderr
    caller = Authenticator(ServiceSettings(db=str(tmp_path / "x.db"), jwt_secret=SECRET)).caller(
        "Bearer " + done.stdout.strip()
    )
    assert (caller.kind, caller.workspace, caller.user, caller.agent, caller.admin) == (
        CallerKind.USER,
        "acme",
        "alice",
        "helper",
        False,
    )


def test_an_api_key_names_no_user(tmp_path: Path) -> None:
    done = cli("token", "issue", "--workspace", "acme", env={"TINYMEMORY_JWT_SECRET": SECRET})
    caller = Authenticator(ServiceSettings(db=str(tmp_path / "x.db"), jwt_secret=SECRET)).caller(
        "Bearer " + done.stdout.strip()
    )
    assert caller.kind is CallerKind.API_KEY and caller.user is None


def test_token_file_tokens_verify_and_the_file_holds_no_token(tmp_path: Path) -> None:
    path = tmp_path / "tokens.yaml"
    done = cli("token", "issue", "--workspace", "acme", "--user", "bob", "--token-file", str(path))
    assert done.returncode == 0, done.stderr
    token = done.stdout.strip()
    assert token not in path.read_text()
    assert oct(path.stat().st_mode & 0o777) == "0o600"
    auth = Authenticator(ServiceSettings(db=str(tmp_path / "x.db"), token_file=path))
    assert auth.caller("Bearer " + token).user == "bob"
    with pytest.raises(Unauthorized):
        auth.caller("Bearer " + token + "x")


def test_token_issue_refuses_clearly() -> None:
    refused(cli("token", "issue", "--workspace", "acme", "--user", "a"), "no HS256 secret")
    env = {"TINYMEMORY_JWT_SECRET": SECRET}
    refused(cli("token", "issue", "--workspace", "acme", "--ttl", "forever", env=env), "--ttl")
    refused(cli("token", "issue", "--workspace", "no spaces", env=env), "workspace")
    refused(cli("token", "issue", "--workspace", "acme", env={"TINYMEMORY_JWT_SECRET": "short"}), "32 bytes")


def test_agents_registry_round_trip(tmp_path: Path) -> None:
    db = store_target(tmp_path / "agents.db")
    made = cli("agents", "put", "--db", db, "--workspace", "acme", "support", "--notes", "Be brief.")
    assert made.returncode == 0, made.stderr
    first = json.loads(made.stdout)
    assert first["created"] is True and first["agent"]["notes"] == "Be brief."
    again = json.loads(
        cli("agents", "put", "--db", db, "--workspace", "acme", "support", "--no-tools").stdout
    )
    assert again["created"] is False and again["agent"]["id"] == first["agent"]["id"]
    assert again["agent"]["tools"] is False
    listed = json.loads(cli("agents", "list", "--db", db, "--workspace", "acme").stdout)["agents"]
    assert [a["name"] for a in listed] == ["support"]
    assert json.loads(cli("agents", "list", "--db", db, "--workspace", "other").stdout)["agents"] == []
    gone = cli("agents", "delete", "--db", db, "--workspace", "acme", "support")
    assert gone.returncode == 0, gone.stderr
    refused(cli("agents", "delete", "--db", db, "--workspace", "acme", "support"), "no agent named")
    refused(cli("agents", "put", "--db", db, "--workspace", "acme", "bad name"), "name")


def test_serve_refuses_bad_settings_before_listening(tmp_path: Path) -> None:
    db = str(tmp_path / "s.db")
    refused(cli("serve", "--db", db, "--port", "http"), "--port")
    refused(cli("serve", "--db", db, "--port", "70000"), "port")
    refused(cli("serve", "--db", db, "--policy", str(tmp_path / "missing.yaml")), "missing.yaml")
    refused(cli("serve", "--db", db, "--jwt-public-key", str(tmp_path / "nokey.pem")), "public key")
    refused(cli("serve", "--db", db, "--workers", "0"), "--workers", "1 to 64")
    refused(cli("serve", "--db", db, "--workers", "many"), "--workers")
    refused(cli("serve", "--db", db, env={"TINYMEMORY_WORKERS": "-2"}), "--workers")
    refused(cli("serve", "--db", db, "--gate-seconds", "soon"), "--gate-seconds")
    refused(cli("serve", "--db", db, "--gate-seconds", "-1"), "gate_seconds")
