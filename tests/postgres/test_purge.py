"""Forget takes a memory out of every read; purge deletes it and everything hanging off it, so no row of
any table holds its text (or its analysed words) afterwards."""

from __future__ import annotations

import psycopg
import pytest

from tinymemory.api import (
    About,
    FetchMode,
    FetchRequest,
    ForgetRequest,
    GetRequest,
    ItemKind,
    PurgeRequest,
    Relation,
    Source,
)
from tinymemory.engines.postgres import PostgresEngine

from . import server
from .helpers import HashEmbedder, note

pytestmark = pytest.mark.asyncio

SECRET = "zebrasecret42"
PLACE = "team:acme/user:dana"


def rows_holding(dsn: str, needle: str) -> dict[str, int]:
    """Per table, how many rows mention `needle` anywhere (read as the superuser: policies do not hide)."""
    found: dict[str, int] = {}
    with psycopg.connect(server.admin_dsn(dsn)) as conn:
        tables = [
            str(r[0])
            for r in conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public'").fetchall()
        ]
        for table in tables:
            row = conn.execute(
                f"SELECT count(*) FROM {table} t WHERE strpos(lower(t::text), %s) > 0", (needle.lower(),)
            ).fetchone()
            if row and row[0]:
                found[table] = int(row[0])
    return found


async def test_purge_leaves_no_row_holding_the_text(pg_dsn: str) -> None:
    async with PostgresEngine(pg_dsn, embedder=HashEmbedder()) as engine:
        turns = [
            note(t, PLACE, ItemKind.CONVERSATION, thread_id="t1")
            for t in ("we set up the laptop", f"my password is {SECRET}", "remember to buy coffee")
        ]
        ids = [(await engine.store(t)).id for t in turns]
        secret_note = await engine.store(
            note(
                f"the vault code is {SECRET}",
                PLACE,
                title=f"{SECRET} vault",
                summary=f"about {SECRET}",
                tags=(SECRET, "vault"),
                about=About("vault", SECRET),
                source=Source("user", SECRET),
                relations=(Relation("Dana", "knows", f"{SECRET} Corp"),),
                extra=(("code", SECRET),),
                evidence=(ids[1],),
            )
        )
        keep = await engine.store(note("the office plant is a fern", PLACE, tags=("vault",)))
        before = rows_holding(pg_dsn, SECRET)
        assert {"items", "item_tags", "relations", "lex_df"} <= set(before), before

        result = await engine.forget(ForgetRequest(ids=(ids[1],)))
        assert set(result.forgotten) == {ids[1], secret_note.id}  # the note cites the turn
        # forgotten: out of the index, its statistics and its neighbours' context at once
        after_forget = rows_holding(pg_dsn, SECRET)
        assert "lex_df" not in after_forget
        hits = await engine.fetch(FetchRequest(SECRET, mode=FetchMode.LEXICAL, limit=50))
        assert hits.hits == ()

        assert (await engine.purge(PurgeRequest())).purged == 2
        assert rows_holding(pg_dsn, SECRET) == {}
        assert rows_holding(pg_dsn, "vault code") == {}
        got = await engine.get(GetRequest(ids=(ids[0], ids[2], keep.id, secret_note.id)))
        assert [i.id for i in got.items] == [ids[0], ids[2], keep.id]
        assert got.forgotten == ()
        # the neighbours are still found by their own words, and the shared tag survives on the kept item
        coffee = await engine.fetch(FetchRequest("laptop coffee", mode=FetchMode.LEXICAL))
        assert {ids[0], ids[2]} <= {h.item.id for h in coffee.hits}


async def test_purge_removes_vectors_and_side_rows(pg_dsn: str) -> None:
    async with PostgresEngine(pg_dsn, embedder=HashEmbedder()) as engine:
        gone = await engine.store(note("short lived", PLACE, tags=("x",), evidence=("m_abc",)))
        await engine.forget(ForgetRequest(ids=(gone.id,)))
        assert (await engine.purge(PurgeRequest())).purged == 1
    with psycopg.connect(server.admin_dsn(pg_dsn)) as conn:
        for table in ("items", "vectors", "item_tags", "item_evidence", "relations", "lex_ns", "lex_df"):
            assert conn.execute(f"SELECT count(*) FROM {table}").fetchone() == (0,), table
