"""What the reranker knows about each pooled candidate: a few numbers read from the two candidate lists,
the candidate's own light columns and its neighbours in the pool.

Every feature depends only on the read's own candidates and its reach's statistics, so a score reveals
nothing from outside the reach. The names are the keys of the reranker's weights (rerank_model.py).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence, Set
from functools import lru_cache
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from tinymemory.retrieval.rerank import coverages
from tinymemory.retrieval.speakers import is_named, query_words, speaker_name, speakers
from tinymemory.retrieval.temporal import time_question

FEATURES = (
    "lex_norm",  # lexical score, min-max normalised over the lexical pool (0 when absent)
    "sem_norm",  # cosine, min-max normalised over the semantic pool (0 when absent)
    "lex_rank",  # 1 / (1 + rank / 10) in the lexical list, ties sharing a rank (0 when absent)
    "sem_rank",  # the same in the semantic list
    "cosine",  # the cosine itself; absent rows get the pool's lowest (an upper bound)
    "lex_raw",  # the lexical score itself (bm25 mapped into [0, 1))
    "speaker",  # 1 when the query names who said the memory (speakers.py: source, tag, metadata, label)
    "coverage",  # the idf-weighted share of query terms the text holds
    "neighbour",  # best fused score of the turn just before or after it in its thread, if pooled
    "thread_best",  # best fused score of any other pooled memory of the same thread
    "thread_count",  # how many other pooled memories share its thread, / 10
    "question",  # 1 when the text is itself a question (it asks, it rarely tells)
    "length",  # log(1 + its number of index terms)
    "dated",  # its own event range lies in the question's days; with none named, the question asks a time
)

TIE = 1e-6
# each feature's column in feature_columns' array
(
    _LEX_NORM,
    _SEM_NORM,
    _LEX_RANK,
    _SEM_RANK,
    _COSINE,
    _LEX_RAW,
    _SPEAKER,
    _COVERAGE,
    _NEIGHBOUR,
    _THREAD_BEST,
    _THREAD_COUNT,
    _QUESTION,
    _LENGTH,
    _DATED,
) = range(len(FEATURES))
_TRAILING_NOTE = re.compile(r"\s*\[[^\[\]]*\]\s*$")


class Candidate(NamedTuple):
    """The columns of one pooled memory that the features read (a named tuple: one per candidate)."""

    text: str
    source: str | None = None  # the source's id, or its kind when it has no id
    thread: tuple[str, str] | None = None  # (namespace, thread id)
    before: int | None = None  # the previous active turn of its thread (row key), if any
    after: int | None = None  # the next one
    extra: str | None = None  # the row's `extra` column (tags, host metadata pairs) when it has any
    # its own event range, closed, in microseconds since the epoch (read from its text when stored, or
    # the host's): None when it carries none (its observed time alone does not count)
    event: tuple[int, int] | None = None

    def speakers(self) -> frozenset[str]:
        """Every name this memory's speaker goes by (speakers.speakers)."""
        return speakers(self.text, self.source, self.extra, self.thread is not None)


@lru_cache(maxsize=8192)
def is_question(text: str) -> bool:
    """Whether a text ends in a question mark (a trailing bracketed note such as an attachment aside).
    Cached: the same memories reach the pools of many reads, and the answer depends on the text alone."""
    return _TRAILING_NOTE.sub("", text).rstrip().endswith("?")


def named_sources(query: str, sources: set[str]) -> set[str]:
    """The sources the query names as a whole word, case-insensitively ("What did Ana say?" names `Ana`
    and `user:Ana`)."""
    words = query_words(query)
    return {s for s in sources if s and is_named(speaker_name(s), words)}


@lru_cache(maxsize=8192)
def row_reads(text: str, source: str | None, extra: str | None, turn: bool) -> tuple[frozenset[str], float]:
    """What the features read from a row's own columns alone: the names its speaker goes by
    (speakers.speakers) and its `question` feature. One cached call per pooled candidate, where a
    lookup in each cache cost more than the features themselves."""
    return speakers(text, source, extra, turn), 1.0 if is_question(text) else 0.0


