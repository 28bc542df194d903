"""A chat host whose model uses the memory tools of a running tinymemory service.

The host fetches the memory__ tools its user is offered (GET /api/v1/memory/tools), hands them to the
model in the provider's format, and runs each tool call the model makes through the service
(POST /api/v1/memory/tools/call), feeding the result back until the model answers. The user's bearer
token decides whose memory it is; the model never names a user, an agent or a tier.

    python examples/service_agent.py URL TOKEN                       # a scripted model, no LLM needed
    OPENAI_API_KEY=... OPENAI_MODEL=... python examples/service_agent.py URL TOKEN --provider openai
    ANTHROPIC_API_KEY=... ANTHROPIC_MODEL=... python examples/service_agent.py URL TOKEN --provider anthropic

The provider runs need OPENAI_MODEL or ANTHROPIC_MODEL (the model to ask); OPENAI_BASE_URL or
ANTHROPIC_BASE_URL point them at another endpoint.
"""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Callable
from typing import Any

import httpx

from tinymemory.adapters.anthropic import anthropic_tool
from tinymemory.adapters.openai import openai_tool
from tinymemory.tools import ToolSpec

MAX_STEPS = 6
QUESTIONS = (
    "Please remember that I take my coffee black, no sugar.",
    "How do I take my coffee?",
)


class MemoryService:
    """The two service routes a model loop needs."""

    def __init__(self, url: str, token: str) -> None:
        self.http = httpx.Client(base_url=url, headers={"Authorization": f"Bearer {token}"}, timeout=60)

    def tools(self) -> list[ToolSpec]:
        r = self.http.get("/api/v1/memory/tools", params={"set": "policy"})
        r.raise_for_status()
        return [ToolSpec(t["name"], t["description"], t["parameters"]) for t in r.json()["tools"]]

    def call(self, name: str, arguments: dict[str, Any]) -> str:
        """The text the model reads: the result's JSON, or `error: ...` it can correct."""
        r = self.http.post("/api/v1/memory/tools/call", json={"tool": name, "arguments": arguments})
        r.raise_for_status()
        text: str = r.json()["text"]
        return text


def model(variable: str) -> str:
    name = os.environ.get(variable, "").strip()
    if not name:
        raise SystemExit(f"service_agent: set ${variable} to the model to ask")
    return name


def scripted(memory: MemoryService, question: str) -> str:
    """Stands in for an LLM: remembers what it is told to, recalls for a question."""
    if question.lower().startswith("please remember"):
        fact = question.split("remember that", 1)[1].strip().rstrip(".")
        result = json.loads(memory.call("memory__remember", {"content": f"The user said: {fact}."}))
        return f"Saved ({result['status']}, {result['tier']} tier)."
    found = json.loads(memory.call("memory__recall", {"query": question, "limit": 3}))["memories"]
    return found[0]["content"] if found else "I don't know yet."


def with_openai(memory: MemoryService, question: str) -> str:
    base = os.environ.get("OPENAI_BASE_URL", "https://api.openai.com/v1")
    headers = {"Authorization": f"Bearer {os.environ['OPENAI_API_KEY']}"}
    tools = [openai_tool(spec) for spec in memory.tools()]
    messages: list[dict[str, Any]] = [{"role": "user", "content": question}]
    for _ in range(MAX_STEPS):
        body = {"model": model("OPENAI_MODEL"), "messages": messages, "tools": tools}
        r = httpx.post(f"{base}/chat/completions", json=body, headers=headers, timeout=120)
        r.raise_for_status()
        message = r.json()["choices"][0]["message"]
        messages.append(message)
        calls = message.get("tool_calls") or []
        if not calls:
            return str(message.get("content") or "")
        for call in calls:
            args = json.loads(call["function"]["arguments"] or "{}")
            text = memory.call(call["function"]["name"], args)
            messages.append({"role": "tool", "tool_call_id": call["id"], "content": text})
    return "(stopped after too many tool calls)"


def with_anthropic(memory: MemoryService, question: str) -> str:
    base = os.environ.get("ANTHROPIC_BASE_URL", "https://api.anthropic.com")
    headers = {"x-api-key": os.environ["ANTHROPIC_API_KEY"], "anthropic-version": "2023-06-01"}
    tools = [anthropic_tool(spec) for spec in memory.tools()]
    messages: list[dict[str, Any]] = [{"role": "user", "content": question}]
    for _ in range(MAX_STEPS):
        body = {
            "model": model("ANTHROPIC_MODEL"),
            "max_tokens": 1024,
            "messages": messages,
            "tools": tools,
        }
        r = httpx.post(f"{base}/v1/messages", json=body, headers=headers, timeout=120)
        r.raise_for_status()
        content = r.json()["content"]
        messages.append({"role": "assistant", "content": content})
        uses = [block for block in content if block["type"] == "tool_use"]
        if not uses:
            return "".join(block.get("text", "") for block in content if block["type"] == "text")
        results = []
        for use in uses:
            text = memory.call(use["name"], use["input"])
            results.append({"type": "tool_result", "tool_use_id": use["id"], "content": text})
        messages.append({"role": "user", "content": results})
    return "(stopped after too many tool calls)"


PROVIDERS: dict[str, Callable[[MemoryService, str], str]] = {
    "scripted": scripted,
    "openai": with_openai,
    "anthropic": with_anthropic,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("url", help="the service, e.g. the URL `make run` printed")
    parser.add_argument("token", help="a user's bearer token, e.g. the dev token `make run` printed")
    parser.add_argument("--provider", choices=sorted(PROVIDERS), default="scripted")
    args = parser.parse_args()
    memory = MemoryService(args.url, args.token)
    print("tools:", ", ".join(spec.name for spec in memory.tools()))
    for question in QUESTIONS:
        print(f"user: {question}\nassistant: {PROVIDERS[args.provider](memory, question)}")


if __name__ == "__main__":
    main()
