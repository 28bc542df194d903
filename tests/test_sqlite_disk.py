"""Schema 9's smaller file: what a version 8 file becomes when opened, and that nothing it promised moved.

A version 8 file is made by writing through the engine and then putting back, by hand, what version 9
changed (float32 vectors, hex content keys, full indexes on the optional columns).
"""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path
from typing import Any

import numpy as np

from test_sqlite_support import HASH_DIM, HashEmbedder, note
from tinymemory.api import (
    About,
    FetchMode,
    FetchRequest,
    ForgetRequest,
    ItemKind,
    ListRequest,
    MetaFilter,
    PurgeRequest,
    content_key,
    item_id,
)
from tinymemory.api.items import NewItem
from tinymemory.engines.sqlite import SqliteEngine, schema
from tinymemory.engines.sqlite.where import filter_sql

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
from disk import OPTIONAL_INDEXES, to_version_8

SECRET = "quokkasecret77"
PLACE = "team:acme/agent:writer"


def items(n: int) -> list[NewItem]:
    """Turns of a few threads, facts about a few subjects, chunks of a document, plain notes."""
    out = []
    for i in range(n):
        extra: dict[str, Any] = {"tags": (f"tag{i % 5}",)}
        if i % 4 == 0:
            extra["thread_id"] = f"thread{i % 3}"
        elif i % 4 == 1:
            extra["about"] = About("fact", f"subject{i % 7}")
        elif i % 4 == 2:
            extra["parent"] = "m_000000000000000000000001"
        out.append(note(f"memory {i} about lanterns and rivers number {i}", at=PLACE, **extra))
    return out


def statistics(conn: sqlite3.Connection) -> tuple[list[tuple[object, ...]], ...]:
    return (
        sorted(tuple(r) for r in conn.execute("SELECT ns, docs, tokens FROM lex_ns")),
        sorted(tuple(r) for r in conn.execute("SELECT term, ns, df FROM lex_df")),
    )


def file_bytes(path: Path) -> bytes:
    data = b""
    for suffix in ("", "-wal", "-journal"):
        part = Path(str(path) + suffix)
        if part.exists():
            data += part.read_bytes()
    return data


async def test_a_version_8_file_shrinks_and_keeps_its_memories(tmp_path: Path) -> None:
    path = tmp_path / "v8.db"
    batch = items(400)
    async with SqliteEngine(path, embedder=HashEmbedder()) as engine:
        ids = [r.id for r in await engine.store_many(batch)]
    to_version_8(path)
    raw = sqlite3.connect(path)
    stats = statistics(raw)
    wide = {
        int(r): np.frombuffer(v, dtype="<f4") for r, v in raw.execute("SELECT item_rowid, vec FROM vectors")
    }
    assert {len(v) for v in wide.values()} == {HASH_DIM}
    raw.close()
    before = path.stat().st_size

    async with SqliteEngine(path, embedder=HashEmbedder()) as engine:
        again = await engine.store(batch[7])  # the key, now stored as bytes, still finds its row
        assert again.replayed and again.id == ids[7]
        listed = await engine.list(ListRequest(filter=MetaFilter(thread_id="thread0"), limit=500))
        assert {i.id for i in listed.items} == {ids[i] for i in range(0, 400, 4) if i % 3 == 0}
        hits = (await engine.fetch(FetchRequest("lanterns rivers number 123", mode=FetchMode.HYBRID))).hits
        assert hits[0].item.id == ids[123]
    after = path.stat().st_size
    raw = sqlite3.connect(path, isolation_level=None)
    raw.execute("VACUUM")
    # the upgrade gave the space back (schema 10's postings, new bytes, aside)
    added = raw.execute("SELECT coalesce(sum(pgsize), 0) FROM dbstat WHERE name = 'lex_postings'").fetchone()[
        0
    ]
    assert after - added < 0.9 * before and after == path.stat().st_size
    assert schema.user_version(raw) == schema.SCHEMA_VERSION
    assert statistics(raw) == stats  # the same counts, now keyed by the namespace's number
    keys = dict(raw.execute("SELECT id, ckey FROM items"))
    assert all(keys[ids[i]] == bytes.fromhex(content_key(batch[i])) for i in range(400))
    narrow = {
        int(r): np.frombuffer(v, dtype="<f2") for r, v in raw.execute("SELECT item_rowid, vec FROM vectors")
    }
    assert narrow.keys() == wide.keys()
    assert all(np.allclose(narrow[r].astype(np.float32), wide[r], atol=1e-3) for r in wide)
    indexes = dict(raw.execute("SELECT name, sql FROM sqlite_master WHERE type = 'index'"))
    assert all("WHERE" in indexes[name] for name in OPTIONAL_INDEXES)


async def test_a_forgotten_version_keeps_its_generation_after_the_upgrade(tmp_path: Path) -> None:
    path = tmp_path / "v8.db"
    fact = note("the kettle is in the cupboard", at=PLACE)
    async with SqliteEngine(path, embedder=HashEmbedder()) as engine:
        first = await engine.store(fact)
        await engine.forget(ForgetRequest(ids=(first.id,)))
    to_version_8(path)
    async with SqliteEngine(path, embedder=HashEmbedder()) as engine:
        second = await engine.store(fact)
    assert first.id == item_id(content_key(fact), 0)
    assert not second.replayed and second.id == item_id(content_key(fact), 1)


