"""The demo is a user's first impression: each of its searches must put the right memory first.

Runs the demo's own tour on a real SQLite file with the default embedder and reads what it prints.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from rich.console import Console

from tinymemory.cli.demo_cmd import run_demo
from tinymemory.engines.sqlite import SqliteEngine


def first_row(out: str, title: str) -> str:
    """The text of the first row of the table printed under `title`."""
    block = out[out.index(title) :]
    rows = [line for line in block.splitlines() if re.match(r"^│\s*\d\.\d+\s*│", line)]
    assert rows, f"no rows under {title!r}"
    return rows[0]


@pytest.mark.asyncio
async def test_every_demo_search_ranks_the_right_memory_first(tmp_path: Path) -> None:
    engine = SqliteEngine(tmp_path / "demo.db")
    console = Console(record=True, width=200, force_terminal=False)
    try:
        await run_demo(engine, console)
    finally:
        await engine.close()
    out = console.export_text()
    question = "What coffee does Dana like?"
    # Lexical alone cannot know: "coffee" is not a word of the right memory (it says "flat whites").
    for mode in ("semantic", "hybrid"):
        assert "oat-milk flat whites" in first_row(out, f"fetch ({mode}): {question}"), mode
    assert re.search(r"recall now: Dana switched to black filter coffee", out)
    assert re.search(r"recall as of day 10: Dana drinks oat-milk flat whites", out)
    assert re.search(r'memory_fetch -> "Dana wants the kettle piece shortened to 600 words\."', out)
