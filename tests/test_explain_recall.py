"""memory__recall's `explain`: metadata.why on each memory when asked, the answer unchanged when not,
the field declared in the tool's schema, a bad value refused, nothing of another user's memory told."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from engines import make_engine
from policy_world import EVE, tools
from tinymemory.api import InvalidRequest, MemoryEngine
from tinymemory.policy.answers import Memories
from tinymemory.tools.render import score

TEXTS = (
    "I drink oat milk flat whites every morning.",
    "I am allergic to peanuts and shellfish.",
    "My sister lives in Lisbon.",
)


@pytest.fixture
async def engine(tmp_path: Path) -> AsyncIterator[MemoryEngine]:
    eng = make_engine(tmp_path / "memory.db", embedder="default")
    for text in TEXTS:
        await tools(eng).call("memory__remember", {"content": text})
    await tools(eng, EVE).call("memory__remember", {"content": "Eve's peanuts peanuts peanuts secret"})
    yield eng
    await eng.close()


async def recall(engine: MemoryEngine, **args: Any) -> dict[str, Any]:
    return await tools(engine).call("memory__recall", {"query": "peanuts allergy", **args})


async def test_explain_adds_why_in_the_answer_order(engine: MemoryEngine) -> None:
    answer = await recall(engine, explain=True)
    Memories.model_validate(answer)  # the documented shape
    memories = answer["memories"]
    assert memories[0]["content"] == TEXTS[1]
    whys = [m["metadata"]["why"] for m in memories]
    assert [w["rank"] for w in whys] == list(range(1, len(memories) + 1))
    assert [w["score"] for w in whys] == sorted((w["score"] for w in whys), reverse=True)
    assert [m["metadata"]["score"] for m in memories] == [score(w["score"]) for w in whys]
    assert whys[0]["lexical_rank"] == 1 and whys[0]["lexical"] > 0
    assert "features" in whys[0] and "reranker" in whys[0]


async def test_without_explain_the_answer_is_byte_identical(engine: MemoryEngine) -> None:
    plain = json.dumps(await recall(engine), sort_keys=False)
    off = json.dumps(await recall(engine, explain=False), sort_keys=False)
    assert plain == off and '"why"' not in plain
    explained = await recall(engine, explain=True)
    for m in explained["memories"]:
        del m["metadata"]["why"]
    assert json.dumps(explained) == plain


async def test_explain_is_declared_and_checked(engine: MemoryEngine) -> None:
    spec = next(s for s in tools(engine).specs() if s.name == "memory__recall")
    assert spec.parameters["properties"]["explain"]["type"] == "boolean"
    assert "explain" not in spec.parameters.get("required", [])
    with pytest.raises(InvalidRequest, match="explain"):
        await recall(engine, explain="yes")


async def test_why_tells_nothing_of_another_user(engine: MemoryEngine, tmp_path: Path) -> None:
    """Eve's memory (far more peanuts) changes none of Dana's signals: the same as a store without it."""
    alone = make_engine(tmp_path / "alone.db", embedder="default")
    try:
        for text in TEXTS:
            await tools(alone).call("memory__remember", {"content": text})
        shared = [
            (m["content"], m["metadata"]["why"]) for m in (await recall(engine, explain=True))["memories"]
        ]
        own = [(m["content"], m["metadata"]["why"]) for m in (await recall(alone, explain=True))["memories"]]
        assert shared == own
    finally:
        await alone.close()
