"""A store's embedding runs on the event loop only for an embedder that says it is quicker there than a
hand-off to a thread (a loaded static table, a few texts); a bulk store, or any other embedder, runs in a
worker thread so that it never holds the loop. A sync caller's loop is its own: a table embedder's bulk
store runs there too."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from tinymemory import Memory
from tinymemory.api import ItemKind, ItemMeta, Namespace, NewItem
from tinymemory.engines.sqlite import SqliteEngine
from tinymemory.engines.versions import embeds_inline
from tinymemory.retrieval.embedders.base import Vectors
from tinymemory.retrieval.embedders.static import INLINE_TEXTS, StaticMiniLMEmbedder

NS = Namespace.parse("team:acme/user:u0")


class Recording(StaticMiniLMEmbedder):
    """The static embedder, noting the thread of every `embed` call."""

    def __init__(self) -> None:
        super().__init__()
        self.threads: list[int] = []

    def embed(self, texts: Sequence[str]) -> Vectors:
        self.threads.append(threading.get_ident())
        return super().embed(texts)


class Plain:
    """An embedder of our own shape that says nothing about where it runs."""

    name = "plain-test-4"
    dim = 4

    def __init__(self) -> None:
        self.threads: list[int] = []

    def embed(self, texts: Sequence[str]) -> Vectors:
        self.threads.append(threading.get_ident())
        out = np.ones((len(texts), 4), dtype=np.float32)
        return out / np.linalg.norm(out, axis=1, keepdims=True)

    def embed_query(self, text: str) -> Vectors:
        return self.embed([text])[0]


def item(text: str) -> NewItem:
    return NewItem(ItemKind.CONVERSATION, text, ItemMeta(namespace=NS))


def test_the_static_table_says_it_embeds_a_few_texts_inline_once_loaded() -> None:
    embedder = StaticMiniLMEmbedder()
    assert not embeds_inline(embedder, 1)  # its first read may block: not on the loop
    embedder.load()
    assert embeds_inline(embedder, 1) and embeds_inline(embedder, INLINE_TEXTS)
    assert not embeds_inline(embedder, INLINE_TEXTS + 1) and not embeds_inline(embedder, 0)
    assert not embeds_inline(Plain(), 1)


async def test_a_single_store_embeds_on_the_loop_and_a_bulk_store_off_it(tmp_path: Path) -> None:
    embedder = Recording()
    embedder.load()
    loop_thread = threading.get_ident()
    async with SqliteEngine(tmp_path / "m.db", embedder=embedder) as engine:
        first = await engine.store(item("the user likes green tea"))
        assert embedder.threads == [loop_thread]
        again = await engine.store(item("the user likes green tea"))
        assert again.replayed and again.id == first.id
        embedder.threads.clear()
        await engine.store_many([item(f"bulk memory number {i}") for i in range(INLINE_TEXTS + 1)])
        assert embedder.threads and loop_thread not in embedder.threads


@pytest.mark.parametrize("count", [1, 3])
async def test_an_embedder_that_says_nothing_runs_off_the_loop(tmp_path: Path, count: int) -> None:
    embedder = Plain()
    loop_thread = threading.get_ident()
    async with SqliteEngine(tmp_path / "m.db", embedder=embedder) as engine:
        await engine.store_many([item(f"memory {i}") for i in range(count)])
    assert embedder.threads and loop_thread not in embedder.threads


def test_a_sync_callers_bulk_store_embeds_a_table_on_its_own_thread(tmp_path: Path) -> None:
    """The sync facade's loop is the caller's own: nothing waits on it, so a table embedder's bulk
    embedding runs there too; an embedder that says nothing still runs on a worker thread."""
    table, plain = Recording(), Plain()
    table.load()
    here = threading.get_ident()
    for embedder in (table, plain):
        with Memory(tmp_path / f"{embedder.name}.db", namespace=str(NS), embedder=embedder) as mem:
            stored = mem.store_many([f"bulk memory number {i}" for i in range(INLINE_TEXTS + 1)])
            assert len(stored) == INLINE_TEXTS + 1 and not any(s.replayed for s in stored)
    assert table.threads and set(table.threads) == {here}
    assert plain.threads and here not in plain.threads
