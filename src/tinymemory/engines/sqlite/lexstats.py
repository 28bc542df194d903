"""The lexical index and its statistics, kept per namespace so that a read can be ranked by its reach alone.

A whole-file bm25 (FTS5's own) uses document counts and lengths over the whole file, so a score would
reveal whether another tenant's memory holds a word. Every indexed row is written through this module:
its analysed columns go to `lex_docs` (DOCS; schema 12, before which an FTS5 table, `items_fts`, held
them and an inverted index nothing read any more), and beside them it keeps, per namespace, how many
rows are indexed and how many tokens they hold (`lex_ns`) and how many rows hold each term (`lex_terms`,
keyed by the namespace's number in `lex_ns` rather than its name, which would be repeated in every
entry; the view `lex_df` shows it with names), plus each row's length (`items.lex_len`). A scoped read
sums these over the namespaces of its reach (see `search.lexical_scoped`).

Beside the statistics it keeps the postings (`lex_postings`: term, namespace number, row, how often the
term occurs in each of the row's three fields, and the row's length), so that a read confined to a reach
range-scans its own namespaces' postings of the query's terms instead of every tenant's, and a read of
the whole store scores the same postings itself (`search.lexical`). Like the statistics, they are
tallied in `Deltas` and written once, with the rows' columns, when the transaction's changes are flushed.

Every count here is of terms as FTS5's tokenizer splits the analysed columns (`fts_terms`), so the
statistics, the lengths and the postings are the ones an FTS5 table of the same columns would keep: a
row's length is the sum of its postings' counts (`length`), and the whole store's statistics are the
sums of the namespaces' (tests compare both with an FTS5 table built from `lex_docs`).

Only active and superseded rows are indexed: forgetting an item removes its row from the index and
its counts from the statistics (`unindex`), so nothing it said moves a later score either.
"""

from __future__ import annotations

import itertools
import json
import sqlite3
from collections import Counter
from collections.abc import Callable, Iterable

from tinymemory.api.filters import MetaFilter
from tinymemory.api.namespace import Reach
from tinymemory.engines.lexcounts import Counts
from tinymemory.engines.sqlite.fts_terms import fts_terms
from tinymemory.engines.sqlite.where import Params, reach_sql
from tinymemory.retrieval.pipeline import ScopeStats

# The analysed columns (title, body, context) of every indexed row, keyed by the row (`doc` is the
# item's rowid, so `rowid` names it too): what a forget, a context change and a repair recount from.
# Schema 5 to 11 kept them in the FTS5 table `items_fts`; their migration steps pass that name.
DOCS = "lex_docs"

# a row's postings: term -> how often it occurs in (title, body, context)
Postings = dict[str, tuple[int, int, int]]


def postings_of(title: str, body: str, context: str) -> Postings:
    """The terms FTS5 indexes for a row's three columns, with their frequency in each."""
    if not title and not context:  # the usual row: a body alone
        return {t: (0, n, 0) for t, n in Counter(fts_terms(body)).items()}
    fields = [Counter(fts_terms(text)) for text in (title, body, context)]
    return {t: (fields[0][t], fields[1][t], fields[2][t]) for t in dict.fromkeys(itertools.chain(*fields))}


def length(postings: Postings) -> int:
    """A row's length in tokens, as FTS5 counts it (every term's occurrences in every field)."""
    return sum(map(sum, postings.values()))


