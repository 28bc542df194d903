"""A read confined to a reach ranks from its own namespaces' postings (`lex_postings`), never reading
FTS5's, which hold every tenant's rows, and ranks exactly as FTS5's postings of the same rows would."""

from __future__ import annotations

import random
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from test_sqlite_support import fts_oracle, fts_postings, held_postings, to_version_11
from tinymemory.api import (
    About,
    FetchRequest,
    ForgetRequest,
    ItemKind,
    ItemMeta,
    MetaFilter,
    Namespace,
    NewItem,
    Reach,
)
from tinymemory.engines.sqlite import SqliteEngine, db, lexstats, schema, search
from tinymemory.engines.sqlite.fts_terms import MAX_TOKEN_BYTES, TOKENIZER, fts_terms
from tinymemory.engines.sqlite.where import Params, filter_sql
from tinymemory.retrieval.config import field_weights
from tinymemory.retrieval.pipeline import ScopeStats, bm25_best, prune
from tinymemory.retrieval.text import default_analyzer

T0 = datetime(2026, 1, 1, tzinfo=UTC)
USER = Namespace.parse("team:acme/user:dana")
OTHER = Namespace.parse("team:acme/user:gus")
TEXTS = [
    "Dana drinks oat-milk flat whites; Dana's flat white is always oat-milk!",
    "Café in Zürich: naïve résumé, crème brûlée & Straße (STRASSE)",
    "東京タワー に 行きました 東京 東京",
    "Ελληνικά γράμματα και ΣΊΣΥΦΟΣ, ς σ Σ",
    "Привет, мир! Встреча в Москве в 10:30",
    "हिन्दी भाषा में लिखा गया नोट",
    "İstanbul ıspanak Iğdır — dotted and dotless i",
    "emoji 🎉 party🎉time 🇫🇷 flags and ½ ² ³ numbers ① ⅷ",
    "report report report REPORT re-port report's report_final",
    "Cherokee ꭰꭱꭲ ᎠᎡᎢ and fullwidth ＡＢＣ ｄｅｆ",
    "tabs\tand\u00a0non-breaking\u2003spaces\u3000ideographic",
    "release review notes for the Friday release; release again",
    "Arabic العربية مُشْكَلَة and Hebrew עִבְרִית",
    "a word " + "x" * (MAX_TOKEN_BYTES + 10) + " after a very long token",
    # letters to Python's Unicode tables, separators to SQLite's (New Tai Lue vowels): FTS5 splits
    # "kab\u19b0tuk" into kab and tuk, which must count as the postings count them
    "kab\u19b0tuk kab\u19b1\u19b2 tuk",
]
QUERIES = [
    "Dana oat milk",
    "flat white",
    "cafe zurich resume creme brulee strasse",
    "東京タワー 東京",
    "ελληνικα σισυφος σ",
    "мир москве",
    "हिन्दी नोट",
    "istanbul ıspanak igdir",
    "party time numbers 2",
    "report final",
    "cherokee ꭰꭱꭲ abc def",
    "non breaking spaces ideographic tabs",
    "release review friday",
    "العربية עברית",
    "word after token " + "x" * MAX_TOKEN_BYTES,
    "kab tuk",
]


def _unicode(rng: random.Random) -> str:
    code = rng.randrange(0x80, 0x30000)
    return "" if 0xD800 <= code <= 0xDFFF else chr(code)


