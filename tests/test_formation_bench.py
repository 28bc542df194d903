"""bench/formation.py: its scoring on a small labelled set and a small LoCoMo-shaped file, by the rules and
through the LLM path against a real chat-completions server on 127.0.0.1 giving scripted extractions
(the server stands in for a model; the belief build, engine and scoring are the real ones)."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from chat_server import ChatRequest, LocalChatServer, reply

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
import formation as bench

THREADS = {
    "threads": [
        {
            "topic": "move",
            "turns": [
                {"text": "I live in Lisbon.", "class": "update", "expect": [["profile/home", "Lisbon"]]},
                {"text": "What's the weather like there?", "class": "none", "expect": []},
                {
                    "text": "We relocated to Madrid in May.",
                    "class": "update",
                    "expect": [["profile/home", "Madrid"]],
                },
            ],
            "final": {"profile/home": "Madrid"},
        },
        {
            "topic": "allergy",
            "turns": [
                {
                    "text": "I'm allergic to shellfish.",
                    "class": "health",
                    "expect": [["health/allergy shellfish", "shellfish"]],
                }
            ],
            "final": {},
        },
    ]
}

LOCOMO = [
    {
        "sample_id": "conv-x",
        "conversation": {
            "speaker_a": "Ana",
            "speaker_b": "Rui",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": [
                {
                    "speaker": "Ana",
                    "dia_id": "D1:1",
                    "text": "Hi Rui! I adopted a dog named Pepper last week.",
                },
                {"speaker": "Rui", "dia_id": "D1:2", "text": "Wow, congrats! What breed?"},
                {"speaker": "Ana", "dia_id": "D1:3", "text": "Thanks!"},
                {"speaker": "Rui", "dia_id": "D1:4", "text": "I live in Porto now, by the way."},
            ],
        },
        "observation": {
            "session_1_observation": {
                "Ana": [["Ana adopted a dog named Pepper.", "D1:1"]],
                "Rui": [["Rui lives in Porto.", "D1:4"], ["Rui likes dogs.", "D1:2"]],
            }
        },
        "qa": [],
    }
]


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    labelled, locomo = tmp_path / "labelled.json", tmp_path / "locomo.json"
    labelled.write_text(json.dumps(THREADS))
    locomo.write_text(json.dumps(LOCOMO))
    return labelled, locomo


def scripted_model(request: ChatRequest) -> tuple[int, bytes]:
    """A stand-in model: a home for each turn naming a capitalised place after "in"/"to", an allergy for
    "allergic to X", a pet for "named X"; nothing else."""
    assert request.system.startswith("Extract durable learnings")
    learnings = []
    for line in request.user.splitlines():
        m = re.match(r"^\[(\d+)\] (.*)$", line)
        if not m:
            continue
        i, text = int(m.group(1)), m.group(2)
        if place := re.search(r"\b(?:in|to) ([A-Z]\w+)", text):
            learnings.append(
                {
                    "text": f"The user lives in {place.group(1)}.",
                    "kind": "fact",
                    "turns": [i],
                    "about_kind": "profile",
                    "about_key": "home",
                    "confidence": 0.9,
                }
            )
        if allergy := re.search(r"allergic to (\w+)", text):
            learnings.append(
                {
                    "text": f"The user is allergic to {allergy.group(1)}.",
                    "kind": "fact",
                    "turns": [i],
                    "about_kind": "health",
                    "about_key": f"allergy {allergy.group(1)}",
                    "confidence": 0.9,
                }
            )
        if pet := re.search(r"named ([A-Z]\w+)", text):
            learnings.append(
                {
                    "text": f"The user has a dog named {pet.group(1)}.",
                    "kind": "fact",
                    "turns": [i],
                    "about_kind": "pet",
                    "about_key": pet.group(1).lower(),
                    "confidence": 0.9,
                }
            )
    return reply(json.dumps({"learnings": learnings}))


@pytest.fixture
def model(monkeypatch: pytest.MonkeyPatch) -> Iterator[LocalChatServer]:
    server = LocalChatServer(scripted_model)
    monkeypatch.setenv("TINYMEMORY_LLM_BASE_URL", server.url)
    monkeypatch.setenv("TINYMEMORY_LLM_MODEL", "scripted")
    monkeypatch.delenv("TINYMEMORY_LLM_API_KEY", raising=False)
    yield server
    server.close()


async def test_the_rules_path_scores_classes_updates_and_observations(
    files: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    labelled, locomo = files
    assert await bench.main(["--no-write", "--labelled", str(labelled), "--locomo", str(locomo)]) == 0
    out = capsys.readouterr().out
    assert "Measured with the rules (no LLM)" in out
    # the tune half is the first thread (the move): both homes found, Madrid is the active one
    assert "| update | 1.00 | 1.00 of 2 |" in out
    assert "tune 1/1 (1.00)" in out
    # LoCoMo: Ana's dog (D1:1) and Rui's home (D1:4) are cited, Rui's liking dogs is not: 2 of 3
    row = next(line for line in out.splitlines() if line.startswith("| tune (conv 0-1)"))
    assert row.split("|")[3:5] == [" 3 ", " 0.67 "], row


async def test_the_llm_path_runs_the_same_bench_through_the_model(
    files: tuple[Path, Path], model: LocalChatServer, capsys: pytest.CaptureFixture[str]
) -> None:
    labelled, locomo = files
    assert (
        await bench.main(["--no-write", "--llm", "--labelled", str(labelled), "--locomo", str(locomo)]) == 0
    )
    out = capsys.readouterr().out
    assert "Measured with the LLM path (scripted)" in out
    assert model.requests and all(r.system.startswith("Extract durable") for r in model.requests)
    assert "tune 1/1 (1.00)" in out, "the model's Madrid supersedes its Lisbon"
    assert "| health | n/a | n/a of 0 | 1.00 | 1.00 of 1 |" in out
    row = next(line for line in out.splitlines() if line.startswith("| tune (conv 0-1)"))
    assert row.split("|")[3:5] == [" 3 ", " 0.67 "], row


async def test_llm_flag_without_a_configured_model_says_so(
    files: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("TINYMEMORY_LLM_BASE_URL", raising=False)
    monkeypatch.delenv("TINYMEMORY_LLM_MODEL", raising=False)
    labelled, locomo = files
    assert (
        await bench.main(["--no-write", "--llm", "--labelled", str(labelled), "--locomo", str(locomo)]) == 2
    )
    assert "no LLM configured" in capsys.readouterr().err
