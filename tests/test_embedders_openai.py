"""The OpenAI-compatible embedder against a real HTTP server on 127.0.0.1 run by the test."""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from tinymemory.api import InvalidRequest, Unavailable
from tinymemory.retrieval.embedders import Embedder, OpenAICompatEmbedder
from tinymemory.retrieval.embedders.openai_compat import parse_embeddings_response

DIM = 8


def fake_vector(text: str) -> list[float]:
    """Deterministic, not normalised (the embedder must normalise)."""
    digest = hashlib.sha256(text.encode()).digest()
    return [float(b) - 100.0 for b in digest[:DIM]]


@dataclass
class Recorded:
    requests: list[tuple[str, dict[str, str], Any]] = field(default_factory=list)


class Handler(BaseHTTPRequestHandler):
    recorded: Recorded

    def log_message(self, format: str, *args: object) -> None:  # keep test output quiet
        pass

    def _send(self, status: int, body: bytes, ctype: str = "application/json") -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        body = json.loads(raw)
        self.recorded.requests.append((self.path, dict(self.headers.items()), body))
        mode = self.path.strip("/").split("/")[0]
        if mode == "fail":
            self._send(500, b"upstream exploded\n  badly")
        elif mode == "garbage":
            self._send(200, b"{not json", "text/plain")
        elif mode == "short":
            self._send(200, json.dumps({"data": []}).encode())
        elif mode == "slow":
            time.sleep(1.0)
            self._send(200, b"{}")
        else:
            data = [{"index": i, "embedding": fake_vector(t)} for i, t in enumerate(body["input"])]
            data.reverse()  # servers may answer out of order; `index` says where each row goes
            self._send(200, json.dumps({"object": "list", "data": data, "model": body["model"]}).encode())


@pytest.fixture(scope="module")
def server() -> Iterator[tuple[str, Recorded]]:
    recorded = Recorded()
    handler = type("BoundHandler", (Handler,), {"recorded": recorded})
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}", recorded
    httpd.shutdown()
    httpd.server_close()
    thread.join()


def expected_rows(texts: list[str]) -> np.ndarray:
    rows = np.asarray([fake_vector(t) for t in texts], dtype=np.float32)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def test_embeds_in_batches_and_learns_dim(server: tuple[str, Recorded]) -> None:
    base, recorded = server
    emb = OpenAICompatEmbedder(f"{base}/ok/v1/", "test-model", "sk-test", batch_size=3)
    assert isinstance(emb, Embedder)
    before = len(recorded.requests)
    texts = [f"text {i}" for i in range(7)]
    out = emb.embed(texts)
    assert out.dtype == np.float32
    assert np.allclose(out, expected_rows(texts), atol=1e-6)
    assert emb.dim == DIM
    sent = recorded.requests[before:]
    assert [len(body["input"]) for _, _, body in sent] == [3, 3, 1]
    path, headers, body = sent[0]
    assert path == "/ok/v1/embeddings"
    assert body["model"] == "test-model"
    assert headers["Authorization"] == "Bearer sk-test"
    assert emb.embed([]).shape == (0, DIM)
    emb.close()


def test_dim_probe_when_asked_first(server: tuple[str, Recorded]) -> None:
    base, _ = server
    emb = OpenAICompatEmbedder(f"{base}/ok", "m")
    assert emb.dim == DIM
    assert emb.embed([]).shape == (0, DIM)
    emb.close()


def test_query_is_cached(server: tuple[str, Recorded]) -> None:
    base, recorded = server
    emb = OpenAICompatEmbedder(f"{base}/ok", "m", dim=DIM)
    first = emb.embed_query("hello")
    count = len(recorded.requests)
    assert emb.embed_query("hello") is first
    assert len(recorded.requests) == count
    assert np.allclose(first, expected_rows(["hello"])[0], atol=1e-6)
    emb.close()


