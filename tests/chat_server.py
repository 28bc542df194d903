"""A chat-completions endpoint on 127.0.0.1 for tests of the code that talks to an LLM.

It is a real HTTP server (the client under test makes real requests); what it answers is the test's
`respond` function, so each test scripts only its replies.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class ChatRequest:
    path: str
    auth: str | None
    json: dict[str, Any]

    @property
    def system(self) -> str:
        return str(self.json["messages"][0]["content"])

    @property
    def user(self) -> str:
        return str(self.json["messages"][-1]["content"])


def reply(content: str) -> tuple[int, bytes]:
    """A 200 answer whose one choice says `content`."""
    payload = {"choices": [{"message": {"role": "assistant", "content": content}}]}
    return 200, json.dumps(payload).encode()


class LocalChatServer:
    """Serves POSTs on 127.0.0.1 (an ephemeral port) with `respond(request) -> (status, body)`."""

    def __init__(self, respond: Callable[[ChatRequest], tuple[int, bytes]]) -> None:
        self.requests: list[ChatRequest] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                request = ChatRequest(self.path, self.headers.get("Authorization"), body)
                server.requests.append(request)
                status, data = respond(request)
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up first (a timeout test)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
