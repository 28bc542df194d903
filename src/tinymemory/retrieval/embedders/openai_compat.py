"""An embedder over any OpenAI-compatible `/embeddings` endpoint (OpenAI, Ollama, vLLM, LiteLLM, ...).

For deployments that already run an embedding server or want a larger model than MiniLM. Every failure
(network, timeout, HTTP status, malformed body) surfaces as `tinymemory.api.Unavailable`, because the
caller can only retry or fall back to lexical search.
"""

from __future__ import annotations

import math
import os
import threading
from collections.abc import Sequence

import httpx
import numpy as np

from tinymemory.api import InvalidRequest, Unavailable
from tinymemory.retrieval.embedders.base import Vectors
from tinymemory.retrieval.embedders.query_cache import QueryCache

ENV_BASE_URL = "TINYMEMORY_EMBED_BASE_URL"
ENV_MODEL = "TINYMEMORY_EMBED_MODEL"
ENV_API_KEY = "TINYMEMORY_EMBED_API_KEY"
DEFAULT_MODEL = "text-embedding-3-small"
_OP = "embed"


def _is_finite_number(value: object) -> bool:
    """A JSON number a float64 can hold (bools are not numbers here; huge ints overflow)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    try:
        return math.isfinite(float(value))
    except OverflowError:
        return False


def parse_embeddings_response(payload: object, expected: int, dim: int | None = None) -> Vectors:
    """Read `{"data": [{"embedding": [...], "index": i}, ...]}` into (expected, dim) L2-normalised rows.

    Rows are placed by `index` when every item has one (servers may reorder), else in order. Raises
    Unavailable naming the offending field.
    """
    if not isinstance(payload, dict):
        raise Unavailable(f"{_OP}: embeddings response is not a json object")
    data = payload.get("data")
    if not isinstance(data, list):
        raise Unavailable(f"{_OP}: embeddings response `data` is not a list")
    if len(data) != expected:
        raise Unavailable(f"{_OP}: embeddings response `data` has {len(data)} items, expected {expected}")
    rows: list[list[float] | None] = [None] * expected
    use_index = all(isinstance(item, dict) and type(item.get("index")) is int for item in data)
    for pos, item in enumerate(data):
        if not isinstance(item, dict):
            raise Unavailable(f"{_OP}: embeddings response `data[{pos}]` is not an object")
        vec = item.get("embedding")
        if not isinstance(vec, list) or not vec:
            raise Unavailable(f"{_OP}: embeddings response `data[{pos}].embedding` is not a non-empty list")
        if not all(_is_finite_number(v) for v in vec):
            raise Unavailable(f"{_OP}: embeddings response `data[{pos}].embedding` holds a non-number")
        slot = item["index"] if use_index else pos
        if not 0 <= slot < expected or rows[slot] is not None:
            raise Unavailable(f"{_OP}: embeddings response `data[{pos}].index` {slot} is out of place")
        rows[slot] = vec
    width = dim if dim is not None else len(rows[0] or [])
    if any(len(r or []) != width for r in rows):
        raise Unavailable(f"{_OP}: embeddings response vectors do not all have dimension {width}")
    matrix = np.asarray(rows, dtype=np.float64).reshape(expected, width)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    if not np.all(np.isfinite(norms) & (norms > 0)):
        raise Unavailable(f"{_OP}: embeddings response holds a zero or overflowing vector")
    out: Vectors = (matrix / norms).astype(np.float32)
    return out


class OpenAICompatEmbedder:
    """POSTs batches to `{base_url}/embeddings`; learns `dim` from the first answer unless given."""

    def __init__(
        self,
        base_url: str | None = None,
        model: str | None = None,
        api_key: str | None = None,
        *,
        dim: int | None = None,
        batch_size: int = 64,
        timeout: float = 30.0,
        query_cache_size: int = 256,
    ) -> None:
        url = (base_url or os.environ.get(ENV_BASE_URL, "")).strip()
        if not url:
            raise InvalidRequest(f"openai embedder: `base_url` is required (argument or {ENV_BASE_URL})")
        if not url.startswith(("http://", "https://")):
            raise InvalidRequest(f"openai embedder: `base_url` {url!r} is not an http(s) url")
        if dim is not None and dim < 1:
            raise InvalidRequest("openai embedder: `dim` must be >= 1")
        if batch_size < 1:
            raise InvalidRequest("openai embedder: `batch_size` must be >= 1")
        self._url = url.rstrip("/") + "/embeddings"
        self._model = (model or os.environ.get(ENV_MODEL, "")).strip() or DEFAULT_MODEL
        key = api_key if api_key is not None else os.environ.get(ENV_API_KEY, "")
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        self._client = httpx.Client(headers=headers, timeout=timeout)
        self._timeout = timeout
        self._dim = dim
        self._batch_size = batch_size
        self._queries = QueryCache(query_cache_size)
        self._dim_lock = threading.Lock()

    @property
    def name(self) -> str:
        """`openai:<model>`, stored beside the vectors so a change of model means re-embedding."""
        return f"openai:{self._model}"

    @property
    def model(self) -> str:
        """The model name sent with every request."""
        return self._model

    @property
    def dim(self) -> int:
        """Known after the first response; asking earlier embeds one probe text to learn it."""
        if self._dim is None:
            self.embed(["dimension probe"])
        assert self._dim is not None
        return self._dim

    @property
    def query_cache(self) -> QueryCache:
        """The LRU of recent query vectors, which saves a round trip when a query is asked again."""
        return self._queries

    def close(self) -> None:
        """Close the HTTP client and its connections."""
        self._client.close()

    def embed(self, texts: Sequence[str]) -> Vectors:
        """Embed documents by POSTing them in batches: shape (len(texts), dim), rows L2-normalised. Raises
        Unavailable when the endpoint fails or answers out of shape."""
        if isinstance(texts, str):
            raise TypeError("embed: `texts` must be a sequence of strings, not a single string")
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        parts = [
            self._post(list(texts[i : i + self._batch_size])) for i in range(0, len(texts), self._batch_size)
        ]
        return np.concatenate(parts, axis=0)

    def embed_query(self, text: str) -> Vectors:
        """Embed one query (shape (dim,)), served from the query cache when it was asked recently."""
        cached = self._queries.get(text)
        if cached is not None:
            return cached
        return self._queries.put(text, self.embed([text])[0])

    def _post(self, batch: list[str]) -> Vectors:
        try:
            resp = self._client.post(self._url, json={"model": self._model, "input": batch})
        except httpx.TimeoutException as exc:
            raise Unavailable(f"{_OP}: {self._url} timed out after {self._timeout:g}s") from exc
        except httpx.HTTPError as exc:
            raise Unavailable(f"{_OP}: {self._url} could not be reached ({type(exc).__name__})") from exc
        if resp.status_code >= 400:
            detail = " ".join(resp.text.split())[:200]
            raise Unavailable(f"{_OP}: {self._url} answered http {resp.status_code}: {detail}")
        try:
            payload = resp.json()
        except ValueError as exc:
            raise Unavailable(f"{_OP}: {self._url} answered with a body that is not json") from exc
        with self._dim_lock:
            vectors = parse_embeddings_response(payload, len(batch), self._dim)
            if self._dim is None:
                self._dim = vectors.shape[1]
        return vectors