def test_fts_terms_are_what_fts5_indexes() -> None:
    conn = sqlite3.connect(":memory:")
    conn.execute(f"CREATE VIRTUAL TABLE t USING fts5(x, tokenize = '{TOKENIZER}')")
    conn.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance')")
    rng = random.Random(24)
    pool = [chr(c) for c in range(0x20, 0x7F)] + [" ", "\t", "\n", "\u00a0", "\u2003", "\u3000"]
    samples = list(TEXTS)
    for _ in range(300):
        chars = [rng.choice(pool) if rng.random() < 0.6 else _unicode(rng) for _ in range(40)]
        samples.append("".join(chars))
        samples.append("".join(rng.choice(pool) for _ in range(60)))
    samples += [text.casefold() for text in samples]
    for i, text in enumerate(samples, 1):
        conn.execute("INSERT INTO t (rowid, x) VALUES (?, ?)", (i, text))
    indexed: dict[int, list[str]] = {}
    for doc, term in conn.execute("SELECT doc, term FROM v ORDER BY doc, offset"):
        indexed.setdefault(int(doc), []).append(str(term))
    for i, text in enumerate(samples, 1):
        assert fts_terms(text) == indexed.get(i, []), text


def test_the_tokenizer_is_the_one_items_fts_was_declared_with(tmp_path: Path) -> None:
    """Postings written before schema 12 came from FTS5's own table: the same tokenizer."""
    conn = sqlite3.connect(tmp_path / "m.db", isolation_level=None)
    schema.migrate(conn, target=11)
    sql = conn.execute("SELECT sql FROM sqlite_master WHERE name = 'items_fts'").fetchone()[0]
    assert f"tokenize = '{TOKENIZER}'" in sql


@pytest.fixture
async def conn(tmp_path: Path) -> sqlite3.Connection:
    """Two users' rows: titles, threads (the context field), superseded and forgotten versions."""
    async with SqliteEngine(tmp_path / "m.db", embedder=None) as engine:
        for round_ in range(2):
            for i, text in enumerate(TEXTS):
                for place in (USER, OTHER):
                    meta = ItemMeta(
                        namespace=place,
                        thread_id=f"t{i % 3}",
                        title="Report notes" if i % 4 == 0 else None,
                        about=About("topic", f"k{i}") if i % 5 == 0 else None,
                        observed_at=T0 + timedelta(days=10 * round_ + i),
                    )
                    words = f"{text} round {round_}" if round_ or i % 5 == 0 else text
                    if round_ and i % 5:
                        continue
                    await engine.store(NewItem(ItemKind.CONVERSATION, words, meta))
        conn = db.connect(str(tmp_path / "m.db"))
        sql = "SELECT id FROM items WHERE ns = ? AND text LIKE '%Cherokee%'"
        forget = tuple(str(r[0]) for r in conn.execute(sql, (str(USER),)))
        assert forget
        await engine.forget(ForgetRequest(ids=forget))
    return db.connect(str(tmp_path / "m.db"))


FILTERS = [
    MetaFilter(namespace=USER),
    MetaFilter(reach=Reach.exact(USER)),
    MetaFilter(reach=Reach.subtree(Namespace.parse("team:acme"))),
    MetaFilter(namespace=USER, as_of=T0 + timedelta(days=5)),
    MetaFilter(namespace=USER, as_of=T0 + timedelta(days=30)),
    MetaFilter(namespace=USER, thread_id="t1"),
]


def fts5_scoped(
    conn: sqlite3.Connection,
    terms: list[str],
    flt: MetaFilter,
    snapshot: int,
    stats: ScopeStats,
    budget: int,
    context_weight: float,
) -> list[tuple[int, float]]:
    """The reference: bm25 with the reach's statistics over FTS5's own postings of the kept terms (its
    instance vocabulary, every tenant's), then the filter."""
    kept = prune(terms, stats.df, budget)
    weights = field_weights(context_weight)
    fts_oracle(conn)
    params: Params = [weights["title"], weights["body"], weights["context"], *kept, snapshot]
    where = filter_sql(flt, params)
    rows = conn.execute(
        "SELECT v.doc, v.term, sum(CASE v.col WHEN 'title' THEN ? WHEN 'body' THEN ? ELSE ? END) AS f,"
        " i.lex_len FROM temp.fts_oracle v CROSS JOIN items i ON i.rowid = v.doc"
        f" WHERE v.term IN ({','.join('?' * len(kept))}) AND v.doc <= ? AND {where}"
        " GROUP BY v.doc, v.term HAVING f > 0",
        params,
    ).fetchall()
    return bm25_best(rows, stats, 50)


