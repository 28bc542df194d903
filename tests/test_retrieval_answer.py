"""The extractive answerer: quotes the best-matching sentences, deterministic, within budget."""

from __future__ import annotations

from datetime import UTC, datetime

from tinymemory.api import Hit, ItemKind, ItemMeta, MemoryItem
from tinymemory.retrieval.answer import Answerer, ExtractiveAnswerer, extract, split_sentences

NOW = datetime(2024, 1, 1, tzinfo=UTC)


def hit(i: int, text: str) -> Hit:
    return Hit(MemoryItem(f"m{i}", ItemKind.LEARNING, text, ItemMeta(), None, valid_from=NOW), 1.0 - i / 10)


HITS = [
    hit(0, "The deploy runs on Fridays. Alice owns the deploy pipeline. Lunch is at noon."),
    hit(1, "Bob prefers tea. The staging deploy uses a separate pipeline!"),
    hit(2, "Nothing relevant here."),
]


async def test_picks_overlapping_sentences_in_hit_order() -> None:
    answerer = ExtractiveAnswerer()
    assert isinstance(answerer, Answerer)
    text = await answerer.answer("who owns the deploy pipeline?", HITS, None)
    assert text.startswith("Alice owns the deploy pipeline.")
    assert "Lunch" not in text and "tea" not in text
    ext = extract("who owns the deploy pipeline?", HITS)
    assert ext.answer == text and ext.used[0] == "m0" and "m2" not in ext.used


def test_budget_is_respected_and_long_sentences_are_clipped() -> None:
    long = hit(0, "deploy " * 200)
    ext = extract("deploy", [long, *HITS], budget=100)
    assert len(ext.answer) <= 100 and ext.answer.endswith("…")
    assert len(extract("deploy pipeline", HITS, budget=80).answer) <= 80


def test_no_overlap_quotes_the_top_hit_and_no_hits_is_empty() -> None:
    assert extract("quantum chromodynamics", HITS).answer == "The deploy runs on Fridays."
    assert extract("anything", []).answer == ""
    assert extract("anything", []).used == ()


def test_sentence_split() -> None:
    assert split_sentences("One. Two!\nThree? four") == ["One.", "Two!", "Three?", "four"]
