"""Export and import on Postgres (engines/postgres/portable.py) against real SQLite files: a store moves
between the engines either way without loss (exporting the copy gives the same bytes), the copy ranks
as the source did, derived state is rebuilt as SQLite rebuilds it, re-imports write nothing, and the
import runs as a plain role under row-level security."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import AsyncGenerator, AsyncIterator, Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import psycopg
import pytest

from test_export_import import (
    OTHER,
    SECRET,
    TEAM,
    WRITER,
    Emb8,
    derived,
    fill,
    item,
    records_of,
    synthetic,
)
from tinymemory.api import (
    About,
    Conflict,
    FetchMode,
    FetchRequest,
    ForgetRequest,
    GetRequest,
    InvalidRequest,
    ItemKind,
    MemoryEngine,
    MetaFilter,
    Namespace,
    Reach,
    Relation,
    Unavailable,
    item_id,
)
from tinymemory.api.records import (
    ImportResult,
    PortableEngine,
    StoredRecord,
    encode_header,
    encode_record,
    encode_trailer,
)
from tinymemory.engines.postgres import PostgresEngine
from tinymemory.engines.postgres.portable import PAGE
from tinymemory.engines.sqlite import SqliteEngine

from .server import admin_dsn, drop_database, fresh_database

ROOT = Namespace.parse("")


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """The SQLite store of tests/test_export_import.py: every kind of state an export must carry."""
    path = tmp_path_factory.mktemp("portable") / "source.db"
    return path, asyncio.run(fill(path))


@pytest.fixture
def second_dsn(pg_dsn: str) -> Iterator[str]:
    """A second fresh database beside `pg_dsn` (same role)."""
    dsn = fresh_database()
    try:
        yield dsn
    finally:
        drop_database(dsn)


async def export_lines(engine: PortableEngine, *, vectors: bool) -> list[str]:
    body = [encode_record(r) async for r in engine.export_records(vectors=vectors)]
    return [encode_header(), *body, encode_trailer(len(body))]


async def import_lines(engine: PortableEngine, lines: list[str], batch: int = 3) -> tuple[int, int]:
    records = records_of(lines)
    imported = skipped = 0
    for at in range(0, len(records), batch):
        done = await engine.import_records(records[at : at + batch])
        imported, skipped = imported + done.imported, skipped + done.skipped
    return imported, skipped


async def sqlite_lines(path: Path, *, vectors: bool) -> list[str]:
    async with SqliteEngine(path, embedder=None) as engine:
        return await export_lines(engine, vectors=vectors)


async def pg_lines(dsn: str, *, vectors: bool) -> list[str]:
    async with PostgresEngine(dsn, embedder=None) as engine:
        return await export_lines(engine, vectors=vectors)


def admitted(dsn: str, tenants: str = "*") -> psycopg.Connection[tuple[Any, ...]]:
    """A hand-written connection as the engine's role, admitted to `tenants` for the session."""
    conn = psycopg.connect(dsn, autocommit=True)
    conn.execute("SELECT set_config('tinymemory.tenants', %s, false)", (tenants,))
    return conn


def pg_derived(dsn: str) -> dict[str, Any]:
    """What the Postgres store derives from its rows, in the shape of test_export_import.derived."""
    with admitted(dsn) as conn:
        ids = dict(conn.execute("SELECT rowid, id FROM items").fetchall())
        live = {str(r[0]) for r in conn.execute("SELECT id FROM items WHERE forgotten_at IS NULL")}

        def by_id(sql: str) -> list[tuple[Any, ...]]:
            return sorted((ids[row[0]], *row[1:]) for row in conn.execute(sql))

        vectors = [
            (i, e, d, _as_stored(v))
            for i, e, d, v in by_id("SELECT item_rowid, embedder, dim, vec::real[] FROM vectors")
        ]
        return {
            "lex_ns": sorted(conn.execute("SELECT ns, docs, tokens FROM lex_ns")),
            "lex_df": sorted(conn.execute("SELECT term, ns, df FROM lex_df")),
            "fts": by_id(
                "SELECT rowid, lex_title, lex_body, lex_context FROM items WHERE lex_title IS NOT NULL"
            ),
            "lex_len": sorted(conn.execute("SELECT id, lex_len FROM items")),
            "tags": by_id("SELECT item_rowid, tag FROM item_tags"),
            "evidence": by_id("SELECT item_rowid, cites FROM item_evidence"),
            "relations": [
                r
                for r in by_id(
                    "SELECT item_rowid, subject, subject_key, type, object, object_key FROM relations"
                )
                if r[0] in live
            ],
            "vectors": [v for v in vectors if v[0] in live],
        }