def speaker_column(query: str, of: Sequence[frozenset[str]]) -> list[float] | None:
    """The speaker feature of each pooled candidate from the names its speaker goes by (`of`, in pool
    order): 1 when the query names any of them; None when it names none (the column stays 0)."""
    words = query_words(query)
    hit = {n for n in frozenset().union(*of) if is_named(n, words)}
    if not hit:
        return None
    return [0.0 if names.isdisjoint(hit) else 1.0 for names in of]


def own_event(event_from: int | None, event_to: int | None) -> tuple[int, int] | None:
    """A memory's own event range as (from, to), one end standing for both when the other is missing
    (temporal.span_of), or None when it has neither."""
    if event_from is None:
        return None if event_to is None else (event_to, event_to)
    return event_from, event_from if event_to is None else event_to


def dated_column(
    query: str, pooled: Sequence[Candidate], window: tuple[int, int] | None
) -> list[float] | None:
    """The `dated` feature of each pooled candidate: with a `window` (the question's days, half-open, in
    microseconds), 1 when the candidate's own event range overlaps it; with none, 1 when the question
    asks a time ("when", "how long", before / after: temporal.time_question) and the candidate carries
    an event range at all. None when the question neither names days nor asks a time (the column
    stays 0)."""
    if window is None:
        if time_question(query) is None:
            return None
        return [0.0 if c.event is None else 1.0 for c in pooled]
    start, end = window
    return [0.0 if c.event is None or not (c.event[0] < end and c.event[1] >= start) else 1.0 for c in pooled]


def ranks(scored: Sequence[tuple[int, float]]) -> dict[int, int]:
    """Each key's rank in a best-first list, equal scores sharing the rank (how many score higher), so
    that a tie broken by row order gives the reranker no difference to act on. Scores within a
    relative TIE of each other are equal: one vector scored in float32 by one engine and float64 by
    another must tie on both, while bm25 scores of a term found in every row, all near 1e-6, still
    order."""
    out: dict[int, int] = {}
    for i, (key, score) in enumerate(scored):
        prev = scored[i - 1][1] if i else None
        tied = prev is not None and abs(prev - score) <= TIE * max(abs(prev), abs(score))
        out[key] = out[scored[i - 1][0]] if tied else i
    return out


def feature_rows(
    lex: Sequence[tuple[int, float]],
    sem: Sequence[tuple[int, float]],
    candidates: Mapping[int, Candidate],
    *,
    query: str,
    query_terms: Sequence[str],
    term_weights: Mapping[str, float],
    terms_of: Mapping[int, Set[str]],
    window: tuple[int, int] | None = None,
) -> tuple[list[int], list[list[float]]]:
    """The pooled keys (lexical order first, then semantic) and one feature row each, in FEATURES order.
    `window` is the question's days ([start, end) in microseconds), when it names any."""
    keys, columns = feature_columns(
        lex,
        sem,
        candidates,
        query=query,
        query_terms=query_terms,
        term_weights=term_weights,
        terms_of=terms_of,
        window=window,
    )
    rows: list[list[float]] = columns.tolist()
    return keys, rows


def rank_array(scores: npt.NDArray[np.float64]) -> npt.NDArray[np.intp]:
    """`ranks` of a best-first list's scores, as an array in list order (the same ties)."""
    out = np.arange(len(scores), dtype=np.intp)
    if len(scores) > 1:
        prev, cur = scores[:-1], scores[1:]
        tied = np.abs(prev - cur) <= TIE * np.maximum(np.abs(prev), np.abs(cur))
        out[1:][tied] = 0  # a tie takes the rank of the last untied score before it
        out = np.maximum.accumulate(out)
    return out


