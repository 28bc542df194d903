"""The Analyzer: what gets indexed and how queries are read (engine-independent)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from tinymemory.retrieval.text import Analyzer, default_analyzer, tokenize

an = Analyzer()


def test_stems_drops_stop_words_and_keeps_numbers() -> None:
    assert an.index_terms("The servers were running version 42 in 2024") == [
        "server",
        "run",
        "version",
        "42",
        "2024",
    ]


def test_normalises_case_width_and_diacritics() -> None:
    assert an.index_terms("Café ÉCOLE") == an.index_terms("cafe ecole")
    assert tokenize("ＡＢＣ１２３") == ["abc123"]


def test_query_terms_are_distinct_and_fall_back_to_stop_words() -> None:
    assert an.query_terms("running runs ran runner") == ["run", "ran", "runner"]
    assert an.query_terms("what is it") == ["what", "is", "it"]
    assert an.query_terms("!!! ...") == []
    assert an.index_terms("To be or not to be") == ["to", "be", "or", "not", "to", "be"]


def test_index_text_joins_terms() -> None:
    assert an.index_text("Databases, indexing!") == "databas index"
    assert default_analyzer() is default_analyzer()


@given(st.text(max_size=300))
def test_terms_are_plain_tokens_a_unicode61_tokenizer_keeps_whole(text: str) -> None:
    terms = an.index_terms(text)
    for term in terms:
        assert term and term == term.strip() and " " not in term and '"' not in term
    assert an.index_text(text).split() == terms


@given(st.text(max_size=200))
def test_index_terms_cover_query_terms_of_the_same_text(text: str) -> None:
    # A memory must always match a query that repeats its own content words.
    assert set(an.query_terms(text)) == set(an.index_terms(text))
