"""tinymemory.compat.mem0 against mem0 itself, and on its own: infer with the rules and with an LLM,
privacy across user ids, forget means forgotten, and bad input.

The comparison runs one script (tests/compat/mem0_script.py) against the real mem0ai package, offline
(infer=False, an in-process Qdrant, tinymemory's embedder), and against our Memory on a real store.
"""

from __future__ import annotations

import importlib.util
import inspect
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from chat_server import ChatRequest, LocalChatServer, reply
from engines import make_engine
from tinymemory import Memory as NativeMemory
from tinymemory import Namespace, Reach
from tinymemory.api import Unavailable
from tinymemory.compat.mem0 import AsyncMemory, InvalidInput, Memory, MemoryNotFound, UnsupportedFeature

SCRIPT = Path(__file__).resolve().parent / "compat" / "mem0_script.py"


def load_script() -> Any:
    name = "mem0_script"
    if name not in sys.modules:  # mem0's factory imports our embedder class by this module name
        spec = importlib.util.spec_from_file_location(name, SCRIPT)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


@pytest.fixture(autouse=True)
def no_llm_from_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without an explicit LLM, infer=True must take the rule-based path, whatever this machine sets."""
    for var in ("TINYMEMORY_LLM_BASE_URL", "TINYMEMORY_LLM_MODEL", "TINYMEMORY_LLM_API_KEY"):
        monkeypatch.delenv(var, raising=False)


@pytest.fixture
def mem(tmp_path: Path) -> Iterator[Memory]:
    m = Memory(engine=make_engine(tmp_path / "memory.db"))
    yield m
    m.close()


# -- one script, two libraries ------------------------------------------------------------------------


def by_text(result: Any) -> Any:
    """A get_all result in a fixed order (the libraries list in different orders)."""
    return {"results": sorted(result["results"], key=lambda r: r["memory"])}


def texts(result: Any) -> list[str]:
    return sorted(r["memory"] for r in result["results"])


def events(history: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    """What a history says, without its ids and times."""
    fields = ("event", "old_memory", "new_memory", "is_deleted", "actor_id", "role")
    return [tuple(e[f] for f in fields) for e in history]


def test_one_script_gives_the_same_shapes_and_semantics_on_both(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEM0_TELEMETRY", "False")
    monkeypatch.setenv("MEM0_DIR", str(tmp_path / "mem0-home"))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-offline-no-llm-is-called")
    script = load_script()
    with script.mem0_memory(tmp_path / "mem0") as m:
        theirs = script.run(m)
    ours_memory = Memory(engine=make_engine(tmp_path / "tinymemory.db"))
    try:
        ours = script.run(ours_memory)
    finally:
        ours_memory.close()
    assert theirs.keys() == ours.keys()
    shape = script.shape
    listed = [k for k in theirs if k.startswith("get_all")]
    for name in theirs:
        if name == "history_deleted":
            continue  # compared below: a deleted memory's history keeps no text here
        a, b = (by_text(theirs[name]), by_text(ours[name])) if name in listed else (theirs[name], ours[name])
        if name == "get_all_top_k":  # which one memory comes first is each library's order
            a, b = ({"results": r["results"][:0]} for r in (a, b))
            assert len(theirs[name]["results"]) == len(ours[name]["results"]) == 1
        assert shape(a) == shape(b), name

    # the same memories in every scope, and the same answers where the ranking is clear
    for name in listed:
        if name != "get_all_top_k":
            assert texts(theirs[name]) == texts(ours[name]), name
    for name in ("search_drink", "search_bob", "search_threshold"):
        assert texts(theirs[name]) == texts(ours[name]), name
    # a score is the same similarity on both (mem0 here embeds with the same embedder), so a threshold
    # keeps the same memories
    assert ours["search_threshold"]["results"], "the drink memory clears 0.3 on mem0's scale"
    for name in ("search_drink", "search_threshold"):
        theirs_by_text = {r["memory"]: r["score"] for r in theirs[name]["results"]}
        for r in ours[name]["results"]:
            assert abs(r["score"] - theirs_by_text[r["memory"]]) < 1e-3, (name, r["memory"])
    for name in ("search_drink", "search_tennis", "search_updated"):
        assert theirs[name]["results"][0]["memory"] == ours[name]["results"][0]["memory"], name
    for name in ("add_text", "add_messages", "add_other_user", "add_run"):
        strip = [{k: v for k, v in r.items() if k != "id"} for r in ours[name]["results"]]
        assert strip == [{k: v for k, v in r.items() if k != "id"} for r in theirs[name]["results"]], name

    # update keeps the id and created_at, moves updated_at; history shows ADD then UPDATE
    for t in (theirs, ours):
        before, after = t["get"], t["get_updated"]
        assert after["id"] == before["id"] and after["memory"] == "I prefer coffee"
        assert after["created_at"] == before["created_at"] and after["updated_at"] > before["updated_at"]
        assert after["metadata"] == {"topic": "drinks"}
        assert t["get_deleted"] is None and t["get_missing"] is None
        assert t["update"] == {"message": "Memory updated successfully!"}
        assert t["delete"] == {"message": "Memory deleted successfully!"}
    assert events(ours["history_updated"]) == events(theirs["history_updated"])

    # after a delete both list ADD, UPDATE, DELETE; tinymemory keeps neither texts nor their times
    assert [e["event"] for e in ours["history_deleted"]] == [e["event"] for e in theirs["history_deleted"]]
    assert [e["event"] for e in ours["history_deleted"]] == ["ADD", "UPDATE", "DELETE"]
    for ours_e, theirs_e in zip(ours["history_deleted"], theirs["history_deleted"], strict=True):
        assert ours_e.keys() == theirs_e.keys()
        assert ours_e["old_memory"] is None and ours_e["new_memory"] is None
        assert ours_e["is_deleted"] == theirs_e["is_deleted"]
    assert ours["history_deleted"][-1]["updated_at"] is not None

    # what must fail fails on both; ours always as a ValueError (mem0's add raises its own error)
    for name in (k for k in theirs if k.startswith("error_")):
        assert "raised" in theirs[name] and "raised" in ours[name], name
        assert ours[name]["value_error"], name


# -- infer=True ---------------------------------------------------------------------------------------


def test_infer_without_an_llm_uses_the_rules_and_updates_a_subject(mem: Memory) -> None:
    first = mem.add("My name is Alice. I prefer tea over coffee. What a lovely day.", user_id="alice")
    assert [(r["memory"], r["event"]) for r in first["results"]] == [
        ("The user's name is Alice.", "ADD"),
        ("The user prefers tea over coffee.", "ADD"),
    ]
    drink = first["results"][1]["id"]
    again = mem.add([{"role": "user", "content": "I prefer coffee over tea now."}], user_id="alice")
    assert again["results"] == [
        {
            "id": drink,
            "memory": "The user prefers coffee over tea.",
            "event": "UPDATE",
            "previous_memory": "The user prefers tea over coffee.",
        }
    ]
    assert mem.add("My name is Alice.", user_id="alice")["results"] == []  # said before: nothing new
    assert mem.add("Hi there!", user_id="alice")["results"] == []  # nothing the rules recognise
    assert [e["event"] for e in mem.history(drink)] == ["ADD", "UPDATE"]
    assert texts(mem.get_all(filters={"user_id": "alice"})) == [
        "The user prefers coffee over tea.",
        "The user's name is Alice.",
    ]
    # the same subject for another user is another memory
    bob = mem.add("I prefer tea over coffee.", user_id="bob")["results"][0]
    assert bob["id"] != drink and bob["event"] == "ADD"


def test_infer_with_an_llm_from_a_mem0_config(tmp_path: Path) -> None:
    answer = {
        "learnings": [
            {"text": "The user is vegetarian.", "kind": "preference", "turns": [0], "confidence": 0.9},
            {
                "text": "The user lives in Lisbon.",
                "kind": "fact",
                "turns": [1],
                "about_kind": "profile",
                "about_key": "home",
            },
        ]
    }

    def respond(request: ChatRequest) -> tuple[int, bytes]:
        return reply(json.dumps(answer))

    server = LocalChatServer(respond)
    config = {
        "llm": {
            "provider": "openai",
            "config": {"model": "canned", "openai_base_url": server.url, "api_key": "test-key"},
        },
        "vector_store": {"provider": "qdrant", "config": {"path": "ignored"}},
        "path": str(tmp_path / "memory.db"),
    }
    try:
        with Memory.from_config(config) as mem:
            added = mem.add(
                [
                    {"role": "user", "content": "I don't eat meat."},
                    {"role": "assistant", "content": "Noted."},
                    {"role": "user", "content": "I moved to Lisbon."},
                ],
                user_id="alice",
            )
            assert [(r["memory"], r["event"]) for r in added["results"]] == [
                ("The user is vegetarian.", "ADD"),
                ("The user lives in Lisbon.", "ADD"),
            ]
            sent = server.requests[-1]
            assert sent.auth == "Bearer test-key" and sent.json["model"] == "canned"
            assert "I don't eat meat." in sent.user and "Noted." not in sent.user  # user turns only
            answer["learnings"] = [
                {"text": "The user lives in Porto.", "kind": "fact", "turns": [0], "about_kind": "profile",
                 "about_key": "home"}
            ]  # fmt: skip
            moved = mem.add("I moved to Porto.", user_id="alice")["results"]
            assert moved[0]["event"] == "UPDATE" and moved[0]["id"] == added["results"][1]["id"]
    finally:
        server.close()


def test_a_failing_llm_writes_nothing(tmp_path: Path) -> None:
    server = LocalChatServer(lambda request: (500, b"{}"))
    config = {"llm": {"provider": "openai", "config": {"model": "m", "openai_base_url": server.url}}}
    try:
        with Memory(config, engine=make_engine(tmp_path / "memory.db")) as mem:
            with pytest.raises(Unavailable, match="llm extract"):
                mem.add("I prefer tea", user_id="alice")
            assert mem.get_all(filters={"user_id": "alice"})["results"] == []
    finally:
        server.close()


# -- privacy ------------------------------------------------------------------------------------------


def test_one_user_never_sees_another_users_memories(mem: Memory) -> None:
    secret = mem.add("Alice's locker code is 4512", user_id="alice", infer=False)["results"][0]["id"]
    mem.add("Alice keeps her locker code in her notebook", user_id="ali", infer=False)
    mem.add("Bob's locker is number 12", user_id="bob", agent_id="gym", infer=False)
    for user in ("bob", "ali"):
        found = mem.search("locker code", filters={"user_id": user}, threshold=0.0)["results"]
        assert found and all(r["user_id"] == user for r in found)
        assert all(r["user_id"] == user for r in mem.get_all(filters={"user_id": user})["results"])
        assert mem.get(secret, user_id=user) is None
        assert mem.history(secret, user_id=user) == []
        with pytest.raises(MemoryNotFound):
            mem.delete(secret, user_id=user)
        with pytest.raises(MemoryNotFound):
            mem.update(secret, text="changed", user_id=user)
        mem.delete_all(user_id=user)
    # an agent read spans users only where the agent is named, as in mem0
    assert mem.get_all(filters={"agent_id": "gym"})["results"] == []
    kept = mem.get(secret, user_id="alice")
    assert kept is not None and kept["memory"] == "Alice's locker code is 4512"
    assert [e["event"] for e in mem.history(secret, user_id="alice")] == ["ADD"]


def test_ids_that_are_not_namespace_names_round_trip(mem: Memory) -> None:
    odd = "alice@example.com/β:~1"
    added = mem.add("A note", user_id=odd, agent_id="_agent", run_id=42, infer=False)["results"][0]
    got = mem.get(added["id"])
    assert got is not None
    assert (got["user_id"], got["agent_id"], got["run_id"]) == (odd, "_agent", "42")
    assert texts(mem.get_all(filters={"user_id": odd})) == ["A note"]
    assert mem.get_all(filters={"user_id": "alice@example.com"})["results"] == []


def test_delete_forgets_every_version_and_reset_purges(tmp_path: Path) -> None:
    path = tmp_path / "memory.db"
    mem = Memory(engine=make_engine(path))
    try:
        mid = mem.add("The launch code is zebra", user_id="alice", infer=False)["results"][0]["id"]
        mem.update(mid, text="The launch code is giraffe")
        versions = [e["id"] for e in mem.history(mid)]
        mem.delete(mid)
        with NativeMemory(engine=make_engine(path), reach=Reach.subtree(Namespace.root())) as native:
            hits = native.fetch("launch code zebra giraffe").hits
            assert not any("zebra" in h.item.text or "giraffe" in h.item.text for h in hits)
            assert {h.item.meta.source.kind for h in hits if h.item.meta.source} <= {"mem0-log"}
            gone = native.get(versions)
            assert gone.items == () and {t.id for t in gone.forgotten} == set(versions)
        assert all(e["new_memory"] is None and e["old_memory"] is None for e in mem.history(mid))
        mem.add("Another memory", user_id="alice", infer=False)
        mem.reset()
        assert mem.history(mid) == []
        with NativeMemory(engine=make_engine(path), reach=Reach.subtree(Namespace.root())) as native:
            purged = native.get(versions)
            assert purged.items == () and purged.forgotten == ()  # purged: not even a tombstone
            assert native.list().items == ()
    finally:
        mem.close()


def test_memories_live_in_the_namespace_tree(tmp_path: Path) -> None:
    """The host's tools see a user's mem0 memories where a tinymemory agent of that user reads."""
    path = tmp_path / "memory.db"
    with Memory({"namespace": "team:acme"}, engine=make_engine(path)) as mem:
        mem.add("The user prefers window seats", user_id="alice", infer=False)
        mem.add("Bob prefers the aisle", user_id="bob", infer=False)
    with NativeMemory(engine=make_engine(path), namespace="team:acme/user:alice/agent:travel") as native:
        assert [h.item.text for h in native.fetch("seat preference").hits] == [
            "The user prefers window seats"
        ]


# -- reads: filters, expiry, limits --------------------------------------------------------------------


def test_metadata_filters_use_mem0s_language(mem: Memory) -> None:
    for text, meta in [
        ("Paris trip", {"kind": "trip", "days": 3, "tags": ["europe", "city"]}),
        ("Tokyo trip", {"kind": "trip", "days": 10, "tags": ["asia"]}),
        ("Dentist", {"kind": "health"}),
    ]:
        mem.add(text, user_id="u", metadata=meta, infer=False)

    def where(**filters: Any) -> list[str]:
        return texts(mem.get_all(filters={"user_id": "u", **filters}))

    assert where(kind="trip") == ["Paris trip", "Tokyo trip"]
    assert where(days={"gte": 5}) == ["Tokyo trip"]
    assert where(kind={"ne": "trip"}) == ["Dentist"]
    assert where(days="*") == ["Paris trip", "Tokyo trip"]
    assert where(tags={"contains": "asia"}) == ["Tokyo trip"]
    assert where(OR=[{"days": {"lt": 5}}, {"kind": "health"}]) == ["Dentist", "Paris trip"]
    assert where(NOT=[{"kind": {"in": ["trip"]}}]) == ["Dentist"]
    hits = mem.search("trip to japan", filters={"user_id": "u", "kind": "trip"}, top_k=1)["results"]
    assert [h["memory"] for h in hits] == ["Tokyo trip"] and isinstance(hits[0]["score"], float)
    with pytest.raises(InvalidInput, match=r"^get_all: `filters.days` `near` is not a filter operator"):
        mem.get_all(filters={"user_id": "u", "days": {"near": 3}})


def test_expired_memories_are_hidden_unless_asked(mem: Memory) -> None:
    old = mem.add("Old offer", user_id="u", expiration_date="2000-01-01", infer=False)["results"][0]["id"]
    mem.add("Current offer", user_id="u", expiration_date="2999-12-31", infer=False)
    assert texts(mem.get_all(filters={"user_id": "u"})) == ["Current offer"]
    assert texts(mem.get_all(filters={"user_id": "u"}, show_expired=True)) == ["Current offer", "Old offer"]
    assert [r["memory"] for r in mem.search("offer", filters={"user_id": "u"})["results"]] == [
        "Current offer"
    ]
    got = mem.get(old)
    assert got is not None and got["expiration_date"] == "2000-01-01"
    mem.update(old, expiration_date=None)
    assert texts(mem.get_all(filters={"user_id": "u"})) == ["Current offer", "Old offer"]


def test_timestamps_limits_and_older_argument_forms(mem: Memory) -> None:
    added = mem.add("Said long ago", user_id="u", timestamp=946684800, infer=False)["results"][0]
    got = mem.get(added["id"])
    assert got is not None and got["created_at"].startswith("2000-01-01T00:00:00")
    for i in range(5):
        mem.add(f"note {i}", user_id="u", infer=False)
    assert len(mem.get_all(user_id="u", limit=3)["results"]) == 3  # mem0's older top-level form
    assert len(mem.search("note", user_id="u", top_k=2)["results"]) == 2
    assert mem.search("note", filters={"user_id": "u"}, top_k=0)["results"] == []
    with pytest.raises(InvalidInput, match="different values"):
        mem.get_all(user_id="u", filters={"user_id": "v"})


# -- async --------------------------------------------------------------------------------------------


def test_the_sync_memory_is_built_from_the_async_one() -> None:
    """The same methods with the same signatures and docstrings, each one running its coroutine; the
    differences are the sync side's: `close` is its own (it stops the loop thread, so no `aclose`),
    and the async side's attributes `engine` and `root` are read-only properties."""
    public = {n for n in dir(Memory) if not n.startswith("_")}
    async_public = {n for n in dir(AsyncMemory) if not n.startswith("_")}
    assert public - {"engine", "root"} == async_public - {"aclose"}
    for name in sorted(async_public - {"aclose", "close", "from_config"}):
        a, s = inspect.getattr_static(AsyncMemory, name), inspect.getattr_static(Memory, name)
        assert not inspect.iscoroutinefunction(s), name
        assert s.__derived_from__ is a and s.__doc__ == a.__doc__, name
        assert inspect.signature(s) == inspect.signature(a), name
    assert inspect.signature(Memory.__init__) == inspect.signature(AsyncMemory.__init__)