def _as_stored(values: Any) -> bytes:
    """Postgres keeps float16-precision values as real[]: the same bytes SQLite stores, exactly."""
    exact = np.asarray(values, dtype="<f4")
    half = exact.astype("<f2")
    assert (half.astype("<f4") == exact).all(), "a vector was not kept at float16 precision"
    return half.tobytes()


def pg_dump(dsn: str) -> str:
    """Every row of every table, as text (what a byte search of the database would find)."""
    with admitted(admin_dsn(dsn)) as conn:
        tables = [
            str(r[0])
            for r in conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1")
        ]
        return "\n".join(
            str(row[0]) for t in tables for row in conn.execute(f"SELECT row_to_json(x)::text FROM {t} x")
        )


async def story(engine: MemoryEngine) -> dict[str, str]:
    """The same writes for any engine: versions, a correction, a thread with a forgotten turn and what
    it cited, relations, refs, extras, documents and chunks, three tenants and the root."""
    ids: dict[str, str] = {}
    drink = About("preference", "dana.drink")
    ids["tea"] = (await engine.store(item("Dana drinks tea", about=drink, tags=("pref",)))).id
    ids["flat"] = (await engine.store(item("Dana drinks flat whites", about=drink, days=1))).id
    ids["flat2"] = (
        await engine.store(item("Dana drinks flat whites", about=drink, days=2, confidence=0.95))
    ).id
    turns = await engine.store_many(
        [
            item("how is the Atlas project going", kind=ItemKind.CONVERSATION, thread_id="t", days=3),
            item(f"{SECRET} buys Atlas", kind=ItemKind.CONVERSATION, thread_id="t", days=3.1),
            item("the launch moved to May", kind=ItemKind.CONVERSATION, thread_id="t", days=3.2),
            item("and the budget for Atlas", kind=ItemKind.CONVERSATION, thread_id="t", days=3.3),
        ]
    )
    ids["turn1"], ids["secret_turn"], ids["turn3"], ids["turn4"] = (t.id for t in turns)
    ids["derived"] = (
        await engine.store(
            item(
                f"{SECRET} plans to acquire Atlas",
                days=4,
                title=f"{SECRET} deal",
                summary=f"{SECRET} acquisition",
                evidence=(ids["secret_turn"],),
                relations=(Relation(f"{SECRET} Inc", "acquires", "Atlas"),),
                tags=("deal",),
            )
        )
    ).id
    ids["rich"] = (
        await engine.store(
            item(
                "Dana works on Atlas with Lee",
                ns=TEAM,
                days=5,
                confidence=0.9,
                title="Atlas staffing",
                summary="who staffs the Atlas launch",
                tags=("atlas", "people"),
                evidence=("said in standup",),
                extra=(("ticket", "AT-12"), ("ünïcode", "naïve ✓")),
                relations=(Relation("Dana", "works_on", "Atlas"), Relation("Lee", "works_on", "Atlas")),
            )
        )
    ).id
    doc = await engine.store(
        item("The Atlas handbook", ns=TEAM, kind=ItemKind.DOCUMENT, days=6, title="Handbook")
    )
    ids["doc"] = doc.id
    ids["chunk"] = (
        await engine.store(
            item("Chapter one: the budget", ns=TEAM, kind=ItemKind.CHUNK, days=6, parent=doc.id, identity="0")
        )
    ).id
    ids["other"] = (await engine.store(item("Other team note about budgets", ns=OTHER, days=7))).id
    ids["root"] = (await engine.store(item("A note for everyone about the May launch", ns=ROOT, days=8))).id
    await engine.forget(ForgetRequest(ids=(ids["secret_turn"],)))
    return ids


