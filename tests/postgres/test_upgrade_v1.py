"""Schema 1 to 2 on a database the release before it built (fixtures/, old_schema.py): keys become per
tenant, text columns lose their planner statistics and the sequences become the owner's alone, while
every row and vector stays as it was and the engine serves the upgraded database as a fresh one. The
step is one transaction: replicas opening together apply it once, and a step killed midway leaves
version 1 whole."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import psycopg
import pytest

from tinymemory.api import (
    About,
    FetchMode,
    FetchRequest,
    ForgetRequest,
    GetRequest,
    ItemKind,
    ListRequest,
    MetaFilter,
    Namespace,
    PurgeRequest,
    Reach,
    TinyMemoryError,
)
from tinymemory.engines.postgres import PostgresEngine, schema

from . import deployment, server
from .helpers import HashEmbedder, note
from .old_schema import build_v1, v1_statements

TABLES = ("items", "item_tags", "item_evidence", "relations", "vectors", "lex_ns", "lex_df", "engine_meta")
ALICE = "team:acme/user:alice"


def _contents(dsn: str) -> dict[str, list[tuple[object, ...]]]:
    """Every row of every table, each column as text, in a fixed order (read by the superuser)."""
    out: dict[str, list[tuple[object, ...]]] = {}
    with psycopg.connect(server.admin_dsn(dsn)) as conn:
        for table in TABLES:
            out[table] = conn.execute(
                f"SELECT t::text FROM {table} t ORDER BY t::text"  # type: ignore[arg-type]
            ).fetchall()
    return out


def _keys(dsn: str) -> dict[str, str]:
    with psycopg.connect(dsn) as conn:
        rows = conn.execute(
            "SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint"
            " WHERE contype IN ('p', 'u') AND conrelid = ANY (%s::regclass[])",
            (list(TABLES[:-1]),),
        ).fetchall()
    return {str(name): str(definition) for name, definition in rows}


def _version(dsn: str) -> int:
    with psycopg.connect(dsn) as conn:
        row = conn.execute("SELECT version FROM schema_version").fetchone()
    assert row is not None
    return int(row[0])


@pytest.fixture
def v1_dsn(pg_dsn: str) -> Iterator[str]:
    """A database as the release with schema 1 left it, holding the fixture's rows."""
    build_v1(pg_dsn, rows=True)
    yield pg_dsn


@pytest.fixture
def fresh_dsn() -> Iterator[str]:
    """A second, empty database."""
    dsn = server.fresh_database()
    try:
        yield dsn
    finally:
        server.drop_database(dsn)


def test_the_first_step_is_still_the_released_schema() -> None:
    """Databases at version 1 were built by this step: it must never change (a change is a new step)."""
    assert [s.strip() for s in schema.MIGRATIONS[0]] == v1_statements()


@pytest.mark.asyncio
async def test_opening_upgrades_keeping_every_row_and_vector(v1_dsn: str) -> None:
    before, keys = _contents(v1_dsn), _keys(v1_dsn)
    assert keys["items_id_key"] == "UNIQUE (id)"
    assert len(before["items"]) == 32 and len(before["vectors"]) == 32
    async with PostgresEngine(v1_dsn, embedder=HashEmbedder()) as engine:
        await engine.get(GetRequest(ids=("m_000000000000000000000000",)))  # the first use upgrades
        assert await engine.upgrade() == (schema.SCHEMA_VERSION, schema.SCHEMA_VERSION)
    assert _version(v1_dsn) == schema.SCHEMA_VERSION
    assert _contents(v1_dsn) == before
    keys = _keys(v1_dsn)
    assert keys["items_id_key"] == "UNIQUE (id, tenant)"
    assert keys["items_pkey"] == "PRIMARY KEY (rowid, tenant)"
    assert keys["lex_df_pkey"] == "PRIMARY KEY (term, ns, tenant)"
    assert all("tenant" in definition for definition in keys.values()), keys


