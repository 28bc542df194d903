"""Recall over a real ingested document (this repository's gate design note): chunks start and end at
sentence boundaries, and the answer quotes whole sentences, each once, though chunks overlap."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tinymemory import Memory
from tinymemory.lifecycle.chunking import chunk

DOCUMENT = Path(__file__).resolve().parent.parent / "docs" / "architecture" / "gate.md"
QUESTIONS = (
    "What does the gate publish?",
    "How many distinct users must share a fact?",
    "What happens to a personal fact?",
    "Why is a share kept private?",
    "Which candidates are rejected?",
)
_BLOCK = re.compile(r"^(?:#{1,6} |[-*+] |\d+\. |\||>|```)")


def _squash(text: str) -> str:
    return " ".join(text.split())


def _fenced_lines(text: str) -> set[str]:
    """The lines of the document's fenced blocks (a diagram, a command): quoted as lines, not sentences."""
    out: set[str] = set()
    inside = False
    for line in text.splitlines():
        if line.strip().startswith("```"):
            inside = not inside
        elif inside:
            out.add(_squash(line))
    return out


def test_every_chunk_starts_a_sentence_or_a_block() -> None:
    text = DOCUMENT.read_text(encoding="utf-8")
    pieces = chunk(text, "gate", max_chars=1_200, overlap=150)
    assert len(pieces) > 5
    flat = _squash(text)
    for piece in pieces:
        head = _squash(piece.text)[:80]
        at = flat.find(head)
        assert at >= 0, head
        before = flat[:at].rstrip()
        first_line = piece.text.split("\n", 1)[0]
        starts_paragraph = re.search(r"(?:\A|\n\s*\n|\n#{1,6} [^\n]*\n)" + re.escape(first_line), text)
        assert not before or before[-1] in ".!?" or starts_paragraph is not None, (
            f"chunk {piece.index} starts mid-sentence: {head!r}"
        )


@pytest.fixture(scope="module")
def recalled(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    folder = tmp_path_factory.mktemp("passages")
    with Memory(folder / "m.db", embedder=None) as mem:
        assert mem.ingest(DOCUMENT, source="docs").stored == ["gate.md"]
        return {q: mem.recall(q).answer for q in QUESTIONS}


@pytest.mark.parametrize("question", QUESTIONS)
def test_the_answer_quotes_whole_sentences_each_once(recalled: dict[str, str], question: str) -> None:
    answer = recalled[question]
    assert answer
    text = DOCUMENT.read_text(encoding="utf-8")
    flat, fenced = _squash(text), _fenced_lines(text)
    quotes = [_squash(q) for q in re.split(r"(?<=[.!?])\s+(?=\S)", answer)]
    assert len(quotes) == len(set(quotes)), f"a sentence repeats: {answer!r}"
    for quote in quotes:
        said = quote if quote in flat or not quote.endswith(".") else quote[:-1]  # a period it was given
        assert said in flat, f"not the document's words: {quote!r}"
        assert said in fenced or not quote[0].islower(), f"a fragment: {quote!r} in {answer!r}"
