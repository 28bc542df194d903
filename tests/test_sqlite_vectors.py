"""The vector matrix: incremental refresh across processes, snapshots, and the semantic plan choice."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from test_sqlite_support import HashEmbedder, note
from tinymemory.api import FetchMode, FetchRequest, ForgetRequest, MetaFilter, Namespace, PurgeRequest, Reach
from tinymemory.engines.sqlite import SqliteEngine, vectors
from tinymemory.engines.sqlite.search import Plan, filter_first_cap
from tinymemory.engines.sqlite.vectors import top_order

WRITER = textwrap.dedent(
    """
    import asyncio, sys
    from test_sqlite_support import HashEmbedder, note
    from tinymemory.api import ForgetRequest, PurgeRequest
    from tinymemory.engines.sqlite import SqliteEngine

    async def main(path, action):
        async with SqliteEngine(path, embedder=HashEmbedder()) as eng:
            if action == "store":
                res = await eng.store_many([note(f"orchard pears {i}") for i in range(5)])
                print(" ".join(r.id for r in res))
            else:
                await eng.forget(ForgetRequest(ids=(action,)))
                await eng.purge(PurgeRequest())

    asyncio.run(main(sys.argv[1], sys.argv[2]))
    """
)


def run_writer(path: Path, action: str) -> list[str]:
    env = dict(
        os.environ, PYTHONPATH=str(Path(__file__).parent) + os.pathsep + os.environ.get("PYTHONPATH", "")
    )
    out = subprocess.run(
        [sys.executable, "-c", WRITER, str(path), action], env=env, capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0, out.stderr
    return out.stdout.split()


async def test_rows_written_by_another_process_are_loaded_incrementally(tmp_path: Path) -> None:
    path = tmp_path / "shared.db"
    async with SqliteEngine(path, embedder=HashEmbedder()) as engine:
        await engine.store_many([note(f"apple tree {i}") for i in range(3)])
        await engine.fetch(FetchRequest("orchard pears", mode=FetchMode.SEMANTIC))
        matrix = engine.storage._matrix
        assert matrix is not None and matrix.size == 3
        loaded_before = matrix.last_rowid
        theirs = run_writer(path, "store")
        hits = (await engine.fetch(FetchRequest("orchard pears", mode=FetchMode.SEMANTIC, limit=5))).hits
        assert {h.item.id for h in hits} == set(theirs)
        assert matrix.size == 8 and matrix.last_rowid > loaded_before
        # a purge elsewhere leaves a stale row in our matrix; the SQL re-check keeps it out of results
        run_writer(path, theirs[0])
        hits = (await engine.fetch(FetchRequest("orchard pears", mode=FetchMode.SEMANTIC, limit=10))).hits
        assert theirs[0] not in {h.item.id for h in hits} and len(hits) == 7


async def test_query_vectors_are_the_only_embedding_on_read(tmp_path: Path) -> None:
    emb = HashEmbedder()
    async with SqliteEngine(tmp_path / "m.db", embedder=emb) as engine:
        await engine.store_many([note(f"item {i}") for i in range(4)])
        assert emb.embedded_texts == 4
        for mode in FetchMode:
            await engine.fetch(FetchRequest("item", mode=mode))
        assert emb.embedded_texts == 4


async def test_plan_choice_follows_filter_selectivity_with_equal_results(tmp_path: Path) -> None:
    async with SqliteEngine(tmp_path / "m.db", embedder=HashEmbedder()) as engine:
        items = [note(f"blue whale song {i}", repo="rare" if i % 50 == 0 else "common") for i in range(1200)]
        await engine.store_many(items)
        rare = MetaFilter(repo="rare")
        narrow = await engine.fetch(
            FetchRequest("whale song", mode=FetchMode.SEMANTIC, filter=rare, limit=30)
        )
        assert engine.last_semantic_plan is Plan.FILTER_FIRST
        assert len(narrow.hits) == 24 and all(h.item.meta.repo == "rare" for h in narrow.hits)
        await engine.fetch(FetchRequest("whale song", mode=FetchMode.SEMANTIC))
        assert engine.last_semantic_plan is Plan.SCAN
        broad = await engine.fetch(
            FetchRequest("whale song", mode=FetchMode.SEMANTIC, filter=MetaFilter(repo="common"))
        )
        assert engine.last_semantic_plan is Plan.SCAN  # 1176 candidates > the cap of 500
        assert len(broad.hits) == 10 and all(h.item.meta.repo == "common" for h in broad.hits)
        # the scan plan must find the same rare items when the filter is not selective enough to pre-filter
        assert filter_first_cap(1200) == 500 and filter_first_cap(100_000) == 10_000


async def test_scan_plan_keeps_going_when_the_best_rows_are_filtered_out(tmp_path: Path) -> None:
    async with SqliteEngine(tmp_path / "m.db", embedder=HashEmbedder()) as engine:
        many = await engine.store_many([note(f"whale song {i}") for i in range(200)])
        odd = await engine.store(note("completely unrelated words"))
        await engine.forget(ForgetRequest(ids=tuple(r.id for r in many)))
        hits = (await engine.fetch(FetchRequest("whale song", mode=FetchMode.SEMANTIC))).hits
        assert engine.last_semantic_plan is Plan.SCAN and [h.item.id for h in hits] == [odd.id]
        await engine.purge(PurgeRequest())
        assert (
            engine.storage._matrix is not None and engine.storage._matrix.size == 0
        )  # reset; reloads lazily
        hits = (await engine.fetch(FetchRequest("whale song", mode=FetchMode.SEMANTIC))).hits
        assert [h.item.id for h in hits] == [odd.id] and engine.storage._matrix.size == 1


@pytest.mark.parametrize("k", [0, 1, 3, 10])
def test_top_order_is_best_first_with_low_index_ties(k: int) -> None:
    scores = np.array([0.5, 0.9, 0.5, 0.1, 0.9], dtype=np.float32)
    expected = [1, 4, 0, 2, 3][:k]
    assert top_order(scores, k).tolist() == expected


def test_stored_vectors_read_back_as_float64_divided_unit_rows_and_zero_rows_stay_zero() -> None:
    from tinymemory.engines.sqlite import vectors as vec

    rng = np.random.default_rng(7)
    rows = rng.standard_normal((300, 24)).astype(np.float32)
    rows[[3, 150]] = 0.0
    blobs = [vec.to_blob(r) for r in rows]
    got = vec.from_blobs(blobs, 24)
    stored = np.stack([np.frombuffer(b, dtype="<f2").astype(np.float64) for b in blobs])
    norms = np.linalg.norm(stored, axis=1, keepdims=True)
    want = np.divide(stored, norms, out=np.zeros_like(stored), where=norms > 0).astype(np.float32)
    np.testing.assert_array_equal(got, want)
    assert not got[[3, 150]].any()


def test_block_rows_stay_under_the_single_thread_size_in_whole_score_groups() -> None:
    for dim in (1, 7, 32, 256, 384, 768, 1024, 4096):
        rows = vectors.block_rows(dim)
        assert rows % vectors.SCORE_GROUP == 0
        assert rows * dim <= vectors.SINGLE_THREAD_CELLS or rows == vectors.SCORE_GROUP


def test_blocked_cosines_equal_one_product_over_whole_score_groups() -> None:
    rng = np.random.default_rng(7)
    q = rng.standard_normal(256).astype(np.float32)
    mat = rng.standard_normal((3_000, 256)).astype(np.float32)  # a multiple of SCORE_GROUP rows
    assert np.array_equal(vectors.cosines(mat, q), mat @ q)


async def test_every_matrix_product_of_a_read_stays_under_the_single_thread_size(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """OpenBLAS threads busy-wait on a shared machine: a read's products must each be small enough to
    run on the calling thread (vectors.SINGLE_THREAD_CELLS), for a namespace's own rows and the whole
    store alike."""
    from tinymemory.retrieval.embedders import default_embedder

    sizes: list[int] = []
    real_dot = np.dot

    def spy(a: object, b: object, out: object = None) -> object:
        sizes.append(int(np.asarray(a).size))
        return real_dot(a, b, out=out)  # type: ignore[call-overload]

    async with SqliteEngine(str(tmp_path / "wide.db"), embedder=default_embedder()) as eng:
        for ns in ("t:a", "t:b"):
            await eng.store_many([note(f"orchard pear harvest {ns} {i}", at=ns) for i in range(1_200)])
        monkeypatch.setattr(vectors.np, "dot", spy)
        for flt in (MetaFilter(reach=Reach.exact(Namespace.parse("t:a"))), MetaFilter()):
            res = await eng.fetch(FetchRequest(query="pear harvest", mode=FetchMode.SEMANTIC, filter=flt))
            assert res.hits
    assert sizes, "the reads made no matrix product through the blocked path"
    assert max(sizes) <= vectors.SINGLE_THREAD_CELLS
