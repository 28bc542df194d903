"""Runtime adapters: tool outputs for OpenAI and Anthropic, and OpenAI strict mode's all-required form."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import jsonschema
import pytest

from engines import make_engine
from tinymemory.adapters import (
    anthropic_tool_result,
    call_tool,
    openai_tool,
    openai_tool_message,
)
from tinymemory.tools import MemoryTools


@pytest.fixture
async def tools(tmp_path: Path) -> AsyncIterator[MemoryTools]:
    engine = make_engine(tmp_path / "memory.db", embedder=None)
    yield MemoryTools(engine).placed_at("team:acme/agent:writer")
    await engine.close()


async def test_success_and_error_outputs(tools: MemoryTools) -> None:
    ok = await call_tool(tools, "memory_store", '{"learning": {"text": "Ship on Tuesdays."}}')
    assert not ok.is_error and ok.value is not None and json.loads(ok.text) == ok.value
    assert openai_tool_message("call_1", ok) == {"role": "tool", "tool_call_id": "call_1", "content": ok.text}
    assert anthropic_tool_result("tu_1", ok) == {
        "type": "tool_result",
        "tool_use_id": "tu_1",
        "content": ok.text,
    }

    bad = await call_tool(tools, "memory_list", {"filter": {"kinds": ["memo"]}})
    assert bad.is_error and bad.value is None and bad.error_kind == "invalid_request"
    assert bad.text == "error: memory_list: `filter.kinds` `memo` is not an item kind"
    assert anthropic_tool_result("tu_2", bad)["is_error"] is True

    refused = await call_tool(tools.read_only(), "memory_forget", {"ids": ["m_1"]})
    assert refused.is_error and refused.error_kind == "unsupported"


async def test_strict_mode_calls_with_every_property_present(tools: MemoryTools) -> None:
    """In strict mode the model sends every property, null when unused; the tools read null as absent."""
    schemas = {s.name: openai_tool(s, strict=True)["function"]["parameters"] for s in tools.specs()}
    store_args = {
        "learning": {
            "text": "The VPN needs a token.",
            "learning_kind": None,
            "confidence": None,
            "evidence": None,
        },
        "document": None,
        "conversation": None,
        "tags": None,
    }
    fetch_args = {
        "query": "vpn token",
        "mode": None,
        "filter": None,
        "limit": None,
        "cursor": None,
        "refers_to": None,
    }
    forget_args = {
        "ids": None,
        "filter": {
            "kinds": None,
            "sources": None,
            "tags_any": None,
            "workspace": None,
            "folder": None,
            "file_path": None,
            "repo": None,
            "url": None,
            "thread_id": None,
            "agent_id": None,
            "observed_after": None,
            "observed_before": "2999-01-01T00:00:00Z",
        },
    }
    jsonschema.validate(store_args, schemas["memory_store"])
    jsonschema.validate(fetch_args, schemas["memory_fetch"])
    jsonschema.validate(forget_args, schemas["memory_forget"])
    stored = await tools.call("memory_store", store_args)
    hits = (await tools.call("memory_fetch", fetch_args))["hits"]
    assert [h["id"] for h in hits] == [stored["id"]]
    assert (await tools.call("memory_forget", forget_args))["forgotten"] == 1
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"query": "x"}, schemas["memory_fetch"])  # strict: every property is required
