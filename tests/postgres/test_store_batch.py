"""A store batch decides its items against rows read up front (engines/postgres/batch.py): the result must
be what storing the items one at a time gives, and what the SQLite engine gives, however the items of
one batch replay, correct, supersede and link each other."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import psycopg
import pytest

from tinymemory.api import FetchRequest, ItemKind, MemoryEngine, MetaFilter, NewItem
from tinymemory.api.items import About, Relation
from tinymemory.engines.postgres import PostgresEngine
from tinymemory.engines.sqlite import SqliteEngine

from .helpers import HashEmbedder, note
from .server import drop_database, fresh_database

pytestmark = pytest.mark.asyncio

TEXTS = ["the deploy moved to friday", "dana likes short notes", "the wiki moved", "ping", "release is ready"]
START = datetime(2024, 5, 1, tzinfo=UTC)


def tangled(seed: int, n: int) -> list[NewItem]:
    """Items that lean on each other: repeated texts (replays and corrections), shared about keys (some
    not superseding), turns of two threads (some closed by a later about), out-of-order times."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        kind = rng.choice([ItemKind.CONVERSATION, ItemKind.LEARNING])
        meta: dict[str, Any] = {
            "observed_at": START + timedelta(minutes=rng.randint(0, 30)),
            "title": rng.choice([None, None, "a", "b"]),
            "tags": tuple(rng.sample(["x", "y", "z"], rng.randint(0, 2))),
        }
        if rng.random() < 0.5:
            meta["thread_id"] = rng.choice(["t1", "t2"])
        if rng.random() < 0.4:
            meta["about"] = About("topic", rng.choice(["k1", "k2"]))
        if rng.random() < 0.2:
            meta["relations"] = (
                Relation(rng.choice(["dana", "wiki"]), "likes", rng.choice(["notes", "ping"])),
            )
        item = note(
            rng.choice(TEXTS), rng.choice(["team:a", "team:a/agent:b"]), kind, rng.choice([None, 0.5]), **meta
        )
        if rng.random() < 0.2:
            item = NewItem(item.kind, item.text, item.meta, item.confidence, supersede=False)
        out.append(item)
    return out


def dump(dsn: str) -> list[object]:
    """Every table's rows as the store left them."""
    with psycopg.connect(dsn) as conn:
        conn.execute("SELECT set_config('tinymemory.tenants', '*', false)")
        out: list[object] = []
        for query in (
            "SELECT * FROM items ORDER BY rowid",
            "SELECT * FROM item_tags ORDER BY item_rowid, tag",
            "SELECT tenant, item_rowid, subject, type, object FROM relations ORDER BY rowid",
            "SELECT item_rowid, vec::text FROM vectors ORDER BY item_rowid",
            "SELECT * FROM lex_df ORDER BY term, ns",
            "SELECT * FROM lex_ns ORDER BY ns",
        ):
            out.append(conn.execute(query).fetchall())
        return out


async def ranked(engine: MemoryEngine) -> list[object]:
    out: list[object] = []
    for query in ("deploy friday", "notes", "wiki ping ready"):
        for mode in engine.descriptor.fetch_modes:
            res = await engine.fetch(FetchRequest(query, mode=mode, filter=MetaFilter(), limit=50))
            out.append([(h.item.id, round(h.score, 4)) for h in res.hits])
    return out


@pytest.mark.parametrize("seed", range(4))
async def test_a_batch_stores_what_one_item_at_a_time_stores(pg_dsn: str, tmp_path: Path, seed: int) -> None:
    batches = [tangled(seed * 10 + b, 25) for b in range(3)]
    other = fresh_database()
    try:
        async with (
            PostgresEngine(pg_dsn, embedder=HashEmbedder()) as batched,
            PostgresEngine(other, embedder=HashEmbedder()) as single,
            SqliteEngine(tmp_path / "m.db", embedder=HashEmbedder()) as lite,
        ):
            for items in batches:
                got = await batched.store_many(items)
                assert got == [await single.store(it) for it in items]
                assert got == await lite.store_many(items)
            assert dump(pg_dsn) == dump(other)
            assert await ranked(batched) == await ranked(lite)
    finally:
        drop_database(other)
