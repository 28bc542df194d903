"""What a connection set for one tenant can learn of another, as the service role of deploy/initdb.sql.

Row-level security hides other tenants' rows, but a row can also show through a key it collides with,
a sequence that counts every tenant's writes, the activity statistics, and the planner's estimates.
Tenant `team:acme` guesses what tenant `team:globex` holds (ids derive from content, so a guessed text
is a guessed id) and each probe must answer exactly as it does for something nobody holds.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any

import psycopg
import pytest

from tinymemory.api import Namespace, Relation, item_id
from tinymemory.api.ids import content_key
from tinymemory.api.records import StoredRecord
from tinymemory.engines.postgres import PostgresEngine

from . import deployment
from .helpers import HashEmbedder, note

ACME, GLOBEX = "team:acme", "team:globex"
ACME_NS, GLOBEX_NS = f"{ACME}/user:alice", f"{GLOBEX}/user:gina"
SECRET = "Globex will acquire Initech in March"
NOBODY = 10**15  # a row id no tenant holds


@dataclass(frozen=True)
class World:
    """A deployment where both tenants wrote through the engine, and what globex's rows hold."""

    app: str
    owner: str
    admin: str
    secret_id: str
    secret_rowid: int
    cited: str
    relation_rowid: int


async def _fill(app: str) -> str:
    async with PostgresEngine(app, embedder=HashEmbedder(), migrate=False) as engine:
        for n in range(5):
            await engine.store(note(f"acme note {n} about gadgets", ACME_NS))
        first = await engine.store(note("Gina met the Initech board", GLOBEX_NS))
        await engine.store_many([note(f"globex note {n} about widgets", GLOBEX_NS) for n in range(40)])
        secret = await engine.store(
            note(
                SECRET,
                GLOBEX_NS,
                tags=("secret",),
                evidence=(first.id,),
                relations=(Relation("Globex", "acquires", "Initech"),),
            )
        )
        return secret.id


@pytest.fixture(scope="module")
def world() -> Iterator[World]:
    with deployment.deployed() as found:

        async def upgrade() -> None:
            async with PostgresEngine(found.owner, embedder=HashEmbedder()) as engine:
                await engine.upgrade()

        asyncio.run(upgrade())
        secret_id = asyncio.run(_fill(found.app))
        with psycopg.connect(found.admin, autocommit=True) as conn:
            conn.execute("ANALYZE")  # what autovacuum does soon after any load: the planner's samples
            found_rows = conn.execute(
                "SELECT i.rowid, e.cites, r.rowid FROM items i"
                " JOIN item_evidence e ON e.item_rowid = i.rowid JOIN relations r ON r.item_rowid = i.rowid"
                " WHERE i.id = %s",
                (secret_id,),
            ).fetchall()
        assert len(found_rows) == 1
        rowid, cited, edge = found_rows[0]
        yield World(found.app, found.owner, found.admin, secret_id, int(rowid), str(cited), int(edge))


def _as_acme(dsn: str, statement: str, params: tuple[Any, ...] = ()) -> tuple[str, object]:
    """What running `statement` for tenant acme shows: the rows it returned or the error's SQLSTATE,
    always rolled back so no probe leaves anything behind."""
    with psycopg.connect(dsn) as conn:
        try:
            with conn.transaction(force_rollback=True):
                conn.execute("SELECT set_config('tinymemory.tenants', %s, true)", (ACME,))
                cur = conn.execute(statement, params)  # type: ignore[arg-type]
                return "ok", cur.fetchall() if cur.description else cur.rowcount
        except psycopg.Error as exc:
            return "error", exc.sqlstate


_ITEM = (
    "INSERT INTO items (tenant, id, ckey, generation, kind, text, ns, observed_at, valid_from)"
    " VALUES (%s, %s, 'k', 0, 'learning', 't', %s, 0, 0)"
)
_ROWID = (
    "INSERT INTO items (rowid, tenant, id, ckey, generation, kind, text, ns, observed_at, valid_from)"
    " OVERRIDING SYSTEM VALUE VALUES (%s, %s, 'm_probe', 'k', 0, 'learning', 't', %s, 0, 0)"
)


