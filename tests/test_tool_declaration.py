"""A tool is declared once, and everything else follows from that declaration.

A new tool is declared here, in this file only (`memory_count`), and then shown to reach every place a
built-in tool reaches: the specs of every runtime format, the MCP annotations, dispatch through
`MemoryTools` with the same strict reading and error wording, and a real MCP client over the SDK's
in-process transport. The built-in tools' declared result models are checked against real results,
and the worked example of docs/architecture/tools.md runs as written.
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from pydantic import Field

from engines import make_engine
from test_readme import clean_env
from tinymemory.adapters import anthropic_tool, openai_tool
from tinymemory.adapters.mcp import mcp_server, mcp_tool
from tinymemory.api import ExploreRequest, Facet, InvalidRequest, MemoryEngine, Namespace
from tinymemory.policy import POLICY_TOOLS, Identity, PolicyContext, PolicyTools
from tinymemory.tools import (
    MEMORY_TOOLS,
    TOOL_NAMES,
    MemoryTool,
    MemoryTools,
    Session,
    Tool,
    always,
    build_specs,
)
from tinymemory.tools.answers import Answer
from tinymemory.tools.args import FILTER
from tinymemory.tools.fields import Shape
from tinymemory.tools.scope import scoped
from tinymemory.tools.strict import Obj

DOCS_PAGE = Path(__file__).resolve().parent.parent / "docs" / "architecture" / "tools.md"

# --- the new tool: this block is all there is of it ------------------------------------------------------

COUNT_ARGUMENTS = Shape((FILTER,))


class Counted(Answer):
    count: int = Field(description="how many memories in reach match the filter")


async def count(session: Session, shape: Shape, raw: Obj) -> dict[str, Any]:
    got = shape.read(session.tool, raw)
    request = ExploreRequest(facet=Facet.KIND, filter=scoped(session, got[FILTER]), limit=1)
    return {"count": (await session.engine.explore(request)).total}


MEMORY_COUNT: MemoryTool = Tool(
    name="memory_count",
    description="Count the memories in reach, optionally only those a filter matches.",
    arguments=always(COUNT_ARGUMENTS),
    handler=count,
    result=Counted,
    answers="How many memories match.",
    writes=False,
)

# ------------------------------------------------------------------------------------------------------------

PLACE = Namespace.parse("team:acme/agent:writer")


@pytest.fixture
async def engine(tmp_path: Path) -> AsyncIterator[MemoryEngine]:
    engine = make_engine(tmp_path / "memory.db", embedder=None)
    yield engine
    await engine.close()


@pytest.fixture
async def tools(engine: MemoryEngine) -> MemoryTools:
    tools = MemoryTools(engine).placed_at(PLACE).with_tool(MEMORY_COUNT)
    for text in ("Dana paints watercolours", "The deploy runs on Fridays"):
        await tools.call("memory_store", {"learning": {"text": text}})
    await tools.call("memory_store", {"document": {"title": "Notes", "text": "A short document."}})
    return tools


def test_the_declaration_is_offered_in_every_format(tools: MemoryTools) -> None:
    specs = tools.specs()
    assert [s.name for s in specs] == [*TOOL_NAMES, "memory_count"]
    spec = specs[-1]
    assert spec.description == MEMORY_COUNT.description
    assert spec.parameters == COUNT_ARGUMENTS.schema()
    assert spec.parameters["properties"]["filter"] == FILTER.schema()
    assert openai_tool(spec)["function"] == spec.to_dict()
    strict = openai_tool(spec, strict=True)["function"]["parameters"]
    assert strict["required"] == ["filter"] and strict["properties"]["filter"]["type"] == ["object", "null"]
    assert anthropic_tool(spec)["input_schema"] == spec.parameters
    annotations = mcp_tool(spec).annotations
    assert annotations is not None
    assert (annotations.read_only_hint, annotations.destructive_hint) == (True, None)
    # a read tool: still offered when the scope is read-only, where the write tools are not
    assert tools.read_only().names()[-1] == "memory_count"
    assert "memory_store" not in tools.read_only().names()


def test_the_built_in_catalog_and_contract_stay_as_they_were(tools: MemoryTools) -> None:
    assert "memory_count" not in MEMORY_TOOLS
    assert "memory_count" not in {s.name for s in MemoryTools(tools.engine).specs()}
    modes = tools.engine.descriptor.fetch_modes
    assert tools.specs()[:-1] == build_specs(modes, writes=True)


async def test_it_dispatches_through_memory_tools_and_reads_strictly(tools: MemoryTools) -> None:
    assert await tools.call("memory_count") == {"count": 3}
    counted = await tools.call("memory_count", '{"filter": {"kinds": ["document"]}}')
    assert Counted.model_validate(counted).count == 1
    with pytest.raises(InvalidRequest, match=r"^memory_count: `filter.kinds` `memo` is not an item kind$"):
        await tools.call("memory_count", {"filter": {"kinds": ["memo"]}})
    with pytest.raises(InvalidRequest, match=r"^memory_count: `filter.reach` is fixed by the host"):
        await tools.call("memory_count", {"filter": {"reach": "all"}})
    with pytest.raises(InvalidRequest, match=r"^memory_count: `limit` is not a known argument"):
        await tools.call("memory_count", {"limit": 3})


async def test_it_reads_only_the_scope_the_host_fixed(tools: MemoryTools) -> None:
    elsewhere = MemoryTools(tools.engine).placed_at("team:globex/agent:spy").with_tool(MEMORY_COUNT)
    assert await elsewhere.call("memory_count") == {"count": 0}


async def test_it_reaches_an_mcp_client(tools: MemoryTools) -> None:
    async with Client(mcp_server(tools)) as client:
        listed = {t.name: t for t in (await client.list_tools()).tools}
        assert listed["memory_count"].input_schema == COUNT_ARGUMENTS.schema()
        annotations = listed["memory_count"].annotations
        assert annotations is not None and annotations.read_only_hint is True
        result = await client.call_tool("memory_count", {"filter": {"kinds": ["learning"]}})
        assert not result.is_error and result.structured_content == {"count": 2}
        refused = await client.call_tool("memory_count", {"filter": {"kinds": ["memo"]}})
        assert refused.is_error
        assert getattr(refused.content[0], "text", None) == (
            "error: memory_count: `filter.kinds` `memo` is not an item kind"
        )


def test_a_name_is_declared_once() -> None:
    with pytest.raises(InvalidRequest, match="`memory_count` is declared twice"):
        MEMORY_TOOLS.with_tool(MEMORY_COUNT).with_tool(MEMORY_COUNT)
    with pytest.raises(InvalidRequest, match="`memory_get` is declared twice"):
        MEMORY_TOOLS.with_tool(MEMORY_TOOLS.tools[3])


async def test_every_built_in_result_is_what_its_declaration_documents(tools: MemoryTools) -> None:
    """The result models the service documents its answers with hold for real results of every tool."""
    first = (await tools.call("memory_list", {}))["items"][0]["id"]
    calls: dict[str, dict[str, Any]] = {
        "memory_recall": {"question": "What does Dana paint?"},
        "memory_fetch": {"query": "Dana paints"},
        "memory_list": {"limit": 1},
        "memory_get": {"ids": [first, "m_unknown"]},
        "memory_explore": {"facet": "kind"},
        "memory_store": {"learning": {"text": "Dana paints watercolours"}},
        "memory_forget": {"ids": [first, "m_unknown"]},
    }
    assert list(calls) == list(TOOL_NAMES)
    for tool in MEMORY_TOOLS:
        result = await tools.call(tool.name, calls[tool.name])
        assert tool.result.model_validate(result).model_dump(exclude_unset=True) == result, tool.name


async def test_every_memory__result_is_what_its_declaration_documents(engine: MemoryEngine) -> None:
    from pydantic import TypeAdapter

    tools = PolicyTools.for_identity(engine, Identity("acme", "dana", "helper", verified=True))
    stored = await tools.call("memory__remember", {"content": "Dana prefers tea", "share": True})
    calls: dict[str, dict[str, Any]] = {
        "memory__remember": {"content": "Dana prefers tea"},
        "memory__recall": {"query": "what does Dana prefer"},
        "memory__open": {"memory_id": stored["id"]},
        "memory__list": {},
        "memory__forget": {"memory_id": stored["id"]},
    }
    context = PolicyContext(tools.policy)
    for tool in POLICY_TOOLS:
        assert tool.spec(context) is not None
        result = await tools.call(tool.name, calls[tool.name])
        TypeAdapter(tool.result).validate_python(result)


def test_the_worked_example_in_the_docs_runs(tmp_path: Path) -> None:
    text = DOCS_PAGE.read_text(encoding="utf-8")
    section = text[text.index("## Adding a tool") :]
    blocks = re.findall(r"^```python\n(.*?)^```", section, re.S | re.M)
    assert blocks, "docs/architecture/tools.md: the Adding a tool section has no example"
    (tmp_path / "example.py").write_text(blocks[0], encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "example.py"],
        cwd=tmp_path,
        env=clean_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
