"""`store_many` is all or nothing, in process: when the n-th item is refused or its write fails, no row of
the batch is left anywhere in the file (items, tags, FTS, vectors, supersession marks, statistics)."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

from test_sqlite_support import HashEmbedder, note
from tinymemory import Memory
from tinymemory.api import About, GetRequest, InvalidRequest, ListRequest, Unavailable
from tinymemory.engines.sqlite import SqliteEngine

POISON = "poisoned text that the database refuses"


def table_counts(path: Path) -> dict[str, int]:
    """Rows in every table of the file, read with plain sqlite3 (FTS shadow tables included)."""
    with sqlite3.connect(path) as conn:
        names = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        counts = {}
        for name in names:
            try:
                counts[name] = conn.execute(f'SELECT count(*) FROM "{name}"').fetchone()[0]
            except sqlite3.OperationalError:  # virtual tables that cannot be counted on their own
                continue
        return counts


def poison_the_file(path: Path) -> None:
    """A trigger makes SQLite itself abort the insert of one item, half-way through the transaction."""
    with sqlite3.connect(path) as conn:
        conn.execute(  # DDL takes no parameters; POISON holds no quote
            f"CREATE TRIGGER poison BEFORE INSERT ON items WHEN NEW.text = '{POISON}' "
            "BEGIN SELECT RAISE(ABORT, 'poisoned row'); END"
        )


class FailingEmbedder(HashEmbedder):
    """Embeds like HashEmbedder but fails on one text (a model error on one input of a batch)."""

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        if any(POISON in t for t in texts):
            raise RuntimeError("the model choked")
        return super().embed(texts)


def batch(n: int, bad_at: int, bad: str) -> list[str]:
    return [bad if i == bad_at else f"batch item {i} about tomatoes" for i in range(n)]


@pytest.mark.parametrize("bad_at", [0, 3, 7])
async def test_a_failing_insert_rolls_back_the_whole_batch(tmp_path: Path, bad_at: int) -> None:
    path = tmp_path / "mem.db"
    async with SqliteEngine(path, embedder=HashEmbedder()) as engine:
        old = await engine.store(
            note("the office plant is a fern", about=About("plant", "office"), tags=("home",))
        )
        poison_the_file(path)
        before = table_counts(path)
        items = [
            note(
                text,
                about=About("plant", "office") if i == 1 else None,
                tags=("batch", f"t{i}"),
                thread_id="th",
            )
            for i, text in enumerate(batch(8, bad_at, POISON))
        ]
        with pytest.raises(Unavailable, match=r"^store_many: .*poisoned row"):
            await engine.store_many(items)
        assert table_counts(path) == before
        assert [i.id for i in (await engine.list(ListRequest(limit=100))).items] == [old.id]
        kept = (await engine.get(GetRequest((old.id,)))).items[0]
        assert kept.valid_to is None and kept.superseded_by is None  # the supersession rolled back too
        # the connection is not left inside the failed transaction: the batch without the poison lands
        done = await engine.store_many([it for it in items if it.text != POISON])
        assert len(done) == 7 and not any(r.replayed for r in done)


async def test_an_embedder_failing_on_the_nth_text_writes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "mem.db"
    async with SqliteEngine(path, embedder=FailingEmbedder()) as engine:
        await engine.store(note("already here"))
        before = table_counts(path)
        with pytest.raises(Unavailable, match=r"^store_many: the embedder failed"):
            await engine.store_many([note(t) for t in batch(6, 4, POISON)])
        assert table_counts(path) == before


def test_a_refused_item_refuses_the_batch_before_anything_is_written(tmp_path: Path) -> None:
    path = tmp_path / "mem.db"
    with Memory(path, namespace="team:acme", embedder=None) as mem:
        mem.store("already here")
        before = table_counts(path)
        for bad, field in (("a\ud800b", r"items\[5\]\.text"), ("   ", r"items\[5\]\.text")):
            with pytest.raises(InvalidRequest, match=rf"^store_many: `{field}`"):
                mem.store_many(batch(9, 5, bad))
            assert table_counts(path) == before
        with pytest.raises(InvalidRequest, match=r"^store_many: `items\[2\]`"):
            mem.store_many(["one", "two", 3])  # type: ignore[list-item]
        assert table_counts(path) == before
        assert [i.text for i in mem.list().items] == ["already here"]
