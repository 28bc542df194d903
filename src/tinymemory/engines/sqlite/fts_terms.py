"""The terms FTS5 indexes for a stored text, computed in Python: what the per-namespace postings
(`lexstats.postings_of`, read by `search.lexical_scoped`) hold for each row.

The indexed columns hold analysed, space-joined terms, but a term counts only as FTS5's tokenizer
(`TOKENIZER`, the one the FTS5 table of schemas 1 to 11 was declared with) splits and folds it: a score
must equal the one an FTS5 table of the same rows would give (postings written before schema 12 came
from that table, and tests compare with one). ASCII text is split exactly as unicode61 splits
it (letters and digits are token characters, folded to lower case; a token keeps its first
`MAX_TOKEN_BYTES` bytes); every whitespace character Python knows is a separator to unicode61 too, so
any other text is split on whitespace and each non-ASCII word is handed to FTS5 itself, in a private
in-memory database, once.
"""

from __future__ import annotations

import re
import sqlite3
import threading

# As `items_fts` was declared in schema.py up to version 11 (tests check they agree).
TOKENIZER = "unicode61 remove_diacritics 0"
# FTS5 keeps a token's first 32,768 bytes (FTS5_MAX_TOKEN_SIZE).
MAX_TOKEN_BYTES = 32_768
_ASCII_TOKEN = re.compile(r"[a-z0-9]+")
# a word's terms, kept while the cache is below this many words (then it starts again)
_CACHE_MAX = 200_000


def fts_terms(text: str) -> list[str]:
    """The terms, in order, that FTS5 indexes for `text` in a column of a table declared with TOKENIZER."""
    if text.isascii():
        found = _ASCII_TOKEN.findall(text.lower())
        if len(text) > MAX_TOKEN_BYTES:
            found = [t[:MAX_TOKEN_BYTES] for t in found]
        return found
    out: list[str] = []
    words = text.split()
    foreign = [w for w in words if not w.isascii()]
    known = _ORACLE.terms(foreign)
    for word in words:
        if word.isascii():
            out.extend(t[:MAX_TOKEN_BYTES] for t in _ASCII_TOKEN.findall(word.lower()))
        else:
            out.extend(known[word])
    return out


class _Oracle:
    """FTS5's own tokenization of words, from an in-memory table with the same tokenizer."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None
        self._cache: dict[str, tuple[str, ...]] = {}

    def terms(self, words: list[str]) -> dict[str, tuple[str, ...]]:
        with self._lock:
            missing = sorted({w for w in words if w not in self._cache})
            if missing:
                if len(self._cache) + len(missing) > _CACHE_MAX:
                    self._cache.clear()
                self._cache.update(self._tokenize(missing))
            return {w: self._cache[w] for w in words}

    def _tokenize(self, words: list[str]) -> dict[str, tuple[str, ...]]:
        conn = self._conn
        if conn is None:
            conn = sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
            conn.execute(f"CREATE VIRTUAL TABLE words USING fts5(w, tokenize = '{TOKENIZER}')")
            conn.execute("CREATE VIRTUAL TABLE word_terms USING fts5vocab(words, 'instance')")
            self._conn = conn
        conn.execute("BEGIN")
        try:
            conn.executemany("INSERT INTO words (rowid, w) VALUES (?, ?)", enumerate(words, 1))
            split: list[list[str]] = [[] for _ in words]
            for doc, term in conn.execute("SELECT doc, term FROM word_terms ORDER BY doc, offset"):
                split[int(doc) - 1].append(str(term))
            conn.execute("DELETE FROM words")
        finally:
            conn.execute("COMMIT")
        return {w: tuple(t) for w, t in zip(words, split, strict=True)}


_ORACLE = _Oracle()
