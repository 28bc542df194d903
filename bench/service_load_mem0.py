"""mem0's side of bench/service_load.py: mem0's own `Memory` behind a small FastAPI app with the routes
of mem0's REST server that the load uses (POST /memories, POST /search), run fully offline.

Run by bench/service_load.py with a Python that has mem0ai, qdrant-client, fastapi and uvicorn (mem0 is a
bench-only peer, often kept in a venv of its own), never imported by tinymemory:

    python bench/service_load_mem0.py build --data DIR --items FILE.jsonl
    python bench/service_load_mem0.py serve --data DIR        # prints "listening on http://..."

Offline: vectors in local Qdrant (a folder, no server), `add` with infer=False so no LLM is called (a
stub LLM satisfies the config), telemetry off. The embedder is tinymemory's default one (imported from
this checkout's src/; that Python then needs numpy, tokenizers, safetensors, threadpoolctl and rich), so
both services embed with the same model; when it cannot be imported, a hashed bag-of-words embedder
stands in and `serve` names it on its first line. The handlers are plain
`def` functions run in FastAPI's thread pool over one shared `Memory`, as in mem0's own server.
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import math
import os
import re
import socket
import sys
import time
from pathlib import Path
from typing import Any

from pydantic import BaseModel

ROOT = Path(__file__).resolve().parent.parent
FALLBACK_DIMS = 256
COLLECTION = "memories"


def offline_env(data: Path) -> None:
    """Set before mem0 is imported: it reads these at import time."""
    data.mkdir(parents=True, exist_ok=True)
    os.environ["MEM0_TELEMETRY"] = "false"
    os.environ["MEM0_DIR"] = str(data)
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ.pop("OPENAI_API_KEY", None)


def tinymemory_embedder() -> Any:
    sys.path.insert(0, str(ROOT / "src"))
    try:
        from tinymemory.retrieval.embedders import default_embedder

        return default_embedder()
    except ImportError as exc:
        print(f"tinymemory's embedder is not importable here ({exc}); using a hashed one", file=sys.stderr)
        return None


EMBEDDER: Any = None


def _hashed(text: str, dims: int) -> list[float]:
    vec = [0.0] * dims
    toks = re.findall(r"[a-z0-9]+", text.lower())
    for feat in toks + [a + " " + b for a, b in itertools.pairwise(toks)]:
        h = int.from_bytes(hashlib.blake2b(feat.encode(), digest_size=8).digest(), "little")
        vec[h % dims] += 1.0 if (h >> 63) == 0 else -1.0
    n = math.sqrt(sum(v * v for v in vec)) or 1.0
    return [v / n for v in vec]


def build_memory(data: Path) -> tuple[Any, str]:
    """mem0's `Memory` over `data`, with offline providers registered in mem0's factories. Its config
    validators accept only known provider names, hence model_construct for ours."""
    global EMBEDDER
    offline_env(data)
    from mem0 import Memory  # type: ignore[import-not-found]
    from mem0.configs.base import MemoryConfig  # type: ignore[import-not-found]
    from mem0.embeddings.base import EmbeddingBase  # type: ignore[import-not-found]
    from mem0.embeddings.configs import EmbedderConfig  # type: ignore[import-not-found]
    from mem0.llms.base import LLMBase  # type: ignore[import-not-found]
    from mem0.llms.configs import LlmConfig  # type: ignore[import-not-found]
    from mem0.utils.factory import EmbedderFactory, LlmFactory  # type: ignore[import-not-found]

    EMBEDDER = tinymemory_embedder()
    dims = int(EMBEDDER.dim) if EMBEDDER is not None else FALLBACK_DIMS
    name = str(EMBEDDER.name) if EMBEDDER is not None else f"hashed-bow-{dims}"

    class SharedEmbedding(EmbeddingBase):  # type: ignore[misc]
        def embed(self, text: str, memory_action: str | None = None) -> list[float]:
            if EMBEDDER is None:
                return _hashed(str(text), dims)
            if memory_action == "search":
                return [float(x) for x in EMBEDDER.embed_query(str(text))]
            return [float(x) for x in EMBEDDER.embed([str(text)])[0]]

    class NoLLM(LLMBase):  # type: ignore[misc]
        def generate_response(
            self, messages: Any, tools: Any = None, tool_choice: str = "auto", **kw: Any
        ) -> str:
            return '{"facts": [], "memory": []}'

    module = sys.modules[__name__]
    module.SharedEmbedding = SharedEmbedding  # type: ignore[attr-defined]
    module.NoLLM = NoLLM  # type: ignore[attr-defined]
    EmbedderFactory.provider_to_class["bench_shared"] = f"{__name__}.SharedEmbedding"
    LlmFactory.register_provider("bench_none", f"{__name__}.NoLLM")
    config = MemoryConfig(
        vector_store={
            "provider": "qdrant",
            "config": {
                "path": str(data / "qdrant"),
                "on_disk": True,
                "collection_name": COLLECTION,
                "embedding_model_dims": dims,
            },
        },
        embedder=EmbedderConfig.model_construct(provider="bench_shared", config={"embedding_dims": dims}),
        llm=LlmConfig.model_construct(provider="bench_none", config={}),
        history_db_path=str(data / "history.db"),
    )
    return Memory(config), name


def build(data: Path, items: Path, batch: int) -> int:
    """Add every {"user", "text"} line of `items`, grouped by user, `batch` messages per add call (mem0
    stores one memory per message with infer=False, embedding each on its own)."""
    memory, name = build_memory(data)
    by_user: dict[str, list[str]] = {}
    with items.open() as fh:
        for line in fh:
            row = json.loads(line)
            by_user.setdefault(row["user"], []).append(row["text"])
    started, done = time.perf_counter(), 0
    for user, texts in by_user.items():
        for at in range(0, len(texts), batch):
            messages = [{"role": "user", "content": t} for t in texts[at : at + batch]]
            res = memory.add(messages, user_id=user, infer=False)
            done += len(res["results"])
        print(f"  mem0 build: {done:,} memories, {time.perf_counter() - started:.0f} s", file=sys.stderr)
    memory.close()
    print(json.dumps({"items": done, "seconds": time.perf_counter() - started, "embedder": name}))
    return 0


class Message(BaseModel):
    role: str
    content: str


class MemoryCreate(BaseModel):
    """The fields of mem0's server body that the load sends (messages and the scope, infer)."""

    messages: list[Message]
    user_id: str | None = None
    agent_id: str | None = None
    run_id: str | None = None
    metadata: dict[str, Any] | None = None
    infer: bool | None = None


