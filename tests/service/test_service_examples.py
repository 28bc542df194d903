"""examples/service_agent.py against the real service: the scripted model, and the OpenAI and Anthropic
loops against a stand-in of each provider's API on 127.0.0.1 (a third party's API, not ours), which asks
for one memory tool call and then answers with what the tool returned."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest

from .conftest import RunningService

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "service_agent.py"


def run(service: RunningService, token: str, *extra: str, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(
        [sys.executable, str(EXAMPLE), service.url, token, *extra],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **(env or {})},
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_scripted_model_remembers_then_recalls(service: RunningService) -> None:
    out = run(service, service.token("examples", "carol"))
    assert "memory__remember" in out.splitlines()[0]
    assert "Saved (created, user tier)" in out
    assert "coffee black" in out.split("How do I take my coffee?")[1]


class Provider(BaseHTTPRequestHandler):
    """Turn 1: ask for memory__recall. Turn 2: answer with the tool result the host sent back."""

    bodies: ClassVar[list[dict[str, Any]]] = []

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        Provider.bodies.append(body)
        last = body["messages"][-1]
        if self.path.endswith("/chat/completions"):
            if last["role"] == "tool":
                reply = {
                    "choices": [{"message": {"role": "assistant", "content": "seen: " + last["content"]}}]
                }
            else:
                call = {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "memory__recall", "arguments": json.dumps({"query": "coffee"})},
                }
                reply = {
                    "choices": [{"message": {"role": "assistant", "content": None, "tool_calls": [call]}}]
                }
        else:
            content = last["content"]
            if isinstance(content, list) and content and content[0].get("type") == "tool_result":
                reply = {"content": [{"type": "text", "text": "seen: " + content[0]["content"]}]}
            else:
                reply = {
                    "content": [
                        {
                            "type": "tool_use",
                            "id": "u1",
                            "name": "memory__recall",
                            "input": {"query": "coffee"},
                        }
                    ]
                }
        data = json.dumps(reply).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def provider() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Provider)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    Provider.bodies.clear()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


@pytest.mark.parametrize("name", ["openai", "anthropic"])
def test_provider_loops_run_memory_tools_through_the_service(
    service: RunningService, provider: str, name: str
) -> None:
    token = service.token("examples", f"dave-{name}")
    with service.client(token) as http:
        http.post("/api/v1/memory/remember", json={"content": "Dave drinks his coffee with oat milk"})
    env = {
        "OPENAI_MODEL": "stand-in",
        "ANTHROPIC_MODEL": "stand-in",
        "OPENAI_BASE_URL": provider,
        "OPENAI_API_KEY": "k",
        "ANTHROPIC_BASE_URL": provider,
        "ANTHROPIC_API_KEY": "k",
    }
    out = run(service, token, "--provider", name, env=env)
    assert "seen: " in out and "oat milk" in out
    first = Provider.bodies[0]
    names = [t["function"]["name"] if name == "openai" else t["name"] for t in first["tools"]]
    assert names == ["memory__remember", "memory__recall", "memory__open", "memory__list", "memory__forget"]
