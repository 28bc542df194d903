"""The two reference retrievers of ../shared/bench/README.md, recomputed side by side in the same run:
plain BM25 (bm25s with its default English stop words, no stemming) and dense all-MiniLM-L6-v2 cosine.

They rank the same turns for the same questions as bench/locomo.py, so per-category figures can be
compared directly ("no category worse than the best baseline").
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from locomo import KS, Conversation, RecallTally

Ranker = Callable[[Conversation, str], list[str]]


def bm25_ranker(conv: Conversation) -> Ranker:
    import bm25s

    texts = [item.text for item in conv.items]
    retriever = bm25s.BM25()
    retriever.index(bm25s.tokenize(texts, show_progress=False), show_progress=False)

    def rank(_: Conversation, question: str) -> list[str]:
        tokens = bm25s.tokenize([question], show_progress=False)
        if not tokens.vocab:
            return []
        docs, _scores = retriever.retrieve(tokens, k=min(max(KS), len(texts)), show_progress=False)
        return [conv.dia_ids[int(i)] for i in docs[0]]

    return rank


def dense_ranker(conv: Conversation, embedder: Any) -> Ranker:
    matrix = embedder.embed([item.text for item in conv.items])

    def rank(_: Conversation, question: str) -> list[str]:
        scores = matrix @ embedder.embed_query(question)
        top = np.argsort(-scores, kind="stable")[: max(KS)]
        return [conv.dia_ids[int(i)] for i in top]

    return rank


def evaluate_ranker(convs: list[Conversation], make: Callable[[Conversation], Ranker]) -> dict[str, Any]:
    """Same shape as locomo.query_all's result."""
    tally = RecallTally()
    for conv in convs:
        rank = make(conv)
        tally.start_conversation()
        for question, cat, evidence in conv.questions:
            t = time.perf_counter()
            ranked = rank(conv, question)
            tally.add(cat, evidence, ranked, (time.perf_counter() - t) * 1000)
    return tally.result()


def run_baselines(convs: list[Conversation]) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    with contextlib.suppress(ImportError):  # bm25s comes with the bench extra
        out["BM25 (bm25s, plain)"] = evaluate_ranker(convs, bm25_ranker)
    from tinymemory.retrieval.embedders import MiniLMEmbedder, minilm_available

    if minilm_available():
        embedder = MiniLMEmbedder()
        out["all-MiniLM-L6-v2 dense, cosine"] = evaluate_ranker(convs, lambda c: dense_ranker(c, embedder))
    return out
