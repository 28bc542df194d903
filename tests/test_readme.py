"""Every snippet in README.md runs as written: Python blocks as scripts, shell blocks line by line in README
order, JSON blocks parse. They run in a fresh folder with TINYMEMORY_HOME pointing there, so nothing
touches the user's store."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tinymemory.cli import build_parser
from tinymemory.policy import MemoryPolicy

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.S | re.M)
BLOCKS = [
    (lang, body, README[: m.start()].count("\n") + 1)
    for m in FENCE.finditer(README)
    for lang, body in [m.groups()]
]


def blocks(lang: str) -> list[Any]:
    return [pytest.param(body, id=f"line{line}") for kind, body, line in BLOCKS if kind == lang]


def clean_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TINYMEMORY_")}
    env["TINYMEMORY_HOME"] = str(home)
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    return env


def test_the_readme_has_snippets_of_every_kind() -> None:
    # `text` blocks show output or commands that need a running service; they are not run here (the
    # service's own tests drive those routes).
    assert {kind for kind, _, _ in BLOCKS} == {"python", "sh", "json", "text", "yaml"}


@pytest.mark.parametrize("code", blocks("yaml"))
def test_yaml_block_is_a_policy_the_service_accepts(code: str) -> None:
    # the README's yaml blocks are policy files: each must load, and set what it shows
    policy = MemoryPolicy.from_text(code, source="README")
    assert policy.spec.model_dump(exclude_defaults=True), code


@pytest.mark.parametrize("code", blocks("python"))
def test_python_block_runs_as_a_script(tmp_path: Path, code: str) -> None:
    (tmp_path / "snippet.py").write_text(code, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "snippet.py"],
        cwd=tmp_path,
        env=clean_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr


def shell_lines() -> list[list[str]]:
    """Every command line of every shell block, in README order, as argv (comments dropped)."""
    return [
        argv
        for kind, body, _ in BLOCKS
        if kind == "sh"
        for raw in body.splitlines()
        if (argv := shlex.split(raw, comments=True))
    ]


def test_shell_blocks_run_in_order_as_a_reader_would(tmp_path: Path) -> None:
    """One folder and one environment for all of them: the walk-through continues from block to block."""
    env = clean_env(tmp_path)
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    ran = 0
    for argv in shell_lines():
        line = shlex.join(argv)
        if argv[0] == "make":  # not run here (`make test` runs this very file); the targets must exist
            assert all(re.search(rf"^{re.escape(t)}:", makefile, re.M) for t in argv[1:]), line
            continue
        if argv[0] == "export":
            name, _, value = argv[1].partition("=")
            env[name] = value
            continue
        assert argv[0] == "tinymemory", f"a README shell line this test cannot run: {line}"
        done = subprocess.run(
            argv, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300, check=False
        )
        assert done.returncode == 0, (line, done.stderr)
        ran += 1
        if argv[1] == "demo":
            continue
        out = json.loads(done.stdout)
        if argv[1] == "get":
            assert out["missing"] == [] and out["items"], (line, out)
        if argv[1] == "forget":
            assert out["forgotten"] and out["skipped"] == [], (line, out)
        if argv[1] in ("fetch", "recall", "list"):
            assert out.get("hits", out.get("items", out.get("citations"))), (line, out)
        if argv[1] == "purge":
            assert out["purged"] > 0, (line, out)
    assert ran > 10


@pytest.mark.parametrize("text", blocks("json"))
def test_json_block_parses_and_its_mcp_arguments_are_accepted(text: str) -> None:
    config = json.loads(text)
    for server in config["mcpServers"].values():
        if "url" in server:  # the service's gateway, over streamable HTTP
            assert server["url"].endswith("/mcp") and server["headers"]["Authorization"].startswith("Bearer ")
            continue
        assert server["command"] == "tinymemory"
        args = build_parser().parse_args(server["args"])
        assert args.command == "mcp"
