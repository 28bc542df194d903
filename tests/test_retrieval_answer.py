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


def test_quotes_without_final_punctuation_do_not_run_together() -> None:
    hits = [hit(0, "Dana prefers tea in the morning"), hit(1, "Dana drinks coffee after lunch")]
    ext = extract("what does Dana drink?", hits)
    assert ext.answer == "Dana prefers tea in the morning. Dana drinks coffee after lunch"
    lines = [hit(0, "deploy on fridays\ndeploy needs approval")]
    assert extract("deploy", lines).answer == "deploy on fridays. deploy needs approval"


def test_quotes_ending_in_punctuation_keep_it_and_the_budget_still_holds() -> None:
    hits = [hit(0, "Is the deploy on Friday?"), hit(1, "The deploy steps:"), hit(2, "deploy with care")]
    ext = extract("deploy", hits)
    assert ext.answer == "Is the deploy on Friday? The deploy steps: deploy with care"
    many = [hit(i, f"deploy note number {i}") for i in range(5)]
    for budget in range(10, 120, 7):
        assert len(extract("deploy note", many, budget=budget).answer) <= budget
