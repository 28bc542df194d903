"""Turning a tool call into what a runtime feeds back to the model: result JSON, or the error's message.

Contract errors (bad arguments, unsupported tools, engine refusals) become error outputs the model can
read and correct; anything else is a bug in the host or engine and propagates.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Protocol

from tinymemory.api import TinyMemoryError
from tinymemory.tools import ToolSpec


class ToolSet(Protocol):
    """What a runtime adapter serves: seed 000's `MemoryTools` or seed 003's `PolicyTools`."""

    def specs(self) -> list[ToolSpec]:
        """The offered tools, runtime-neutral, for an adapter to turn into its runtime's definitions."""
        ...

    async def call(self, name: str, arguments: object = None) -> dict[str, Any]:
        """Run one tool call (arguments as an object, JSON text or None) and return its JSON-ready
        result; a refusal raises a TinyMemoryError whose message leads with the tool's name."""
        ...


@dataclass(frozen=True, slots=True)
class ToolOutput:
    """`text` is what the model reads; `value` is the structured result when the call succeeded."""

    text: str
    is_error: bool
    value: dict[str, Any] | None = None
    error_kind: str | None = None


def result_text(value: dict[str, Any]) -> str:
    """A successful result as compact JSON (non-ASCII kept as is): what the model reads back."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def error_text(error: TinyMemoryError) -> str:
    """A refusal as the text the model reads, `error: <message>`, so it can correct its call."""
    return f"error: {error.message}"


async def call_tool(tools: ToolSet, name: str, arguments: object = None) -> ToolOutput:
    """Run `name` with `arguments` (an object, JSON text or None) and never raise a contract error."""
    try:
        value = await tools.call(name, arguments)
    except TinyMemoryError as error:
        return ToolOutput(error_text(error), True, None, error.kind)
    return ToolOutput(result_text(value), False, value)