def _probes(w: World) -> dict[str, tuple[str, str, tuple[Any, ...], tuple[Any, ...]]]:
    """name -> (insert, its key constraint, parameters with globex's key, parameters with nobody's)."""
    fresh_id = item_id(hashlib.sha256(b"nobody stored this").hexdigest())
    return {
        "items.id": (_ITEM, "items_id_key", (ACME, w.secret_id, ACME_NS), (ACME, fresh_id, ACME_NS)),
        "items.rowid": (_ROWID, "items_pkey", (w.secret_rowid, ACME, ACME_NS), (NOBODY, ACME, ACME_NS)),
        "lex_ns.ns": (
            "INSERT INTO lex_ns (ns, tenant, docs, tokens) VALUES (%s, %s, 0, 0)",
            "lex_ns_pkey",
            (GLOBEX_NS, ACME),
            (f"{GLOBEX}/user:nobody", ACME),
        ),
        "lex_df.term": (
            "INSERT INTO lex_df (term, ns, tenant, df) VALUES (%s, %s, %s, 0)",
            "lex_df_pkey",
            ("initech", GLOBEX_NS, ACME),
            ("zqxjkv", GLOBEX_NS, ACME),
        ),
        "item_tags.tag": (
            "INSERT INTO item_tags (tenant, tag, item_rowid) VALUES (%s, %s, %s)",
            "item_tags_pkey",
            (ACME, "secret", w.secret_rowid),
            (ACME, "secret", NOBODY),
        ),
        "item_evidence.cites": (
            "INSERT INTO item_evidence (tenant, cites, item_rowid) VALUES (%s, %s, %s)",
            "item_evidence_pkey",
            (ACME, w.cited, w.secret_rowid),
            (ACME, w.cited, NOBODY),
        ),
        "vectors.item_rowid": (
            "INSERT INTO vectors (item_rowid, tenant, embedder, dim, vec) VALUES (%s, %s, 'e', 1, '[1]')",
            "vectors_pkey",
            (w.secret_rowid, ACME),
            (NOBODY, ACME),
        ),
        "relations.rowid": (
            "INSERT INTO relations (rowid, tenant, item_rowid, subject, subject_key, type, object,"
            " object_key) OVERRIDING SYSTEM VALUE VALUES (%s, %s, 0, 's', 's', 't', 'o', 'o')",
            "relations_pkey",
            (w.relation_rowid, ACME),
            (NOBODY, ACME),
        ),
    }


PROBES = (
    "items.id",
    "items.rowid",
    "lex_ns.ns",
    "lex_df.term",
    "item_tags.tag",
    "item_evidence.cites",
    "vectors.item_rowid",
    "relations.rowid",
)
FORMS = ("insert", "do_nothing", "do_update")


def _form(insert: str, constraint: str, form: str) -> str:
    if form == "do_nothing":
        return f"{insert} ON CONFLICT DO NOTHING RETURNING tenant"
    if form == "do_update":
        update = "DO UPDATE SET tenant = excluded.tenant RETURNING tenant"
        return f"{insert} ON CONFLICT ON CONSTRAINT {constraint} {update}"
    return insert


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("probe", PROBES)
def test_a_key_another_tenant_holds_inserts_as_a_fresh_one(world: World, probe: str, form: str) -> None:
    insert, constraint, theirs, nobodys = _probes(world)[probe]
    statement = _form(insert, constraint, form)
    fresh = _as_acme(world.app, statement, nobodys)
    assert fresh[0] == "ok", fresh  # the probe itself is sound: a fresh key goes in
    assert _as_acme(world.app, statement, theirs) == fresh


def test_a_row_for_another_tenant_is_refused_alike_whether_its_key_exists_or_not(world: World) -> None:
    fresh_id = item_id(hashlib.sha256(b"nobody stored this either").hexdigest())
    for form in FORMS:
        statement = _form(_ITEM, "items_id_key", form)
        held = _as_acme(world.app, statement, (GLOBEX, world.secret_id, GLOBEX_NS))
        assert held == ("error", "42501")  # new row violates row-level security policy
        assert _as_acme(world.app, statement, (GLOBEX, fresh_id, GLOBEX_NS)) == held


