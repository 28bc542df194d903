"""tinymemory.compat.mem0 under attack: hostile input through every public call, ids crafted to look
like namespace syntax, forget across every reader, a killed process, and threads sharing one Memory.

Each refusal must be this API's own error naming the call and the field, with nothing written.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from chat_server import LocalChatServer, reply
from engines import make_engine, store_target
from tinymemory import Memory as NativeMemory
from tinymemory.api import Unavailable
from tinymemory.compat.mem0 import AsyncMemory, InvalidInput, Memory, UnsupportedFeature


@pytest.fixture(autouse=True)
def no_llm_from_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """infer=True takes the rule-based path, whatever this machine sets."""
    for var in ("TINYMEMORY_LLM_BASE_URL", "TINYMEMORY_LLM_MODEL", "TINYMEMORY_LLM_API_KEY"):
        monkeypatch.delenv(var, raising=False)


@pytest.fixture
def mem(tmp_path: Path) -> Iterator[Memory]:
    m = Memory(engine=make_engine(tmp_path / "memory.db"))
    yield m
    m.close()


def nested(depth: int) -> dict[str, Any]:
    """A dict `depth` levels deep."""
    out: dict[str, Any] = {}
    for _ in range(depth):
        out = {"a": out}
    return out


def nested_and(depth: int) -> dict[str, Any]:
    """A filter of `depth` nested AND lists."""
    out: dict[str, Any] = {"n": 1}
    for _ in range(depth):
        out = {"AND": [out]}
    return out


U = {"user_id": "u"}
Call = Callable[[Memory], object]
HOSTILE: list[tuple[str, str, Call]] = [
    ("add", "metadata.a", lambda m: m.add("x", user_id="u", metadata=nested(5000), infer=False)),
    ("add", "metadata", lambda m: m.add("x", user_id="u", metadata={"\ud800": 1}, infer=False)),
    ("add", "metadata", lambda m: m.add("x", user_id="u", metadata={"a\x00": 1}, infer=False)),
    ("add", "metadata.a", lambda m: m.add("x", user_id="u", metadata={"a": "\ud800"}, infer=False)),
    (
        "add",
        "metadata",
        lambda m: m.add("x", user_id="u", metadata={f"k{i}": i for i in range(10_000)}, infer=False),
    ),
    ("add", "messages", lambda m: m.add("a \ud800 b", user_id="u", infer=False)),
    ("add", "messages", lambda m: m.add("a \x00 b", user_id="u", infer=False)),
    ("add", "messages", lambda m: m.add("x" * 1_000_001, user_id="u", infer=False)),
    (
        "add",
        "messages[1].content",
        lambda m: m.add(
            [{"role": "user", "content": "ok"}, {"role": "user", "content": "a\x00b"}],
            user_id="u",
            infer=False,
        ),
    ),
    (
        "add",
        "messages[0].role",
        lambda m: m.add([{"role": "r" * 5000, "content": "x"}], user_id="u", infer=False),
    ),
    (
        "add",
        "messages[0].role",
        lambda m: m.add([{"role": "us\x00er", "content": "x"}], user_id="u", infer=False),
    ),
    (
        "add",
        "messages[0].name",
        lambda m: m.add([{"role": "user", "content": "x", "name": "\ud800"}], user_id="u", infer=False),
    ),
    (
        "add",
        "messages[0].name",
        lambda m: m.add([{"role": "user", "content": "x", "name": "n" * 5000}], user_id="u", infer=False),
    ),
    ("get", "memory_id", lambda m: m.get("\ud800")),
    ("get", "memory_id", lambda m: m.get("a\x00b")),
    ("history", "memory_id", lambda m: m.history("\ud800")),
    ("update", "memory_id", lambda m: m.update("a\x00b", text="x")),
    ("update", "text", lambda m: m.update("some-id", text="a\x00b")),
    ("delete", "memory_id", lambda m: m.delete("\ud800")),
    ("get_all", "filters", lambda m: m.get_all(filters={**U, **nested_and(3000)})),
    ("search", "filters", lambda m: m.search("q", filters={**U, "OR": [nested_and(3000)]})),
]


@pytest.mark.parametrize(
    ("op", "field", "call"), HOSTILE, ids=[f"{i}-{o}" for i, (o, _, _) in enumerate(HOSTILE)]
)
def test_hostile_input_is_refused_naming_the_call_and_field(
    mem: Memory, op: str, field: str, call: Call
) -> None:
    with pytest.raises(InvalidInput) as caught:
        call(mem)
    assert str(caught.value).startswith(f"{op}: `{field}`"), str(caught.value)
    assert mem.get_all(filters=U)["results"] == []  # nothing was written


BAD_CONFIGS: list[tuple[str, dict[str, Any]]] = [
    ("llm.config.ollama_base_url", {"provider": "ollama", "config": {"ollama_base_url": 5}}),
    ("llm.config.max_tokens", {"provider": "openai", "config": {"max_tokens": math.inf, "api_key": "k"}}),
    ("llm.config.max_tokens", {"provider": "openai", "config": {"max_tokens": 0, "api_key": "k"}}),
    ("llm.config.temperature", {"provider": "openai", "config": {"temperature": math.nan, "api_key": "k"}}),
    ("llm.config.api_key", {"provider": "openai", "config": {"api_key": 5}}),
    ("llm.config.model", {"provider": "openai", "config": {"model": ["gpt"], "api_key": "k"}}),
    ("llm.provider", {"provider": ["openai"], "config": {}}),
    ("llm.provider", {"provider": {}, "config": {}}),
]


@pytest.mark.parametrize(
    ("field", "llm"), BAD_CONFIGS, ids=[f"{i}-{f}" for i, (f, _) in enumerate(BAD_CONFIGS)]
)
def test_a_bad_llm_config_is_an_invalid_input(tmp_path: Path, field: str, llm: dict[str, Any]) -> None:
    with pytest.raises(InvalidInput, match=rf"^from_config: `{field}`"):
        Memory.from_config({"llm": llm, "path": str(tmp_path / "m.db")})


def test_bad_constructor_arguments_are_invalid_inputs(tmp_path: Path) -> None:
    where = tmp_path / "m.db"
    with pytest.raises(InvalidInput, match=r"^memory: `foo` is not a known argument"):
        Memory(path=where, foo=1)  # type: ignore[call-arg]
    with pytest.raises(InvalidInput, match=r"^memory: `foo` is not a known argument"):
        AsyncMemory(path=where, foo=1)  # type: ignore[call-arg]
    with pytest.raises(InvalidInput, match=r"^memory: `engine` must be a tinymemory engine"):
        Memory(engine="memory.db")  # type: ignore[arg-type]
    with pytest.raises(InvalidInput, match=r"^memory: `llm` must be"):
        Memory(path=where, llm="gpt")  # type: ignore[arg-type]
    with pytest.raises(InvalidInput, match=r"^memory: .*`embedder`"):
        Memory(path=where, embedder="no-such-embedder")
    with pytest.raises(InvalidInput, match=r"^memory: `embedder` must be an Embedder"):
        Memory(path=where, embedder=5)  # was an AttributeError from the engine
    with pytest.raises(InvalidInput, match=r"^memory: .*`target`"):
        Memory(path=5)  # type: ignore[arg-type]
    with pytest.raises(InvalidInput, match=r"^memory: .*`target`"):
        Memory(path="a\x00b")


CRAFTED = ["Alice", "alice2", "alic", "alice/agent:x", "user:alice", "..", "*", "lg:x", "a/b", "x~alice", "%"]


def test_crafted_ids_never_reach_another_users_memories(mem: Memory) -> None:
    secret = mem.add("the vault code is 4417", user_id="alice", infer=False)["results"][0]["id"]
    for uid in CRAFTED:
        mem.add(f"decoy of {uid}", user_id=uid, infer=False)
    for uid in CRAFTED:
        found = mem.search("vault code 4417", filters={"user_id": uid})["results"]
        listed = mem.get_all(filters={"user_id": uid}, top_k=100)["results"]
        assert [r["memory"] for r in found] == [f"decoy of {uid}"], uid
        assert [r["memory"] for r in listed] == [f"decoy of {uid}"], uid
        assert mem.get(secret, user_id=uid) is None
        assert mem.history(secret, user_id=uid) == []
        with pytest.raises(ValueError, match="not found"):
            mem.update(secret, text="stolen", user_id=uid)
        with pytest.raises(ValueError, match="not found"):
            mem.delete(secret, user_id=uid)
        mem.delete_all(user_id=uid)
    tricks: list[dict[str, Any]] = [
        {"OR": [{"user_id": "alice"}]},
        {"NOT": [{"user_id": "mallory"}]},
        {"AND": [{"user_id": {"ne": "x"}}]},
    ]
    for trick in tricks:
        assert mem.get_all(filters={"user_id": "mallory", **trick})["results"] == []
    assert mem.get(secret, user_id="alice") is not None
    assert mem.get(secret)["memory"] == "the vault code is 4417"  # type: ignore[index]


def test_scores_within_a_user_do_not_depend_on_other_users(mem: Memory) -> None:
    mem.add("my secret recipe uses saffron", user_id="alice", infer=False)
    mem.add("saffron is expensive", user_id="alice", infer=False)
    before = mem.search("secret saffron", filters={"user_id": "alice"})["results"]
    for i in range(30):
        mem.add(f"secret saffron secret number {i}", user_id="bob", infer=False)
    after = mem.search("secret saffron", filters={"user_id": "alice"})["results"]
    assert [(r["id"], r["score"]) for r in after] == [(r["id"], r["score"]) for r in before]


def test_delete_delete_all_and_reset_are_forgotten_by_every_reader(tmp_path: Path) -> None:
    engine = make_engine(tmp_path / "memory.db")
    mem = Memory(engine=engine)
    one = mem.add("the vault code is 4417", user_id="alice", infer=False)["results"][0]["id"]
    mem.update(one, text="the vault code is 9932")
    mem.add("the locker code is 5521", user_id="alice", agent_id="ops", infer=False)
    mem.add("the garage code is 7788", user_id="bob", infer=False)
    mem.delete(one)
    mem.delete_all(user_id="alice", agent_id="ops")
    mem.reset()
    mem.close()
    codes = ("4417", "9932", "5521", "7788")
    with Memory(engine=make_engine(tmp_path / "memory.db")) as again:
        for uid in ("alice", "bob"):
            assert again.search("vault locker garage code", filters={"user_id": uid})["results"] == []
            assert again.get_all(filters={"user_id": uid})["results"] == []
        assert again.get(one) is None
        assert all(e["new_memory"] is None and e["old_memory"] is None for e in again.history(one))
    for place in ("user:alice", "user:bob", "user:alice/agent:ops"):
        with NativeMemory(engine=make_engine(tmp_path / "memory.db"), namespace=place) as native:
            hits = native.fetch("vault locker garage code 4417 9932 5521 7788").hits
            assert not [h for h in hits if any(c in h.item.text for c in codes)]
            assert not any(c in str(native.context_md()) for c in codes)
    if isinstance(tmp_path, Path) and (tmp_path / "memory.db").exists():  # SQLite: the bytes are gone
        raw = b"".join(p.read_bytes() for p in tmp_path.glob("memory.db*"))
        assert not any(c.encode() in raw for c in codes)


WRITER = """
import os, sys
from tinymemory.compat.mem0 import Memory
m = Memory(path=sys.argv[1])
mid = m.add("acknowledged kiwi", user_id="u", infer=False)["results"][0]["id"]
m.update(mid, text="acknowledged mango")
print(mid, flush=True)
os.kill(os.getpid(), 9)
"""


def test_an_acknowledged_write_survives_kill_9(tmp_path: Path) -> None:
    target = store_target(tmp_path / "memory.db")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    run = subprocess.run(
        [sys.executable, "-c", WRITER, target], capture_output=True, text=True, env=env, timeout=300
    )
    assert run.returncode == -9, run.stderr
    mid = run.stdout.strip()
    with Memory(path=target) as mem:
        got = mem.get(mid)
        assert got is not None and got["memory"] == "acknowledged mango"
        assert [e["event"] for e in mem.history(mid)] == ["ADD", "UPDATE"]


def test_threads_sharing_one_memory_neither_deadlock_nor_fork_a_memory(mem: Memory) -> None:
    shared = mem.add("counter 0", user_id="shared", infer=False)["results"][0]["id"]
    errors: list[BaseException] = []

    def work(user: str) -> None:
        try:
            for i in range(15):
                mid = mem.add(f"note {i} of {user}", user_id=user, infer=False)["results"][0]["id"]
                mem.update(mid, text=f"note {i} of {user}, edited")
                mem.update(shared, text=f"counter {user}-{i}")
                mem.search("note", filters={"user_id": user})
                if i % 3 == 0:
                    mem.delete(mid)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(u,)) for u in ("a", "b", "c")]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=240)
    assert not any(t.is_alive() for t in threads), "deadlock"
    assert errors == []
    for user in ("a", "b", "c"):
        listed = mem.get_all(filters={"user_id": user}, top_k=100)["results"]
        assert len(listed) == 10 and all(r["memory"].endswith("edited") for r in listed)
    assert [r["id"] for r in mem.get_all(filters={"user_id": "shared"})["results"]] == [shared]
    assert len(mem.history(shared)) == 1 + 45


def test_unsupported_stays_a_value_error(mem: Memory) -> None:
    with pytest.raises(UnsupportedFeature):
        mem.add("x", user_id="u", memory_type="procedural_memory")


@pytest.mark.parametrize("fact", ["The user\x00 likes tea.", "The user \ud800 likes tea.", "x" * 1_000_001])
def test_a_model_reply_the_store_cannot_hold_is_the_models_failure(tmp_path: Path, fact: str) -> None:
    answer = {"learnings": [{"text": fact, "kind": "fact", "turns": [0]}]}
    server = LocalChatServer(lambda request: reply(json.dumps(answer)))
    config = {"llm": {"provider": "openai", "config": {"model": "m", "openai_base_url": server.url}}}
    try:
        with Memory(config, engine=make_engine(tmp_path / "memory.db")) as mem:
            with pytest.raises(Unavailable, match=r"^llm extract: `learnings\[0\]\.text`"):
                mem.add("I like tea", user_id="u")
            assert mem.get_all(filters=U)["results"] == []
    finally:
        server.close()
