"""The frozen tool contract: names, descriptions and schemas are what every host's model is told.

A change fails here until the fixture is regenerated on purpose:
    BLESS_TOOL_CONTRACTS=1 .venv/bin/pytest tests/test_tool_contracts.py
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
from tinymemory.adapters.mcp import mcp_tool
from tinymemory.api import LEARNING_KINDS, Facet, FetchMode, ItemKind
from tinymemory.tools import READ_TOOLS, TOOL_NAMES, WRITE_TOOLS, build_specs

FIXTURE = Path(__file__).parent / "fixtures" / "tool_contracts.json"
ALL_MODES = (FetchMode.LEXICAL, FetchMode.SEMANTIC, FetchMode.HYBRID)
# Keywords strict function-calling runtimes accept; anything else may be refused by one of them.
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
PORTABLE_FORMATS = {"date-time", "date"}


def current() -> dict[str, Any]:
    return {
        "fetch_modes": [m.value for m in ALL_MODES],
        "tools": [s.to_dict() for s in build_specs(ALL_MODES, writes=True)],
    }


def schemas(node: Any, where: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    """Every schema node of a tool's parameters, with its path."""
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
    frozen = json.loads(FIXTURE.read_text(encoding="utf-8"))
    assert now == frozen, (
        "the tool contract changed; if on purpose, regenerate with "
        "BLESS_TOOL_CONTRACTS=1 .venv/bin/pytest tests/test_tool_contracts.py"
    )


def test_names_are_the_seven_tools_in_order() -> None:
    names = [t["name"] for t in json.loads(FIXTURE.read_text(encoding="utf-8"))["tools"]]
    assert (
        names
        == list(TOOL_NAMES)
        == [
            "memory_recall",
            "memory_fetch",
            "memory_list",
            "memory_get",
            "memory_explore",
            "memory_store",
            "memory_forget",
        ]
    )


@pytest.mark.parametrize("spec", build_specs(ALL_MODES, writes=True), ids=lambda s: s.name)
def test_schema_is_valid_closed_and_portable(spec: Any) -> None:
    jsonschema.Draft202012Validator.check_schema(spec.parameters)
    assert spec.parameters["type"] == "object"
    assert spec.description and spec.description[0].isupper()
    for where, node in schemas(spec.parameters):
        assert set(node) <= PORTABLE_KEYWORDS, f"{spec.name}{where}: {set(node) - PORTABLE_KEYWORDS}"
        if node.get("type") == "object":
            assert node["additionalProperties"] is False, f"{spec.name}{where}"
            assert set(node["required"]) <= set(node["properties"])
            assert not {"namespace", "reach"} & set(node["properties"]), f"{spec.name}{where}"
        if "format" in node:
            assert node["format"] in PORTABLE_FORMATS


@pytest.mark.parametrize("spec", build_specs(ALL_MODES, writes=True), ids=lambda s: s.name)
def test_strict_variant_requires_every_property_and_stays_valid(spec: Any) -> None:
    before = json.dumps(spec.parameters)
    strict = strict_schema(spec.parameters)
    assert json.dumps(spec.parameters) == before, "the strict variant must not change the spec"
    jsonschema.Draft202012Validator.check_schema(strict)
    for where, node in schemas(strict):
        if node.get("type") == "object" or node.get("type") == ["object", "null"]:
            assert node["required"] == list(node["properties"]), f"{spec.name}{where}"
    tool = openai_tool(spec, strict=True)
    assert tool["type"] == "function" and tool["function"]["strict"] is True


def test_enums_follow_the_contract() -> None:
    by_name = {s.name: s.parameters for s in build_specs(ALL_MODES, writes=True)}
    flt = by_name["memory_list"]["properties"]["filter"]
    assert flt["properties"]["kinds"]["items"]["enum"] == list(ItemKind.values())
    assert set(flt["properties"]) == {
        "kinds",
        "sources",
        "tags_any",
        "workspace",
        "folder",
        "file_path",
        "repo",
        "url",
        "thread_id",
        "agent_id",
        "observed_after",
        "observed_before",
    }
    facets = by_name["memory_explore"]["properties"]["facet"]["enum"]
    assert facets == [f.value for f in Facet] and len(facets) == 13 and "namespace" not in facets
    learning = by_name["memory_store"]["properties"]["learning"]["properties"]
    assert learning["learning_kind"]["enum"] == list(LEARNING_KINDS)
    for name in ("memory_recall", "memory_fetch", "memory_list", "memory_explore"):
        limit = by_name[name]["properties"]["limit"]
        assert (limit["minimum"], limit["maximum"]) == (1, 50)
    assert by_name["memory_get"]["properties"]["ids"]["maxItems"] == 200
    assert by_name["memory_forget"]["properties"]["ids"]["maxItems"] == 200


def test_fetch_modes_drive_the_fetch_tool() -> None:
    lexical = {s.name: s for s in build_specs((FetchMode.LEXICAL,), writes=True)}
    assert lexical["memory_fetch"].parameters["properties"]["mode"]["enum"] == ["lexical"]
    assert "default lexical" in lexical["memory_fetch"].parameters["properties"]["mode"]["description"]
    assert "memory_fetch" not in {s.name for s in build_specs((), writes=True)}
    full = {s.name: s for s in build_specs(ALL_MODES, writes=True)}
    assert "default hybrid" in full["memory_fetch"].parameters["properties"]["mode"]["description"]


def test_read_only_offers_no_write_tools() -> None:
    assert [s.name for s in build_specs(ALL_MODES, writes=False)] == list(READ_TOOLS)
    assert not set(WRITE_TOOLS) & {s.name for s in build_specs(ALL_MODES, writes=False)}


def test_adapters_carry_the_schema_unchanged() -> None:
    for spec in build_specs(ALL_MODES, writes=True):
        assert openai_tool(spec)["function"] == spec.to_dict()
        assert anthropic_tool(spec) == {
            "name": spec.name,
            "description": spec.description,
            "input_schema": spec.parameters,
        }
        tool = mcp_tool(spec)
        assert (tool.name, tool.description, tool.input_schema) == (
            spec.name,
            spec.description,
            spec.parameters,
        )
        assert tool.annotations is not None
        assert tool.annotations.read_only_hint is (spec.name in READ_TOOLS)
