"""A process that leaves without closing its store exits cleanly, whatever it was doing.

The abort this guards against: a large whole-store read starts building the HNSW graph on a daemon
thread; usearch releases the GIL while it adds rows, and an interpreter that exits with that thread
inside usearch kills it when it asks for the GIL back, which unwinds through a C++ destructor and ends
the process with SIGABRT ("terminate called without an active exception", exit 134). Each case runs in
a child process over a real file, a few times over to catch the race, and checks in the child that a
build was running when it left (else the case would prove nothing). The graph threshold is lowered in
the child (`ann.ANN_MIN_ROWS`, a module setting) so a file of a few thousand rows is "large".
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import textwrap
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

pytest.importorskip("usearch")

from test_sqlite_support import note
from tinymemory.engines.sqlite import SqliteEngine

ROWS = 8_000  # about 3 s of adds on one thread at 256 dimensions: a build is still running at exit
DIM = 256
ROUNDS = 3
HERE = Path(__file__).parent


class WideEmbedder:
    """A seeded unit vector per text, 256-d like the default embedder, so a build takes a while."""

    name = "wide-256"
    dim = DIM

    def _one(self, text: str) -> npt.NDArray[np.float32]:
        seed = int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "little")
        v = np.random.default_rng(seed).standard_normal(DIM).astype(np.float32)
        return v / np.linalg.norm(v)

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        return np.stack([self._one(t) for t in texts]) if texts else np.zeros((0, DIM), np.float32)

    def embed_query(self, text: str) -> npt.NDArray[np.float32]:
        return self._one(text)


@pytest.fixture(scope="module")
def filled(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A file of ROWS memories (no graph saved beside it), copied afresh by each case."""
    path = tmp_path_factory.mktemp("exit") / "filled.db"

    async def fill() -> None:
        async with SqliteEngine(path, embedder=WideEmbedder()) as engine:
            await engine.store_many([note(f"memory number {i} about topic {i % 97}") for i in range(ROWS)])

    asyncio.run(fill())
    return path


PRELUDE = textwrap.dedent(
    """
    import asyncio, os, signal, sys, threading, time
    sys.path.insert(0, sys.argv[2])
    from test_sqlite_exit import WideEmbedder
    from tinymemory import Memory
    from tinymemory.api import FetchMode, FetchRequest, MetaFilter, Namespace, Reach
    from tinymemory.engines.sqlite import SqliteEngine, ann

    ann.ANN_MIN_ROWS = 1_000
    db = sys.argv[1]
    EVERYTHING = Reach.subtree(Namespace.root())  # a whole-store read: the one the graph serves

    def building():
        return any(t.name == "tinymemory-hnsw" and t.is_alive() for t in threading.enumerate())

    def wait_for_build():
        deadline = time.monotonic() + 30
        while not building() and time.monotonic() < deadline:
            time.sleep(0.01)
        print("building" if building() else "no build", flush=True)
    """
)

CASES = {
    # the script: an engine, one large read, and return without close()
    "engine": """
        async def main():
            engine = SqliteEngine(db, embedder=WideEmbedder())
            await engine.fetch(FetchRequest("memory number 7", mode=FetchMode.SEMANTIC, limit=5))
        asyncio.run(main())
        wait_for_build()
    """,
    # the sync facade: its loop thread and the engine's threads are left running
    "memory": """
        mem = Memory(engine=SqliteEngine(db, embedder=WideEmbedder()), reach=EVERYTHING)
        mem.fetch("memory number 7", mode="semantic")
        wait_for_build()
    """,
    # stores in flight on another thread while the main thread returns: each one acknowledged is kept
    "store in flight": """
        mem = Memory(engine=SqliteEngine(db, embedder=WideEmbedder()), reach=EVERYTHING)
        mem.fetch("memory number 7", mode="semantic")
        acked = []
        def keep_storing():
            for i in range(10_000):
                acked.append(mem.store(f"a late memory {i}"))
        threading.Thread(target=keep_storing, daemon=True).start()
        time.sleep(0.2)
        wait_for_build()
        print("acked", len(acked), flush=True)
    """,
    # sys.exit on another thread ends that thread only; the process then leaves normally
    "sys.exit in a thread": """
        mem = Memory(engine=SqliteEngine(db, embedder=WideEmbedder()), reach=EVERYTHING)
        def read_and_exit():
            mem.fetch("memory number 7", mode="semantic")
            sys.exit(3)
        worker = threading.Thread(target=read_and_exit)
        worker.start()
        worker.join()
        wait_for_build()
    """,
    # Ctrl-C while fetches run: the interrupt ends the process, not an abort
    "interrupt mid-fetch": """
        mem = Memory(engine=SqliteEngine(db, embedder=WideEmbedder()), reach=EVERYTHING)
        mem.fetch("memory number 7", mode="semantic")
        wait_for_build()
        threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
        while True:
            mem.fetch("memory number 8")
    """,
    # Ctrl-C during a foreground build (`tinymemory db index`): it stops the build
    "interrupt build_index": """
        async def main():
            engine = SqliteEngine(db, embedder=WideEmbedder())
            threading.Timer(0.5, wait_for_build).start()
            threading.Timer(0.8, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
            await engine.build_index()
        asyncio.run(main())
    """,
}
INTERRUPTED = {"interrupt mid-fetch", "interrupt build_index"}


def run_case(case: str, db: Path) -> subprocess.CompletedProcess[str]:
    script = PRELUDE + textwrap.dedent(CASES[case])
    env = {**os.environ, "PYTHONPATH": str(HERE) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    return subprocess.run(
        [sys.executable, "-c", script, str(db), str(HERE)],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_process_that_leaves_without_close_exits_cleanly(case: str, filled: Path, tmp_path: Path) -> None:
    for attempt in range(ROUNDS):
        db = tmp_path / f"round{attempt}.db"
        shutil.copy(filled, db)
        proc = run_case(case, db)
        said = f"{case}, round {attempt}: rc {proc.returncode}\nstdout: {proc.stdout}\nstderr: {proc.stderr}"
        assert proc.returncode != -signal.SIGABRT, said
        assert "terminate" not in proc.stderr and "abort" not in proc.stderr.lower(), said
        assert "Fatal Python error" not in proc.stderr, said
        assert "building" in proc.stdout, said  # the race was there to lose
        if case in INTERRUPTED:
            # Python ends an uncaught KeyboardInterrupt by the signal itself
            assert proc.returncode == -signal.SIGINT, said
        else:
            assert proc.returncode == 0, said
        # a stopped build saves nothing: no graph, and no temporary file left behind
        assert not list(tmp_path.glob(f"{db.name}.hnsw-*")), said
        if "acked" in proc.stdout:
            acked = int(proc.stdout.split("acked")[1].split()[0])
            with contextlib.closing(sqlite3.connect(db)) as conn:
                (kept,) = conn.execute(
                    "SELECT count(*) FROM items WHERE text LIKE 'a late memory %'"
                ).fetchone()
            assert acked > 0 and kept >= acked, said
