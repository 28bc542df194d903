"""A damaged SQLite file, and a damaged HNSW graph file beside it: every operation either works or raises
a tinymemory error that says the file is damaged; never another exception, a traceback or a crash.

The store file is overwritten at seeded offsets (1 byte, 50 bytes, a 4 KB page) in the header, in the
pages that hold the schema's SQL, and anywhere at all. A write acknowledged on a damaged file must be
read back, or its read must fail loudly: never silently missing.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import shutil
import subprocess
import sys
import textwrap
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from test_sqlite_support import HashEmbedder, note
from tinymemory import Memory
from tinymemory.api import (
    FetchMode,
    FetchRequest,
    GetRequest,
    ListRequest,
    MetaFilter,
    TinyMemoryError,
    Unavailable,
)
from tinymemory.engines.sqlite import SqliteEngine

PAGE = 4096
SIZES = (1, 50, PAGE)
SEEDS = 200
DAMAGED = "the database file is damaged"


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """The bytes of a store with a few hundred items, checkpointed into the one file. Times are fixed,
    so a seed damages the same thing at every run (one statistics page follows the set order of words,
    which varies with the interpreter's hash seed)."""
    path = tmp_path_factory.mktemp("pristine") / "m.db"
    start = datetime(2025, 3, 1, tzinfo=UTC)

    async def fill() -> None:
        async with SqliteEngine(path, embedder=HashEmbedder()) as engine:
            await engine.store_many(
                [
                    note(
                        f"fact {i} about coffee, tea and lanterns {i * 7}",
                        tags=(f"t{i % 4}",),
                        observed=start + timedelta(minutes=i),
                    )
                    for i in range(300)
                ]
            )

    asyncio.run(fill())
    assert not Path(f"{path}-wal").exists()  # the last close checkpointed: every byte is in the file
    return path.read_bytes()


def schema_offsets(data: bytes) -> list[int]:
    """Where the schema's CREATE statements start (the pages SQLite parses at open)."""
    found, at = [], data.find(b"CREATE ")
    while at >= 0:
        found.append(at)
        at = data.find(b"CREATE ", at + 1)
    assert len(found) > 10
    return found


def damage(data: bytes, seed: int) -> tuple[bytes, str]:
    """`data` with one seeded region overwritten, and where (for the failure message)."""
    rng = random.Random(seed)
    size = SIZES[seed % 3]
    where = ("header", "schema SQL", "schema page", "anywhere")[(seed // 3) % 4]
    if where == "header":
        at = rng.randrange(0, 100)
    elif where == "schema SQL":
        at = rng.choice(schema_offsets(data)) + rng.randrange(0, 300)
    elif where == "schema page":
        at = rng.choice(schema_offsets(data)) // PAGE * PAGE + rng.randrange(0, PAGE)
    else:
        at = rng.randrange(0, len(data))
    # inside SQL text, one byte that is not UTF-8 is what SQLite's error message quotes back
    blob = bytes([rng.randrange(0x80, 0x100)]) if size == 1 and where == "schema SQL" else rng.randbytes(size)
    out = bytearray(data)
    out[at : at + size] = blob[: len(data) - at]
    return bytes(out), f"seed {seed}: {size} bytes at {at} ({where})"


def refused(exc: TinyMemoryError, op: str) -> str:
    """A refusal names the operation (or the engine's opening of the file, which the first operation
    does); for a damaged file, `damaged` (the kind is then Unavailable)."""
    assert exc.message.startswith((f"{op}: ", "open: ")), exc.message
    if DAMAGED in exc.message:
        assert isinstance(exc, Unavailable)
        return "damaged"
    return exc.kind


async def engine_ops(path: Path, seed: int) -> dict[str, str]:
    """Open, read, write, list, export and close; each outcome is "ok" or the error's kind."""
    outcomes: dict[str, str] = {}
    stored: list[str] = []
    engine = SqliteEngine(path, embedder=HashEmbedder())

    async def export() -> None:
        async for _ in engine.export_records(vectors=True):
            pass

    async def store() -> None:
        stored.append((await engine.store(note(f"a new fact number {seed}"))).id)

    steps = {
        "fetch": lambda: engine.fetch(FetchRequest("coffee lanterns", mode=FetchMode.LEXICAL)),
        "hybrid": lambda: engine.fetch(FetchRequest("coffee tea", mode=FetchMode.HYBRID)),
        "store": store,
        "list": lambda: engine.list(ListRequest(MetaFilter(), limit=100)),
        "export": export,
    }
    try:
        for name, step in steps.items():
            try:
                await step()
            except TinyMemoryError as exc:
                outcomes[name] = refused(exc, "fetch" if name == "hybrid" else name)
            else:
                outcomes[name] = "ok"
    finally:
        await engine.close()
    if stored:  # acknowledged: a fresh engine reads it back, or says the file is damaged
        async with SqliteEngine(path, embedder=HashEmbedder()) as again:
            try:
                got = await again.get(GetRequest(tuple(stored)))
            except TinyMemoryError as exc:
                assert refused(exc, "get") == "damaged"
            else:
                assert [i.id for i in got.items] == stored, "an acknowledged store went missing"
    return outcomes


def facade_ops(path: Path) -> None:
    """The same through the synchronous facade (no embedder: the lexical path)."""
    with Memory(path, embedder=None) as mem:
        for op, call in (
            ("fetch", lambda: mem.fetch("coffee")),
            ("store", lambda: mem.store("one more fact about tea")),
            ("list", lambda: mem.list(limit=50)),
        ):
            try:
                call()
            except TinyMemoryError as exc:
                refused(exc, op)


def fresh_copy(path: Path, data: bytes) -> None:
    for suffix in ("-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    path.write_bytes(data)


def open_files(path: Path) -> list[str]:
    """This process's open descriptors of `path` and its WAL and shared-memory files (Linux's /proc)."""
    fds = Path("/proc/self/fd")
    if not fds.is_dir():
        return []
    found = []
    for fd in fds.iterdir():
        try:
            target = os.readlink(fd)
        except OSError:  # closed meanwhile (the listing's own descriptor)
            continue
        if target.startswith(str(path)):
            found.append(target)
    return found


def test_every_damaged_file_works_or_says_it_is_damaged(pristine: bytes, tmp_path: Path) -> None:
    path = tmp_path / "damaged.db"
    tally: dict[str, int] = {}
    for seed in range(SEEDS):
        data, where = damage(pristine, seed)
        fresh_copy(path, data)
        try:
            outcomes = asyncio.run(engine_ops(path, seed))
            if seed % 5 == 0:
                fresh_copy(path, data)
                facade_ops(path)
        except Exception as exc:  # the message says which corruption; pytest shows the traceback
            raise AssertionError(f"{where}: {type(exc).__name__}: {exc}") from exc
        # closed means closed, failed reads included: a cursor the failure left alive kept its
        # connection's descriptors open until a garbage collection, whose late close then checkpointed
        # the old WAL into the good copy put back below (a CI run saw that copy reported damaged)
        assert open_files(path) == [], f"{where}: {open_files(path)}"
        for outcome in outcomes.values():
            tally[outcome] = tally.get(outcome, 0) + 1
    # a good copy put back in place serves at once: no connection to the damaged file was left open
    fresh_copy(path, pristine)
    assert set(asyncio.run(engine_ops(path, -1)).values()) == {"ok"}
    print(tally)
    # the corruptions reach both kinds of file: ones SQLite refuses and ones that still serve
    assert tally.get("damaged", 0) > 100 and tally.get("ok", 0) > 100, tally


def test_a_schema_entry_with_bytes_that_are_not_utf8_is_reported_as_damage(
    pristine: bytes, tmp_path: Path
) -> None:
    """SQLite quotes the damaged SQL in its message; CPython cannot decode it (UnicodeDecodeError)."""
    data = bytearray(pristine)
    at = data.find(b"PRIMARY KEY AUTOINCREMENT")
    assert at > 0
    data[at + 8] = 0xFF  # PRIMARY K\xffY
    path = tmp_path / "schema.db"
    path.write_bytes(bytes(data))
    with Memory(path, embedder=None) as mem, pytest.raises(Unavailable) as caught:
        mem.fetch("coffee")
    assert caught.value.message.startswith("fetch: the database file is damaged (malformed database schema")
    assert "\ufffd" not in caught.value.message and ".recover" in caught.value.message


def test_a_file_that_is_not_a_database_is_reported_as_damage(tmp_path: Path) -> None:
    path = tmp_path / "not.db"
    path.write_bytes(b"these bytes were never a database " * 200)
    with Memory(path, embedder=None) as mem, pytest.raises(Unavailable) as caught:
        mem.store("anything")
    assert caught.value.message.startswith("store: the database file is damaged (file is not a database)")


# the operation each command's errors name (`db index` runs the engine's build_index)
OPERATION = {
    ("fetch",): "fetch",
    ("store",): "store",
    ("export",): "export",
    ("db", "status"): "db status",
    ("db", "upgrade"): "db upgrade",
    ("db", "index"): "db index",  # the command, as every other db command names itself,
}


def cli(*args: str, db: Path) -> subprocess.CompletedProcess[str]:
    lexical = ["--no-embedder"] if args[0] in ("fetch", "store") else []
    return subprocess.run(
        [sys.executable, "-m", "tinymemory", *args, "--db", str(db), *lexical],
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.parametrize("seed", [3, 4, 7, 15, 16, 27])
def test_the_cli_on_a_damaged_file_answers_with_its_own_error(
    pristine: bytes, tmp_path: Path, seed: int
) -> None:
    data, where = damage(pristine, seed)
    path = tmp_path / "cli.db"
    commands = (
        ("fetch", "coffee"),
        ("store", "a fact"),
        ("export",),
        ("db", "status"),
        ("db", "upgrade"),
        ("db", "index"),
    )
    for args in commands:
        fresh_copy(path, data)
        proc = cli(*args, db=path)
        assert proc.returncode in (0, 2), (where, args, proc.returncode, proc.stderr)  # never a signal
        assert "Traceback" not in proc.stderr and '"internal"' not in proc.stderr, (where, args, proc.stderr)
        if proc.returncode == 2:
            error = json.loads(proc.stderr.strip().splitlines()[-1])
            assert error["message"].startswith(OPERATION[args[:2] if args[0] == "db" else args[:1]] + ": ")


def test_the_cli_says_which_command_met_the_damaged_schema(pristine: bytes, tmp_path: Path) -> None:
    data = bytearray(pristine)
    data[data.find(b"PRIMARY KEY AUTOINCREMENT") + 8] = 0xFF
    path = tmp_path / "cli.db"
    path.write_bytes(bytes(data))
    proc = cli("fetch", "coffee", db=path)
    assert proc.returncode == 2, proc.stderr
    error = json.loads(proc.stderr.strip().splitlines()[-1])
    assert error["error"] == "unavailable"
    assert error["message"].startswith("fetch: the database file is damaged"), error


# -- the HNSW graph saved beside the file ---------------------------------------------------------------

GRAPH_READER = textwrap.dedent(
    """
    import asyncio, random, sys
    from pathlib import Path
    sys.path.insert(0, sys.argv[2])
    from test_sqlite_ann import SeededEmbedder
    from tinymemory.api import FetchMode, FetchRequest
    from tinymemory.engines.sqlite import SqliteEngine, ann, search

    ann.ANN_MIN_ROWS = 200
    db, graph = sys.argv[1], Path(sys.argv[3])
    whole = graph.read_bytes()

    async def read():
        # the first read's plan: a refused graph is rebuilt meanwhile, and later reads may walk it
        async with SqliteEngine(db, embedder=SeededEmbedder()) as engine:
            plans = []
            for q in range(6):
                await engine.fetch(FetchRequest(f"memory {q}", mode=FetchMode.SEMANTIC, limit=10))
                plans.append(engine.last_semantic_plan)
            return plans[0]

    for seed in range(int(sys.argv[4])):
        rng = random.Random(seed)
        size = (1, 50, 4096)[seed % 3]
        at = rng.randrange(0, len(whole) - 512)  # the usearch part: its footer is checked on its own
        damaged = bytearray(whole)
        damaged[at : at + size] = rng.randbytes(size)
        graph.write_bytes(bytes(damaged))
        print(seed, size, at, end=" ", flush=True)  # the last line printed names a crash's corruption
        print(asyncio.run(read()).value, flush=True)
    graph.write_bytes(whole)
    print("whole", asyncio.run(read()).value, flush=True)
    """
)


def test_a_damaged_graph_file_is_refused_not_walked(tmp_path: Path) -> None:
    """usearch maps what it is given: a damaged graph it walks can kill the process (SIGSEGV), so the
    engine checksums the file before it maps it. Run in a child process, which a crash cannot take
    the test run down with."""
    pytest.importorskip("usearch")
    from test_sqlite_ann import SeededEmbedder
    from tinymemory.engines.sqlite import ann, search

    path = tmp_path / "m.db"

    async def fill_and_build() -> Path:
        async with SqliteEngine(path, embedder=SeededEmbedder()) as engine:
            await engine.store_many([note(f"memory {i}") for i in range(600)])
            built = await engine.build_index()
        assert built.path is not None
        return built.path

    graph = asyncio.run(fill_and_build())
    assert graph.exists() and graph.stat().st_size > 50_000 and ann.ANN_MIN_ROWS > 600
    saved = tmp_path / "saved.graph"
    shutil.copy(graph, saved)
    here = str(Path(__file__).parent)
    env = {**os.environ, "PYTHONPATH": here + os.pathsep + os.environ.get("PYTHONPATH", "")}
    proc = subprocess.run(
        [sys.executable, "-c", GRAPH_READER, str(path), here, str(graph), "24"],
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
    )
    lines = proc.stdout.strip().splitlines()
    assert proc.returncode == 0, (proc.returncode, f"last corruption: {lines[-1:]}", proc.stderr[-2000:])
    plans = [line.split()[-1] for line in lines]
    # each damaged file refused (the exact scan serves while it is rebuilt); the whole one walked
    assert plans == [search.Plan.SCAN.value] * 24 + [search.Plan.HNSW.value], lines
