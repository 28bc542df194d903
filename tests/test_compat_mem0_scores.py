"""mem0's `search` score and `threshold` on the compat layer: a score is the cosine similarity of the
query's and the memory's embeddings (mem0's scale), and `threshold` keeps its mem0 meaning: hits whose
similarity is below it are dropped, whatever tinymemory's ranking made of them."""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from engines import make_engine
from tinymemory.compat.mem0 import AsyncMemory, InvalidInput, Memory

DIET = ["I am vegetarian and allergic to nuts", "Likes to play tennis on weekends", "Lives in Lisbon"]


@pytest.fixture
def mem(tmp_path: Path) -> Iterator[Memory]:
    m = Memory(engine=make_engine(tmp_path / "memory.db"))
    for text in DIET:
        m.add(text, user_id="alice", infer=False)
    m.add("Bob is vegetarian too", user_id="bob", infer=False)
    yield m
    m.close()


def cosine(mem: Memory, query: str, text: str) -> float:
    embedder = mem.engine.embedder
    assert embedder is not None
    q = np.asarray(embedder.embed_query(query), dtype=np.float64)
    d = np.asarray(embedder.embed([text])[0], dtype=np.float64)
    return float(q @ d / (np.linalg.norm(q) * np.linalg.norm(d)))


def test_a_score_is_the_cosine_of_query_and_memory(mem: Memory) -> None:
    found = mem.search("What are my dietary restrictions?", filters={"user_id": "alice"})["results"]
    assert found and found[0]["memory"] == DIET[0]
    for hit in found:
        assert math.isclose(
            hit["score"], cosine(mem, "What are my dietary restrictions?", hit["memory"]), abs_tol=1e-5
        )


def test_a_mem0_threshold_keeps_the_relevant_memory_and_cuts_the_rest(mem: Memory) -> None:
    found = mem.search("What are my dietary restrictions?", filters={"user_id": "alice"}, threshold=0.3)
    assert [r["memory"] for r in found["results"]] == [DIET[0]]
    assert all(r["score"] >= 0.3 for r in found["results"])
    assert mem.search("zzqx blorft", filters={"user_id": "alice"}, threshold=0.3)["results"] == []
    assert (
        mem.search("How do I bake sourdough bread?", filters={"user_id": "alice"}, threshold=0.3)["results"]
        == []
    )


def test_a_threshold_only_cuts_the_ranking(mem: Memory) -> None:
    q = "tennis on weekends"
    unbounded = mem.search(q, filters={"user_id": "alice"})["results"]
    zero = mem.search(q, filters={"user_id": "alice"}, threshold=0.0)["results"]
    assert [r["id"] for r in zero] == [r["id"] for r in unbounded if r["score"] >= 0]
    assert unbounded[0]["memory"] == DIET[1]
    assert all(r["user_id"] == "alice" for r in unbounded)


async def test_the_async_memory_scores_alike(tmp_path: Path) -> None:
    amem = AsyncMemory(engine=make_engine(tmp_path / "a.db"))
    try:
        await amem.add(DIET[0], user_id="alice", infer=False)
        found = (await amem.search("dietary restrictions", filters={"user_id": "alice"}, threshold=0.3))[
            "results"
        ]
        assert [r["memory"] for r in found] == [DIET[0]] and found[0]["score"] >= 0.3
    finally:
        await amem.close()


@pytest.mark.parametrize("bad", [-0.1, 1.5, float("nan"), "0.3", True, [0.3]])
def test_a_bad_threshold_is_refused_naming_it(mem: Memory, bad: Any) -> None:
    with pytest.raises(InvalidInput) as caught:
        mem.search("diet", filters={"user_id": "alice"}, threshold=bad)
    assert str(caught.value).startswith("search: `threshold`")


def test_without_an_embedder_scores_are_tinymemorys_and_threshold_cuts_them(tmp_path: Path) -> None:
    m = Memory(engine=make_engine(tmp_path / "lex.db", embedder=None))
    try:
        m.add("I am vegetarian and allergic to nuts", user_id="alice", infer=False)
        found = m.search("vegetarian nuts", filters={"user_id": "alice"})["results"]
        assert found and 0 < found[0]["score"] <= 1
        assert m.search("vegetarian nuts", filters={"user_id": "alice"}, threshold=1.0)["results"] == []
    finally:
        m.close()