QUERIES = ("Atlas project budget", "Dana drinks", "the launch in May", "zebra")
FILTERS = (
    MetaFilter(),
    MetaFilter(namespace=TEAM),
    MetaFilter(reach=Reach.of(WRITER)),
    MetaFilter(reach=Reach.subtree(Namespace.parse("team:acme"))),
)


async def same_hits(
    a: MemoryEngine, b: MemoryEngine, modes: Sequence[FetchMode], *, close: bool = False
) -> int:
    """Every query, filter and mode ranks the same ids with the same scores on both; returns how many
    fetches found something.

    Lexical scores are the same sums on both engines, so they are always compared exactly. Cosine is
    summed in float32 by SQLite and in float64 by pgvector, so with `close` two semantic or hybrid
    scores may differ by a unit of the 6th decimal shown, and hits that close may come in either order.
    """
    found = 0
    for mode in modes:
        for flt in FILTERS:
            for query in QUERIES:
                ask = FetchRequest(query=query, mode=mode, filter=flt, limit=10)
                want, got = await a.fetch(ask), await b.fetch(ask)
                pairs = [(h.item.id, h.score) for h in want.hits]
                seen = [(h.item.id, h.score) for h in got.hits]
                if close and mode is not FetchMode.LEXICAL:
                    assert dict(seen).keys() == dict(pairs).keys(), (mode, flt, query)
                    assert all(abs(dict(seen)[i] - s) <= 2e-6 for i, s in pairs), (mode, flt, query)
                    assert all(abs(x[1] - y[1]) <= 2e-6 for x, y in zip(seen, pairs, strict=True))
                else:
                    assert seen == pairs, (mode, flt, query)
                assert {h.item.id: h.item for h in got.hits} == {h.item.id: h.item for h in want.hits}
                found += bool(pairs)
    return found


# -- SQLite -> Postgres -> export ------------------------------------------------------------------------


@pytest.mark.parametrize("vectors", [True, False], ids=["vectors", "no-vectors"])
async def test_sqlite_to_postgres_gives_the_same_bytes_and_the_same_derived_state(
    source: tuple[Path, dict[str, str]], pg_dsn: str, vectors: bool
) -> None:
    path, ids = source
    first = await sqlite_lines(path, vectors=vectors)
    assert len(first) == len(ids) + 2
    async with PostgresEngine(pg_dsn, embedder=Emb8()) as engine:
        assert isinstance(engine, PortableEngine)
        assert await import_lines(engine, first) == (len(ids), 0)
    assert await pg_lines(pg_dsn, vectors=vectors) == first
    want, got = derived(path), pg_derived(pg_dsn)
    if not vectors:
        assert got["vectors"] == [] and want["vectors"]
        got["vectors"] = want["vectors"]
    assert got == want


async def test_the_copy_ranks_as_the_source_does(source: tuple[Path, dict[str, str]], pg_dsn: str) -> None:
    path, ids = source
    lines = await sqlite_lines(path, vectors=True)
    async with PostgresEngine(pg_dsn, embedder=Emb8()) as pg:
        await import_lines(pg, lines, batch=500)
    async with SqliteEngine(path, embedder=Emb8()) as lite, PostgresEngine(pg_dsn, embedder=Emb8()) as pg:
        modes = (FetchMode.LEXICAL, FetchMode.SEMANTIC, FetchMode.HYBRID)
        assert await same_hits(lite, pg, modes, close=True) > 10
        every = tuple(ids.values())
        got_a, got_b = await lite.get(GetRequest(ids=every)), await pg.get(GetRequest(ids=every))
        assert got_b == got_a
        assert {t.id for t in got_b.forgotten} == {ids["secret_turn"], ids["derived"]}
    async with SqliteEngine(path, embedder=None) as lite, PostgresEngine(pg_dsn, embedder=None) as pg:
        assert await same_hits(lite, pg, (FetchMode.LEXICAL,)) > 5  # lexical-only engines too


