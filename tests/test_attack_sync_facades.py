"""The sync facades (`tinymemory.Memory`, the mem0-compatible `Memory`) closed the ways real code closes
them: twice, inside their own with-block, and from another thread while a call is still running.

Real engines only (SQLite in tmp_path, PostgreSQL under TINYMEMORY_TEST_ENGINE=postgres). A call in
flight when another thread closes the Memory finishes and its write stays; every call after close
raises the library's RuntimeError; closing again does nothing.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from engines import make_engine
from test_sqlite_support import HashEmbedder
from tinymemory import Memory
from tinymemory.compat.mem0 import Memory as Mem0Memory

WAIT = 60  # seconds: a bound on a hang, never a timing being measured


class GateEmbedder(HashEmbedder):
    """Embeds like HashEmbedder, but the first document batch waits at a gate the test opens, so a write
    is held in flight (the engine embeds on a worker thread, leaving the loop free)."""

    def __init__(self) -> None:
        super().__init__()
        self.entered = threading.Event()
        self.release = threading.Event()

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        if texts and not self.entered.is_set():
            self.entered.set()
            assert self.release.wait(WAIT), "the test never opened the gate"
        return super().embed(texts)


@dataclass(frozen=True)
class Facade:
    """One sync facade: how to open it over an engine, write one text, and read."""

    open: Callable[[Any], Any]
    write: Callable[[Any, str], Any]
    read: Callable[[Any], list[str]]


NATIVE = Facade(
    open=lambda engine: Memory(engine=engine, namespace="team:acme"),
    write=lambda mem, text: mem.store(text),
    read=lambda mem: [i.text for i in mem.list(limit=50).items],
)
MEM0 = Facade(
    open=lambda engine: Mem0Memory(engine=engine),
    write=lambda mem, text: mem.add(text, user_id="u", infer=False),
    read=lambda mem: [r["memory"] for r in mem.get_all(filters={"user_id": "u"})["results"]],
)


@pytest.fixture(params=[NATIVE, MEM0], ids=["memory", "mem0"])
def facade(request: pytest.FixtureRequest) -> Facade:
    return request.param  # type: ignore[no-any-return]


def test_closing_twice_and_inside_the_with_block_is_fine(tmp_path: Path, facade: Facade) -> None:
    with facade.open(make_engine(tmp_path / "mem.db", embedder=None)) as mem:
        facade.write(mem, "written before closing")
        mem.close()
        mem.close()
    with pytest.raises(RuntimeError, match="closed"):
        facade.read(mem)
    with facade.open(make_engine(tmp_path / "mem.db", embedder=None)) as again:
        assert facade.read(again) == ["written before closing"]


def test_a_tool_set_dies_with_its_memory(tmp_path: Path) -> None:
    mem = NATIVE.open(make_engine(tmp_path / "mem.db", embedder=None))
    tools = mem.tools()
    tools.call("memory_store", {"learning": {"text": "a fact from a tool"}})
    mem.close()
    assert tools.names()  # no I/O: still answers
    with pytest.raises(RuntimeError, match="closed"):
        tools.call("memory_list", {})


def test_closing_from_another_thread_lets_the_running_call_finish(tmp_path: Path, facade: Facade) -> None:
    gate = GateEmbedder()
    mem = facade.open(make_engine(tmp_path / "mem.db", embedder=gate))
    outcome: dict[str, Any] = {}

    def write() -> None:
        try:
            outcome["result"] = facade.write(mem, "acknowledged while closing")
        except BaseException as exc:
            outcome["error"] = exc

    writer = threading.Thread(target=write)
    writer.start()
    assert gate.entered.wait(WAIT), "the write never reached the embedder"
    closer = threading.Thread(target=mem.close)
    closer.start()
    refused = None
    for _ in range(100_000):  # until the close has begun: from then on, new calls are refused
        try:
            facade.read(mem)
        except RuntimeError as exc:
            refused = exc
            break
    assert refused is not None and "closed" in str(refused)
    gate.release.set()
    writer.join(WAIT)
    closer.join(WAIT)
    assert not writer.is_alive() and not closer.is_alive(), "hang"
    assert "error" not in outcome, outcome.get("error")
    with pytest.raises(RuntimeError, match="closed"):
        facade.write(mem, "after close")
    with facade.open(make_engine(tmp_path / "mem.db", embedder=HashEmbedder())) as again:
        assert facade.read(again) == ["acknowledged while closing"]