async def test_an_upgraded_file_exports_the_hex_keys(tmp_path: Path) -> None:
    path = tmp_path / "v8.db"
    batch = items(12)
    async with SqliteEngine(path, embedder=HashEmbedder()) as engine:
        await engine.store_many(batch)
    to_version_8(path)
    async with SqliteEngine(path, embedder=HashEmbedder()) as engine:
        records = [r async for r in engine.export_records(vectors=True)]
    assert [r.content_key for r in records] == [content_key(it) for it in batch]
    assert all(r.vector is not None and r.vector.dim == HASH_DIM for r in records)


async def test_a_purge_after_the_upgrade_leaves_no_byte_of_the_memory(tmp_path: Path) -> None:
    path = tmp_path / "v8.db"
    secret = NewItem(
        ItemKind.CONVERSATION,
        f"the vault code is {SECRET}",
        note("", at=PLACE, thread_id="t1", about=About("vault", f"{SECRET}key")).meta,
    )
    key = content_key(secret)
    async with SqliteEngine(path, embedder=HashEmbedder()) as engine:
        await engine.store_many(items(300))
        stored = await engine.store(secret)
    to_version_8(path)
    assert key.encode() in file_bytes(path)
    async with SqliteEngine(path, embedder=HashEmbedder()) as engine:
        await engine.forget(ForgetRequest(ids=(stored.id,)))
        assert (await engine.purge(PurgeRequest())).purged == 1
    data = file_bytes(path)
    for trace in (SECRET.encode(), key.encode(), bytes.fromhex(key), stored.id.encode()):
        assert trace not in data


async def test_reads_on_optional_columns_use_their_partial_indexes(tmp_path: Path) -> None:
    """A partial index serves a query only when the query implies its WHERE (a value named with `=`):
    each filter and each write-path lookup on these columns is planned on its index."""
    path = tmp_path / "m.db"
    async with SqliteEngine(path, embedder=None) as engine:
        await engine.store_many(items(40))
    raw = sqlite3.connect(path)
    statements: list[tuple[str, list[object]]] = []
    for flt, index in (
        (MetaFilter(thread_id="thread1"), "items_thread_ns"),
        (MetaFilter(about=About("fact", "subject1")), "items_about"),
        (MetaFilter(parent="m_000000000000000000000001"), "items_parent"),
    ):
        params: list[object] = []
        where = filter_sql(flt, params)
        statements.append((f"SELECT i.rowid FROM items i WHERE {where}", params))
        plan = " | ".join(r[3] for r in raw.execute(f"EXPLAIN QUERY PLAN {statements[-1][0]}", params))
        assert f"INDEX {index}" in plan, plan
    write_path = (  # store.py's supersession by subject and threads.py's neighbour walk
        "SELECT rowid FROM items WHERE about_kind = ? AND about_key = ? AND ns = ?",
        "SELECT rowid FROM items WHERE thread_id = ? AND ns = ? AND rowid < ? ORDER BY rowid DESC LIMIT 1",
        "SELECT p.rowid FROM items i, items p"
        " WHERE i.rowid = ? AND p.thread_id = i.thread_id AND p.ns = i.ns",
    )
    for sql in write_path:
        plan = " | ".join(r[3] for r in raw.execute(f"EXPLAIN QUERY PLAN {sql}", (1,) * sql.count("?")))
        assert "items_about" in plan or "items_thread_ns" in plan, plan


async def test_a_namespace_number_is_never_given_to_another_namespace(tmp_path: Path) -> None:
    """Term counts are keyed by the namespace's number: once a namespace's last row is purged its
    number is gone with its counts, and a namespace created later gets a new one."""
    path = tmp_path / "m.db"
    async with SqliteEngine(path, embedder=None) as engine:
        gone = await engine.store(note("the heron nests by the weir", at="team:a"))
        await engine.store(note("the otter swims", at="team:b"))
        raw = sqlite3.connect(path)
        (old,) = raw.execute("SELECT id FROM lex_ns WHERE ns = 'team:a'").fetchone()
        await engine.forget(ForgetRequest(ids=(gone.id,)))
        await engine.purge(PurgeRequest())
        assert raw.execute("SELECT count(*) FROM lex_terms WHERE space = ?", (old,)).fetchone() == (0,)
        assert raw.execute("SELECT count(*) FROM lex_ns WHERE ns = 'team:a'").fetchone() == (0,)
        await engine.store(note("the kingfisher dives", at="team:c"))
        (new,) = raw.execute("SELECT id FROM lex_ns WHERE ns = 'team:c'").fetchone()
        assert new > old
        assert raw.execute("SELECT term, df FROM lex_df WHERE ns = 'team:c' ORDER BY term").fetchall() == [
            ("dive", 1),
            ("kingfish", 1),
        ]