async def test_a_forgotten_memory_leaves_no_byte_in_the_copy(
    source: tuple[Path, dict[str, str]], pg_dsn: str
) -> None:
    path, _ = source
    lines = await sqlite_lines(path, vectors=True)
    async with PostgresEngine(pg_dsn, embedder=Emb8()) as engine:
        await import_lines(engine, lines)
        assert (await engine.import_records([synthetic(0, forgotten=True)])).imported == 1
    dump = pg_dump(pg_dsn)
    assert "note number 0" not in dump and "Dana works on Atlas" in dump
    assert SECRET not in dump
    assert SECRET not in "\n".join(await pg_lines(pg_dsn, vectors=True))


async def test_importing_twice_writes_nothing_the_second_time(
    source: tuple[Path, dict[str, str]], pg_dsn: str
) -> None:
    path, ids = source
    lines = await sqlite_lines(path, vectors=True)
    async with PostgresEngine(pg_dsn, embedder=Emb8()) as engine:
        assert await import_lines(engine, lines) == (len(ids), 0)
        before, dump = pg_derived(pg_dsn), pg_dump(pg_dsn)
        assert await import_lines(engine, lines, batch=500) == (0, len(ids))
        assert await import_lines(engine, lines, batch=2) == (0, len(ids))
    assert pg_derived(pg_dsn) == before and pg_dump(pg_dsn) == dump


async def test_vectors_of_another_embedder_are_left_for_reembedding(
    source: tuple[Path, dict[str, str]], pg_dsn: str
) -> None:
    path, ids = source
    lines = await sqlite_lines(path, vectors=True)
    async with PostgresEngine(pg_dsn, embedder=Emb8("another-model")) as engine:
        assert await import_lines(engine, lines) == (len(ids), 0)
    with admitted(pg_dsn) as conn:
        assert conn.execute("SELECT count(*) FROM vectors").fetchone() == (0,)
        assert conn.execute("SELECT count(*) FROM items").fetchone() == (len(ids),)


# -- Postgres -> SQLite -> export ------------------------------------------------------------------------


@pytest.mark.parametrize("vectors", [True, False], ids=["vectors", "no-vectors"])
async def test_postgres_to_sqlite_gives_the_same_bytes(pg_dsn: str, tmp_path: Path, vectors: bool) -> None:
    async with PostgresEngine(pg_dsn, embedder=Emb8()) as engine:
        ids = await story(engine)
    first = await pg_lines(pg_dsn, vectors=vectors)
    assert len(first) == len(ids) + 2
    assert SECRET not in "\n".join(first)
    copy = tmp_path / "copy.db"
    async with SqliteEngine(copy, embedder=Emb8()) as lite:
        assert await import_lines(lite, first) == (len(ids), 0)
    assert await sqlite_lines(copy, vectors=vectors) == first
    if vectors:  # and the copy ranks as the Postgres store does
        async with PostgresEngine(pg_dsn, embedder=Emb8()) as pg, SqliteEngine(copy, embedder=Emb8()) as lite:
            modes = (FetchMode.LEXICAL, FetchMode.SEMANTIC, FetchMode.HYBRID)
            assert await same_hits(pg, lite, modes, close=True) > 10


async def test_postgres_to_postgres_gives_the_same_bytes(pg_dsn: str, second_dsn: str) -> None:
    async with PostgresEngine(pg_dsn, embedder=Emb8()) as engine:
        await story(engine)
    first = await pg_lines(pg_dsn, vectors=True)
    async with PostgresEngine(second_dsn, embedder=Emb8()) as engine:
        await import_lines(engine, first, batch=4)
    assert await pg_lines(second_dsn, vectors=True) == first
    assert pg_derived(second_dsn) == pg_derived(pg_dsn)


