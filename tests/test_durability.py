"""Durability of the SQLite engine: many processes writing one file, and a writer killed mid-batch.

Children are separate interpreters (`python -c`) that report every acknowledged write on their stdout
pipe; the parent then reopens the file and checks that nothing acknowledged was lost and that no batch
was half written. Ids are content-derived, so the parent knows every id a child would have written.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tinymemory.api import (
    GetRequest,
    ItemKind,
    ItemMeta,
    ListRequest,
    Namespace,
    NewItem,
    content_key,
    item_id,
)
from tinymemory.engines.sqlite import SqliteEngine

BATCH = 20
WRITERS = 8
SINGLES = 10  # per writer, with store
BATCHES = 4  # per writer, with store_many, of 5 items

# Shared by the children (exec'd from source) and the parent (to compute the ids it expects).
ITEMS_SRC = """
from tinymemory.api import ItemKind, ItemMeta, Namespace, NewItem

def make_item(tag: str, n: int) -> NewItem:
    filler = " ".join(f"word{(n * 7 + k) % 97}" for k in range(40))
    return NewItem(
        ItemKind.LEARNING,
        f"{tag} item {n}: {filler}",
        ItemMeta(namespace=Namespace.parse("team:durability/agent:" + tag.split("-")[0]), tags=(tag,)),
    )
"""
namespace: dict[str, object] = {}
exec(ITEMS_SRC, namespace)
make_item = namespace["make_item"]

WRITER_SRC = (
    ITEMS_SRC
    + """
import asyncio, json, sys
from tinymemory.engines.sqlite import SqliteEngine

async def main(path: str, tag: str, singles: int, batches: int) -> None:
    engine = SqliteEngine(path, embedder=None)
    print("ready", flush=True)
    sys.stdin.readline()  # wait for "go" so every writer starts at once
    n = 0
    for _ in range(singles):
        result = await engine.store(make_item(tag, n))
        print(json.dumps([result.id]), flush=True)
        n += 1
    for _ in range(batches):
        results = await engine.store_many([make_item(tag, n + k) for k in range(5)])
        print(json.dumps([r.id for r in results]), flush=True)
        n += 5
    await engine.close()

asyncio.run(main(sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])))
"""
)

LOOPER_SRC = (
    ITEMS_SRC
    + """
import asyncio, json, sys
from tinymemory.engines.sqlite import SqliteEngine

async def main(path: str, tag: str, size: int) -> None:
    engine = SqliteEngine(path, embedder=None)
    batch = 0
    while True:
        results = await engine.store_many([make_item(tag, batch * size + k) for k in range(size)])
        print(json.dumps({"batch": batch, "ids": [r.id for r in results]}), flush=True)
        batch += 1

