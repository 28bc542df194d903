"""A process's first whole-store read loads what it scores with (the matrix, or the saved graph) while
its query is embedded, not after: the two overlap on a first read, where both are slow."""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
import numpy.typing as npt

from test_sqlite_support import HashEmbedder, note
from tinymemory.api import FetchMode, FetchRequest, MetaFilter, Namespace, Reach
from tinymemory.engines.sqlite import SqliteEngine
from tinymemory.engines.sqlite.vectors import VectorMatrix


class WatchingEmbedder(HashEmbedder):
    """Embeds a query once the watched matrix is loaded (or after a second): records which it was."""

    def __init__(self) -> None:
        super().__init__()
        self.matrix: VectorMatrix | None = None
        self.loaded_first: list[bool] = []

    def embed_query(self, text: str) -> npt.NDArray[np.float32]:
        if self.matrix is not None:
            done = threading.Event()
            for _ in range(100):
                if self.matrix.loaded or done.wait(0.01):
                    break
            self.loaded_first.append(self.matrix.loaded)
        return super().embed_query(text)


async def test_a_first_whole_store_read_loads_the_matrix_while_the_query_is_embedded(
    tmp_path: Path,
) -> None:
    path = tmp_path / "m.db"
    watching = WatchingEmbedder()
    async with SqliteEngine(path, embedder=watching) as engine:
        await engine.store_many([note(f"note river {i}") for i in range(30)])
    async with SqliteEngine(path, embedder=watching) as engine:
        watching.matrix = engine.storage._matrix
        got = await engine.fetch(FetchRequest("river", mode=FetchMode.HYBRID, limit=5))
        assert watching.loaded_first == [True]
        assert len(got.hits) == 5


async def test_a_reach_read_loads_no_matrix_before_its_query(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    watching = WatchingEmbedder()
    agent = Namespace.parse("team:t/agent:a")
    async with SqliteEngine(path, embedder=watching) as engine:
        await engine.store_many([note(f"note river {i}", at=str(agent)) for i in range(3)])
        await engine.store_many([note(f"other river {i}") for i in range(3_000)])
    async with SqliteEngine(path, embedder=watching) as engine:
        watching.matrix = engine.storage._matrix
        flt = MetaFilter(reach=Reach.of(agent))
        got = await engine.fetch(FetchRequest("river", mode=FetchMode.HYBRID, filter=flt, limit=5))
        assert watching.loaded_first == [False]  # its few rows are read from the table
        assert got.hits