async def test_the_same_writes_export_alike_from_either_engine(pg_dsn: str, tmp_path: Path) -> None:
    """Both engines store, version, link and forget alike: their exports differ only in when the
    forget ran (forgotten_at is the clock's)."""
    async with PostgresEngine(pg_dsn, embedder=Emb8()) as pg:
        await story(pg)
    async with SqliteEngine(tmp_path / "native.db", embedder=Emb8()) as lite:
        await story(lite)

    def unforgotten(lines: list[str]) -> list[StoredRecord]:
        out = []
        for r in records_of(lines):
            assert (r.item.forgotten_at is None) == (r.item.text != "")
            out.append(replace(r, item=replace(r.item, forgotten_at=None)))
        return out

    want = unforgotten(await sqlite_lines(tmp_path / "native.db", vectors=True))
    assert unforgotten(await pg_lines(pg_dsn, vectors=True)) == want


# -- snapshot, conflicts, errors ---------------------------------------------------------------------------


async def test_an_export_reads_one_snapshot_while_writes_go_on(pg_dsn: str) -> None:
    total = 2 * PAGE + 100
    async with PostgresEngine(pg_dsn, embedder=None) as engine:
        batch = [synthetic(n) for n in range(total)]
        assert await engine.import_records(batch) == ImportResult(total, 0)
        records: AsyncIterator[StoredRecord] = engine.export_records(vectors=False)
        got = [await anext(records)]
        # written after the export began: another engine (its own pool), then this one
        async with PostgresEngine(pg_dsn, embedder=None) as other:
            await other.import_records([synthetic(n) for n in range(total, total + 3)])
        await engine.store(item("stored while the export runs", days=30))
        await engine.forget(ForgetRequest(ids=(synthetic(total - 1).id,)))
        got += [r async for r in records]
        assert [r.id for r in got] == [r.id for r in batch]  # write order, the snapshot's rows only
        assert got[-1].item.forgotten_at is None and got[-1].item.text == batch[-1].item.text
        after = [r async for r in engine.export_records(vectors=False)]
        assert len(after) == total + 4 and after[total - 1].item.text == ""


async def test_an_abandoned_export_lets_go_of_its_connection(pg_dsn: str) -> None:
    async with PostgresEngine(pg_dsn, embedder=None) as engine:
        await engine.import_records([synthetic(n) for n in range(3)])
        for _ in range(3):
            records = engine.export_records(vectors=True)
            assert isinstance(records, AsyncGenerator)
            assert (await anext(records)).id == synthetic(0).id
            await records.aclose()
        assert [r.id async for r in engine.export_records(vectors=False)] == [
            synthetic(n).id for n in range(3)
        ]
    # a closed connection's server process ends a moment later: wait for it (bounded), then none is left
    name = psycopg.conninfo.conninfo_to_dict(pg_dsn)["dbname"]
    with admitted(admin_dsn(pg_dsn)) as conn:
        for _ in range(300):
            left = conn.execute(
                "SELECT state FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()", (name,)
            ).fetchall()
            if not left:
                break
            await asyncio.sleep(0.1)
        assert left == []


async def test_a_batch_is_all_or_nothing_and_says_what_sqlite_says(pg_dsn: str, tmp_path: Path) -> None:
    taken = synthetic(4)
    clash = replace(taken, item=replace(taken.item, id=item_id(taken.content_key, 1)), generation=1)
    said: list[str] = []
    async with (
        PostgresEngine(pg_dsn, embedder=None) as pg,
        SqliteEngine(tmp_path / "m.db", embedder=None) as lite,
    ):
        for engine in (pg, lite):
            await engine.import_records([taken])
            with pytest.raises(Conflict, match=taken.id) as err:
                await engine.import_records([synthetic(1), synthetic(2), clash])
            said.append(str(err.value))
            got = await engine.get(GetRequest(ids=(synthetic(1).id, synthetic(2).id)))
            assert got.items == () and set(got.missing) == {synthetic(1).id, synthetic(2).id}
            with pytest.raises(InvalidRequest, match=r"records\[0\]\.id") as bad:
                await engine.import_records([replace(synthetic(5), generation=3)])
            said.append(str(bad.value))
            assert await engine.import_records([]) == ImportResult(0, 0)
            # forgotten, the clash is a later version of the same content
            await engine.forget(ForgetRequest(ids=(taken.id,)))
            assert await engine.import_records([clash]) == ImportResult(1, 0)
    assert said[:2] == said[2:]
    closed = PostgresEngine(pg_dsn, embedder=None)
    await closed.close()
    with pytest.raises(Unavailable, match="import: the engine is closed"):
        await closed.import_records([synthetic(9)])
    with pytest.raises(Unavailable, match="export: the engine is closed"):
        await anext(closed.export_records(vectors=False))