class Deltas(Counts):
    """`Counts` applied to SQLite's statistics tables, and the rows whose postings change."""

    def __init__(self) -> None:
        super().__init__()
        # row -> (namespace, terms) it holds in `lex_postings` now, for rows already there
        self._held: dict[int, tuple[str, list[str]]] = {}
        # row -> (namespace, postings) it will hold once flushed (None: none)
        self._next: dict[int, tuple[str, Postings] | None] = {}

    def post(self, rowid: int, ns: str, before: Postings | None, after: Postings | None) -> None:
        """A row's postings change from `before` (None: a new row) to `after` (None: none). Every posting
        of the row is rewritten, since each carries the row's length."""
        if rowid not in self._next and before is not None:
            self._held[rowid] = (ns, list(before))
        self._next[rowid] = None if after is None else (ns, after)

    def flush(self, conn: sqlite3.Connection) -> None:
        """Apply the changes; a term or namespace no indexed row holds any more leaves no trace (purge
        must remove its bytes)."""
        spaces = set(self.docs) | set(self.tokens) | {ns for _, ns in self.df}
        spaces |= {ns for ns, _ in self._held.values()}
        spaces |= {got[0] for got in self._next.values() if got is not None}
        conn.executemany(
            "INSERT INTO lex_ns (ns, docs, tokens) VALUES (?, ?, ?) ON CONFLICT (ns) DO UPDATE SET"
            " docs = docs + excluded.docs, tokens = tokens + excluded.tokens",
            [(ns, self.docs[ns], self.tokens[ns]) for ns in spaces],
        )
        number = _numbers(conn, spaces)
        moved = [(t, number[ns], d) for (t, ns), d in self.df.items() if d]
        conn.executemany(
            "INSERT INTO lex_terms (term, space, df) VALUES (?, ?, ?)"
            " ON CONFLICT (term, space) DO UPDATE SET df = df + excluded.df",
            moved,
        )
        gone = [(t, space) for t, space, d in moved if d < 0]
        if gone:
            conn.executemany("DELETE FROM lex_terms WHERE term = ? AND space = ? AND df <= 0", gone)
        conn.executemany(
            "DELETE FROM lex_postings WHERE term = ? AND space = ? AND doc = ?",
            [(t, number[ns], rowid) for rowid, (ns, held) in self._held.items() for t in held],
        )
        write_postings(
            conn, ((number[got[0]], rowid, got[1]) for rowid, got in self._next.items() if got is not None)
        )
        emptied = [(ns,) for ns in spaces if self.docs[ns] < 0]
        if emptied:
            conn.executemany("DELETE FROM lex_ns WHERE ns = ? AND docs <= 0", emptied)
        self.df.clear()
        self.docs.clear()
        self.tokens.clear()
        self._held.clear()
        self._next.clear()


def rewrite_postings(conn: sqlite3.Connection) -> None:
    """Copy `lex_postings` into a new table and drop the old one, after a purge.

    Deleting a posting zeroes its cell (secure_delete), but SQLite leaves copies of cells in the pages a
    b-tree rebalance rebuilt, and the postings, inserted in key order rather than appended, rebalance
    often: a purged row's terms could stay in unused parts of live pages. The dropped table's pages are
    zeroed as they are freed; the new one holds only live postings. (`lex_docs`, like `items` and the
    FTS5 content table it replaces, is keyed by the rowid and filled in its order.)
    """
    conn.execute(_POSTINGS_TABLE.format(name="lex_postings_new"))
    conn.execute("INSERT INTO lex_postings_new SELECT * FROM lex_postings ORDER BY term, space, doc")
    conn.execute("DROP TABLE lex_postings")
    conn.execute("ALTER TABLE lex_postings_new RENAME TO lex_postings")


# the postings' layout (schema.py creates it; `rewrite_postings` copies it): led by the term, so a read
# of the whole store range-scans each query term once, and a scoped read seeks (term, namespace) pairs;
# `len` is the row's length (`length`), so bm25 needs nothing beyond the postings
_POSTINGS_TABLE = (
    "CREATE TABLE {name} (term TEXT NOT NULL, space INTEGER NOT NULL, doc INTEGER NOT NULL,"
    " title INTEGER NOT NULL, body INTEGER NOT NULL, context INTEGER NOT NULL, len INTEGER NOT NULL,"
    " PRIMARY KEY (term, space, doc)) WITHOUT ROWID"
)


def create_postings(conn: sqlite3.Connection, name: str = "lex_postings") -> None:
    """Create an empty postings table in the current layout (schema 11)."""
    conn.execute(_POSTINGS_TABLE.format(name=name))


def write_postings(conn: sqlite3.Connection, rows: Iterable[tuple[int, int, Postings]]) -> None:
    """Insert (namespace number, row, postings) into `lex_postings`."""
    conn.executemany(
        "INSERT INTO lex_postings (term, space, doc, title, body, context, len) VALUES (?, ?, ?, ?, ?, ?, ?)",
        (
            (t, space, rowid, *f, n)
            for space, rowid, postings in rows
            for n in (length(postings),)
            for t, f in postings.items()
        ),
    )