async def test_async_memory_has_the_same_names(tmp_path: Path) -> None:
    async with AsyncMemory(engine=make_engine(tmp_path / "memory.db")) as mem:
        mid = (await mem.add("I prefer tea", user_id="alice", infer=False))["results"][0]["id"]
        found = await mem.search("tea", filters={"user_id": "alice"})
        assert [r["id"] for r in found["results"]] == [mid]
        await mem.update(mid, text="I prefer coffee")
        got = await mem.get(mid)
        assert got is not None and got["memory"] == "I prefer coffee"
        assert [e["event"] for e in await mem.history(mid)] == ["ADD", "UPDATE"]
        await mem.delete(mid)
        assert await mem.get(mid) is None
        with pytest.raises(InvalidInput, match=r"^add: `user_id` is missing"):
            await mem.add("x")


# -- bad input ----------------------------------------------------------------------------------------


BAD_CALLS: list[tuple[str, str, Any]] = [
    ("add", "messages", lambda m: m.add(42, user_id="u")),
    ("add", "metadata", lambda m: m.add("x", user_id="u", metadata="tag")),
    ("add", "metadata.when", lambda m: m.add("x", user_id="u", metadata={"when": object()})),
    ("add", "messages[0].content", lambda m: m.add([{"role": "user"}], user_id="u")),
    ("add", "messages[0].role", lambda m: m.add([{"content": "x"}], user_id="u")),
    ("add", "user_id", lambda m: m.add("x", user_id="two words")),
    ("add", "user_id", lambda m: m.add("x", user_id=["u"])),
    ("add", "infer", lambda m: m.add("x", user_id="u", infer="yes")),
    ("add", "memory_type", lambda m: m.add("x", user_id="u", memory_type="episodic")),
    ("add", "expiration_date", lambda m: m.add("x", user_id="u", expiration_date="tomorrow")),
    ("add", "timestamp", lambda m: m.add("x", user_id="u", timestamp="yesterday")),
    ("add", "colour", lambda m: m.add("x", user_id="u", colour="red")),
    ("search", "query", lambda m: m.search("  ", filters={"user_id": "u"})),
    ("search", "top_k", lambda m: m.search("q", filters={"user_id": "u"}, top_k=-1)),
    ("search", "threshold", lambda m: m.search("q", filters={"user_id": "u"}, threshold=2)),
    ("search", "filters", lambda m: m.search("q", filters=["user_id"])),
    ("get_all", "filters.OR", lambda m: m.get_all(filters={"user_id": "u", "OR": {"a": 1}})),
    ("get", "memory_id", lambda m: m.get(123)),
    ("update", "text", lambda m: m.update("some-id")),
    ("update", "text", lambda m: m.update("some-id", text="")),
    ("delete", "memory_id", lambda m: m.delete("")),
    ("history", "memory_id", lambda m: m.history(None)),
    ("delete_all", "user_id", lambda m: m.delete_all()),
]