# -- row-level security -----------------------------------------------------------------------------------


async def test_the_import_runs_as_the_plain_role_under_row_level_security(pg_dsn: str) -> None:
    with psycopg.connect(pg_dsn) as conn:
        assert conn.execute(
            "SELECT rolsuper, rolbypassrls FROM pg_roles WHERE rolname = current_user"
        ).fetchone() == (False, False)
    a, b = Namespace.parse("team:a/user:u"), Namespace.parse("team:b")
    records = [
        synthetic(1, ns=a),
        synthetic(2, ns=b),
        synthetic(3, ns=ROOT),
        synthetic(4, ns=a, forgotten=True),
    ]
    async with PostgresEngine(pg_dsn, embedder=None) as engine:
        assert await engine.import_records(records) == ImportResult(4, 0)
        # an id another tenant holds is no obstacle: ids are unique per tenant, so the import neither
        # skips the record nor tells that tenant's row exists; that row is left as it was
        key = records[0].content_key
        elsewhere = replace(
            records[0], item=replace(records[0].item, meta=replace(records[0].item.meta, namespace=b))
        )
        assert elsewhere.id == item_id(key, 0)
        assert await engine.import_records([elsewhere, synthetic(5, ns=b)]) == ImportResult(2, 0)
        for ns in (a, b):
            got = await engine.get(GetRequest(ids=(records[0].id,), reach=Reach.of(ns)))
            assert [i.namespace for i in got.items] == [ns]
    with admitted(pg_dsn) as conn:
        tenants = set(conn.execute("SELECT id, tenant FROM items").fetchall())
        assert tenants == {
            (records[0].id, "team:a"),
            (records[0].id, "team:b"),
            (records[1].id, "team:b"),
            (records[2].id, ""),
            (records[3].id, "team:a"),
            (synthetic(5, ns=b).id, "team:b"),
        }
    with admitted(pg_dsn, "team:a") as conn:
        for table in ("items", "lex_ns", "lex_df"):
            seen = {str(r[0]) for r in conn.execute(f"SELECT tenant FROM {table}")}
            assert seen == {"team:a"}, table
    with psycopg.connect(pg_dsn) as conn:  # no setting: nothing
        assert conn.execute("SELECT count(*) FROM items").fetchone() == (0,)


# -- the command line --------------------------------------------------------------------------------------


def cli(*args: str, ok: bool = True) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "TINYMEMORY_EMBEDDER": "none"}
    env.pop("TINYMEMORY_DB", None)
    done = subprocess.run(
        [sys.executable, "-m", "tinymemory", *args], capture_output=True, timeout=300, env=env, check=False
    )
    assert (done.returncode == 0) == ok, done.stderr.decode()
    return done


def test_the_cli_moves_a_store_to_postgres_and_back(
    source: tuple[Path, dict[str, str]], pg_dsn: str, tmp_path: Path
) -> None:
    path, ids = source
    exported = tmp_path / "store.jsonl"
    cli("export", "--db", str(path), "-o", str(exported))
    done = cli("import", "--db", pg_dsn, str(exported))
    assert json.loads(done.stdout) == {
        "records": len(ids),
        "imported": len(ids),
        "skipped": 0,
        "format_version": 1,
    }
    again = json.loads(cli("import", "--db", pg_dsn, str(exported)).stdout)
    assert (again["imported"], again["skipped"]) == (0, len(ids))
    back = cli("export", "--db", pg_dsn)
    assert back.stdout == exported.read_bytes()
    vectors = cli("export", "--db", pg_dsn, "--vectors").stdout  # lexical import: no vectors to carry
    assert vectors == exported.read_bytes()
    copy = tmp_path / "copy.db"
    cli("import", "--db", str(copy), str(exported))
    assert cli("export", "--db", str(copy)).stdout == back.stdout