class SearchRequest(BaseModel):
    query: str
    filters: dict[str, Any] | None = None
    top_k: int | None = None
    threshold: float | None = None


def create_app(memory: Any) -> Any:
    from fastapi import FastAPI, HTTPException
    from fastapi.responses import JSONResponse

    app = FastAPI()

    @app.get("/healthz")
    def healthz() -> dict[str, str]:
        return {"status": "ok"}

    @app.post("/memories")
    def add_memory(body: MemoryCreate) -> Any:
        if not any([body.user_id, body.agent_id, body.run_id]):
            raise HTTPException(400, "At least one identifier (user_id, agent_id, run_id) is required.")
        params = {k: v for k, v in body.model_dump().items() if v is not None and k != "messages"}
        try:
            return JSONResponse(memory.add(messages=[m.model_dump() for m in body.messages], **params))
        except ValueError as exc:
            raise HTTPException(400, str(exc)) from exc

    @app.post("/search")
    def search(body: SearchRequest) -> Any:
        params: dict[str, Any] = {}
        if body.top_k is not None:
            params["top_k"] = body.top_k
        if body.threshold is not None:
            params["threshold"] = body.threshold
        try:
            return memory.search(query=body.query, filters=body.filters or {}, **params)
        except ValueError as exc:
            raise HTTPException(400, str(exc)) from exc

    return app


def serve(data: Path) -> int:
    import asyncio

    import uvicorn

    memory, name = build_memory(data)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(2048)
    server = uvicorn.Server(uvicorn.Config(create_app(memory), log_level="warning", lifespan="off"))
    print(f"embedder {name}", flush=True)
    print(f"listening on http://127.0.0.1:{sock.getsockname()[1]}", flush=True)
    asyncio.run(server.serve(sockets=[sock]))
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build", help="fill a mem0 store from a JSONL file of {user, text}")
    b.add_argument("--data", type=Path, required=True)
    b.add_argument("--items", type=Path, required=True)
    b.add_argument("--batch", type=int, default=500)
    s = sub.add_parser("serve", help="serve a mem0 store on 127.0.0.1 (a free port)")
    s.add_argument("--data", type=Path, required=True)
    args = parser.parse_args()
    if args.command == "build":
        return build(args.data, args.items, args.batch)
    return serve(args.data)


if __name__ == "__main__":
    sys.exit(main())