def _unit(scores: npt.NDArray[np.float64], lo: float, hi: float) -> npt.NDArray[np.float64]:
    """`fusion.minmax` of one list's scores, in list order, given their lowest and highest."""
    span = hi - lo
    return (scores - lo) / span if span > 0 else np.ones(len(scores))


def feature_columns(
    lex: Sequence[tuple[int, float]],
    sem: Sequence[tuple[int, float]],
    candidates: Mapping[int, Candidate],
    *,
    query: str,
    query_terms: Sequence[str],
    term_weights: Mapping[str, float],
    terms_of: Mapping[int, Set[str]],
    window: tuple[int, int] | None = None,
) -> tuple[list[int], npt.NDArray[np.float64]]:
    """`feature_rows` as one array (a row per pooled key, FEATURES order): the list features are
    computed a column at a time, the ones read from a candidate's columns one key at a time. Each
    list holds a key once (a ranker's best-first list), so the lexical list's rows are the first ones,
    in its order."""
    lex_keys = [k for k, _ in lex]
    keys = list(dict.fromkeys(lex_keys + [k for k, _ in sem]))
    n = len(keys)
    out = np.zeros((n, len(FEATURES)), dtype=np.float64)
    at = {k: i for i, k in enumerate(keys)}
    if lex:
        listed = [s for _, s in lex]
        scores = np.array(listed)
        # the first rows, in order (a slice, not a gather), unless the list repeats a key
        top: slice | list[int] = (
            slice(0, len(lex)) if keys[: len(lex)] == lex_keys else [at[k] for k in lex_keys]
        )
        out[top, _LEX_NORM] = _unit(scores, min(listed), max(listed))
        out[top, _LEX_RANK] = 1.0 / (1.0 + rank_array(scores) / 10.0)
        out[top, _LEX_RAW] = scores
    if sem:
        listed = [s for _, s in sem]
        scores = np.array(listed)
        rows = np.array([at[k] for k, _ in sem], dtype=np.intp)
        lowest = min(listed)
        out[:, _COSINE] = lowest  # absent rows get the pool's lowest
        out[rows, _SEM_NORM] = _unit(scores, lowest, max(listed))
        out[rows, _SEM_RANK] = 1.0 / (1.0 + rank_array(scores) / 10.0)
        out[rows, _COSINE] = scores
    absent = Candidate("")
    no_terms: frozenset[str] = frozenset()
    pooled = [candidates.get(k, absent) for k in keys]
    terms = [terms_of.get(k, no_terms) for k in keys]
    reads = [row_reads(c.text, c.source, c.extra, c.thread is not None) for c in pooled]
    speaker = speaker_column(query, [names for names, _ in reads])
    if speaker is not None:
        out[:, _SPEAKER] = speaker
    if query_terms:
        out[:, _COVERAGE] = coverages(query_terms, term_weights, terms)
    out[:, _QUESTION] = [question for _, question in reads]
    out[:, _LENGTH] = [math.log1p(len(t)) for t in terms]
    dated = dated_column(query, pooled, window)
    if dated is not None:
        out[:, _DATED] = dated
    # neighbours and thread mates: only turns of a thread have them
    turns = [
        (i, c)
        for i, c in enumerate(pooled)
        if c.thread is not None or c.before is not None or c.after is not None
    ]
    if turns:
        fused = (0.5 * out[:, _LEX_NORM] + 0.5 * out[:, _SEM_NORM]).tolist()
        threads: dict[tuple[str, str], list[int]] = {}
        for i, c in turns:
            if c.thread is not None:
                threads.setdefault(c.thread, []).append(i)
        for i, c in turns:
            near = [fused[at[m]] for m in (c.before, c.after) if m is not None and m in at]
            if near:
                out[i, _NEIGHBOUR] = max(near)
            if c.thread is not None:
                others = [fused[j] for j in threads[c.thread] if j != i]
                if others:
                    out[i, _THREAD_BEST] = max(others)
                out[i, _THREAD_COUNT] = len(others) / 10.0
    return keys, out
