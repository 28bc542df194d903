"""Shared helpers for the SQLite engine tests (no tests here): a tiny deterministic embedder, item builders.

The embedder hashes words into buckets, so texts sharing words are close; it stands in for MiniLM where
a test is about the engine's plumbing, not about embedding quality.
"""

from __future__ import annotations

import hashlib
import sqlite3
import sys
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

import numpy as np
import numpy.typing as npt

from tinymemory.api import ItemKind, ItemMeta, Namespace, NewItem
from tinymemory.engines.sqlite.fts_terms import TOKENIZER

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
from disk import to_version_11 as to_version_11  # re-exported for the upgrade tests

HASH_DIM = 32


class HashEmbedder:
    def __init__(self, name: str = "hash-32") -> None:
        self._name = name
        self.embedded_texts = 0  # documents embedded so far (queries not counted)

    @property
    def name(self) -> str:
        return self._name

    @property
    def dim(self) -> int:
        return HASH_DIM

    def _one(self, text: str) -> npt.NDArray[np.float32]:
        v = np.zeros(HASH_DIM, dtype=np.float32)
        for word in text.lower().replace(".", " ").replace(",", " ").split():
            v[int(hashlib.sha1(word.encode()).hexdigest(), 16) % HASH_DIM] += 1.0
        n = float(np.linalg.norm(v))
        return v / n if n else v

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        self.embedded_texts += len(texts)
        if not texts:
            return np.zeros((0, HASH_DIM), dtype=np.float32)
        return np.stack([self._one(t) for t in texts])

    def embed_query(self, text: str) -> npt.NDArray[np.float32]:
        return self._one(text)


def ns(text: str = "") -> Namespace:
    return Namespace.parse(text)


def note(
    text: str,
    *,
    at: str = "",
    kind: ItemKind = ItemKind.LEARNING,
    observed: datetime | None = None,
    supersede: bool = True,
    confidence: float | None = None,
    **meta: object,
) -> NewItem:
    item_meta = ItemMeta(namespace=ns(at), observed_at=observed, **meta)  # type: ignore[arg-type]
    return NewItem(kind, text, item_meta, confidence=confidence, supersede=supersede)


def fts_oracle(conn: sqlite3.Connection) -> None:
    """FTS5 over the indexed rows as they stand: `temp.items_fts`, built afresh from `lex_docs` (the
    analysed columns) with the tokenizer the postings follow, and its vocabularies `temp.items_vocab`
    (rows per term) and `temp.fts_oracle` (one row per occurrence: term, doc, col, offset). What the
    engine's own tables and scores must equal."""
    conn.execute("DROP TABLE IF EXISTS temp.fts_oracle")
    conn.execute("DROP TABLE IF EXISTS temp.items_vocab")
    conn.execute("DROP TABLE IF EXISTS temp.items_fts")
    conn.execute(
        f"CREATE VIRTUAL TABLE temp.items_fts USING fts5(title, body, context, tokenize = '{TOKENIZER}')"
    )
    conn.execute(
        "INSERT INTO temp.items_fts (rowid, title, body, context)"
        " SELECT doc, title, body, context FROM lex_docs"
    )
    conn.execute("CREATE VIRTUAL TABLE temp.items_vocab USING fts5vocab(temp, items_fts, 'row')")
    conn.execute("CREATE VIRTUAL TABLE temp.fts_oracle USING fts5vocab(temp, items_fts, 'instance')")


def fts_postings(conn: sqlite3.Connection) -> list[tuple[int, str, int, int, int, int]]:
    """Every indexed row's postings as FTS5 itself makes them (its instance vocabulary over the rows'
    analysed columns: `fts_oracle`), in `lex_postings`' shape: (namespace number, term, row, title, body,
    context counts)."""
    fts_oracle(conn)
    rows = conn.execute(
        "SELECT n.id, v.term, v.doc, sum(v.col = 'title'), sum(v.col = 'body'), sum(v.col = 'context')"
        " FROM temp.fts_oracle v JOIN items i ON i.rowid = v.doc JOIN lex_ns n ON n.ns = i.ns"
        " GROUP BY v.doc, v.term"
    )
    return sorted((int(a), str(b), int(c), int(d), int(e), int(f)) for a, b, c, d, e, f in rows)


def held_postings(conn: sqlite3.Connection) -> list[tuple[int, str, int, int, int, int]]:
    """What `lex_postings` holds, sorted as `fts_postings`."""
    rows = conn.execute("SELECT space, term, doc, title, body, context FROM lex_postings")
    return sorted((int(a), str(b), int(c), int(d), int(e), int(f)) for a, b, c, d, e, f in rows)