def _numbers(conn: sqlite3.Connection, spaces: Iterable[str]) -> dict[str, int]:
    """Each namespace's number in `lex_ns` (numbers are never reused: AUTOINCREMENT)."""
    rows = conn.execute(
        "SELECT ns, id FROM lex_ns WHERE ns IN (SELECT value FROM json_each(?))", (json.dumps(list(spaces)),)
    )
    return {str(ns): int(i) for ns, i in rows}


def index(
    conn: sqlite3.Connection,
    deltas: Deltas,
    rowid: int,
    ns: str,
    title: str,
    body: str,
    context: str,
    postings: Postings | None = None,
) -> None:
    """Index one row (analysed column texts) and count it in its namespace. `postings` are the
    columns' `postings_of` when the caller has them already: it writes their `length` into
    `items.lex_len` with the row."""
    posted = postings_of(title, body, context) if postings is None else postings
    conn.execute(
        f"INSERT INTO {DOCS} (doc, title, body, context) VALUES (?, ?, ?, ?)", (rowid, title, body, context)
    )
    deltas.count(ns, posted, 1, 1, length(posted))
    deltas.post(rowid, ns, None, posted)


def _indexed(conn: sqlite3.Connection, rowid: int, docs: str = DOCS) -> tuple[str, str, str, str] | None:
    row = conn.execute(
        f"SELECT i.ns, f.title, f.body, f.context FROM {docs} f JOIN items i ON i.rowid = f.rowid"
        " WHERE f.rowid = ?",
        (rowid,),
    ).fetchone()
    if row is None:
        return None
    return str(row[0]), str(row[1] or ""), str(row[2] or ""), str(row[3] or "")


def unindex(conn: sqlite3.Connection, deltas: Deltas, rowid: int) -> bool:
    """Remove a row from the index and its counts from the statistics (False when it was not indexed)."""
    found = _indexed(conn, rowid)
    if found is None:
        return False
    ns, title, body, context = found
    held = postings_of(title, body, context)
    conn.execute(f"DELETE FROM {DOCS} WHERE doc = ?", (rowid,))
    conn.execute("UPDATE items SET lex_len = 0 WHERE rowid = ?", (rowid,))
    deltas.count(ns, held, -1, -1, -length(held))
    deltas.post(rowid, ns, held, None)
    return True


def set_context(
    conn: sqlite3.Connection, deltas: Deltas, rowid: int, change: Callable[[str], str], docs: str = DOCS
) -> None:
    """Replace an indexed row's neighbouring-turn words with `change(current words)`, keeping the
    statistics exact (the row is read once). `docs` names the table of analysed columns (a migration
    step before schema 12 passes `items_fts`)."""
    found = _indexed(conn, rowid, docs)
    if found is None:
        return
    ns, title, body, old = found
    context = change(old)
    if old == context:
        return
    before, after = postings_of(title, body, old), postings_of(title, body, context)
    gone, new = before.keys() - after.keys(), after.keys() - before.keys()
    conn.execute(f"UPDATE {docs} SET context = ? WHERE rowid = ?", (context, rowid))
    conn.execute("UPDATE items SET lex_len = ? WHERE rowid = ?", (length(after), rowid))
    deltas.count(ns, new, 1, 0, 0)
    deltas.count(ns, gone, -1, 0, 0)
    deltas.count(ns, (), 0, 0, length(after) - length(before))
    deltas.post(rowid, ns, before, after)


# -- reads ----------------------------------------------------------------------------------------------


def scope_of(flt: MetaFilter) -> Reach | None:
    """The namespaces whose rows a read may rank: its namespace when set, else its reach.

    None means the whole file (no reach, or a subtree of the root), whose statistics are every
    namespace's summed (over the same rows: every indexed row).
    """
    if flt.namespace is not None:
        return Reach.exact(flt.namespace)
    if flt.reach is None or reach_sql(flt.reach, []) is None:
        return None
    return flt.reach


def indexed_rows(conn: sqlite3.Connection) -> int:
    """How many rows the whole file indexes (for choosing a read's plan, never for a score)."""
    return int(conn.execute("SELECT coalesce(sum(docs), 0) FROM lex_ns").fetchone()[0])


