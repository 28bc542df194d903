"""OpenAI-style function calling: tool definitions and tool-result messages."""

from __future__ import annotations

import copy
from typing import Any

from tinymemory.adapters.output import ToolOutput
from tinymemory.tools import ToolSpec


def openai_tool(spec: ToolSpec, *, strict: bool = False) -> dict[str, Any]:
    """`{"type": "function", "function": {...}}`.

    With `strict=True` the schema is rewritten for runtimes whose strict mode wants every property
    listed as required: optional properties become nullable, and the tools read `null` as "not given".
    """
    parameters = strict_schema(spec.parameters) if strict else copy.deepcopy(spec.parameters)
    function: dict[str, Any] = {"name": spec.name, "description": spec.description, "parameters": parameters}
    if strict:
        function["strict"] = True
    return {"type": "function", "function": function}


def strict_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """A copy of a JSON Schema made valid for OpenAI's strict mode: every property required, optional ones
    made nullable instead, recursively."""
    out = copy.deepcopy(schema)
    _strict(out)
    return out


def _strict(node: dict[str, Any]) -> None:
    if node.get("type") == "object" and isinstance(node.get("properties"), dict):
        required = set(node.get("required", ()))
        for name, prop in node["properties"].items():
            _strict(prop)
            if name not in required:
                _nullable(prop)
        node["required"] = list(node["properties"])
    items = node.get("items")
    if isinstance(items, dict):
        _strict(items)


def _nullable(prop: dict[str, Any]) -> None:
    kind = prop.get("type")
    if isinstance(kind, str):
        prop["type"] = [kind, "null"]
    if isinstance(prop.get("enum"), list) and None not in prop["enum"]:
        prop["enum"] = [*prop["enum"], None]


def openai_tool_message(tool_call_id: str, output: ToolOutput) -> dict[str, Any]:
    """The `role: tool` message answering one tool call."""
    return {"role": "tool", "tool_call_id": tool_call_id, "content": output.text}
