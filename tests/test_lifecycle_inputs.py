"""The lifecycle's constructors: a string where a Namespace is taken works when it is unambiguous, and bad
input is refused as InvalidRequest naming the argument, before anything is written."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from engines import make_engine
from tinymemory.api import InvalidRequest, ListRequest, MetaFilter, Namespace
from tinymemory.engines.sqlite import SqliteEngine
from tinymemory.lifecycle import AgentMemory, Brain, MemoryLayout


@pytest.fixture
async def engine(tmp_path: Path) -> AsyncIterator[SqliteEngine]:
    eng = make_engine(tmp_path / "m.db", embedder=None)
    yield eng
    await eng.close()


def test_a_layout_takes_the_root_as_a_string() -> None:
    by_string = MemoryLayout("team:acme")  # type: ignore[arg-type]
    assert by_string == MemoryLayout(Namespace.parse("team:acme")) == MemoryLayout.at("team:acme")
    assert str(by_string.learnings("writer")) == "team:acme/agent:writer/memory:learnings"
    assert MemoryLayout("") == MemoryLayout()  # type: ignore[arg-type]


@pytest.mark.parametrize("root", ["team acme", "team:acme/", 42, None, ["team:acme"]])
def test_a_bad_layout_root_is_refused_naming_the_argument(root: Any) -> None:
    with pytest.raises(InvalidRequest, match=r"^memory layout: `root`"):
        MemoryLayout(root)


async def test_agent_memory_takes_a_layout_as_a_string(engine: SqliteEngine) -> None:
    mem = AgentMemory(engine, "writer", layout="team:acme")
    assert mem.layout == MemoryLayout.at("team:acme")
    mem2 = AgentMemory(engine, "writer", layout=Namespace.parse("team:acme"))
    assert mem2.layout == mem.layout
    brain = Brain(engine, "team:acme")
    assert brain.layout == mem.layout


async def test_an_agent_id_given_as_its_segment_is_read_as_the_id(engine: SqliteEngine) -> None:
    mem = AgentMemory(engine, "agent:writer", layout=MemoryLayout.at("team:acme"))
    assert mem.agent_id == "writer"


@pytest.mark.parametrize(
    ("agent_id", "field"),
    [
        ("", "agent_id"),
        ("two words", "agent_id"),
        ("team:acme/agent:writer", "agent_id"),  # a path, not an id: which part is the root?
        ("user:writer", "agent_id"),  # another kind's segment
        (7, "agent_id"),
        (None, "agent_id"),
    ],
)
async def test_a_bad_agent_id_is_refused_naming_the_argument(
    engine: SqliteEngine, agent_id: Any, field: str
) -> None:
    with pytest.raises(InvalidRequest, match=rf"^agent memory: `{field}`"):
        AgentMemory(engine, agent_id, layout=MemoryLayout.at("team:acme"))
    assert (await engine.list(ListRequest(filter=MetaFilter(), limit=5))).items == ()


@pytest.mark.parametrize("layout", [42, "team acme", object()])
async def test_a_bad_layout_argument_is_refused_naming_it(engine: SqliteEngine, layout: Any) -> None:
    with pytest.raises(InvalidRequest, match=r"^agent memory: `layout`"):
        AgentMemory(engine, "writer", layout=layout)
    with pytest.raises(InvalidRequest, match=r"^brain: `layout`"):
        Brain(engine, layout)