def stats(conn: sqlite3.Connection, scope: Reach | None, query_terms: list[str]) -> ScopeStats:
    """Statistics over the scope, summed from the per-namespace tables (all of them for the whole file,
    where the sums equal what an FTS5 index of the same rows would count: tests build one and compare)."""
    params: Params = []
    where = reach_sql(scope, params, column="ns")
    cond = "" if where is None else f" WHERE {where}"
    docs, tokens = conn.execute(
        f"SELECT coalesce(sum(docs), 0), coalesce(sum(tokens), 0) FROM lex_ns{cond}", params
    ).fetchone()
    df: dict[str, int] = {}
    if query_terms:
        marks = ",".join("?" * len(query_terms))
        if where is None:  # every namespace's counts of each term: its range of the (term, space) key
            rows = conn.execute(
                f"SELECT term, sum(df) FROM lex_terms WHERE term IN ({marks}) GROUP BY term", query_terms
            )
        else:
            tparams: Params = list(query_terms)
            twhere = reach_sql(scope, tparams, column="ns")
            rows = conn.execute(
                f"SELECT term, sum(df) FROM lex_terms WHERE term IN ({marks})"
                f" AND space IN (SELECT id FROM lex_ns WHERE {twhere}) GROUP BY term",
                tparams,
            )
        df = {str(t): int(d) for t, d in rows}
    return ScopeStats(int(docs), int(tokens), df)


def rebuild(conn: sqlite3.Connection) -> None:
    """Recount every statistic and posting from the index (a repair)."""
    conn.execute("DELETE FROM lex_postings")
    conn.execute("DELETE FROM lex_terms")
    conn.execute("DELETE FROM lex_ns")
    docs: Counter[str] = Counter()
    for (ns,) in conn.execute(f"SELECT i.ns FROM {DOCS} f JOIN items i ON i.rowid = f.rowid"):
        docs[str(ns)] += 1
    conn.executemany("INSERT INTO lex_ns (ns, docs, tokens) VALUES (?, ?, 0)", list(docs.items()))
    fill_postings(conn)
    recount(conn)


def fill_postings(conn: sqlite3.Connection, docs: str = DOCS) -> None:
    """Write every indexed row's postings into an empty `lex_postings` (also schema 10's migration,
    which reads `items_fts`)."""
    rows = conn.execute(
        f"SELECT n.id, f.rowid, f.title, f.body, f.context FROM {docs} f"
        " JOIN items i ON i.rowid = f.rowid JOIN lex_ns n ON n.ns = i.ns"
    )
    write_postings(
        conn,
        (
            (int(space), int(rowid), postings_of(str(t or ""), str(b or ""), str(c or "")))
            for space, rowid, t, b, c in rows
        ),
    )


def recount(conn: sqlite3.Connection) -> None:
    """Each indexed row's length, each namespace's tokens and each term's row counts, counted from the
    postings (`lex_ns` holding every namespace with indexed rows and their row counts): how a repair
    and schema 11 make the statistics FTS5's."""
    conn.execute("DROP TABLE IF EXISTS temp.lex_lengths")
    conn.execute("CREATE TEMP TABLE lex_lengths (doc INTEGER PRIMARY KEY, n INTEGER NOT NULL)")
    conn.execute(
        "INSERT INTO temp.lex_lengths SELECT doc, max(len) FROM lex_postings GROUP BY doc ORDER BY doc"
    )
    conn.execute(
        "UPDATE items SET lex_len = 0 WHERE lex_len != 0 AND rowid NOT IN (SELECT doc FROM temp.lex_lengths)"
    )
    conn.execute(
        "UPDATE items SET lex_len = (SELECT n FROM temp.lex_lengths WHERE doc = items.rowid)"
        " WHERE rowid IN (SELECT doc FROM temp.lex_lengths)"
    )
    tokens = conn.execute(
        "SELECT i.ns, sum(l.n) FROM temp.lex_lengths l JOIN items i ON i.rowid = l.doc GROUP BY i.ns"
    ).fetchall()
    conn.execute("UPDATE lex_ns SET tokens = 0")
    conn.executemany("UPDATE lex_ns SET tokens = ? WHERE ns = ?", [(int(n), str(ns)) for ns, n in tokens])
    conn.execute("DELETE FROM lex_terms")
    conn.execute(
        "INSERT INTO lex_terms (term, space, df) SELECT term, space, count(*) FROM lex_postings"
        " GROUP BY term, space"
    )
    conn.execute("DROP TABLE temp.lex_lengths")