@pytest.mark.parametrize(
    "statement",
    [
        "SELECT last_value FROM items_rowid_seq",
        "SELECT last_value FROM relations_rowid_seq",
        "SELECT pg_sequence_last_value('items_rowid_seq')",
        "SELECT nextval('items_rowid_seq')",
        "SELECT setval('items_rowid_seq', 1)",
    ],
)
def test_the_service_role_cannot_read_or_draw_the_row_id_sequences(world: World, statement: str) -> None:
    assert _as_acme(world.app, statement) == ("error", "42501")


def test_the_sequences_catalogue_shows_the_service_role_no_count(world: World) -> None:
    assert _as_acme(world.app, "SELECT DISTINCT last_value FROM pg_sequences") == ("ok", [(None,)])


@pytest.mark.parametrize(
    "statement",
    [
        "SELECT n_tup_ins, n_tup_upd, n_tup_del FROM pg_stat_user_tables",
        "SELECT heap_blks_read FROM pg_statio_user_tables",
        "SELECT idx_scan FROM pg_stat_all_indexes",
        "SELECT xact_commit, tup_inserted FROM pg_stat_database",
        "SELECT pg_stat_get_tuples_inserted('items'::regclass)",
        "SELECT pg_stat_get_live_tuples('items'::regclass)",
        "SELECT state FROM pg_stat_activity",
        "SELECT objid FROM pg_locks",
    ],
)
def test_the_service_role_reads_no_activity_statistics(world: World, statement: str) -> None:
    assert _as_acme(world.app, statement) == ("error", "42501")


def test_the_owner_still_reads_the_activity_statistics(world: World) -> None:
    with psycopg.connect(world.owner) as conn:
        rows = conn.execute("SELECT n_tup_ins FROM pg_stat_user_tables WHERE relname = 'items'").fetchall()
    assert len(rows) == 1


def _estimate(dsn: str, query: str, params: tuple[Any, ...]) -> int:
    found = _as_acme(dsn, f"EXPLAIN (FORMAT JSON) {query}", params)
    assert found[0] == "ok", found
    rows: Any = found[1]
    plan = rows[0][0]
    return int((json.loads(plan) if isinstance(plan, str) else plan)[0]["Plan"]["Plan Rows"])


@pytest.mark.parametrize(
    ("query", "theirs", "nobodys"),
    [
        ("SELECT * FROM items WHERE text < %s", ("globex note 9",), ("globex note 0",)),
        ("SELECT * FROM items WHERE lex_body < %s", ("globex note 9",), ("globex note 0",)),
    ],
)
def test_the_planners_estimates_on_what_memories_say_do_not_depend_on_another_tenant(
    world: World, query: str, theirs: tuple[Any, ...], nobodys: tuple[Any, ...]
) -> None:
    assert _estimate(world.app, query, theirs) == _estimate(world.app, query, nobodys)


@pytest.mark.asyncio
async def test_an_import_into_one_tenant_never_collides_with_another_tenants_id(world: World) -> None:
    """Through the engine: a record whose content key (so id) is globex's, written under acme, is
    imported exactly as one nobody holds (the id was taken tenant-wide, and the import said skipped)."""
    guessed = note(SECRET, GLOBEX_NS)
    assert item_id(content_key(guessed)) == world.secret_id
    async with PostgresEngine(world.app, embedder=None, migrate=False) as engine:
        mine = [r async for r in engine.export_records(vectors=False) if r.item.meta.namespace.segments][:1]
        assert mine
        template = mine[0]

        def forged(key: str, ns: str) -> StoredRecord:
            meta = replace(template.item.meta, namespace=Namespace.parse(ns))
            return replace(template, item=replace(template.item, id=item_id(key), meta=meta), content_key=key)

        fresh_key = hashlib.sha256(b"a memory nobody holds").hexdigest()
        held = await engine.import_records([forged(content_key(guessed), f"{ACME}/user:mallory")])
        fresh = await engine.import_records([forged(fresh_key, f"{ACME}/user:mallory")])
    assert (held.imported, held.skipped) == (fresh.imported, fresh.skipped) == (1, 0)
