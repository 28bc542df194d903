"""The SQLite side of relations: the schema 6 table, purge taking the edges with the memory, a version
5 file upgraded in place, and `Memory.expand` over the embedded engine."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from tinymemory import Memory
from tinymemory.api import (
    ExpandRequest,
    ForgetRequest,
    InvalidRequest,
    ItemKind,
    ItemMeta,
    ListRequest,
    NewItem,
    PurgeRequest,
    Relation,
)
from tinymemory.engines.sqlite import SqliteEngine, schema


def edge_rows(path: Path) -> list[tuple[str, str, str, str, str]]:
    with sqlite3.connect(path) as raw:
        return raw.execute(
            "SELECT subject, subject_key, type, object, object_key FROM relations ORDER BY rowid"
        ).fetchall()


async def test_edges_are_stored_with_keys_and_purged_with_their_memory(tmp_path: Path) -> None:
    path = tmp_path / "g.db"
    async with SqliteEngine(path, embedder=None) as engine:
        kept = await engine.store(
            NewItem(
                ItemKind.LEARNING, "Eve leads Atlas", ItemMeta(relations=(Relation("Eve", "leads", "Atlas"),))
            )
        )
        gone = await engine.store(
            NewItem(
                ItemKind.LEARNING,
                "Dana works on Project  Atlas",
                ItemMeta(relations=(Relation("Dana", "works_on", "Project  ATLAS"),)),
            )
        )
        assert edge_rows(path) == [
            ("Eve", "eve", "leads", "Atlas", "atlas"),
            ("Dana", "dana", "works_on", "Project  ATLAS", "project atlas"),
        ]
        await engine.forget(ForgetRequest(ids=(gone.id,)))
        assert (await engine.expand(ExpandRequest("dana"))).hits == ()
        assert len(edge_rows(path)) == 2  # hidden at once, deleted by purge
        assert (await engine.purge(PurgeRequest())).purged == 1
        assert edge_rows(path) == [("Eve", "eve", "leads", "Atlas", "atlas")]
        assert [h.item.id for h in (await engine.expand(ExpandRequest("atlas"))).hits] == [kept.id]


async def test_a_version_5_file_gains_the_relations_table_and_keeps_its_memory(tmp_path: Path) -> None:
    path = tmp_path / "v5.db"
    raw = sqlite3.connect(path, isolation_level=None)
    schema.migrate(raw, target=5)
    raw.close()
    async with SqliteEngine(path, embedder=None) as engine:
        before = await engine.store(NewItem(ItemKind.LEARNING, "stored before relations existed"))
        (old,) = (await engine.list(ListRequest())).items
        assert old.id == before.id and old.meta.relations == ()
        await engine.store(
            NewItem(
                ItemKind.LEARNING, "Dana owns Orbit", ItemMeta(relations=(Relation("Dana", "owns", "Orbit"),))
            )
        )
        assert [h.via for h in (await engine.expand(ExpandRequest("Orbit"))).hits] == ["Orbit <-owns- Dana"]
    with sqlite3.connect(path) as check:
        assert check.execute("PRAGMA user_version").fetchone()[0] == schema.SCHEMA_VERSION == 12
        indexes = {r[1] for r in check.execute("PRAGMA index_list(relations)")}
        assert indexes == {"relations_subject", "relations_object", "relations_item"}


def test_memory_expand_walks_within_its_reach(tmp_path: Path) -> None:
    with Memory(tmp_path / "m.db", namespace="team:acme/agent:a", embedder=None) as a:
        a.store("Dana works on Project Atlas", relations=[("Dana", "works_on", "Project Atlas")])
        a.store("Eve leads Project Atlas", relations=[Relation("Eve", "leads", "Project Atlas")])
    with Memory(tmp_path / "m.db", namespace="team:acme/agent:b", embedder=None) as b:
        b.store("Dana works on Project Hydra", relations=[("Dana", "works_on", "Project Hydra")])
        assert [h.via for h in b.expand("Dana", max_hops=2).hits] == ["Dana -works_on-> Project Hydra"]
    with Memory(tmp_path / "m.db", namespace="team:acme/agent:a", embedder=None) as a:
        assert [(h.hop, h.via) for h in a.expand("dana", max_hops=2).hits] == [
            (1, "Dana -works_on-> Project Atlas"),
            (2, "Dana -works_on-> Project Atlas <-leads- Eve"),
        ]
        assert [h.via for h in a.expand("Dana", max_hops=2, relation_types=["works_on"]).hits] == [
            "Dana -works_on-> Project Atlas"
        ]
        assert a.get([a.expand("Eve").hits[0].item.id]).items[0].meta.relations == (
            Relation("Eve", "leads", "Project Atlas"),
        )


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda m: m.expand(""), "expand: `seed_name` must not be blank"),
        (lambda m: m.expand("Dana", max_hops=3), "expand: `max_hops` must be between 1 and 2, got 3"),
        (lambda m: m.expand("Dana", relation_types=[1]), "expand: `relation_types[0]` must be a string"),
        (lambda m: m.expand("Dana", relation_types=5), "expand: `relation_types` must be a list of strings"),
        (lambda m: m.expand("Dana", namespace="x"), "expand: `namespace` is fixed by this Memory"),
        (lambda m: m.expand("Dana", bogus=1), "expand: `bogus` is not a known argument"),
        (lambda m: m.expand(), "expand: `seed_name` is required"),
        (lambda m: m.store("x", relations="Dana"), "store: `relations` must be a list of relations"),
        (lambda m: m.store("x", relations=[("a", "b")]), "store: `relations[0]` must be a Relation or"),
        (lambda m: m.store("x", relations=[("a", "B C", "d")]), "store: `meta.relations[0].type`"),
    ],
)
def test_memory_expand_and_relations_refuse_bad_arguments(tmp_path: Path, call: object, message: str) -> None:
    with Memory(tmp_path / "m.db", namespace="team:acme", embedder=None) as mem:
        with pytest.raises(InvalidRequest) as err:
            call(mem)  # type: ignore[operator]
        assert str(err.value).startswith(message), str(err.value)
        assert mem.list().items == ()