asyncio.run(main(sys.argv[1], sys.argv[2], int(sys.argv[3])))
"""
)


def _expected_id(tag: str, n: int) -> str:
    item = make_item(tag, n)  # type: ignore[operator]
    assert isinstance(item, NewItem)
    return item_id(content_key(item))


def _spawn(src: str, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", src, *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


async def _present(path: Path, ids: list[str]) -> set[str]:
    engine = SqliteEngine(str(path), embedder=None)
    try:
        found: set[str] = set()
        for start in range(0, len(ids), 500):
            result = await engine.get(GetRequest(ids=tuple(ids[start : start + 500])))
            found.update(i.id for i in result.items)
        return found
    finally:
        await engine.close()


def _integrity(path: Path) -> str:
    with sqlite3.connect(path) as conn:
        row = conn.execute("PRAGMA integrity_check").fetchone()
    return str(row[0])


async def test_concurrent_writers_lose_nothing(tmp_path: Path) -> None:
    path = tmp_path / "shared.db"
    tags = [f"w{i}" for i in range(WRITERS)]
    children = [_spawn(WRITER_SRC, str(path), tag, str(SINGLES), str(BATCHES)) for tag in tags]
    try:
        for child in children:
            assert child.stdout is not None
            line = child.stdout.readline()
            assert line.strip() == "ready", child.stderr.read() if child.stderr else line
        for child in children:
            assert child.stdin is not None
            child.stdin.write("go\n")
            child.stdin.flush()
        acknowledged: dict[str, list[str]] = {}
        for tag, child in zip(tags, children, strict=True):
            out, err = child.communicate(timeout=60)
            assert child.returncode == 0, err
            acknowledged[tag] = [i for line in out.splitlines() for i in json.loads(line)]
    finally:
        for child in children:
            if child.poll() is None:
                child.kill()
                child.wait()

    per_writer = SINGLES + 5 * BATCHES
    for tag, got in acknowledged.items():
        assert got == [_expected_id(tag, n) for n in range(per_writer)], f"{tag} acknowledged other ids"
    every = [i for got in acknowledged.values() for i in got]
    assert len(set(every)) == WRITERS * per_writer
    assert await _present(path, every) == set(every), "an acknowledged write is missing"
    assert _integrity(path) == "ok"
    engine = SqliteEngine(str(path), embedder=None)
    try:
        listed = await engine.list(ListRequest(limit=1000))
        assert len(listed.items) == WRITERS * per_writer
    finally:
        await engine.close()


@pytest.mark.parametrize("kill_after", [1, 4])
async def test_a_killed_writer_leaves_whole_batches_only(tmp_path: Path, kill_after: int) -> None:
    path = tmp_path / "killed.db"
    tags = ["k0-first", "k1-second"]  # two rounds on the same file: the second reopens after a kill
    for round_no, tag in enumerate(tags):
        child = _spawn(LOOPER_SRC, str(path), tag, str(BATCH))
        acked: dict[int, list[str]] = {}
        try:
            assert child.stdout is not None
            while len(acked) < kill_after + round_no * 2:
                line = child.stdout.readline()
                if not line:
                    pytest.fail(f"writer died early: {child.stderr.read() if child.stderr else ''}")
                report = json.loads(line)
                acked[report["batch"]] = report["ids"]
            time.sleep(0.003 * (round_no + 1))  # land the kill inside a later batch's transaction
            os.kill(child.pid, signal.SIGKILL)
            child.wait(timeout=10)
            # batches reported after we stopped reading were acknowledged too
            assert child.stdout is not None
            for line in child.stdout.read().splitlines():
                if line.strip():
                    report = json.loads(line)
                    acked[report["batch"]] = report["ids"]
        finally:
            if child.poll() is None:
                child.kill()
                child.wait()
        assert child.returncode == -signal.SIGKILL

        assert _integrity(path) == "ok"
        horizon = max(acked) + 3
        expected = {b: [_expected_id(tag, b * BATCH + k) for k in range(BATCH)] for b in range(horizon)}
        for b, got in acked.items():
            assert got == expected[b]
        present = await _present(path, [i for ids in expected.values() for i in ids])
        whole = []
        for b, ids in expected.items():
            count = sum(i in present for i in ids)
            assert count in (0, BATCH), f"{tag}: batch {b} is partly written ({count} of {BATCH})"
            if count:
                whole.append(b)
        assert set(acked) <= set(whole), "an acknowledged batch is missing"
        assert whole == list(range(len(whole))), "batches were written out of order"
        assert len(whole) <= max(acked) + 2


def test_helpers_agree_with_the_children() -> None:
    """The parent's expected ids come from the same source the children run."""
    item = make_item("w0", 3)  # type: ignore[operator]
    assert isinstance(item, NewItem)
    assert item.kind is ItemKind.LEARNING
    assert item.meta == ItemMeta(namespace=Namespace.parse("team:durability/agent:w0"), tags=("w0",))
    assert _expected_id("w0", 3) != _expected_id("w1", 3) != _expected_id("w0", 4)
