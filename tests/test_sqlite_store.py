"""Writes: replays, versions, supersession, atomic batches, embeddings once, purge."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from test_sqlite_support import HashEmbedder, note
from tinymemory.api import (
    About,
    FetchMode,
    FetchRequest,
    ForgetRequest,
    GetRequest,
    InvalidRequest,
    ListRequest,
    MetaFilter,
    PurgeRequest,
    Unavailable,
    content_key,
    item_id,
)
from tinymemory.engines.sqlite import SqliteEngine


@pytest.fixture
async def engine(tmp_path: Path):  # type: ignore[no-untyped-def]
    async with SqliteEngine(tmp_path / "mem.db", embedder=HashEmbedder()) as eng:
        yield eng


def count(path: Path, table: str) -> int:
    with sqlite3.connect(path) as raw:
        return int(raw.execute(f"SELECT count(*) FROM {table}").fetchone()[0])


async def test_replay_writes_nothing_and_embeds_nothing(engine: SqliteEngine, tmp_path: Path) -> None:
    emb = engine.embedder
    assert isinstance(emb, HashEmbedder)
    first = await engine.store(note("tea is green", tags=("a",)))
    again = await engine.store(note("tea  is green", tags=("b",)))
    assert (first.replayed, again.replayed, again.id) == (False, True, first.id)
    assert emb.embedded_texts == 1
    assert count(tmp_path / "mem.db", "items") == 1


async def test_a_forgotten_memory_stored_again_is_the_next_generation(engine: SqliteEngine) -> None:
    item = note("the sky is blue")
    first = await engine.store(item)
    await engine.forget(ForgetRequest(ids=(first.id,)))
    second = await engine.store(item)
    assert not second.replayed and second.id == item_id(content_key(item), 1) != first.id
    assert (await engine.store(item)).id == second.id
    got = await engine.get(GetRequest((first.id, second.id)))
    assert [i.id for i in got.items] == [second.id] and got.missing == (first.id,)


async def test_one_batch_replays_and_corrects_its_own_new_content(engine: SqliteEngine) -> None:
    # keys no row holds are looked up once for the whole batch: a repeat of one later in the same batch
    # must still see the version written just before it
    item, forgotten = note("the lake is cold"), note("the hill is steep")
    old = await engine.store(forgotten)
    await engine.forget(ForgetRequest(ids=(old.id,)))
    results = await engine.store_many(
        [item, note("the lake is cold"), note("the lake is cold", title="Lake"), forgotten, forgotten]
    )
    first, gen1 = item_id(content_key(item), 0), item_id(content_key(item), 1)
    assert [(r.id, r.replayed, r.superseded) for r in results] == [
        (first, False, ()),
        (first, True, ()),
        (gen1, False, (first,)),
        (item_id(content_key(forgotten), 1), False, ()),
        (item_id(content_key(forgotten), 1), True, ()),
    ]
    got = await engine.get(GetRequest((first, gen1)))
    assert {(i.id, i.meta.title, i.superseded_by) for i in got.items} == {
        (first, None, gen1),
        (gen1, "Lake", None),
    }


async def test_supersession_closes_the_active_version_and_as_of_reads_history(engine: SqliteEngine) -> None:
    about = About("preference", "drink")
    old = await engine.store(note("prefers coffee", about=about))
    before = datetime.now(UTC)
    new = await engine.store(note("prefers tea", about=about))
    assert new.superseded == (old.id,)
    got = {i.id: i for i in (await engine.get(GetRequest((old.id, new.id)))).items}
    assert got[old.id].superseded_by == new.id and got[old.id].valid_to is not None
    assert got[new.id].supersedes == old.id and got[new.id].is_active
    active = await engine.list(ListRequest(filter=MetaFilter(about=about)))
    assert [i.id for i in active.items] == [new.id]
    then = await engine.list(ListRequest(filter=MetaFilter(about=about, as_of=before)))
    assert [i.id for i in then.items] == [old.id]
    side = await engine.store(note("also likes juice", about=about, supersede=False))
    assert side.superseded == ()
    both = await engine.list(ListRequest(filter=MetaFilter(about=about)))
    assert {i.id for i in both.items} == {new.id, side.id}


async def test_store_many_is_all_or_nothing(engine: SqliteEngine, tmp_path: Path) -> None:
    await engine.list(ListRequest())  # creates the file
    with pytest.raises(InvalidRequest, match=r"store_many: `items\[1\]\.text`"):
        await engine.store_many([note("fine"), note("   ")])
    assert count(tmp_path / "mem.db", "items") == 0
    results = await engine.store_many([note("one"), note("two"), note("one")])
    assert [r.replayed for r in results] == [False, False, True]
    assert results[2].id == results[0].id
    assert count(tmp_path / "mem.db", "vectors") == 2
    assert await engine.store_many([]) == []


async def test_observed_at_defaults_to_now_and_is_kept_when_given(engine: SqliteEngine) -> None:
    t0 = datetime.now(UTC)
    a = await engine.store(note("recorded now"))
    past = datetime(2020, 2, 2, 12, 30, tzinfo=UTC)
    b = await engine.store(note("recorded long ago", observed=past))
    items = {i.id: i for i in (await engine.get(GetRequest((a.id, b.id)))).items}
    observed = items[a.id].meta.observed_at
    assert observed is not None and t0 - timedelta(seconds=1) <= observed <= datetime.now(UTC)
    assert items[b.id].meta.observed_at == past


async def test_purge_removes_rows_index_entries_and_vectors(engine: SqliteEngine, tmp_path: Path) -> None:
    keep = await engine.store(note("keep this apple note", tags=("x",)))
    drop = await engine.store(note("drop this apple note", tags=("x",)))
    await engine.fetch(FetchRequest("apple", mode=FetchMode.SEMANTIC))  # loads the matrix
    await engine.forget(ForgetRequest(ids=(drop.id,)))
    assert (await engine.purge(PurgeRequest())).purged == 1
    db = tmp_path / "mem.db"
    assert [count(db, t) for t in ("items", "lex_docs", "vectors", "item_tags")] == [1, 1, 1, 1]
    for mode in FetchMode:
        hits = (await engine.fetch(FetchRequest("apple note", mode=mode))).hits
        assert [h.item.id for h in hits] == [keep.id]
    assert (await engine.purge(PurgeRequest())).purged == 0


async def test_purge_respects_forgotten_before(engine: SqliteEngine) -> None:
    a = await engine.store(note("first"))
    await engine.forget(ForgetRequest(ids=(a.id,)))
    cutoff = datetime.now(UTC) - timedelta(hours=1)
    assert (await engine.purge(PurgeRequest(forgotten_before=cutoff))).purged == 0
    assert (await engine.purge(PurgeRequest(forgotten_before=datetime.now(UTC)))).purged == 1


class WrongShapeEmbedder(HashEmbedder):
    def embed(self, texts):  # type: ignore[no-untyped-def]
        return super().embed(texts)[:, :5]


class FailingEmbedder(HashEmbedder):
    def embed(self, texts):  # type: ignore[no-untyped-def]
        raise RuntimeError("model crashed")


@pytest.mark.parametrize("broken", [WrongShapeEmbedder(), FailingEmbedder()])
async def test_an_embedder_failure_is_unavailable_and_writes_nothing(
    tmp_path: Path, broken: HashEmbedder
) -> None:
    async with SqliteEngine(tmp_path / "b.db", embedder=broken) as eng:
        with pytest.raises(Unavailable, match=r"^store_many: the embedder"):
            await eng.store_many([note("one"), note("two")])
        assert (await eng.list(ListRequest())).items == ()


def test_a_batch_stores_each_vector_given_and_embeds_only_those_missing(tmp_path: Path) -> None:
    """A version whose vector was not embedded ahead (the replay hint missed it) is embedded while the batch
    is written; the others keep the vector they came with, byte for byte as `to_blob` stores it."""
    from tinymemory.api.ids import content_key as key_of
    from tinymemory.api.timeutil import utcnow
    from tinymemory.engines.sqlite import db, store
    from tinymemory.engines.sqlite.vectors import to_blob
    from tinymemory.retrieval.text import default_analyzer

    emb = HashEmbedder()
    space = store.VectorSpace(emb.name, emb.dim, emb.embed)
    items = [note("tea is green"), note("coffee is black"), note("water is clear")]
    given = emb.embed([store.embed_text(items[0]), store.embed_text(items[2])])
    pending = [
        store.Pending(items[0], key_of(items[0]), given[0]),
        store.Pending(items[1], key_of(items[1]), None),
        store.Pending(items[2], key_of(items[2]), given[1]),
    ]
    emb.embedded_texts = 0
    conn = db.connect(str(tmp_path / "w.db"))
    try:
        analyzer, now = default_analyzer(), utcnow()
        results = db.in_write(conn, lambda c: store.write_items(c, pending, analyzer, space, now))
        rows = conn.execute(
            "SELECT i.id, v.vec FROM vectors v JOIN items i ON i.rowid = v.item_rowid ORDER BY i.rowid"
        ).fetchall()
    finally:
        conn.close()
    assert emb.embedded_texts == 1  # only the item that came without a vector
    want = [to_blob(given[0]), to_blob(emb.embed([store.embed_text(items[1])])[0]), to_blob(given[1])]
    assert [(str(r[0]), bytes(r[1])) for r in rows] == [(r.id, w) for r, w in zip(results, want, strict=True)]
