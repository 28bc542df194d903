"""A command that needs an extra's package refuses in one line naming the extra when the package is
missing, in a process whose import system hides it (as a core install would), and writes nothing."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

RUNNER = textwrap.dedent(
    """
    import importlib.abc, sys

    hidden = set(sys.argv[1].split(","))

    class Without(importlib.abc.MetaPathFinder):  # as if those packages were not installed
        def __init__(self, inner):
            self.inner = inner

        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in hidden:
                return None
            return self.inner.find_spec(name, path, target)

    sys.meta_path[:] = [Without(f) for f in sys.meta_path]
    from tinymemory.cli import main

    sys.exit(main(sys.argv[2:]))
    """
)


def run_without(hidden: str, *argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", RUNNER, hidden, *argv],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.mark.parametrize(
    ("hidden", "argv", "op"),
    [
        ("fastapi", ("serve", "--dev", "--port", "0"), "serve"),
        ("jwt", ("token", "issue", "--workspace", "acme", "--token-file", "tokens.yaml"), "token issue"),
    ],
)
def test_a_missing_extra_is_named(tmp_path: Path, hidden: str, argv: tuple[str, ...], op: str) -> None:
    done = run_without(hidden, *argv, cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    error = json.loads(done.stderr.strip().splitlines()[-1])
    assert error["error"] == "unsupported"
    assert error["message"].startswith(f"{op}: ") and "tinymemory[service]" in error["message"]
    assert hidden in error["message"]
    assert list(tmp_path.iterdir()) == []  # nothing written


def test_with_the_extra_the_same_token_command_works(tmp_path: Path) -> None:
    done = run_without(
        "nothing", "token", "issue", "--workspace", "acme", "--token-file", "t.yaml", cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "t.yaml").exists()
