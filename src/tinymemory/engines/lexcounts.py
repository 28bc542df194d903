"""What both SQL engines' lexical statistics share: the terms of analysed columns and the in-memory
tally of one write transaction's changes (each engine's lexstats applies it to its own tables)."""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterable


def terms(*columns: str) -> list[str]:
    """The tokens of analysed column texts, split on whitespace: Postgres's counts (SQLite counts the
    terms as FTS5's tokenizer would split them, `sqlite.lexstats.postings_of`, which splits some
    non-ASCII text further)."""
    out: list[str] = []
    for text in columns:
        out.extend(text.split())
    return out


class Counts:
    """The statistics' changes within one write transaction, kept in memory until an engine applies
    them once: a batch of 2,000 items then costs one upsert per distinct (term, namespace), not one per
    item and term. Each engine's `Deltas` adds its own `flush`."""

    def __init__(self) -> None:
        self.df: Counter[tuple[str, str]] = Counter()
        self.docs: Counter[str] = Counter()
        self.tokens: Counter[str] = Counter()

    def count(self, ns: str, words: Iterable[str], df: int, docs: int, tokens: int) -> None:
        if df == 1:  # a row indexed: counted in one pass (Counter.update counts an iterable natively)
            distinct = words if isinstance(words, dict) else set(words)  # a row's postings: distinct terms
            self.df.update(zip(distinct, itertools.repeat(ns)))
        elif df:
            for t in set(words):
                self.df[(t, ns)] += df
        self.docs[ns] += docs
        self.tokens[ns] += tokens