@pytest.mark.asyncio
async def test_the_upgraded_database_serves_as_one_built_fresh(v1_dsn: str, fresh_dsn: str) -> None:
    """The same versions imported into a new database rank, page and answer alike."""
    async with (
        PostgresEngine(v1_dsn, embedder=HashEmbedder()) as old,
        PostgresEngine(fresh_dsn, embedder=HashEmbedder()) as new,
    ):
        records = [r async for r in old.export_records(vectors=True)]
        assert (await new.import_records(records)).imported == len(records)
        for query in ("Atlas release Friday", "widgets", "Initech", "Alice city"):
            for mode in FetchMode:
                for reach in (
                    None,
                    Reach.of(Namespace.parse(ALICE)),
                    Reach.subtree(Namespace.parse("team:globex")),
                ):
                    request = FetchRequest(query=query, mode=mode, filter=MetaFilter(reach=reach), limit=5)
                    got = [(h.item.id, h.score) for h in (await old.fetch(request)).hits]
                    want = [(h.item.id, h.score) for h in (await new.fetch(request)).hits]
                    assert got == want, (query, mode, reach)
        alice = MetaFilter(reach=Reach.of(Namespace.parse(ALICE)))
        listed = await old.list(ListRequest(filter=alice, limit=3))
        assert listed.next_cursor is not None
        assert (await old.list(ListRequest(filter=alice, limit=3, cursor=listed.next_cursor))).items


@pytest.mark.asyncio
async def test_the_upgraded_database_takes_every_kind_of_write(v1_dsn: str) -> None:
    async with PostgresEngine(v1_dsn, embedder=HashEmbedder()) as engine:
        # a replay finds the old version by content key; a correction and a supersession close old rows
        again = await engine.store(note("The Atlas release ships on Friday", ALICE, confidence=0.95))
        assert again.replayed
        moved = await engine.store(note("Alice lives in Madrid", ALICE, about=About("user", "city")))
        assert moved.superseded
        turn = await engine.store(
            note("Bob: and Dana reviews them", ALICE, kind=ItemKind.CONVERSATION, thread_id="t1")
        )
        hits = await engine.fetch(FetchRequest(query="Dana", mode=FetchMode.LEXICAL, limit=10))
        assert turn.id in {h.item.id for h in hits.hits}
        # the same sentence in two tenants: two ids, each found only in its own tenant
        for ns in (ALICE, "team:globex/user:gina"):
            found = await engine.fetch(
                FetchRequest(
                    query="same sentence two tenants",
                    mode=FetchMode.LEXICAL,
                    filter=MetaFilter(reach=Reach.of(Namespace.parse(ns))),
                )
            )
            assert [str(h.item.meta.namespace) for h in found.hits] == [ns]
        gone = await engine.forget(ForgetRequest(ids=(again.id,)))
        assert again.id in gone.forgotten
        assert (await engine.purge(PurgeRequest())).purged >= 2  # with the fixture's forgotten memory
        got = await engine.get(GetRequest(ids=(again.id,)))
        assert got.items == ()


@pytest.mark.asyncio
async def test_replicas_opening_a_version_1_database_together_upgrade_it_once(v1_dsn: str) -> None:
    before = _contents(v1_dsn)
    engines = [PostgresEngine(v1_dsn, embedder=HashEmbedder(), max_size=2) for _ in range(5)]
    try:
        stored = await asyncio.gather(
            *(e.store(note(f"written by replica {n}", f"team:r{n}")) for n, e in enumerate(engines))
        )
    finally:
        await asyncio.gather(*(e.close() for e in engines))
    assert len({s.id for s in stored}) == 5
    assert _version(v1_dsn) == schema.SCHEMA_VERSION
    after = _contents(v1_dsn)
    assert set(before["items"]) <= set(after["items"])
    assert len(after["items"]) == len(before["items"]) + 5
    assert set(before["vectors"]) <= set(after["vectors"])


