"""Both examples run to completion with no LLM and no network, and show what they promise."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def run(name: str, arg: Path) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TINYMEMORY_LLM_")}
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / name), str(arg)],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_agent_loop(tmp_path: Path) -> None:
    out = run("agent_loop.py", tmp_path / "agent.db")
    first_brief, final_brief = out.split("=== session 2")[1], out.split("=== next session")[1]
    assert "The user prefers tea." in first_brief.split("user:")[0]
    assert "The user prefers coffee." in final_brief and "prefers tea" not in final_brief
    assert "Always answer in British English." in final_brief
    assert "superseded 1" in out


def test_brain(tmp_path: Path) -> None:
    out = run("brain.py", tmp_path)
    assert "second ingest: unchanged 3, stored 0" in out
    assert "after an edit: replaced ['notes/standup.txt']" in out
    memory_lines = [line for line in out.splitlines() if line.startswith("- ")]
    assert any("Standup moved to 10:00" in line for line in memory_lines)
    # only the memory lines: the brief's header carries a timestamp that may read 9:30
    assert not any("9:30" in line for line in memory_lines), memory_lines
    assert "Book leave in the HR portal." in out
