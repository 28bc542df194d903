"""The frozen memory__ contract: names, descriptions and schemas every host's model is told.

A change fails here until the fixture is regenerated on purpose:
    BLESS_TOOL_CONTRACTS=1 .venv/bin/pytest tests/test_policy_tool_contracts.py
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from tinymemory.adapters import anthropic_tool, openai_tool, strict_schema
from tinymemory.policy import POLICY_TOOL_NAMES, fallback_guidance, render_guidance
from tinymemory.tools import ToolSpec

FIXTURE = Path(__file__).parent / "fixtures" / "policy_tool_contracts.json"
PORTABLE_KEYWORDS = {
    "type",
    "description",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "enum",
    "minimum",
    "maximum",
    "minItems",
    "maxItems",
    "format",
}


def current() -> dict[str, Any]:
    return {"default": render_guidance()["tools"], "fallback": fallback_guidance()["tools"]}


def all_specs() -> list[ToolSpec]:
    return [ToolSpec(t["name"], t["description"], t["parameters"]) for doc in current().values() for t in doc]


def schemas(node: Any, where: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    if not isinstance(node, dict):
        return
    yield where, node
    for name, prop in node.get("properties", {}).items():
        yield from schemas(prop, f"{where}.{name}")
    if isinstance(node.get("items"), dict):
        yield from schemas(node["items"], f"{where}[]")


def test_fixture_is_frozen() -> None:
    now = current()
    if os.environ.get("BLESS_TOOL_CONTRACTS") == "1":
        FIXTURE.write_text(json.dumps(now, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    assert now == json.loads(FIXTURE.read_text(encoding="utf-8")), (
        "the memory__ contract changed; if on purpose, regenerate with "
        "BLESS_TOOL_CONTRACTS=1 .venv/bin/pytest tests/test_policy_tool_contracts.py"
    )


def test_names_are_the_five_tools_in_order() -> None:
    frozen = json.loads(FIXTURE.read_text(encoding="utf-8"))
    for doc in frozen.values():
        assert [t["name"] for t in doc] == list(POLICY_TOOL_NAMES)


def test_the_seeds_field_names_and_defaults() -> None:
    tools = {t["name"]: t["parameters"] for t in current()["default"]}
    assert list(tools["memory__remember"]["properties"]) == [
        "content",
        "type",
        "confidence",
        "category",
        "about_kind",
        "about_key",
        "purpose",
        "title",
        "summary",
        "share",
    ]
    assert tools["memory__remember"]["required"] == ["content"]
    assert "default general" in tools["memory__remember"]["properties"]["type"]["description"]
    assert "default 0.8" in tools["memory__remember"]["properties"]["confidence"]["description"]
    assert list(tools["memory__recall"]["properties"]) == [
        "query",
        "types",
        "kinds",
        "limit",
        "min_confidence",
        "seed_name",
        "relation_types",
        "max_hops",
        "as_of",
        "explain",
    ]
    hops = tools["memory__recall"]["properties"]["max_hops"]
    assert (hops["minimum"], hops["maximum"]) == (1, 2)
    assert tools["memory__open"]["required"] == ["memory_id"] == tools["memory__forget"]["required"]
    assert list(tools["memory__list"]["properties"]) == ["scope", "type", "limit", "cursor"]


@pytest.mark.parametrize("spec", all_specs(), ids=lambda s: s.name)
def test_schema_is_valid_closed_and_portable(spec: ToolSpec) -> None:
    jsonschema.Draft202012Validator.check_schema(spec.parameters)
    assert spec.description and spec.description[0].isupper()
    for where, node in schemas(spec.parameters):
        assert set(node) <= PORTABLE_KEYWORDS, f"{spec.name}{where}: {set(node) - PORTABLE_KEYWORDS}"
        if node.get("type") == "object":
            assert node["additionalProperties"] is False, f"{spec.name}{where}"
            assert set(node["required"]) <= set(node["properties"])
            assert not {"namespace", "reach", "user", "agent", "workspace"} & set(node["properties"])


@pytest.mark.parametrize("spec", all_specs(), ids=lambda s: s.name)
def test_adapters_carry_the_schema(spec: ToolSpec) -> None:
    assert openai_tool(spec)["function"] == spec.to_dict()
    assert anthropic_tool(spec)["input_schema"] == spec.parameters
    jsonschema.Draft202012Validator.check_schema(strict_schema(spec.parameters))
