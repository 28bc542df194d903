"""tinymemory.adapters: the runtime-neutral tools (seed 000's and the policy memory__ set) adapted to
tool runtimes.

OpenAI function calling and Anthropic tool use need nothing but plain dicts; the MCP adapter lives in
`tinymemory.adapters.mcp` and imports the MCP SDK only when used.
"""

from tinymemory.adapters.anthropic import anthropic_tool, anthropic_tool_result
from tinymemory.adapters.openai import openai_tool, openai_tool_message, strict_schema
from tinymemory.adapters.output import ToolOutput, ToolSet, call_tool, error_text, result_text

__all__ = [
    "ToolOutput",
    "ToolSet",
    "anthropic_tool",
    "anthropic_tool_result",
    "call_tool",
    "error_text",
    "openai_tool",
    "openai_tool_message",
    "result_text",
    "strict_schema",
]