@pytest.mark.asyncio
async def test_an_upgrade_killed_midway_leaves_version_1_whole(
    v1_dsn: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The step's connection dies after its last statement ran but before it committed: nothing of it
    stays, and the next open upgrades."""
    before, keys = _contents(v1_dsn), _keys(v1_dsn)
    monkeypatch.setitem(schema.MIGRATIONS, 1, [*schema.MIGRATIONS[1], "SELECT pg_sleep(60)"])

    async def kill_the_step() -> None:
        with psycopg.connect(server.admin_dsn(v1_dsn), autocommit=True) as conn:
            for _ in range(600):
                row = conn.execute(
                    "SELECT pid FROM pg_stat_activity WHERE datname = current_database()"
                    " AND query = 'SELECT pg_sleep(60)' AND state = 'active'"
                ).fetchone()
                if row is not None:
                    conn.execute("SELECT pg_terminate_backend(%s)", (row[0],))
                    return
                await asyncio.sleep(0.05)
        raise AssertionError("the upgrade never reached its last statement")

    async with PostgresEngine(v1_dsn, embedder=None) as engine:
        killer = asyncio.create_task(kill_the_step())
        with pytest.raises(TinyMemoryError):
            await engine.upgrade()
        await killer
    assert _version(v1_dsn) == 1
    assert _keys(v1_dsn) == keys
    assert _contents(v1_dsn) == before
    monkeypatch.undo()
    async with PostgresEngine(v1_dsn, embedder=None) as engine:
        assert await engine.upgrade() == (1, schema.SCHEMA_VERSION)
    assert _contents(v1_dsn) == before


@pytest.mark.asyncio
async def test_the_owners_upgrade_takes_the_sequences_from_the_service_role() -> None:
    """A deployment of the release before: its initdb.sql let the service role read the sequences (and
    every sequence the owner created later); after the owner's upgrade it reads none."""
    with deployment.deployed() as found:
        with psycopg.connect(found.admin, autocommit=True) as conn:
            conn.execute(
                f"ALTER DEFAULT PRIVILEGES FOR ROLE {found.owner_role} IN SCHEMA public"  # type: ignore[arg-type]
                f" GRANT USAGE, SELECT ON SEQUENCES TO {found.app_role}"
            )
        build_v1(found.owner, rows=True)
        probe = "SELECT last_value FROM items_rowid_seq"
        with psycopg.connect(found.app) as conn:
            assert conn.execute(probe).fetchone() == (32,)
        async with PostgresEngine(found.owner, embedder=HashEmbedder()) as engine:
            assert await engine.upgrade() == (1, schema.SCHEMA_VERSION)
        with psycopg.connect(found.app) as conn, pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute(probe)
        with psycopg.connect(found.admin) as conn:
            defaults = conn.execute(
                "SELECT count(*) FROM pg_default_acl d, aclexplode(d.defaclacl) g"
                " WHERE d.defaclobjtype = 'S' AND g.grantee = %s::regrole",
                (found.app_role,),
            ).fetchone()
        assert defaults == (0,)
        # and the service role still serves the upgraded database
        async with PostgresEngine(found.app, embedder=HashEmbedder(), migrate=False) as engine:
            stored = await engine.store(note("after the upgrade", ALICE))
            found_again = await engine.get(GetRequest(ids=(stored.id,)))
        assert [i.text for i in found_again.items] == ["after the upgrade"]


@pytest.mark.asyncio
async def test_what_memories_say_keeps_no_statistics_after_the_upgrade(v1_dsn: str) -> None:
    """Samples taken before the upgrade go too; the columns queries filter on keep theirs."""

    def sampled() -> set[tuple[str, str]]:
        with psycopg.connect(server.admin_dsn(v1_dsn), autocommit=True) as conn:
            conn.execute("ANALYZE")
            rows = conn.execute(
                "SELECT tablename, attname FROM pg_stats WHERE tablename = ANY (%s)", (list(TABLES),)
            )
            return {(str(t), str(c)) for t, c in rows.fetchall()}

    payload = {(t, c) for t, columns in schema._PAYLOAD_COLUMNS.items() for c in columns}
    assert {("items", "text"), ("items", "title"), ("relations", "object")} <= payload
    assert {("items", "text"), ("items", "lex_body"), ("relations", "object")} <= sampled()
    async with PostgresEngine(v1_dsn, embedder=None) as engine:
        await engine.upgrade()
    after = sampled()
    assert payload & after == set()
    assert {("items", "ns"), ("items", "id"), ("lex_df", "term")} <= after
