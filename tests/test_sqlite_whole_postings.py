"""A read of the whole store scores the postings itself (`search.lexical_whole`), and its ranking and
floats are FTS5's own `bm25()`: the statistics, lengths and counts `lexstats` keeps are FTS5's, as
its tokenizer splits the analysed columns, on a new file and on one upgraded from schema 10."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from test_sqlite_lexical_postings import QUERIES, TEXTS
from test_sqlite_support import fts_oracle, fts_postings, held_postings, to_version_11
from tinymemory.api import (
    About,
    ForgetRequest,
    ItemKind,
    ItemMeta,
    MetaFilter,
    Namespace,
    NewItem,
)
from tinymemory.engines.lexcounts import terms as whitespace_terms
from tinymemory.engines.sqlite import SqliteEngine, db, lexstats, schema, search
from tinymemory.retrieval.config import TITLE_WEIGHT
from tinymemory.retrieval.pipeline import unit_score
from tinymemory.retrieval.text import default_analyzer

T0 = datetime(2026, 1, 1, tzinfo=UTC)
PLACES = [Namespace.parse("team:acme/user:dana"), Namespace.parse("team:acme/user:gus")]


async def fill(path: Path) -> None:
    """Two users' rows with titles, threads (the context field), superseded and forgotten versions."""
    async with SqliteEngine(path, embedder=None) as engine:
        for round_ in range(2):
            for i, text in enumerate(TEXTS):
                if round_ and i % 3:
                    continue
                for place in PLACES:
                    meta = ItemMeta(
                        namespace=place,
                        thread_id=f"t{i % 3}",
                        title="Report notes" if i % 4 == 0 else None,
                        about=About("topic", f"k{i}") if i % 3 == 0 else None,
                        observed_at=T0 + timedelta(days=10 * round_ + i),
                    )
                    kind = ItemKind.CONVERSATION if i % 2 else ItemKind.LEARNING
                    words = f"{text} again {round_}" if round_ else text
                    await engine.store(NewItem(kind, words, meta))
        conn = db.connect(str(path))
        forget = tuple(str(r[0]) for r in conn.execute("SELECT id FROM items WHERE text LIKE '%Cherokee%'"))
        conn.close()
        assert forget
        await engine.forget(ForgetRequest(ids=forget))


@pytest.fixture
async def conn(tmp_path: Path) -> sqlite3.Connection:
    await fill(tmp_path / "m.db")
    conn = db.connect(str(tmp_path / "m.db"))
    fts_oracle(conn)
    return conn


def fts5_ranking(
    conn: sqlite3.Connection, terms: list[str], flt: MetaFilter, snapshot: int, n: int, weight: float
) -> list[tuple[int, float]]:
    """FTS5's bm25 over every indexed row (the reference), then the filter."""
    match = " OR ".join(f'"{t}"' for t in terms)
    rows = conn.execute(
        f"SELECT f.rowid, bm25(items_fts, {TITLE_WEIGHT!r}, 1.0, {weight!r}) AS r FROM items_fts f"
        " WHERE items_fts MATCH ? AND f.rowid <= ? ORDER BY r, f.rowid",
        (match, snapshot),
    ).fetchall()
    readable = search._visible(conn, [int(r) for r, _ in rows], flt, snapshot)
    return [(int(r), unit_score(-rank)) for r, rank in rows if rank < 0 and int(r) in readable][:n]


FILTERS = [MetaFilter(), MetaFilter(kinds=(ItemKind.CONVERSATION,)), MetaFilter(thread_id="t1")]


@pytest.mark.parametrize("weight", [0.0, 0.5, 0.3])
@pytest.mark.parametrize("flt", FILTERS, ids=["whole", "kinds", "thread"])
def test_the_whole_store_ranks_as_fts5s_bm25_float_for_float(
    conn: sqlite3.Connection, flt: MetaFilter, weight: float
) -> None:
    analyzer = default_analyzer()
    snapshot = search.max_rowid(conn)
    matched = 0
    for query in [*QUERIES, "report notes again", "again 1 report"]:
        terms = analyzer.query_terms(query)
        for snap in (snapshot, snapshot - 9):
            stats = lexstats.stats(conn, None, terms)
            got = search.lexical_whole(conn, terms, flt, snap, 40, stats, weight)
            assert got == fts5_ranking(conn, terms, flt, snap, 40, weight), query
            matched += len(got)
    assert matched > 20


def fts5_lengths(conn: sqlite3.Connection) -> dict[int, int]:
    fts_oracle(conn)
    return {int(d): int(n) for d, n in conn.execute("SELECT doc, count(*) FROM temp.fts_oracle GROUP BY doc")}


