"""One fetch's query, analysed once: what every stage from the plan to the reranker reads of it.

The plan asks whether the query names a time, storage and the rerankers ask for its terms, a lexical
read whether it names a topic at all; each is a pure function of the text (and the analyzer), so the
core reads them once per fetch and hands this object down instead of the bare string.
"""

from __future__ import annotations

from dataclasses import dataclass

from tinymemory.retrieval.dates import mentions_time
from tinymemory.retrieval.text import Analyzer


@dataclass(frozen=True, slots=True)
class QueryAnalysis:
    """`text` as given; `terms` its distinct query terms (`Analyzer.query_terms`); `content` whether it
    names a topic (`Analyzer.has_content_words`); `timed` whether it holds a time expression the date
    reader resolves (`dates.mentions_time`)."""

    text: str
    terms: tuple[str, ...]
    content: bool
    timed: bool

    @classmethod
    def of(cls, text: str, analyzer: Analyzer) -> QueryAnalysis:
        """`text` read by `analyzer` and the date reader."""
        return cls(
            text, tuple(analyzer.query_terms(text)), analyzer.has_content_words(text), mentions_time(text)
        )


def analysed(query: str | QueryAnalysis, analyzer: Analyzer) -> QueryAnalysis:
    """`query` as an analysis: itself when it already is one."""
    return query if isinstance(query, QueryAnalysis) else QueryAnalysis.of(query, analyzer)


def names_time(query: str | QueryAnalysis) -> bool:
    """`mentions_time` of the query, read from its analysis when it has one."""
    return query.timed if isinstance(query, QueryAnalysis) else mentions_time(query)
