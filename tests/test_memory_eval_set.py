"""The labelled non-chat set of bench/memory_eval.py is whole: every answer names a memory of the set,
every memory answers some question, no question is asked twice, and it is several hundred strong."""

from __future__ import annotations

import json
from pathlib import Path

DATA = Path(__file__).resolve().parent.parent / "bench" / "data" / "memory_eval.json"


def test_the_memory_eval_set_is_consistent() -> None:
    data = json.loads(DATA.read_text())
    ids = [m["id"] for m in data["memories"]]
    assert len(ids) == len(set(ids))
    assert {m["kind"] for m in data["memories"]} == {"learning", "chunk"}
    questions = data["questions"]
    assert len(questions) >= 300
    assert len({q["question"] for q in questions}) == len(questions)
    relevant = [r for q in questions for r in q["relevant"]]
    assert set(relevant) == set(ids)  # each memory answers something, each answer is a memory
    assert all(q["relevant"] for q in questions)
