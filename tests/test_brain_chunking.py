"""Chunking along headings and paragraphs with overlap: size bounds, coverage, titles (hypothesis)."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from tinymemory.lifecycle.chunking import chunk, sections
from tinymemory.lifecycle.documents import parse

words = st.text(alphabet="abcdefghij", min_size=1, max_size=12)
paragraph = st.lists(words, min_size=1, max_size=60).map(" ".join)
heading = st.tuples(st.integers(1, 3), st.text(alphabet="ABCDEFGH", min_size=1, max_size=8))
block = st.one_of(paragraph, heading.map(lambda h: "#" * h[0] + " " + h[1]))
document = st.lists(block, min_size=1, max_size=25).map("\n\n".join)


@settings(max_examples=150, deadline=None)
@given(text=document, max_chars=st.integers(100, 400), overlap=st.integers(0, 49))
def test_chunks_are_bounded_and_cover_every_word(text: str, max_chars: int, overlap: int) -> None:
    chunks = chunk(text, "Doc", max_chars=max_chars, overlap=overlap)
    assert all(len(c.text) <= max_chars for c in chunks)
    assert [c.index for c in chunks] == list(range(len(chunks)))
    body_words = [w for line in text.splitlines() if not line.startswith("#") for w in line.split()]
    chunk_words = {w for c in chunks for w in c.text.split()}
    assert set(body_words) <= chunk_words
    assert all(c.title.startswith("Doc") for c in chunks)


def test_overlap_carries_the_last_whole_sentences_of_the_previous_chunk() -> None:
    paras = [" ".join(f"Item w{i}_{j} is kept." for j in range(5)) for i in range(8)]
    chunks = chunk("\n\n".join(paras), "Doc", max_chars=200, overlap=40)
    assert len(chunks) > 2
    for prev, nxt in itertools.pairwise(chunks):
        last = ". ".join(prev.text.rsplit(". ", 2)[-2:])  # its last two sentences: 37 characters
        assert nxt.text.startswith(last + "\n\n"), (prev.text, nxt.text)


def test_no_overlap_when_the_last_sentence_is_longer_than_it() -> None:
    paras = [" ".join(f"w{i}_{j}" for j in range(12)) + "." for i in range(8)]
    chunks = chunk("\n\n".join(paras), "Doc", max_chars=200, overlap=40)
    assert len(chunks) > 2
    starts = {p.split()[0] for p in paras}
    assert all(c.text.split()[0] in starts for c in chunks)  # every chunk starts a paragraph


def test_heading_paths_nest_and_reset() -> None:
    text = "# Top\n\nintro\n\n## A\n\na text\n\n### A1\n\ndeep\n\n## B\n\nb text\n"
    assert [t for t, _ in sections(text, "Top")] == ["Top", "Top > A", "Top > A > A1", "Top > B"]


def test_fenced_code_is_not_a_heading() -> None:
    text = "# Doc\n\n```\n# not a heading\n```\n"
    assert [t for t, _ in sections(text, "Doc")] == ["Doc"]


def test_html_becomes_headings_and_paragraphs() -> None:
    parsed = parse(
        "<title>T</title><h2>Part</h2><p>One <b>bold</b> word.</p><a href='x.zip'>zip</a>", "text/html", "f"
    )
    assert parsed.title == "T"
    assert "## Part" in parsed.text and "One bold word." in parsed.text
    assert parsed.links == (("attachment", "x.zip"),)
