"""Memory's newer methods under attack (context_md, recall_context, ingest, ingest_text, tools()):
hostile input, two users sharing one file, forgetting, two threads on one Memory, and a process killed
right after its writes returned.

Real engines only (SQLite in tmp_path, PostgreSQL under TINYMEMORY_TEST_ENGINE=postgres). A bad call
raises InvalidRequest led by the method and naming the argument, and writes nothing.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from engines import make_engine
from tinymemory import Memory
from tinymemory.api import InvalidRequest


def open_memory(path: Path, namespace: str) -> Memory:
    return Memory(engine=make_engine(path, embedder=None), namespace=namespace)


@pytest.fixture
def mem(tmp_path: Path) -> Iterator[Memory]:
    with open_memory(tmp_path / "m.db", "workspace:w/user:alice") as m:
        yield m


def refused(call: Callable[[], object], message: str) -> None:
    with pytest.raises(InvalidRequest) as err:
        call()
    assert str(err.value).startswith(message), (message, str(err.value))


# -- bad input ----------------------------------------------------------------------------------------


def test_ingest_text_refuses_what_the_store_cannot_hold_in_its_own_words(mem: Memory) -> None:
    op = "ingest_text"
    refused(lambda: mem.ingest_text("x\ud800y", name="a.md"), f"{op}: `text` is not valid unicode")
    refused(lambda: mem.ingest_text("x\x00y", name="a.md"), f"{op}: `text` holds a nul character")
    refused(lambda: mem.ingest_text("word " * 250_000, name="a.md"), f"{op}: `text` is longer than")
    refused(lambda: mem.ingest_text("hello", name="\ud800"), f"{op}: `name` is not valid unicode")
    refused(lambda: mem.ingest_text("hello", name="a\x00b"), f"{op}: `name` holds a nul character")
    refused(lambda: mem.ingest_text("hello", name="n" * 100_000), f"{op}: `name` is longer than")
    for title, problem in (
        ("\ud800", "is not valid unicode"),
        ("a\x00", "holds a nul"),
        ("t" * 9_000, "is longer"),
    ):
        refused(lambda t=title: mem.ingest_text("hello", name="t.md", title=t), f"{op}: `title` {problem}")  # type: ignore[misc]
    assert mem.list(limit=100).items == ()


def test_ingest_refuses_an_unreadable_path_and_names_a_bad_file(mem: Memory, tmp_path: Path) -> None:
    refused(lambda: mem.ingest("x" * 100_000), "ingest: `path` `xxx")
    nul = tmp_path / "nul.md"
    nul.write_bytes(b"hello\x00world\n")
    refused(lambda: mem.ingest(nul), "ingest: `text` holds a nul character")
    assert mem.list(limit=100).items == ()


# -- two users sharing one file -------------------------------------------------------------------------


def test_another_users_memory_is_never_read_or_touched(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    with (
        open_memory(path, "workspace:w/user:alice") as alice,
        open_memory(path, "workspace:w/user:bob") as bob,
    ):
        bob.store("bob's locker code is zebra 4321", learning_kind="preference")
        bob.ingest_text("# Bob\n\nbob's quokka handbook about zebra care", name="bob.md")
        alice.store("alice drinks green tea")
        bob_ids = [i.id for i in bob.list(limit=100).items]
        assert "zebra" not in alice.recall_context("zebra quokka locker code").markdown
        assert "zebra" not in alice.context_md().markdown
        tools = alice.tools()
        assert tools.call("memory_fetch", {"query": "zebra locker"})["hits"] == []
        assert tools.call("memory_get", {"ids": bob_ids})["items"] == []
        assert tools.call("memory_forget", {"ids": bob_ids})["forgotten"] == 0
        for args, field in (
            ('{"query": "zebra", "namespace": "workspace:w/user:bob"}', "namespace"),
            ('{"query": "zebra", "reach": "workspace:w"}', "reach"),
            ('{"query": "zebra", "filter": {"namespace": "workspace:w/user:bob"}}', "filter.namespace"),
        ):
            out = tools.output("memory_fetch", args)
            assert out.is_error and out.text.startswith(
                f"error: memory_fetch: `{field}` is fixed by the host"
            )
        out = tools.output("memory_fetch", '{"query": "zebra"')
        assert out.is_error and out.text == "error: memory_fetch: arguments are not valid json"
        policy = alice.tools("policy")
        assert policy.call("memory__recall", {"query": "zebra locker quokka"})["memories"] == []
        assert policy.output("memory__recall", '{"query": "zebra", "user": "bob"}').is_error
        assert sorted(i.id for i in bob.list(limit=100).items) == sorted(bob_ids)  # nothing of bob's gone


def test_forgotten_memory_leaves_no_trace_in_any_new_read(mem: Memory) -> None:
    mem.store("the vault passphrase is platypus", learning_kind="preference")
    mem.ingest_text("# Vault\n\nplatypus procedures for the vault", name="vault.md")
    assert "platypus" in mem.recall_context("vault platypus").markdown
    mem.forget([i.id for i in mem.list(limit=100).items])
    tools = mem.tools()
    assert "platypus" not in mem.recall_context("vault platypus passphrase").markdown
    assert "platypus" not in mem.context_md().markdown
    assert tools.call("memory_fetch", {"query": "platypus"})["hits"] == []
    assert "platypus" not in str(tools.call("memory_recall", {"question": "what is the vault passphrase?"}))
    assert tools.call("memory_list", {})["items"] == []


# -- two threads on one Memory ----------------------------------------------------------------------------


def test_two_threads_share_one_memory(mem: Memory) -> None:
    errors: list[BaseException] = []
    tools = mem.tools()

    def work(tag: str) -> None:
        try:
            for i in range(8):
                mem.store(f"{tag} fact number {i}")
                mem.ingest_text(f"{tag} document {i} text", name=f"{tag}.md")
                tools.call("memory_store", {"learning": {"text": f"{tag} tool fact {i}"}})
                mem.recall_context(f"{tag} fact")
                mem.context_md()
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(t,)) for t in ("north", "south")]
    for t in threads:
        t.start()
    for t in threads:
        t.join(300)
    assert not any(t.is_alive() for t in threads) and errors == []
    texts = {i.text for i in mem.list(limit=1000).items}
    for tag in ("north", "south"):
        assert {f"{tag} fact number {i}" for i in range(8)} <= texts
        assert {f"{tag} tool fact {i}" for i in range(8)} <= texts
        assert f"{tag} document 7 text" in texts


# -- a killed process --------------------------------------------------------------------------------

_WRITER = r"""
import sys
from tinymemory import Memory
mem = Memory(sys.argv[1], namespace="team:a", embedder=None)
mem.store("alpha fact")
mem.ingest_text("the bravo document", name="bravo.md")
mem.tools().call("memory_store", {"learning": {"text": "charlie tool fact"}})
print("acknowledged", flush=True)
sys.stdin.read()
"""


@pytest.mark.sqlite_only
def test_acknowledged_writes_survive_kill_9(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    child = subprocess.Popen(
        [sys.executable, "-c", _WRITER, str(path)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "acknowledged"
    finally:
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
    with Memory(path, namespace="team:a", embedder=None) as mem:
        texts = {i.text for i in mem.list(limit=50).items}
    assert {"alpha fact", "the bravo document", "charlie tool fact"} <= texts


def test_opening_with_the_wrong_things_is_refused_by_name(tmp_path: Path) -> None:
    from tinymemory import AsyncMemory

    path = tmp_path / "m.db"
    refused(lambda: Memory(path, embedder=5), "memory: `embedder` must be an Embedder")
    refused(lambda: AsyncMemory(path, embedder=object()), "memory: `embedder` must be an Embedder")
    refused(lambda: Memory(engine="m.db"), "memory: `engine` must be a MemoryEngine")  # type: ignore[arg-type]
    refused(lambda: Memory(path, bogus=1), "memory: `bogus` is not a known argument")  # type: ignore[call-arg]
    refused(lambda: Memory(path, "ns:x"), "memory: takes 1 positional argument")  # type: ignore[misc]
