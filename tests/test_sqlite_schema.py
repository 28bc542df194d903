"""Schema versioning, migrations and the connection's durability settings."""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from test_sqlite_support import fts_oracle, note, to_version_11
from tinymemory.api import Conflict, FetchRequest, ListRequest
from tinymemory.engines.sqlite import SqliteEngine, schema
from tinymemory.engines.sqlite.db import connect


async def test_a_new_file_is_migrated_to_the_current_version_with_wal_and_full_sync(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "mem.db"
    async with SqliteEngine(path, embedder=None) as engine:
        await engine.list(ListRequest())
        sync = await engine.storage._run("t", lambda c: c.execute("PRAGMA synchronous").fetchone()[0])
        assert sync == 2  # FULL
    raw = sqlite3.connect(path)
    assert raw.execute("PRAGMA user_version").fetchone()[0] == schema.SCHEMA_VERSION
    assert raw.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    tables = {r[0] for r in raw.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert {"items", "item_tags", "lex_docs", "lex_postings", "vectors"} <= tables
    assert "items_fts" not in tables  # schema 12: no FTS5 (every lexical read ranks from the postings)


def test_migrate_is_idempotent_and_reports_the_old_version(tmp_path: Path) -> None:
    conn = sqlite3.connect(tmp_path / "m.db", isolation_level=None)
    assert schema.migrate(conn) == 0
    assert schema.migrate(conn) == schema.SCHEMA_VERSION
    assert schema.user_version(conn) == schema.SCHEMA_VERSION


def test_a_failing_step_rolls_back_and_keeps_the_version(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    conn = sqlite3.connect(tmp_path / "m.db", isolation_level=None)
    schema.migrate(conn)

    def broken(c: sqlite3.Connection) -> None:
        c.execute("CREATE TABLE half_done (x)")
        raise RuntimeError("boom")

    monkeypatch.setitem(schema.MIGRATIONS, schema.SCHEMA_VERSION, broken)
    with pytest.raises(RuntimeError):
        schema.migrate(conn, target=schema.SCHEMA_VERSION + 1)
    assert schema.user_version(conn) == schema.SCHEMA_VERSION
    assert conn.execute("SELECT count(*) FROM sqlite_master WHERE name = 'half_done'").fetchone()[0] == 0


async def test_a_file_from_a_newer_version_is_a_conflict_and_untouched(tmp_path: Path) -> None:
    path = tmp_path / "future.db"
    raw = sqlite3.connect(path)
    raw.execute(f"PRAGMA user_version = {schema.SCHEMA_VERSION + 5}")
    raw.close()
    async with SqliteEngine(path, embedder=None) as engine:
        with pytest.raises(Conflict, match="newer"):
            await engine.list(ListRequest())
    raw = sqlite3.connect(path)
    assert raw.execute("PRAGMA user_version").fetchone()[0] == schema.SCHEMA_VERSION + 5
    assert raw.execute("SELECT count(*) FROM sqlite_master").fetchone()[0] == 0


def test_two_connections_opening_one_new_file_both_succeed(tmp_path: Path) -> None:
    path = str(tmp_path / "shared.db")
    a, b = connect(path), connect(path)
    assert schema.user_version(a) == schema.user_version(b) == schema.SCHEMA_VERSION


def test_memory_databases_work_without_wal() -> None:
    conn = connect(":memory:")
    assert schema.user_version(conn) == schema.SCHEMA_VERSION


async def test_a_version_1_file_is_upgraded_in_place_and_keeps_its_memory(tmp_path: Path) -> None:
    path = tmp_path / "v1.db"
    async with SqliteEngine(path, embedder=None) as engine:
        await engine.list(ListRequest())
    raw = sqlite3.connect(path, isolation_level=None)
    to_version_11(raw)
    for undo in (  # what a version 1 file looks like
        "DROP TABLE relations",
        "DROP TABLE lex_postings",
        "DROP VIEW lex_df",
        "DROP TABLE lex_terms",
        "DROP TABLE lex_ns",
        "DROP TABLE item_evidence",
        "ALTER TABLE items DROP COLUMN lex_len",
    ):
        raw.execute(undo)
    raw.execute("DROP TABLE items_vocab")
    raw.execute("DROP INDEX items_ns_active")
    raw.execute("DROP INDEX items_thread_ns")
    raw.execute("CREATE INDEX items_thread ON items(thread_id)")
    raw.execute("DROP INDEX items_ns_observed")
    raw.execute("CREATE INDEX items_ns ON items(ns)")
    raw.execute("PRAGMA user_version = 1")
    raw.close()
    async with SqliteEngine(path, embedder=None) as engine:
        stored = await engine.store(note("the migration kept working"))
        hits = (await engine.fetch(FetchRequest("migration working"))).hits
        assert [h.item.id for h in hits] == [stored.id]
    raw = sqlite3.connect(path)
    assert raw.execute("PRAGMA user_version").fetchone()[0] == schema.SCHEMA_VERSION == 12
    assert raw.execute("SELECT sum(df) FROM lex_terms WHERE term = 'migrat'").fetchone() == (1,)
    assert not raw.execute(
        "SELECT 1 FROM sqlite_master WHERE name IN ('items_fts', 'items_vocab')"
    ).fetchall()


async def test_a_version_4_file_drops_forgotten_words_and_counts_its_namespaces(tmp_path: Path) -> None:
    """Schema 5 takes forgotten rows out of the index, relinks their neighbours and builds the
    per-namespace statistics the scoped bm25 reads."""
    path = tmp_path / "v4.db"
    raw = sqlite3.connect(path, isolation_level=None)
    schema.migrate(raw, target=4)
    rows = [
        (1, "a", "t1", "ns:one", "alpha turn", "alpha", "secretword"),
        (2, "b", "t1", "ns:one", "secretword turn", "secretword", "alpha gamma"),
        (3, "c", "t1", "ns:one", "gamma turn", "gamma", "secretword"),
        (4, "d", None, "ns:two", "other place", "place", ""),
    ]
    for rowid, key, thread, ns, text, body, ctx in rows:
        raw.execute(
            "INSERT INTO items (rowid, id, ckey, generation, kind, text, ns, thread_id, observed_at,"
            " valid_from, forgotten_at) VALUES (?, ?, ?, 0, 'conversation', ?, ?, ?, 1, 1, ?)",
            (rowid, "m_" + key * 24, key, text, ns, thread, 5 if rowid == 2 else None),
        )
        raw.execute(
            "INSERT INTO items_fts (rowid, title, body, context) VALUES (?, '', ?, ?)", (rowid, body, ctx)
        )
    raw.close()
    async with SqliteEngine(path, embedder=None) as engine:
        assert (await engine.fetch(FetchRequest("secretword"))).hits == ()
    raw = sqlite3.connect(path)
    fts_oracle(raw)
    assert raw.execute("SELECT count(*) FROM items_fts WHERE items_fts MATCH 'secretword'").fetchone() == (0,)
    assert raw.execute("SELECT context FROM lex_docs WHERE doc = 1").fetchone() == ("gamma",)
    assert raw.execute("SELECT context FROM lex_docs WHERE doc = 3").fetchone() == ("alpha",)
    assert raw.execute("SELECT ns, docs, tokens FROM lex_ns ORDER BY ns").fetchall() == [
        ("ns:one", 2, 4),
        ("ns:two", 1, 1),
    ]
    assert raw.execute("SELECT count(*) FROM lex_df WHERE term = 'secretword'").fetchone() == (0,)


_KILL_MID_UPGRADE = """
import os, signal, sqlite3, sys
from tinymemory.engines.sqlite import schema
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("PRAGMA journal_mode = WAL")
conn.execute("PRAGMA synchronous = FULL")
def trace(sql):
    if sql.startswith("DROP TABLE items_fts"):  # schema 12's step, its copy into lex_docs done
        os.kill(os.getpid(), signal.SIGKILL)
conn.set_trace_callback(trace)
schema.migrate(conn)
"""


async def test_a_process_killed_inside_the_version_12_step_leaves_version_11_and_the_next_open_upgrades(
    tmp_path: Path,
) -> None:
    """Schema 12 moves the analysed columns out of FTS5 in one transaction: a SIGKILL half-way (the copy
    written, FTS5 not yet dropped) leaves the file at version 11 with its FTS5 table, and the next open
    runs the step again from there."""
    path = tmp_path / "v11.db"
    async with SqliteEngine(path, embedder=None) as engine:
        stored = [(await engine.store(note(f"the kingfisher dives at dawn {i}"))).id for i in range(30)]
        before = [h.item.id for h in (await engine.fetch(FetchRequest("kingfisher dawn", limit=50))).hits]
    raw = sqlite3.connect(path, isolation_level=None)
    to_version_11(raw)
    raw.close()
    child = subprocess.run([sys.executable, "-c", _KILL_MID_UPGRADE, str(path)], timeout=60)
    assert child.returncode == -signal.SIGKILL
    raw = sqlite3.connect(path)
    assert raw.execute("PRAGMA user_version").fetchone()[0] == 11
    names = {r[0] for r in raw.execute("SELECT name FROM sqlite_master")}
    assert "items_fts" in names and "lex_docs" not in names
    assert raw.execute("SELECT count(*) FROM items_fts").fetchone() == (30,)
    raw.close()
    async with SqliteEngine(path, embedder=None) as engine:
        after = [h.item.id for h in (await engine.fetch(FetchRequest("kingfisher dawn", limit=50))).hits]
    assert after == before and sorted(after) == sorted(stored)
    raw = sqlite3.connect(path)
    assert raw.execute("PRAGMA user_version").fetchone()[0] == schema.SCHEMA_VERSION == 12
    assert raw.execute("SELECT count(*) FROM lex_docs").fetchone() == (30,)
