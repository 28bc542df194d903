"""Anthropic tool use: tool definitions and tool_result content blocks."""

from __future__ import annotations

import copy
from typing import Any

from tinymemory.adapters.output import ToolOutput
from tinymemory.tools import ToolSpec


def anthropic_tool(spec: ToolSpec) -> dict[str, Any]:
    """The Anthropic tool definition of a spec (name, description, `input_schema`), ready for the `tools`
    parameter."""
    return {
        "name": spec.name,
        "description": spec.description,
        "input_schema": copy.deepcopy(spec.parameters),
    }


def anthropic_tool_result(tool_use_id: str, output: ToolOutput) -> dict[str, Any]:
    """The `tool_result` block answering one `tool_use` block."""
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": tool_use_id, "content": output.text}
    if output.is_error:
        block["is_error"] = True
    return block
