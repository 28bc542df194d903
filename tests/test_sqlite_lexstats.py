"""The per-namespace statistics and postings kept on every write equal a recount from the index (and the
postings FTS5's own), whatever sequence of stores, corrections, thread turns, forgets and purges led
there (and after a killed writer)."""

from __future__ import annotations

import asyncio
import random
import sqlite3
import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from test_sqlite_support import fts_postings, held_postings
from tinymemory.api import ForgetRequest, ItemKind, ItemMeta, Namespace, NewItem, PurgeRequest
from tinymemory.engines.sqlite import SqliteEngine, db, lexstats

WORDS = ["alpha", "beta", "gamma", "delta", "coffee", "report", "friday", "tea", "laptop", "berlin"]
PLACES = [Namespace.parse(p) for p in ("team:a", "team:a/agent:x", "team:b", "")]


def snapshot(conn: sqlite3.Connection) -> tuple[list[tuple[object, ...]], ...]:
    return (
        sorted(tuple(r) for r in conn.execute("SELECT ns, docs, tokens FROM lex_ns")),
        # the postings against FTS5's own (which the rebuild does not read), by namespace name
        sorted((ns_name(conn, p[0]), *p[1:]) for p in held_postings(conn)),
        sorted((ns_name(conn, p[0]), *p[1:]) for p in fts_postings(conn)),
        sorted(tuple(r) for r in conn.execute("SELECT term, ns, df FROM lex_df")),
        sorted(tuple(r) for r in conn.execute("SELECT rowid, lex_len FROM items WHERE forgotten_at IS NULL")),
    )


def ns_name(conn: sqlite3.Connection, space: int) -> str:
    return str(conn.execute("SELECT ns FROM lex_ns WHERE id = ?", (space,)).fetchone()[0])


def recount(path: Path) -> tuple[tuple[list[tuple[object, ...]], ...], tuple[list[tuple[object, ...]], ...]]:
    conn = db.connect(str(path))
    try:
        kept = snapshot(conn)
        conn.execute("BEGIN IMMEDIATE")
        lexstats.rebuild(conn)
        fresh = snapshot(conn)
        conn.execute("ROLLBACK")
        return kept, fresh
    finally:
        conn.close()


ops = st.lists(
    st.tuples(
        st.sampled_from(["store", "turn", "correct", "forget", "purge"]),
        st.integers(0, 3),
        st.lists(st.sampled_from(WORDS), min_size=1, max_size=6),
    ),
    min_size=1,
    max_size=25,
)


@settings(max_examples=30, deadline=None)
@given(steps=ops)
def test_statistics_kept_on_write_equal_a_recount(steps: list[tuple[str, int, list[str]]]) -> None:
    async def run(path: Path) -> None:
        async with SqliteEngine(path, embedder=None) as engine:
            stored: list[str] = []
            for n, (op, where, words) in enumerate(steps):
                place = PLACES[where]
                text = " ".join(words)
                if op in ("store", "turn"):
                    meta = ItemMeta(namespace=place, thread_id="t1" if op == "turn" else None)
                    kind = ItemKind.CONVERSATION if op == "turn" else ItemKind.LEARNING
                    stored.append((await engine.store(NewItem(kind, f"{text} {n}", meta))).id)
                elif op == "correct":
                    meta = ItemMeta(namespace=place, title=words[0])
                    await engine.store(NewItem(ItemKind.LEARNING, text, meta, confidence=0.5))
                    stored.append(
                        (await engine.store(NewItem(ItemKind.LEARNING, text, meta, confidence=0.9))).id
                    )
                elif op == "forget" and stored:
                    await engine.forget(ForgetRequest(ids=(stored[where % len(stored)],)))
                elif op == "purge":
                    await engine.purge(PurgeRequest())

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "m.db"
        asyncio.run(run(path))
        kept, fresh = recount(path)
        assert kept == fresh
        assert kept[1] == kept[2]  # the postings kept on write are FTS5's own


def test_a_killed_batch_leaves_the_statistics_as_they_were(tmp_path: Path) -> None:
    """A batch that fails half-way (here: the n-th insert aborts) rolls back its statistics too."""
    path = tmp_path / "m.db"

    async def run() -> None:
        async with SqliteEngine(path, embedder=None) as engine:
            await engine.store_many([NewItem(ItemKind.LEARNING, f"{w} one") for w in WORDS[:3]])

    asyncio.run(run())
    before = recount(path)[0]
    raw = sqlite3.connect(path)
    raw.execute(
        "CREATE TRIGGER fail_fifth BEFORE INSERT ON items WHEN (SELECT count(*) FROM items) >= 6"
        " BEGIN SELECT RAISE(ABORT, 'boom'); END"
    )
    raw.commit()
    raw.close()

    async def batch() -> None:
        async with SqliteEngine(path, embedder=None) as engine:
            items = [NewItem(ItemKind.LEARNING, f"{random.choice(WORDS)} batch {i}") for i in range(6)]
            try:
                await engine.store_many(items)
            except Exception as exc:  # the abort surfaces as the library's Unavailable
                assert type(exc).__name__ == "Unavailable"
            else:  # pragma: no cover
                raise AssertionError("the trigger should abort the batch")

    asyncio.run(batch())
    kept, fresh = recount(path)
    assert kept == before == fresh