@pytest.mark.parametrize(("op", "field", "call"), BAD_CALLS, ids=[f"{o}-{f}" for o, f, _ in BAD_CALLS])
def test_bad_input_is_an_invalid_input_naming_the_call_and_field(
    mem: Memory, op: str, field: str, call: Any
) -> None:
    with pytest.raises(InvalidInput) as caught:
        call(mem)
    assert isinstance(caught.value, ValueError)
    assert str(caught.value).startswith(f"{op}: `{field}`"), str(caught.value)
    assert mem.get_all(filters={"user_id": "u"})["results"] == []  # nothing was written


def test_unsupported_features_and_configs_are_refused_clearly(tmp_path: Path) -> None:
    with pytest.raises(UnsupportedFeature, match=r"`llm\.provider` `anthropic` is not supported"):
        Memory({"llm": {"provider": "anthropic", "config": {}}}, path=tmp_path / "a.db")
    with pytest.raises(InvalidInput, match=r"^from_config: `graph` is not a config key"):
        Memory.from_config({"graph": {}})
    with pytest.raises(InvalidInput, match="namespace"):
        Memory({"namespace": "not a namespace"})
    with Memory(engine=make_engine(tmp_path / "memory.db")) as mem:
        with pytest.raises(UnsupportedFeature, match="procedural_memory"):
            mem.add("x", user_id="u", agent_id="a", memory_type="procedural_memory")
        with pytest.raises(UnsupportedFeature, match="reference_date"):
            mem.search("x", filters={"user_id": "u"}, reference_date="2024-01-01")
        with pytest.raises(MemoryNotFound, match=r"^delete: memory with id nope not found"):
            mem.delete("nope")


def test_a_closed_memory_refuses_calls(tmp_path: Path) -> None:
    mem = Memory(engine=make_engine(tmp_path / "memory.db"))
    mem.close()
    with pytest.raises(RuntimeError, match="closed"):
        mem.get_all(filters={"user_id": "u"})


def test_the_calls_needing_an_id_say_which_ids_they_need(mem: Memory) -> None:
    with pytest.raises(InvalidInput) as caught:
        mem.delete_all()
    assert str(caught.value) == (
        "delete_all: `user_id` is missing: at least one filter is required to delete all memories "
        "(reset() deletes all)"
    )
    with pytest.raises(InvalidInput) as caught:
        mem.add("x")
    assert str(caught.value) == (
        "add: `user_id` is missing: at least one of `user_id`, `agent_id` or `run_id` must be provided"
    )