def test_http_500_becomes_unavailable(server: tuple[str, Recorded]) -> None:
    base, _ = server
    emb = OpenAICompatEmbedder(f"{base}/fail", "m", api_key="sk-secret")
    with pytest.raises(Unavailable, match="answered http 500: upstream exploded badly") as info:
        emb.embed(["x"])
    assert "sk-secret" not in str(info.value)
    emb.close()


def test_malformed_json_becomes_unavailable(server: tuple[str, Recorded]) -> None:
    base, _ = server
    emb = OpenAICompatEmbedder(f"{base}/garbage", "m")
    with pytest.raises(Unavailable, match="not json"):
        emb.embed(["x"])
    emb.close()


def test_wrong_count_becomes_unavailable(server: tuple[str, Recorded]) -> None:
    base, _ = server
    emb = OpenAICompatEmbedder(f"{base}/short", "m")
    with pytest.raises(Unavailable, match="`data` has 0 items, expected 2"):
        emb.embed(["x", "y"])
    emb.close()


def test_timeout_becomes_unavailable(server: tuple[str, Recorded]) -> None:
    base, _ = server
    emb = OpenAICompatEmbedder(f"{base}/slow", "m", timeout=0.2)
    with pytest.raises(Unavailable, match=r"timed out after 0\.2s"):
        emb.embed(["x"])
    emb.close()


def test_unreachable_server_becomes_unavailable() -> None:
    # bind then close a socket so the port is (almost certainly) refused
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    emb = OpenAICompatEmbedder(f"http://127.0.0.1:{port}", "m", timeout=2.0)
    with pytest.raises(Unavailable, match="could not be reached"):
        emb.embed(["x"])
    emb.close()


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"base_url": "ftp://example.invalid"}, "`base_url`"),
        ({"base_url": "http://127.0.0.1:1", "dim": 0}, "`dim`"),
        ({"base_url": "http://127.0.0.1:1", "batch_size": 0}, "`batch_size`"),
    ],
)
def test_bad_settings_are_rejected(kwargs: dict[str, Any], field: str) -> None:
    with pytest.raises(InvalidRequest, match=field):
        OpenAICompatEmbedder(**kwargs)


def test_parse_places_rows_by_index_and_normalises() -> None:
    payload = {"data": [{"index": 1, "embedding": [0, 2]}, {"index": 0, "embedding": [3, 4]}]}
    out = parse_embeddings_response(payload, 2)
    assert np.allclose(out, [[0.6, 0.8], [0.0, 1.0]])


def test_parse_rejects_dimension_change() -> None:
    with pytest.raises(Unavailable, match="dimension 3"):
        parse_embeddings_response({"data": [{"embedding": [1.0, 2.0]}]}, 1, dim=3)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=9), children, max_size=4)
    ),
    max_leaves=20,
)
items = st.fixed_dictionaries(
    {"embedding": st.lists(st.floats(allow_nan=True, allow_infinity=True) | st.integers(), max_size=4)},
    optional={"index": st.integers(-1, 3) | st.text(max_size=2)},
)


@example({"data": [{"embedding": [10**400]}]}, 1)
@example({"data": [{"embedding": [3e38, 3e38]}]}, 1)
@example({"data": [{"embedding": [1e-320, 0.0]}]}, 1)
@example({"data": [{"embedding": [True]}]}, 1)
@given(
    st.one_of(json_values, st.fixed_dictionaries({"data": st.lists(items, max_size=4)})), st.integers(1, 3)
)
def test_parse_never_fails_with_anything_but_unavailable(payload: object, expected: int) -> None:
    try:
        out = parse_embeddings_response(payload, expected)
    except Unavailable as exc:
        assert str(exc).startswith("embed: ")
        return
    assert out.shape[0] == expected
    assert out.dtype == np.float32
    assert np.isfinite(out).all()
    assert np.allclose(np.linalg.norm(out, axis=1), 1.0, atol=1e-5)
