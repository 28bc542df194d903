"""A store keeps the index terms of the rows its fetches pool (text.RowTerms), by row and text: the
rerankers' features and rankings are the ones analysing each text gives, an entry serves only its own
row, and forgetting or purging anything drops them all."""

from __future__ import annotations

from pathlib import Path

from test_sqlite_support import HashEmbedder
from tinymemory.api import (
    FetchMode,
    FetchRequest,
    ForgetRequest,
    ItemKind,
    ItemMeta,
    MetaFilter,
    Namespace,
    NewItem,
    PurgeRequest,
)
from tinymemory.engines.sqlite import SqliteEngine, db, search
from tinymemory.retrieval.pipeline import ScopeStats, features_of
from tinymemory.retrieval.text import RowTerms, default_analyzer

DANA, GUS = Namespace.parse("team:a/user:dana"), Namespace.parse("team:a/user:gus")
TEXTS = [
    "Dana paints the lake at dawn",
    "Gus repairs old bicycles on Sundays",
    "the lake froze early this winter",
    "Dana asked whether the gallery opens on Sundays?",
    "bicycles and paint, the two things in the shed",
]


def test_an_entry_serves_its_own_row_and_text_only() -> None:
    terms = RowTerms(default_analyzer(), size=3)
    first = terms.of(1, "Dana paints the lake")
    assert first == frozenset(default_analyzer().index_terms("Dana paints the lake"))
    assert terms.of(1, "Dana paints the lake") is first
    assert terms.of(2, "Dana paints the lake") is not first  # another row with the same text: its own
    assert terms.of(1, "another text") == frozenset(default_analyzer().index_terms("another text"))
    terms.of(3, "x")
    assert len(terms) == 3  # bounded: the oldest went
    terms.clear()
    assert len(terms) == 0


async def test_features_with_kept_terms_are_those_of_analysing_each_text(tmp_path: Path) -> None:
    async with SqliteEngine(tmp_path / "m.db", embedder=HashEmbedder()) as engine:
        for i, text in enumerate(TEXTS * 3):
            meta = ItemMeta(namespace=DANA if i % 2 else GUS, thread_id=f"t{i % 4}")
            await engine.store(NewItem(ItemKind.CONVERSATION, f"{text} {i}", meta))
        conn = db.connect(str(tmp_path / "m.db"))
        rowids = [int(r[0]) for r in conn.execute("SELECT rowid FROM items")]
        kept = RowTerms(engine.analyzer)
        snapshot = search.max_rowid(conn)
        with_terms = search.light_rows(conn, rowids, True, snapshot, kept)
        plain = search.light_rows(conn, rowids, True, snapshot)
        assert len(kept) == len(rowids) and all(lt.terms is None for lt in plain.values())
        lex = [(r, 1.0 / (1 + i)) for i, r in enumerate(rowids[:9])]
        sem = [(r, 0.9 - 0.01 * i) for i, r in enumerate(rowids[4:])]
        stats = ScopeStats(len(rowids), 6 * len(rowids), {"lake": 6, "sunday": 6})
        query = "did Dana paint the lake on Sundays?"
        a = features_of(lex, sem, with_terms, stats, query, engine.analyzer)
        b = features_of(lex, sem, plain, stats, query, engine.analyzer)
        assert a[0] == b[0] and a[1].tolist() == b[1].tolist()
        conn.close()


async def test_forgetting_or_purging_drops_every_kept_entry(tmp_path: Path) -> None:
    async with SqliteEngine(tmp_path / "m.db", embedder=HashEmbedder()) as engine:
        stored = [
            await engine.store(NewItem(ItemKind.LEARNING, text, ItemMeta(namespace=DANA))) for text in TEXTS
        ]
        kept = engine.storage.row_terms  # type: ignore[attr-defined]

        async def pooled() -> list[str]:
            request = FetchRequest("lake Sundays bicycles", mode=FetchMode.HYBRID, filter=MetaFilter())
            return [h.item.id for h in (await engine.fetch(request)).hits]

        before = await pooled()
        assert len(kept) > 0
        await engine.forget(ForgetRequest(ids=(stored[0].id,)))
        assert len(kept) == 0
        after = await pooled()
        assert stored[0].id not in after and set(after) < set(before)
        assert len(kept) > 0
        await engine.purge(PurgeRequest())
        assert len(kept) == 0
