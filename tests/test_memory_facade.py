"""The synchronous `Memory` facade over a real SQLite file."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tinymemory import InvalidRequest, Memory, Namespace, Reach


def test_the_readme_example(tmp_path: Path) -> None:
    with Memory(tmp_path / "mem.db", namespace="team:acme/agent:writer", embedder=None) as mem:
        first = mem.store("Dana prefers short paragraphs and active voice", tags=["preference"])
        mem.store("The quarterly report is due on the last Friday of June")
        hits = mem.fetch("how does Dana like her paragraphs?").hits
        assert hits[0].item.id == first.id
        assert "June" in mem.recall("When is the report due?").answer
        assert mem.store("Dana prefers short paragraphs and active voice").replayed


def test_namespaces_confine_reads_and_writes(tmp_path: Path) -> None:
    path = tmp_path / "mem.db"
    with Memory(path, namespace="team:acme/agent:a", embedder=None) as a:
        secret = a.store("agent a's private note about the budget")
    with Memory(path, namespace="team:acme", embedder=None) as team:
        shared = team.store("the team's budget is fixed for the year")
    with Memory(path, namespace="team:acme/agent:b", embedder=None) as b:
        assert [h.item.id for h in b.fetch("budget").hits] == [shared.id]
        assert b.get([secret.id]).missing == (secret.id,)
        assert b.forget([secret.id]).skipped == (secret.id,)
    auditor = Reach.subtree(Namespace.parse("team:acme"))
    with Memory(path, namespace="team:acme", reach=auditor, embedder=None) as audit:
        assert {h.item.id for h in audit.fetch("budget").hits} == {secret.id, shared.id}
        assert audit.explore("kind").total == 2


def test_host_fixed_keys_and_empty_forget_are_refused(tmp_path: Path) -> None:
    with Memory(tmp_path / "mem.db", namespace="team:x", embedder=None) as mem:
        mem.store("keep me")
        with pytest.raises(InvalidRequest, match="namespace"):
            mem.fetch("keep", namespace=Namespace.parse("team:y"))
        with pytest.raises(InvalidRequest, match="`filter`"):
            mem.forget()
        with pytest.raises(InvalidRequest, match="`kind`"):
            mem.store("x", kind="memo")
        assert len(mem.list().items) == 1


async def test_works_inside_a_running_event_loop(tmp_path: Path) -> None:
    """Notebooks run a loop already; the facade drives its own on a private thread."""
    assert asyncio.get_running_loop() is not None
    with Memory(tmp_path / "mem.db", embedder=None) as mem:
        stored = mem.store("inside a loop")
        assert mem.get([stored.id]).items[0].text == "inside a loop"


def test_closed_memory_refuses_calls(tmp_path: Path) -> None:
    mem = Memory(tmp_path / "mem.db", embedder=None)
    mem.close()
    with pytest.raises(RuntimeError, match="closed"):
        mem.list()
