"""Synthetic memories for scale benches: sentences drawn from the word distribution of real chat turns,
and a random-projection embedder so that building a 1M-item index does not take hours.

The projection embedder is a real bag-of-words embedder (each word a fixed random unit vector, a text
the normalised sum); it is cheap, so the figures isolate storage and search cost. Query latency still
includes a real MiniLM query embedding when `pay_query_with` is given.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt

from tinymemory.retrieval.embedders.base import Embedder

WORD = re.compile(r"[a-z']+")


def vocabulary(locomo_file: Path, size: int = 6000) -> tuple[list[str], npt.NDArray[np.float64]]:
    data = json.loads(locomo_file.read_text())
    counts: Counter[str] = Counter()
    for sample in data:
        conv = sample["conversation"]
        for key, turns in conv.items():
            if key.startswith("session_") and isinstance(turns, list):
                for t in turns:
                    counts.update(WORD.findall(t["text"].lower()))
    words, freq = zip(*counts.most_common(size), strict=True)
    p = np.asarray(freq, dtype=np.float64)
    return list(words), p / p.sum()


def sentences(n: int, words: list[str], p: npt.NDArray[np.float64], seed: int = 7) -> list[str]:
    rng = np.random.default_rng(seed)
    lengths = rng.integers(8, 28, size=n)
    picks = rng.choice(len(words), size=int(lengths.sum()), p=p)
    out, at = [], 0
    for i, ln in enumerate(lengths):
        body = " ".join(words[j] for j in picks[at : at + ln])
        out.append(f"{body} #{i}")  # the suffix keeps every memory distinct
        at += ln
    return out


class ProjectionEmbedder:
    """Bag-of-words random projection (dim 384), deterministic across processes."""

    def __init__(self, dim: int = 384, pay_query_with: Embedder | None = None) -> None:
        self._dim = dim
        self._ids: dict[str, int] = {}
        self._rows: list[npt.NDArray[np.float32]] = []
        self._matrix: npt.NDArray[np.float32] | None = None
        self._pay = pay_query_with

    @property
    def name(self) -> str:
        return f"bench-projection-{self._dim}"

    @property
    def dim(self) -> int:
        return self._dim

    def _index(self, w: str) -> int:
        i = self._ids.get(w)
        if i is None:
            seed = int.from_bytes(hashlib.blake2b(w.encode(), digest_size=8).digest(), "little")
            v = np.random.default_rng(seed).standard_normal(self._dim).astype(np.float32)
            i = len(self._rows)
            self._rows.append(v)
            self._ids[w] = i
            self._matrix = None
        return i

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        if not texts:
            return np.zeros((0, self._dim), dtype=np.float32)
        token_ids: list[int] = []
        starts: list[int] = []
        for t in texts:
            starts.append(len(token_ids))
            token_ids.extend(self._index(w) for w in WORD.findall(t.lower()) or ["#"])
        if self._matrix is None:
            self._matrix = np.stack(self._rows)
        out = np.add.reduceat(self._matrix[np.asarray(token_ids)], np.asarray(starts), axis=0)
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return (out / np.maximum(norms, 1e-12)).astype(np.float32)

    def _one(self, text: str) -> npt.NDArray[np.float32]:
        return self.embed([text])[0]

    def embed_query(self, text: str) -> npt.NDArray[np.float32]:
        if self._pay is not None:
            self._pay.embed([text])  # pay the real model's cost; bypass any query cache
        return self._one(text)
