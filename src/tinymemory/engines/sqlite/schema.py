"""The SQLite schema, versioned with PRAGMA user_version, and the migrations that reach it."""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Callable

from tinymemory.api.errors import Conflict

SCHEMA_VERSION = 12

_log = logging.getLogger(__name__)

# Times are integer microseconds since the epoch (UTC): exact, compact and ordered.
# AUTOINCREMENT keeps rowids unique forever, so a purged rowid never names a new item (the vector
# matrix and cursors rely on that); rowids grow in commit order because writers serialise.
_V1 = """
CREATE TABLE items (
    rowid INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    ckey TEXT NOT NULL,
    generation INTEGER NOT NULL,
    kind TEXT NOT NULL,
    text TEXT NOT NULL,
    confidence REAL,
    ns TEXT NOT NULL,
    source_kind TEXT,
    source_id TEXT,
    workspace TEXT,
    folder TEXT,
    file_path TEXT,
    language TEXT,
    repo TEXT,
    url TEXT,
    thread_id TEXT,
    agent_id TEXT,
    tool_call TEXT,
    learning_kind TEXT,
    title TEXT,
    summary TEXT,
    purpose TEXT,
    category TEXT,
    about_kind TEXT,
    about_key TEXT,
    parent TEXT,
    parent_title TEXT,
    observed_at INTEGER NOT NULL,
    event_from INTEGER,
    event_to INTEGER,
    valid_from INTEGER NOT NULL,
    valid_to INTEGER,
    forgotten_at INTEGER,
    superseded_by TEXT,
    supersedes TEXT,
    extra TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX items_ckey ON items(ckey);
CREATE INDEX items_ns ON items(ns);
CREATE INDEX items_observed ON items(observed_at DESC, id DESC);
CREATE INDEX items_about ON items(about_kind, about_key, ns);
CREATE INDEX items_parent ON items(parent);
CREATE INDEX items_thread ON items(thread_id);
CREATE TABLE item_tags (
    tag TEXT NOT NULL,
    item_rowid INTEGER NOT NULL,
    PRIMARY KEY (tag, item_rowid)
) WITHOUT ROWID;
CREATE INDEX item_tags_item ON item_tags(item_rowid);
CREATE VIRTUAL TABLE items_fts USING fts5(title, body, tokenize = 'unicode61 remove_diacritics 0');
CREATE TABLE vectors (
    item_rowid INTEGER PRIMARY KEY,
    embedder TEXT NOT NULL,
    dim INTEGER NOT NULL,
    vec BLOB NOT NULL
);
CREATE TABLE engine_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""

# Version 2: per-term document counts, so a query can leave out its most common terms (see search.py).
_V2 = """
CREATE VIRTUAL TABLE items_vocab USING fts5vocab(items_fts, 'row');
"""

# Version 3: a third FTS column, `context`, holding the analysed neighbouring turns of the same thread
# (a lighter lexical field; see retrieval.config.ContextConfig). Rows stored before keep it empty.
_V3 = """
DROP TABLE items_vocab;
CREATE VIRTUAL TABLE items_fts_v3 USING fts5(
    title, body, context, tokenize = 'unicode61 remove_diacritics 0'
);
INSERT INTO items_fts_v3 (rowid, title, body, context) SELECT rowid, title, body, '' FROM items_fts;
DROP TABLE items_fts;
ALTER TABLE items_fts_v3 RENAME TO items_fts;
CREATE VIRTUAL TABLE items_vocab USING fts5vocab(items_fts, 'row');
"""

# Version 4: newest-first reads within a namespace (list, context.md, the time anchor) walk one index
# instead of sorting the namespace's rows; it also serves the plain namespace lookups of items_ns.
_V4 = """
CREATE INDEX items_ns_observed ON items(ns, observed_at DESC, id DESC);
DROP INDEX items_ns;
"""

# Version 5: the privacy rules. Per-namespace lexical statistics (a read is ranked by its reach alone),
# each row's indexed length, the FTS5 postings as a table (scoped bm25 reads term frequencies there), and
# which items cite which as evidence (forgetting an item forgets what was derived from it). Forgotten
# rows leave the index (see `_to_v5`).
_V5 = """
ALTER TABLE items ADD COLUMN lex_len INTEGER NOT NULL DEFAULT 0;
CREATE TABLE lex_ns (ns TEXT PRIMARY KEY, docs INTEGER NOT NULL, tokens INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE lex_df (
    term TEXT NOT NULL, ns TEXT NOT NULL, df INTEGER NOT NULL, PRIMARY KEY (term, ns)
) WITHOUT ROWID;
CREATE VIRTUAL TABLE items_postings USING fts5vocab(items_fts, 'instance');
CREATE TABLE item_evidence (
    cites TEXT NOT NULL, item_rowid INTEGER NOT NULL, PRIMARY KEY (cites, item_rowid)
) WITHOUT ROWID;
CREATE INDEX item_evidence_item ON item_evidence(item_rowid);
INSERT OR IGNORE INTO item_evidence (cites, item_rowid)
    SELECT e.value, i.rowid FROM items i, json_each(i.extra, '$.evidence') e
    WHERE json_type(i.extra, '$.evidence') = 'array'
"""

# Version 6: relations between named entities, one row per edge a memory version asserts (the item's
# `extra` keeps a copy for decoding). Keys are the names as `api.relations.entity_key` matches them;
# the edge is visible exactly when its item is (reads join `items` and apply the read's filter).
_V6 = """
CREATE TABLE relations (
    item_rowid INTEGER NOT NULL,
    subject TEXT NOT NULL,
    subject_key TEXT NOT NULL,
    type TEXT NOT NULL,
    object TEXT NOT NULL,
    object_key TEXT NOT NULL
);
CREATE INDEX relations_subject ON relations(subject_key, type);
CREATE INDEX relations_object ON relations(object_key, type);
CREATE INDEX relations_item ON relations(item_rowid)
"""

# Version 7: the active rows of a namespace, with their kind, in one partial index, so a read confined to
# a few namespaces (a user's tiers) lists its candidate rows from the index alone instead of visiting
# each row: the filter-first vector plan and the newest-first reads of a small reach.
_V7 = """
CREATE INDEX items_ns_active ON items(ns, kind) WHERE valid_to IS NULL AND forgotten_at IS NULL
"""

# Version 8: a turn's neighbours in its thread and namespace (context relinking and the reranker's
# neighbour features) come from one index walk instead of filtering every row of the thread.
_V8 = """
CREATE INDEX items_thread_ns ON items(thread_id, ns);
DROP INDEX items_thread
"""

# Version 9: a smaller file (see docs/architecture/disk.md). The indexes of optional columns hold only
# the rows that have a value (every query on them names one). The per-namespace term counts name the
# namespace by a number (`lex_ns.id`, never reused) instead of repeating its name in every entry;
# `lex_df` stays readable as a view. The content key is kept as its 32 raw bytes instead of 64 hex
# digits, in the row and in its index, and vectors written as float32 are rewritten as float16, the
# width the engine writes now (a blob's length tells which): see `_to_v9`.
_V9 = """
DROP INDEX items_about;
CREATE INDEX items_about ON items(about_kind, about_key, ns) WHERE about_kind IS NOT NULL;
DROP INDEX items_thread_ns;
CREATE INDEX items_thread_ns ON items(thread_id, ns) WHERE thread_id IS NOT NULL;
DROP INDEX items_parent;
CREATE INDEX items_parent ON items(parent) WHERE parent IS NOT NULL;
CREATE TABLE lex_ns_v9 (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    ns TEXT NOT NULL UNIQUE,
    docs INTEGER NOT NULL,
    tokens INTEGER NOT NULL
);
INSERT INTO lex_ns_v9 (ns, docs, tokens) SELECT ns, docs, tokens FROM lex_ns ORDER BY ns;
CREATE TABLE lex_terms (
    term TEXT NOT NULL, space INTEGER NOT NULL, df INTEGER NOT NULL, PRIMARY KEY (term, space)
) WITHOUT ROWID;
INSERT INTO lex_terms (term, space, df)
    SELECT d.term, n.id, d.df FROM lex_df d JOIN lex_ns_v9 n ON n.ns = d.ns;
DROP TABLE lex_df;
DROP TABLE lex_ns;
ALTER TABLE lex_ns_v9 RENAME TO lex_ns;
CREATE VIEW lex_df AS
    SELECT t.term AS term, n.ns AS ns, t.df AS df FROM lex_terms t JOIN lex_ns n ON n.id = t.space
"""

# Version 10: the postings per namespace (see lexstats.py): a read confined to a reach range-scans its
# own namespaces' postings of the query's terms, so it costs what the reach holds of them, where FTS5's
# postings view (`items_postings`, dropped) held every tenant's rows of each term. Filled from the index
# (`_to_v10`).
_V10 = """
DROP TABLE items_postings
"""

# Version 11: the whole store's lexical read scores the postings itself (search.lexical), as FTS5's bm25
# would. Each posting carries its row's length and the table is led by the term (one range a query term
# over every namespace); rows' lengths, namespaces' token counts and terms' row counts are recounted from
# the postings, i.e. as FTS5's tokenizer splits the analysed columns (they were split on whitespace, which
# differs for some non-ASCII text). See `_to_v11`.

# Version 12: no FTS5. Every lexical read ranks from `lex_postings` and `lex_terms` (the whole file's
# term counts are every namespace's summed), so FTS5's inverted index was written by every store (about
# 7 pages of its commit's 37) and read by nothing but the whole file's term counts (`items_vocab`). The
# analysed columns it kept, which a forget, a context change and a repair recount from, move to
# `lex_docs`, keyed by the row. The step is one transaction: a killed process leaves version 11 whole,
# and the next open runs it again.
_V12 = """
CREATE TABLE lex_docs (
    doc INTEGER PRIMARY KEY,
    title TEXT NOT NULL DEFAULT '',
    body TEXT NOT NULL DEFAULT '',
    context TEXT NOT NULL DEFAULT ''
);
INSERT INTO lex_docs (doc, title, body, context)
    SELECT rowid, coalesce(title, ''), coalesce(body, ''), coalesce(context, '') FROM items_fts
    ORDER BY rowid;
DROP TABLE items_vocab;
DROP TABLE items_fts
"""

Migration = Callable[[sqlite3.Connection], None]


def _run_script(conn: sqlite3.Connection, script: str) -> None:
    """Statement by statement: executescript would commit the surrounding transaction."""
    for statement in script.split(";\n"):
        if statement.strip():
            conn.execute(statement)


def _to_v1(conn: sqlite3.Connection) -> None:
    _run_script(conn, _V1)


def _to_v2(conn: sqlite3.Connection) -> None:
    _run_script(conn, _V2)


def _to_v3(conn: sqlite3.Connection) -> None:
    _run_script(conn, _V3)


def _to_v4(conn: sqlite3.Connection) -> None:
    _run_script(conn, _V4)


def _to_v5(conn: sqlite3.Connection) -> None:
    from tinymemory.engines.sqlite import lexstats, threads

    _run_script(conn, _V5)
    forgotten = [
        int(r[0])
        for r in conn.execute(
            "SELECT f.rowid FROM items_fts f JOIN items i ON i.rowid = f.rowid"
            " WHERE i.forgotten_at IS NOT NULL"
        )
    ]
    neighbours = threads.neighbours_of(conn, forgotten)
    for rowid in forgotten:
        conn.execute("DELETE FROM items_fts WHERE rowid = ?", (rowid,))
    # relinked first, then counted from the index: the relink's own deltas (for today's tables) are
    # not applied
    threads.relink(conn, lexstats.Deltas(), neighbours, docs="items_fts")
    _count_v5(conn)


def _count_v5(conn: sqlite3.Connection) -> None:
    """Version 5's statistics (`lex_df` keyed by namespace name), counted from the index."""
    from tinymemory.engines.lexcounts import terms

    per_ns: dict[str, dict[str, int]] = {}
    totals: dict[str, list[int]] = {}
    lengths: list[tuple[int, int]] = []
    for rowid, ns, title, body, context in conn.execute(
        "SELECT f.rowid, i.ns, f.title, f.body, f.context FROM items_fts f JOIN items i ON i.rowid = f.rowid"
    ):
        words = terms(str(title or ""), str(body or ""), str(context or ""))
        counts = per_ns.setdefault(str(ns), {})
        for t in set(words):
            counts[t] = counts.get(t, 0) + 1
        docs_tokens = totals.setdefault(str(ns), [0, 0])
        docs_tokens[0] += 1
        docs_tokens[1] += len(words)
        lengths.append((len(words), int(rowid)))
    conn.executemany("UPDATE items SET lex_len = ? WHERE rowid = ?", lengths)
    conn.executemany(
        "INSERT INTO lex_ns (ns, docs, tokens) VALUES (?, ?, ?)", [(k, *v) for k, v in totals.items()]
    )
    conn.executemany(
        "INSERT INTO lex_df (term, ns, df) VALUES (?, ?, ?)",
        [(t, ns, d) for ns, counts in per_ns.items() for t, d in counts.items()],
    )


def _to_v6(conn: sqlite3.Connection) -> None:
    _run_script(conn, _V6)


def _to_v7(conn: sqlite3.Connection) -> None:
    _run_script(conn, _V7)


def _to_v8(conn: sqlite3.Connection) -> None:
    _run_script(conn, _V8)


def key_bytes(value: str | bytes | None) -> str | bytes | None:
    """A content key as stored from version 9: the 32 bytes its 64 hex digits spell (anything else,
    which no store writes, is kept as it is)."""
    if isinstance(value, str) and len(value) == 64:
        try:
            return bytes.fromhex(value)
        except ValueError:
            return value
    return value


def _to_v9(conn: sqlite3.Connection) -> None:
    import numpy as np

    def half(blob: bytes) -> bytes:
        return np.frombuffer(blob, dtype="<f4").astype("<f2").tobytes()

    _run_script(conn, _V9)
    conn.create_function("tm_key_bytes", 1, key_bytes, deterministic=True)
    conn.create_function("tm_half", 1, half, deterministic=True)
    conn.execute("UPDATE items SET ckey = tm_key_bytes(ckey) WHERE typeof(ckey) = 'text'")
    conn.execute("UPDATE vectors SET vec = tm_half(vec) WHERE length(vec) = 4 * dim")


def _to_v10(conn: sqlite3.Connection) -> None:
    from tinymemory.engines.sqlite import lexstats

    _run_script(conn, _V10)
    lexstats.create_postings(conn)
    lexstats.fill_postings(conn, docs="items_fts")


def _to_v11(conn: sqlite3.Connection) -> None:
    from tinymemory.engines.sqlite import lexstats

    held = {str(r[1]) for r in conn.execute("PRAGMA table_info(lex_postings)")}
    if "len" not in held:  # a file at version 10 (`_to_v10` writes today's layout already)
        lexstats.create_postings(conn, "lex_postings_v11")
        conn.execute("CREATE TEMP TABLE v11_lengths (doc INTEGER PRIMARY KEY, n INTEGER NOT NULL)")
        conn.execute(
            "INSERT INTO temp.v11_lengths SELECT doc, sum(title + body + context) FROM lex_postings"
            " GROUP BY doc ORDER BY doc"
        )
        conn.execute(
            "INSERT INTO lex_postings_v11 (term, space, doc, title, body, context, len)"
            " SELECT p.term, p.space, p.doc, p.title, p.body, p.context, l.n FROM lex_postings p"
            " JOIN temp.v11_lengths l ON l.doc = p.doc ORDER BY p.term, p.space, p.doc"
        )
        conn.execute("DROP TABLE temp.v11_lengths")
        conn.execute("DROP TABLE lex_postings")
        conn.execute("ALTER TABLE lex_postings_v11 RENAME TO lex_postings")
    lexstats.recount(conn)


def _to_v12(conn: sqlite3.Connection) -> None:
    _run_script(conn, _V12)


# MIGRATIONS[n] takes a database at version n to version n + 1.
MIGRATIONS: dict[int, Migration] = {
    0: _to_v1,
    1: _to_v2,
    2: _to_v3,
    3: _to_v4,
    4: _to_v5,
    5: _to_v6,
    6: _to_v7,
    7: _to_v8,
    8: _to_v9,
    9: _to_v10,
    10: _to_v11,
    11: _to_v12,
}


def user_version(conn: sqlite3.Connection) -> int:
    return int(conn.execute("PRAGMA user_version").fetchone()[0])


def migrate(conn: sqlite3.Connection, target: int = SCHEMA_VERSION) -> int:
    """Bring the file up to `target` under a write lock, one step per transaction; return the old version.

    Another process migrating at the same time is harmless: each step re-reads the version inside
    its own IMMEDIATE transaction. A file newer than this code is a Conflict, never touched.
    """
    start = user_version(conn)
    if start > target:
        raise Conflict(f"open: database schema version {start} is newer than this tinymemory ({target})")
    shrunk = False
    while True:
        conn.execute("BEGIN IMMEDIATE")
        try:
            current = user_version(conn)
            if current >= target:
                conn.execute("COMMIT")
                break
            MIGRATIONS[current](conn)
            conn.execute(f"PRAGMA user_version = {current + 1}")
            conn.execute("COMMIT")
            shrunk = shrunk or current in (8, 11)
        except BaseException:
            conn.execute("ROLLBACK")
            raise
    if shrunk:
        compact(conn)
    return start


def compact(conn: sqlite3.Connection) -> bool:
    """Copy the file page by page without the space versions 9 and 12 freed (a rewritten row keeps its
    old page; the dropped FTS5 index leaves its pages free), so an upgraded file shrinks on disk too;
    True when it did.

    Best effort: when another connection keeps it from running, the space stays and new rows reuse it.
    The copy goes through a temporary file, never memory (a large file would not fit).
    """
    if conn.execute("SELECT NOT EXISTS (SELECT 1 FROM items)").fetchone()[0]:
        return False
    temp = int(conn.execute("PRAGMA temp_store").fetchone()[0])
    conn.execute("PRAGMA temp_store = FILE")
    try:
        conn.execute("VACUUM")
        if conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal":
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return True
    except sqlite3.OperationalError as exc:
        _log.info("open: the file keeps the space its upgrade freed for new rows (%s)", exc)
        return False
    finally:
        conn.execute(f"PRAGMA temp_store = {temp}")