def assert_statistics_are_fts5s(conn: sqlite3.Connection) -> None:
    lengths = fts5_lengths(conn)
    held = dict(conn.execute("SELECT rowid, lex_len FROM items WHERE lex_len != 0").fetchall())
    assert held == lengths
    in_postings = dict(conn.execute("SELECT doc, max(len) FROM lex_postings GROUP BY doc").fetchall())
    assert in_postings == lengths
    assert {int(r[0]) for r in conn.execute("SELECT count(DISTINCT len) FROM lex_postings GROUP BY doc")} == {
        1
    }
    tokens = dict(conn.execute("SELECT ns, tokens FROM lex_ns").fetchall())
    per_ns: dict[str, int] = {}
    for rowid, ns in conn.execute("SELECT rowid, ns FROM items"):
        per_ns[str(ns)] = per_ns.get(str(ns), 0) + lengths.get(int(rowid), 0)
    assert tokens == {ns: n for ns, n in per_ns.items() if ns in tokens}
    assert sum(tokens.values()) == sum(lengths.values())
    df = [tuple(r) for r in conn.execute("SELECT term, space, df FROM lex_terms ORDER BY term, space")]
    counted = [
        tuple(r)
        for r in conn.execute(
            "SELECT term, space, count(*) FROM lex_postings GROUP BY term, space ORDER BY term, space"
        )
    ]
    assert df == counted
    whole = dict(conn.execute("SELECT term, doc FROM items_vocab").fetchall())
    summed: dict[str, int] = {}
    for term, _, n in df:
        summed[term] = summed.get(term, 0) + n
    assert summed == whole


def test_the_statistics_are_fts5s(conn: sqlite3.Connection) -> None:
    """Rows' lengths, namespaces' tokens and terms' row counts are what FTS5 counts, where splitting the
    analysed columns on whitespace counts some non-ASCII text differently."""
    assert_statistics_are_fts5s(conn)
    assert held_postings(conn) == fts_postings(conn)
    columns = conn.execute("SELECT rowid, title, body, context FROM lex_docs").fetchall()
    lengths = fts5_lengths(conn)
    assert [r for r, *c in columns if len(whitespace_terms(*(x or "" for x in c))) != lengths.get(r, 0)]


def namespaces(conn: sqlite3.Connection) -> list[tuple[int, str, int, int]]:
    return [tuple(r) for r in conn.execute("SELECT id, ns, docs, tokens FROM lex_ns ORDER BY id")]


async def test_a_version_10_file_is_recounted_and_ranks_as_a_new_one(tmp_path: Path) -> None:
    path = tmp_path / "v10.db"
    await fill(path)
    conn = db.connect(str(path))
    new = held_postings(conn), namespaces(conn)
    conn.close()
    raw = sqlite3.connect(path, isolation_level=None)
    to_version_11(raw)
    # what version 10 kept: postings led by the namespace, without lengths; counts split on whitespace
    raw.execute(
        "CREATE TABLE old (space INTEGER NOT NULL, term TEXT NOT NULL, doc INTEGER NOT NULL,"
        " title INTEGER NOT NULL, body INTEGER NOT NULL, context INTEGER NOT NULL,"
        " PRIMARY KEY (space, term, doc)) WITHOUT ROWID"
    )
    raw.execute("INSERT INTO old SELECT space, term, doc, title, body, context FROM lex_postings")
    raw.execute("DROP TABLE lex_postings")
    raw.execute("ALTER TABLE old RENAME TO lex_postings")
    for rowid, title, body, context in raw.execute("SELECT rowid, title, body, context FROM items_fts"):
        words = whitespace_terms(title or "", body or "", context or "")
        raw.execute("UPDATE items SET lex_len = ? WHERE rowid = ?", (len(words), rowid))
    raw.execute("UPDATE lex_ns SET tokens = tokens + 7")
    raw.execute("UPDATE lex_terms SET df = df + 1")
    raw.execute("PRAGMA user_version = 10")
    raw.close()
    conn = db.connect(str(path))
    assert schema.user_version(conn) == schema.SCHEMA_VERSION == 12
    assert (held_postings(conn), namespaces(conn)) == new
    assert_statistics_are_fts5s(conn)
    snapshot = search.max_rowid(conn)
    for query in QUERIES:
        terms = default_analyzer().query_terms(query)
        got = search.lexical_whole(conn, terms, MetaFilter(), snapshot, 40, lexstats.stats(conn, None, terms))
        assert got == fts5_ranking(conn, terms, MetaFilter(), snapshot, 40, 0.0)