@pytest.mark.parametrize("context_weight", [0.0, 0.5])
@pytest.mark.parametrize("flt", FILTERS, ids=range(len(FILTERS)))
def test_a_scoped_read_ranks_exactly_as_fts5s_postings(
    conn: sqlite3.Connection, flt: MetaFilter, context_weight: float
) -> None:
    analyzer = default_analyzer()
    snapshot = search.max_rowid(conn)
    matched = 0
    for query in QUERIES:
        for snap in (snapshot, snapshot - 7):
            terms = analyzer.query_terms(query)
            stats = lexstats.stats(conn, lexstats.scope_of(flt), terms)
            for budget in (10_000, 3):
                want = fts5_scoped(conn, terms, flt, snap, stats, budget, context_weight)
                got = search.lexical_scoped(conn, terms, flt, snap, 50, stats, budget, context_weight)
                assert [r for r, _ in got] == [r for r, _ in want], query
                assert [s for _, s in got] == pytest.approx([s for _, s in want], rel=1e-9, abs=1e-12)
                matched += len(got)
    assert matched > 5


def test_the_postings_are_fts5s_own(conn: sqlite3.Connection) -> None:
    """Stores, superseded versions, thread context and a forget leave `lex_postings` as FTS5 holds them."""
    held = held_postings(conn)
    assert held == fts_postings(conn)
    assert {p[4] for p in held} != {0} and {p[5] for p in held} != {0}  # titles and context are counted
    assert not [p for p in held if "cherokee" in p[1]]  # the forgotten row left


def test_a_scoped_read_reads_no_other_tenants_postings(conn: sqlite3.Connection) -> None:
    seen: list[str] = []
    conn.set_trace_callback(seen.append)
    ranked = search.lexical(conn, default_analyzer(), "report final", MetaFilter(namespace=USER), 10**6, 10)
    conn.set_trace_callback(None)
    assert ranked
    assert [s for s in seen if "lex_postings" in s]
    assert not [s for s in seen if "items_fts" in s or "items_postings" in s]


async def test_a_version_9_file_gains_the_postings_and_ranks_as_before(tmp_path: Path) -> None:
    """Schema 10 fills `lex_postings` from the index of a file written before it: the same postings a
    new file keeps, and the same scoped rankings."""
    path = tmp_path / "v9.db"
    async with SqliteEngine(path, embedder=None) as engine:
        for i, text in enumerate(TEXTS):
            for place in (USER, OTHER):
                meta = ItemMeta(namespace=place, thread_id=f"t{i % 2}", title="Report" if i % 3 else None)
                await engine.store(NewItem(ItemKind.CONVERSATION, text, meta))
    analyzer = default_analyzer()
    flt = MetaFilter(namespace=USER)

    def ranked(conn: sqlite3.Connection) -> list[list[tuple[int, float]]]:
        return [search.lexical(conn, analyzer, q, flt, 10**6, 20, context_weight=0.5) for q in QUERIES]

    conn = db.connect(str(path))
    before, postings = ranked(conn), held_postings(conn)
    conn.close()
    raw = sqlite3.connect(path, isolation_level=None)
    to_version_11(raw)
    raw.execute("DROP TABLE lex_postings")
    raw.execute("CREATE VIRTUAL TABLE items_postings USING fts5vocab(items_fts, 'instance')")
    raw.execute("PRAGMA user_version = 9")
    raw.close()
    async with SqliteEngine(path, embedder=None) as engine:
        hits = (await engine.fetch(FetchRequest("flat white", filter=flt))).hits
        assert hits and all(h.item.meta.namespace == USER for h in hits)
    conn = db.connect(str(path))
    assert schema.user_version(conn) == schema.SCHEMA_VERSION
    assert held_postings(conn) == postings == fts_postings(conn)
    assert ranked(conn) == before
    assert not conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'items_postings'").fetchall()
