"""One script, two libraries: the same mem0 calls against mem0 itself and against tinymemory's
mem0-compatible `Memory` (tests/test_compat_mem0.py compares what each returns).

`run(memory)` takes either library's `Memory` and returns a transcript: each step's result as
returned (or, for a call that must fail, whether it raised and whether as a ValueError). Everything
is offline: mem0 is set up by `mem0_memory` with infer=False calls only (no LLM), an in-process
Qdrant and tinymemory's default embedder behind mem0's embedder interface.

    python tests/compat/mem0_script.py     # prints both transcripts' differences in shape
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

Transcript = dict[str, Any]


def run(m: Any) -> Transcript:
    """The script. Results keep their ids; the comparison maps them to texts."""
    out: Transcript = {}

    def step(name: str, call: Callable[[], Any]) -> Any:
        try:
            out[name] = call()
        except Exception as exc:
            out[name] = {"raised": type(exc).__name__, "value_error": isinstance(exc, ValueError)}
        return out[name]

    tea = step(
        "add_text", lambda: m.add("I prefer tea", user_id="alice", metadata={"topic": "drinks"}, infer=False)
    )
    step(
        "add_messages",
        lambda: m.add(
            [
                {"role": "system", "content": "You are a tennis coach."},
                {"role": "user", "content": "I play tennis on weekends", "name": "alice"},
                {"role": "assistant", "content": "Tennis keeps you fit"},
            ],
            user_id="alice",
            agent_id="coach",
            infer=False,
        ),
    )
    step("add_other_user", lambda: m.add("Bob listens to jazz records", user_id="bob", infer=False))
    step("add_run", lambda: m.add("Notes from the planning run", agent_id="coach", run_id="r1", infer=False))
    tea_id = tea["results"][0]["id"]

    step("get", lambda: m.get(tea_id))
    step("get_missing", lambda: m.get("00000000-0000-4000-8000-000000000000"))
    step("get_all_alice", lambda: m.get_all(filters={"user_id": "alice"}))
    step("get_all_alice_coach", lambda: m.get_all(filters={"user_id": "alice", "agent_id": "coach"}))
    step("get_all_coach", lambda: m.get_all(filters={"agent_id": "coach"}))
    step("get_all_run", lambda: m.get_all(filters={"run_id": "r1"}))
    step("get_all_topic", lambda: m.get_all(filters={"user_id": "alice", "topic": "drinks"}))
    step("get_all_top_k", lambda: m.get_all(filters={"user_id": "alice"}, top_k=1))
    step(
        "search_drink",
        lambda: m.search("which drink is preferred", filters={"user_id": "alice"}, threshold=0.0),
    )
    step("search_tennis", lambda: m.search("tennis", filters={"user_id": "alice"}, top_k=1, threshold=0.0))
    step("search_bob", lambda: m.search("tennis", filters={"user_id": "bob"}, threshold=0.0))
    step(
        "search_threshold",
        lambda: m.search("which drink is preferred", filters={"user_id": "alice"}, threshold=0.3),
    )

    step("update", lambda: m.update(tea_id, text="I prefer coffee"))
    step("get_updated", lambda: m.get(tea_id))
    step("history_updated", lambda: m.history(tea_id))
    step("search_updated", lambda: m.search("coffee", filters={"user_id": "alice"}, top_k=1, threshold=0.0))

    step("delete", lambda: m.delete(tea_id))
    step("get_deleted", lambda: m.get(tea_id))
    step("history_deleted", lambda: m.history(tea_id))
    step("get_all_after_delete", lambda: m.get_all(filters={"user_id": "alice"}))

    step("error_add_no_ids", lambda: m.add("orphan", infer=False))
    step("error_search_no_ids", lambda: m.search("tea", filters={}))
    step("error_get_all_no_ids", lambda: m.get_all())
    step("error_delete_missing", lambda: m.delete(tea_id))
    step("error_update_missing", lambda: m.update(tea_id, text="x"))
    step("error_delete_all_no_ids", lambda: m.delete_all())
    step("error_blank_user", lambda: m.add("x", user_id="  ", infer=False))

    step("delete_all_alice", lambda: m.delete_all(user_id="alice"))
    step("get_all_alice_after", lambda: m.get_all(filters={"user_id": "alice"}))
    step("get_all_bob_after", lambda: m.get_all(filters={"user_id": "bob"}))
    step("reset", lambda: m.reset())
    step("get_all_bob_reset", lambda: m.get_all(filters={"user_id": "bob"}))
    return out


# -- mem0, offline ------------------------------------------------------------------------------------


def offline_environment(home: Path) -> None:
    """What keeps mem0 from reaching the network; set before mem0 is imported."""
    os.environ["MEM0_TELEMETRY"] = "False"
    os.environ["MEM0_DIR"] = str(home / "mem0-home")
    # mem0 builds its default LLM client (never called here), which wants a key
    os.environ.setdefault("OPENAI_API_KEY", "sk-offline-no-llm-is-called")


class TinymemoryEmbedding:
    """tinymemory's default embedder behind mem0's embedder interface (created by mem0's factory)."""

    def __init__(self, config: Any = None) -> None:
        from tinymemory.retrieval.embedders import default_embedder

        embedder = default_embedder()
        if embedder is None:
            raise RuntimeError("the default embedder is not available")
        self.config = config
        self._embedder = embedder

    def embed(self, text: str, memory_action: str | None = None) -> list[float]:
        if memory_action == "search":
            return [float(x) for x in self._embedder.embed_query(text)]
        return [float(x) for x in self._embedder.embed([text])[0]]

    def embed_batch(self, texts: list[str], memory_action: str = "add") -> list[list[float]]:
        return [[float(x) for x in row] for row in self._embedder.embed(texts)]


@contextlib.contextmanager
def mem0_memory(home: Path) -> Iterator[Any]:
    """mem0's own `Memory` with an in-process Qdrant and tinymemory's embedder; closed on exit."""
    offline_environment(home)
    from mem0 import Memory as Mem0Memory  # type: ignore[import-untyped]
    from mem0.utils.factory import EmbedderFactory  # type: ignore[import-untyped]
    from qdrant_client import QdrantClient

    from tinymemory.retrieval.embedders import default_embedder

    embedder = default_embedder()
    assert embedder is not None
    sys.modules.setdefault(__name__, sys.modules[__name__])
    before = EmbedderFactory.provider_to_class.get("huggingface")
    EmbedderFactory.provider_to_class["huggingface"] = f"{__name__}.TinymemoryEmbedding"
    try:
        memory = Mem0Memory.from_config(
            {
                "embedder": {"provider": "huggingface", "config": {"embedding_dims": embedder.dim}},
                "vector_store": {
                    "provider": "qdrant",
                    "config": {
                        "collection_name": "script",
                        "client": QdrantClient(":memory:"),
                        "embedding_model_dims": embedder.dim,
                    },
                },
                "history_db_path": str(home / "history.db"),
            }
        )
        try:
            yield memory
        finally:
            memory.close()
    finally:
        EmbedderFactory.provider_to_class["huggingface"] = before


@contextlib.contextmanager
def tinymemory_memory(home: Path) -> Iterator[Any]:
    from tinymemory.compat.mem0 import Memory

    memory = Memory(path=home / "memory.db")
    try:
        yield memory
    finally:
        memory.close()


def shape(value: Any) -> Any:
    """Keys and value types, not values: what a caller's code depends on."""
    if isinstance(value, dict):
        return {k: shape(v) for k, v in sorted(value.items())}
    if isinstance(value, list):
        return [shape(v) for v in value]
    if isinstance(value, bool) or value is None:
        return type(value).__name__
    if isinstance(value, int | float):
        return "number"
    return type(value).__name__


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        with mem0_memory(home / "mem0") as m:
            theirs = run(m)
        with tinymemory_memory(home / "tinymemory") as m:
            ours = run(m)
    for name in theirs:
        if shape(theirs[name]) != shape(ours[name]):
            print(f"{name}:")
            print(f"  mem0       {json.dumps(shape(theirs[name]))}")
            print(f"  tinymemory {json.dumps(shape(ours[name]))}")


if __name__ == "__main__":
    main()
