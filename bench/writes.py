"""What a write costs (issue 24, part 5): `Memory.store` against a plain durable SQLite insert on the same
file, `store_many` throughput, and where one store's time goes.

A fresh SQLite file, the default embedder, prefilled with `--prefill` synthetic memories through
`store_many`; durability "full" (the default: WAL, and every commit waits for the WAL's fsync, so an
acknowledged write survives a power cut). Then `--stores` rounds, so that the machine's load falls on
every measurement alike, each of:

- `Memory.store` of one new memory (the sync facade, as a script calls it);
- a plain insert of the same text into a table of its own in the same file, one transaction each, on a
  connection with the same settings (WAL, synchronous=FULL): the floor any durable write pays;
- `Memory.store` of a memory already stored (a replay: the same path, without the write and its
  durable commit);
- one store's parts on this thread, in order and with no hand-off between threads (validation, content
  key, embedding, the date reader, the write on a connection with the engine's settings, its commit,
  with the commit's CPU and the WAL frames it appends), and a plain insert's commit beside it.

`store_many` is timed per batch of `--batch` new memories into a second file, with the default embedder
and without one (embedder=None: the lexical index only), so the embedding's share shows; then the same
stages as a single store's, batch by batch on this thread, per item.

Last, where a store's pages go: for `--page-stores` more stores, the pages its commit appends to the WAL,
each named by the b-tree that holds it (SQLite's `dbstat`; a page no b-tree holds is on the free list).

    python bench/writes.py [--stores 400] [--batches 8] [--batch 1000] [--prefill 2000] [--page-stores 40]
                           [--no-write]

With `--beside OTHER/src`, this build and the one in OTHER/src run side by side instead: two worker
processes (each with its build's `src/` on the path), their own files built alike, sent the same rounds
of single stores (each followed by a plain durable insert) and `store_many` batches in turn, the order
swapped every round; it writes the `writes-beside` section.

    python bench/writes.py --beside /path/to/old/src [--rounds 14] [--prefill 2000] [--no-write]
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse
import asyncio
import collections
import json
import sqlite3
import statistics
import struct
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from report import machine_line, percentile, table, write_section
from scale import LOCOMO
from synthetic import sentences, vocabulary
from tinymemory import Memory
from tinymemory.api import ItemKind, ItemMeta, Namespace, NewItem, validate
from tinymemory.api.ids import content_key
from tinymemory.api.timeutil import utcnow
from tinymemory.engines.sqlite import SqliteEngine, db, store
from tinymemory.engines.versions import Pending, embed_text
from tinymemory.retrieval.temporal import with_event_range
from tinymemory.retrieval.text import Analyzer

NAMESPACE = "team:acme/user:u0"
TARGET_RATIO = 2.0  # Memory.store p50 over a plain durable insert
TARGET_RATE = 5_000  # store_many items per second
# one store's parts, in order (`staged_parts`), then what its commit costs; and a plain insert's
PARTS = (
    "validation",
    "content key",
    "embedding",
    "date reader",
    "write",
    "commit",
    "all",
    "commit CPU",
    "WAL frames",
)
PLAIN = ("plain commit", "plain CPU", "plain WAL frames")


def p50_p95(values: list[float]) -> str:
    return f"{statistics.median(values):.2f} / {percentile(values, 95):.2f}"


def plain_connection(path: Path) -> sqlite3.Connection:
    """A connection with the engine's durability (WAL, synchronous=FULL) and a table of its own."""
    plain = sqlite3.connect(path, isolation_level=None)
    plain.execute("PRAGMA journal_mode = WAL")
    plain.execute("PRAGMA synchronous = FULL")
    plain.execute("CREATE TABLE IF NOT EXISTS bench_plain (id INTEGER PRIMARY KEY, body TEXT)")
    return plain


def plain_insert(plain: sqlite3.Connection, text: str) -> None:
    plain.execute("BEGIN")
    plain.execute("INSERT INTO bench_plain (body) VALUES (?)", (f"plain {text}",))
    plain.execute("COMMIT")


def single_writes(
    path: Path, texts: list[str], prefill: int, stores: int
) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    """Rounds on one file, each of: Memory.store of a new memory, a plain insert, Memory.store of a memory
    already stored (a replay: the same path without the write and its durable commit), in ms; then one
    store's parts on this thread, in order, with no hand-off between threads (µs): the write on a
    connection with the engine's settings (db.connect), its commit timed apart (wall and CPU) with the
    WAL frames it appends, and a plain insert's commit beside it."""
    ns = Namespace.parse(NAMESPACE)
    mem = Memory(path, namespace=NAMESPACE)
    pair: dict[str, list[float]] = {"store": [], "plain": [], "replay": []}
    parts: dict[str, list[float]] = {n: [] for n in PARTS + PLAIN}
    try:
        mem.store_many(texts[:prefill])
        engine = mem.engine
        assert isinstance(engine, SqliteEngine) and engine.embedder is not None
        embedder, analyzer = engine.embedder, engine.analyzer
        space = store.VectorSpace(embedder.name, embedder.dim, embedder.embed)
        plain = plain_connection(path)
        conn = db.connect(str(path))
        try:
            for i in range(stores):
                new, staged = texts[prefill + 2 * i], texts[prefill + 2 * i + 1]
                t = time.perf_counter()
                mem.store(new)
                pair["store"].append((time.perf_counter() - t) * 1000)
                t = time.perf_counter()
                plain_insert(plain, new)
                pair["plain"].append((time.perf_counter() - t) * 1000)
                t = time.perf_counter()
                mem.store(texts[i % prefill])
                pair["replay"].append((time.perf_counter() - t) * 1000)
                staged_parts(conn, plain, path, staged, ns, analyzer, space, parts)
        finally:
            conn.close()
            plain.close()
    finally:
        mem.close()
    return pair, parts


def staged_parts(
    conn: sqlite3.Connection,
    plain: sqlite3.Connection,
    path: Path,
    text: str,
    ns: Namespace,
    analyzer: Analyzer,
    space: store.VectorSpace,
    out: dict[str, list[float]],
) -> None:
    """One store's parts, as `StorageEngine.store` and the writer thread run them, on this thread."""
    marks = [time.perf_counter()]
    item = validate.check_new_item("store", NewItem(ItemKind.CONVERSATION, text, ItemMeta(namespace=ns)))
    marks.append(time.perf_counter())
    key = content_key(item)
    marks.append(time.perf_counter())
    vector = space.embed([embed_text(item)])[0]  # the default embedder embeds one text on the loop
    marks.append(time.perf_counter())
    dated = with_event_range(item)
    marks.append(time.perf_counter())
    frames = wal_frames(path)
    db.begin_write(conn)
    store.write_items(conn, [Pending(dated, key, vector)], analyzer, space, utcnow())
    marks.append(time.perf_counter())
    cpu = time.thread_time()
    conn.execute("COMMIT")
    marks.append(time.perf_counter())
    out["commit CPU"].append((time.thread_time() - cpu) * 1e6)
    appended = wal_frames(path) - frames
    for i, name in enumerate(PARTS[:6]):
        out[name].append((marks[i + 1] - marks[i]) * 1e6)
    out["all"].append((marks[-1] - marks[0]) * 1e6)
    frames = wal_frames(path)
    t, cpu = time.perf_counter(), time.thread_time()
    plain_insert(plain, f"staged {text}")
    out["plain commit"].append((time.perf_counter() - t) * 1e6)
    out["plain CPU"].append((time.thread_time() - cpu) * 1e6)
    plain_appended = wal_frames(path) - frames
    if appended > 0 and plain_appended > 0:  # neither started the WAL over
        out["WAL frames"].append(appended)
        out["plain WAL frames"].append(plain_appended)


def wal_frames(path: Path) -> int:
    """Frames in the file's WAL, from the WAL-index header (`mxFrame`, a native u32 at byte 16 of the
    -shm file); it falls when a writer starts the WAL over after a checkpoint."""
    with open(f"{path}-shm", "rb") as shm:
        return int(struct.unpack("=I", shm.read(20)[16:20])[0])


BATCH_PARTS = ("validation", "content key", "embedding", "date reader", "write", "commit")


def batch_parts(path: Path, texts: list[str], batch: int, batches: int) -> dict[str, list[float]]:
    """A `store_many`'s stages, as `StorageEngine._store` and the writer thread run them, on this thread
    with no overlap: µs per item of each batch of `batch` new memories (one embedding call per batch)."""
    out: dict[str, list[float]] = {n: [] for n in BATCH_PARTS}
    space, analyzer = engine_parts(path)
    conn = db.connect(str(path))
    try:
        for b in range(batches):
            got = stage_batch(conn, space, analyzer, texts[b * batch : (b + 1) * batch], time.perf_counter)
            for name in BATCH_PARTS:
                out[name].append(got[name])
    finally:
        conn.close()
    return out


def engine_parts(path: Path) -> tuple[store.VectorSpace, Analyzer]:
    """The default embedder's vector space and the analyzer an engine on `path` writes with."""
    mem = Memory(path, namespace=NAMESPACE)  # opened for its embedder and analyzer
    try:
        engine = mem.engine
        assert isinstance(engine, SqliteEngine) and engine.embedder is not None
        embedder, analyzer = engine.embedder, engine.analyzer
    finally:
        mem.close()
    return store.VectorSpace(embedder.name, embedder.dim, embedder.embed), analyzer


def stage_batch(
    conn: sqlite3.Connection,
    space: store.VectorSpace,
    analyzer: Analyzer,
    chunk: list[str],
    clock: Callable[[], float],
) -> dict[str, float]:
    """One batch of new memories through `store_many`'s stages in turn on this thread, each timed by
    `clock`: µs per item by stage."""
    ns = Namespace.parse(NAMESPACE)
    marks = [clock()]
    items = validate.check_new_items(
        "store_many", [NewItem(ItemKind.CONVERSATION, t, ItemMeta(namespace=ns)) for t in chunk]
    )
    marks.append(clock())
    keys = [content_key(it) for it in items]
    marks.append(clock())
    vectors = space.embed([embed_text(it) for it in items])
    marks.append(clock())
    dated = [with_event_range(it) for it in items]
    marks.append(clock())
    db.begin_write(conn)
    pending = [Pending(it, k, v) for it, k, v in zip(dated, keys, vectors, strict=True)]
    store.write_items(conn, pending, analyzer, space, utcnow())
    marks.append(clock())
    conn.execute("COMMIT")
    marks.append(clock())
    return {name: (marks[i + 1] - marks[i]) * 1e6 / len(chunk) for i, name in enumerate(BATCH_PARTS)}


def store_pages(path: Path, texts: list[str]) -> tuple[dict[str, float], int]:
    """The pages each `Memory.store` of `texts` appends to the WAL, by the b-tree holding each (mean per
    store; a page no b-tree holds is on the free list), and how many stores were counted (a store whose
    commit started the WAL over is not)."""
    counts: collections.Counter[str] = collections.Counter()
    counted = 0
    mem = Memory(path, namespace=NAMESPACE)
    try:
        mem.store(texts[0])  # uncounted: it opens the WAL (closing the file had removed it)
        for text in texts[1:]:
            before = wal_frames(path)
            mem.store(text)
            pages = wal_pages(path)
            if len(pages) <= before:
                continue
            new = pages[before:]
            with sqlite3.connect(path) as look:
                owner = dict(look.execute("SELECT pageno, name FROM dbstat WHERE aggregate = FALSE"))
            counts.update(owner.get(page, "(free list)") for page in new)
            counted += 1
    finally:
        mem.close()
    return {name: n / max(counted, 1) for name, n in counts.items()}, counted


def wal_pages(path: Path) -> list[int]:
    """The page number of each valid frame of the file's WAL, in order (frame headers; `wal_frames` says
    how many are valid)."""
    valid = wal_frames(path)
    with open(f"{path}-wal", "rb") as wal:
        header = wal.read(32)
        size = int(struct.unpack(">I", header[8:12])[0])
        pages = []
        for i in range(valid):
            wal.seek(32 + i * (24 + size))
            pages.append(int(struct.unpack(">I", wal.read(4))[0]))
    return pages


async def batch_rates(
    path: Path, texts: list[str], batch: int, batches: int, embedder: str | None
) -> tuple[list[float], list[float]]:
    """Items per second of each `store_many` batch of new memories, by the wall clock and by the process's
    CPU time (every thread's: what the batch would reach with the cores to itself, its syncs aside)."""
    ns = Namespace.parse(NAMESPACE)
    rates: list[float] = []
    cpu_rates: list[float] = []
    async with SqliteEngine(path, embedder=embedder) as engine:
        await engine.store_many(
            [NewItem(ItemKind.CONVERSATION, t, ItemMeta(namespace=ns)) for t in texts[:batch]]
        )
        for b in range(1, batches + 1):
            items = [
                NewItem(ItemKind.CONVERSATION, t, ItemMeta(namespace=ns))
                for t in texts[b * batch : (b + 1) * batch]
            ]
            t, cpu = time.perf_counter(), time.process_time()
            await engine.store_many(items)
            rates.append(len(items) / (time.perf_counter() - t))
            cpu_rates.append(len(items) / (time.process_time() - cpu))
    return rates, cpu_rates


def render(
    args: argparse.Namespace,
    machine: str,
    pair: dict[str, list[float]],
    rates: dict[str, tuple[list[float], list[float]]],
    parts: dict[str, list[float]],
    stages: dict[str, list[float]],
    pages: tuple[dict[str, float], int] | None,
    load_end: float,
) -> str:
    med = {k: statistics.median(v) for k, v in pair.items()}
    part = {k: statistics.median(v) for k, v in parts.items()}
    ratio = med["store"] / med["plain"]
    paired = statistics.median(s / p for s, p in zip(pair["store"], pair["plain"], strict=True))
    budget = TARGET_RATIO * med["plain"] * 1000  # µs
    before_commit = sum(part[k] for k in PARTS[:5])
    staged_all = sum(statistics.median(v) for v in stages.values())
    prepare = sum(part[k] for k in PARTS[:4])
    lines = [
        "## Writes (`bench/writes.py`)",
        "",
        f"{machine}; 1-min load at the end: {load_end:.2f}. A fresh SQLite file, the default embedder, "
        f'prefilled with {args.prefill:,} synthetic memories; durability "full", the default (WAL, every '
        "commit waits for the WAL's fsync: an acknowledged write survives a power cut). "
        f"{args.stores} rounds of: `Memory.store` of a new memory (the sync facade, as a script calls "
        "it); a plain insert of the same text into a table of its own in the same file, one transaction "
        "each, on a connection with the same settings (WAL, synchronous=FULL); `Memory.store` of a memory "
        "already stored (a replay: the same path without the write and its durable commit). Milliseconds, "
        "p50 / p95.",
        "",
        table(
            ["write", "ms (p50 / p95)"],
            [
                ["`Memory.store`, a new memory", p50_p95(pair["store"])],
                ["plain durable insert", p50_p95(pair["plain"])],
                ["`Memory.store`, a replay", p50_p95(pair["replay"])],
            ],
        ),
        "",
        f"`Memory.store` / plain insert: {ratio:.2f}x by their p50s, {paired:.2f}x the median of the paired "
        f"ratios (target at most {TARGET_RATIO:.0f}x: **{'met' if ratio <= TARGET_RATIO else 'not met'}**).",
        "",
        f"`store_many`, {args.batches} batches of {args.batch:,} new memories each into a fresh file "
        "(after one untimed batch), items per second by the wall clock, and by the process's CPU time (all "
        "its threads: what the batches would reach with the cores to themselves, syncs aside):",
        "",
        table(
            ["embedder", "items/s (median)", "slowest batch", "items/s by CPU (median)"],
            [
                [k, f"{statistics.median(w):,.0f}", f"{min(w):,.0f}", f"{statistics.median(c):,.0f}"]
                for k, (w, c) in rates.items()
            ],
        ),
        "",
        f"Target at least {TARGET_RATE:,} items/s with the default embedder: "
        f"**{'met' if statistics.median(rates['default'][0]) >= TARGET_RATE else 'not met'}**.",
        "",
        "Where one store's time goes: its parts in order on one thread, with no hand-off between threads "
        "(the write on a connection with the engine's settings, its commit timed apart), and a plain "
        f"insert's commit beside each; p50 over {args.stores} new memories, microseconds unless named:",
        "",
        table(
            ["part", "p50"],
            [[k, f"{part[k]:,.0f}"] for k in PARTS]
            + [[k, f"{part[k]:,.0f}"] for k in PLAIN]
            + [
                [
                    "the facade's own (`Memory.store` p50 - all)",
                    f"{med['store'] * 1000 - part['all']:,.0f}",
                ]
            ],
        ),
        "",
        f"What bounds it: at {TARGET_RATIO:.0f}x, a store has {budget:,.0f} µs. Its work before the commit "
        f"(validation to write) takes {before_commit:,.0f} µs, of which {prepare:,.0f} µs before any SQL; "
        f"its commit {part['commit']:,.0f} µs, against a plain insert's {part['plain commit']:,.0f} µs "
        f"({part['commit CPU']:,.0f} µs of CPU against {part['plain CPU']:,.0f}, writing "
        f"{part['WAL frames']:.0f} WAL frames against {part['plain WAL frames']:.0f}); and the sync facade's "
        "own work the rest (on SQLite a store runs on the caller's thread: its coroutine on a private "
        "loop of that thread, its flush under the writer's lock, with no hand-off between threads).",
        "",
        f"`store_many`'s stages, as the engine runs them but one after another on one thread (the engine "
        f"embeds on a worker thread while the loop reads the dates), {args.batches} batches of "
        f"{args.batch:,} new memories into the default embedder's file after its timed batches; µs per "
        "item, median over batches:",
        "",
        table(
            ["stage", "µs per item"],
            [[k, f"{statistics.median(v):,.1f}"] for k, v in stages.items()]
            + [
                [
                    "all (items/s on one thread)",
                    f"{staged_all:,.1f} ({1e6 / staged_all:,.0f}/s)",
                ]
            ],
        ),
    ]
    if pages is not None:
        by_tree, counted = pages
        total = sum(by_tree.values())
        lines += [
            "",
            f"Where one store's pages go: the WAL frames the commits of {counted} more `Memory.store` calls "
            "appended, each named by the b-tree holding its page (SQLite's `dbstat`; `(free list)`: a page "
            "no b-tree holds, freed by a b-tree and zeroed by `secure_delete`), mean per store:",
            "",
            table(
                ["b-tree", "pages per store"],
                [
                    [f"`{k}`", f"{v:.1f}"]
                    for k, v in sorted(by_tree.items(), key=lambda kv: -kv[1])
                    if v >= 0.05
                ]
                + [["all", f"{total:.1f}"]],
            ),
        ]
    return "\n".join(lines) + "\n"


# -- this build beside another (`--beside SRC`): two worker processes, one per build, sent the same work ---

BESIDE_STORES = 20  # `Memory.store` calls (each followed by a plain insert) per round and build
BESIDE_BATCH = 1_000  # memories per `store_many` of a round


def worker(root: Path) -> int:
    """Serve one build's side of `--beside`: JSON commands on stdin, one JSON answer a line on stdout."""
    words, p = vocabulary(LOCOMO)
    texts: list[str] = []
    mems: dict[str, Memory] = {}
    plain: sqlite3.Connection | None = None
    stages_conn: sqlite3.Connection | None = None
    space: store.VectorSpace | None = None
    analyzer: Analyzer | None = None
    for line in sys.stdin:
        cmd = json.loads(line)
        out: dict[str, object] = {}
        if cmd["op"] == "setup":
            texts = sentences(int(cmd["need"]), words, p)
            mems["single"] = Memory(root / "single.db", namespace=NAMESPACE)
            mems["single"].store_many(texts[: int(cmd["prefill"])])
            plain = plain_connection(root / "single.db")
            for label, embedder in (("default", "default"), ("none", None)):
                mems[label] = Memory(root / f"many-{label}.db", namespace=NAMESPACE, embedder=embedder)
                mems[label].store_many(texts[-BESIDE_BATCH:])
            staged = Memory(root / "stages.db", namespace=NAMESPACE)
            staged.store_many(texts[-BESIDE_BATCH:])
            staged.close()
            space, analyzer = engine_parts(root / "stages.db")
            stages_conn = db.connect(str(root / "stages.db"))
            import tinymemory

            out["src"] = str(Path(tinymemory.__file__).parent.parent)
        elif cmd["op"] == "single":
            assert plain is not None
            at, store_ms, plain_ms, cpu_ms = int(cmd["at"]), [], [], []
            for text in texts[at : at + BESIDE_STORES]:
                t, c = time.perf_counter(), time.thread_time()
                mems["single"].store(text)
                store_ms.append((time.perf_counter() - t) * 1000)
                cpu_ms.append((time.thread_time() - c) * 1000)
                t = time.perf_counter()
                plain_insert(plain, text)
                plain_ms.append((time.perf_counter() - t) * 1000)
            out = {"store": store_ms, "plain": plain_ms, "cpu": cpu_ms}
        elif cmd["op"] == "many":
            at = int(cmd["at"])
            t, c = time.perf_counter(), time.process_time()
            mems[str(cmd["embedder"])].store_many(texts[at : at + BESIDE_BATCH])
            out = {
                "rate": BESIDE_BATCH / (time.perf_counter() - t),
                "cpu": BESIDE_BATCH / (time.process_time() - c),
            }
        elif cmd["op"] == "stages":
            assert stages_conn is not None and space is not None and analyzer is not None
            at = int(cmd["at"])
            out = dict(
                stage_batch(stages_conn, space, analyzer, texts[at : at + BESIDE_BATCH], time.thread_time)
            )
        print(json.dumps(out), flush=True)
    if stages_conn is not None:
        stages_conn.close()
    for mem in mems.values():
        mem.close()
    if plain is not None:
        plain.close()
    return 0


def beside(old_src: Path, rounds: int, prefill: int) -> str:
    """This build and the one whose `src/` is `old_src`, each in a worker process with its own files,
    sent the same work in turn, the order swapped every round; a markdown paragraph and table."""
    need = prefill + rounds * BESIDE_STORES + (2 * rounds + 1) * BESIDE_BATCH
    here = Path(__file__).resolve().parent
    builds = {"this build": here.parent / "src", "old build": old_src}
    got: dict[str, dict[str, list[float]]] = {b: collections.defaultdict(list) for b in builds}
    load = [os.getloadavg()[0]]
    with tempfile.TemporaryDirectory(prefix="tinymemory-writes-beside-") as tmp:
        procs: dict[str, subprocess.Popen[str]] = {}
        try:
            for i, (name, src) in enumerate(builds.items()):
                root = Path(tmp) / str(i)
                root.mkdir()
                env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(src), str(here)]))
                procs[name] = subprocess.Popen(
                    [sys.executable, str(Path(__file__).resolve()), "--worker", str(root)],
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    text=True,
                    env=env,
                )

            def ask(name: str, **cmd: object) -> dict[str, Any]:
                proc = procs[name]
                assert proc.stdin is not None and proc.stdout is not None
                proc.stdin.write(json.dumps(cmd) + "\n")
                proc.stdin.flush()
                answer: dict[str, Any] = json.loads(proc.stdout.readline())
                return answer

            for name in builds:
                src = ask(name, op="setup", need=need, prefill=prefill)["src"]
                print(f"{name}: {src}", file=sys.stderr)
            for r in range(rounds):
                order = list(builds) if r % 2 == 0 else list(builds)[::-1]
                for name in order:
                    single = ask(name, op="single", at=prefill + r * BESIDE_STORES)
                    for key in ("store", "plain", "cpu"):
                        got[name][key] += single[key]
                    got[name]["ratio"] += [
                        a / b for a, b in zip(single["store"], single["plain"], strict=True)
                    ]
                    for label, offset in (("default", 0), ("none", 1)):
                        many = ask(name, op="many", embedder=label, at=(2 * r + offset) * BESIDE_BATCH)
                        got[name][f"{label} rate"].append(many["rate"])
                        got[name][f"{label} cpu"].append(many["cpu"])
                    for stage, us in ask(name, op="stages", at=2 * r * BESIDE_BATCH).items():
                        got[name][f"stage {stage}"].append(us)
                load.append(os.getloadavg()[0])
                print(f"round {r + 1}/{rounds}", file=sys.stderr)
        finally:
            for proc in procs.values():
                if proc.stdin is not None:
                    proc.stdin.close()
                proc.wait(timeout=120)
    med = statistics.median
    rows = [
        ["`Memory.store` p50 / p95 ms", *(p50_p95(got[b]["store"]) for b in builds)],
        ["plain durable insert p50 / p95 ms", *(p50_p95(got[b]["plain"]) for b in builds)],
        [
            "store / plain, by the p50s",
            *(f"{med(got[b]['store']) / med(got[b]['plain']):.2f}x" for b in builds),
        ],
        ["store / plain, median of the paired ratios", *(f"{med(got[b]['ratio']):.2f}x" for b in builds)],
        [
            "a store's thread CPU p50 ms (its sync's kernel time included)",
            *(f"{med(got[b]['cpu']):.3f}" for b in builds),
        ],
    ]
    for label, name in (("default", "default embedder"), ("none", "no embedder")):
        rows.append(
            [
                f"`store_many` items/s, {name} (median)",
                *(f"{med(got[b][f'{label} rate']):,.0f}" for b in builds),
            ]
        )
        rows.append(
            [
                f"`store_many` items/s by CPU, {name} (median)",
                *(f"{med(got[b][f'{label} cpu']):,.0f}" for b in builds),
            ]
        )
    for stage in BATCH_PARTS:
        rows.append(
            [
                f"`store_many` stage: {stage}, µs CPU per item (median)",
                *(f"{med(got[b][f'stage {stage}']):.1f}" for b in builds),
            ]
        )
    rows.append(
        [
            "`store_many` stages: all, µs CPU per item (items/s on one thread)",
            *(
                f"{t:.1f} ({1e6 / t:,.0f}/s)"
                for b in builds
                for t in (sum(med(got[b][f"stage {stage}"]) for stage in BATCH_PARTS),)
            ),
        ]
    )
    n = len(got["this build"]["store"])
    intro = (
        f"This build beside the one before these changes, in one run (`--beside`): {machine_line()}; 1-min "
        f"load {min(load):.2f} to {max(load):.2f} over the rounds. Two worker processes, one per build (its "
        "own `src/` on the path, the same interpreter and dependencies), each with its own files built the "
        f"same way ({prefill:,} memories prefilled for single stores, {BESIDE_BATCH:,} in each `store_many` "
        f"file), sent the same work in turn, the order swapped every round: {BESIDE_STORES} `Memory.store` "
        f"calls of new memories, each followed by a plain durable insert into the same file, then one "
        f"{BESIDE_BATCH:,}-memory `store_many` with the default embedder and one without, and one more "
        "batch through `store_many`'s stages in turn on the worker's thread (a file of its own; each stage "
        "timed by the thread's CPU clock, so a stage's waits, the commit's sync among them, and other "
        f"processes' use of the cores count less); {rounds} rounds "
        f'({n} single stores per build), durability "full".'
    )
    return intro + "\n\n" + table(["", *builds], rows)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--stores", type=int, default=400, help="single stores (and plain inserts) to time")
    parser.add_argument("--batches", type=int, default=8, help="timed store_many batches per embedder")
    parser.add_argument("--batch", type=int, default=1000, help="memories per store_many batch")
    parser.add_argument("--prefill", type=int, default=2000, help="memories stored before the single stores")
    parser.add_argument("--page-stores", type=int, default=40, help="stores whose WAL pages are attributed")
    parser.add_argument("--no-write", action="store_true", help="print the section, leave docs/ alone")
    parser.add_argument("--beside", type=Path, help="another build's src/: run it and this one side by side")
    parser.add_argument("--rounds", type=int, default=14, help="rounds of the side-by-side run")
    parser.add_argument("--worker", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker is not None:
        return worker(args.worker)
    if args.beside is not None:
        md = beside(args.beside, args.rounds, args.prefill)
        print(md)
        if not args.no_write:
            write_section("writes-beside", md)
        return 0
    for name in ("stores", "batches", "batch", "prefill", "page_stores"):
        if getattr(args, name) < 1:
            parser.error(f"--{name} must be at least 1")
    machine = machine_line()
    words, p = vocabulary(LOCOMO)
    need = max(args.prefill + 2 * args.stores + args.page_stores, (2 * args.batches + 1) * args.batch)
    texts = sentences(need, words, p)
    with tempfile.TemporaryDirectory(prefix="tinymemory-writes-") as tmp:
        root = Path(tmp)
        print(f"{args.stores} stores against plain inserts ...", file=sys.stderr)
        pair, parts = single_writes(root / "single.db", texts, args.prefill, args.stores)
        rates: dict[str, tuple[list[float], list[float]]] = {}
        for label, embedder in (("default", "default"), ("none (lexical only)", None)):
            print(f"store_many, embedder {label} ...", file=sys.stderr)
            rates[label] = asyncio.run(
                batch_rates(root / f"many-{embedder}.db", texts, args.batch, args.batches, embedder)
            )
        print("store_many's stages ...", file=sys.stderr)
        stages = batch_parts(
            root / "many-default.db", texts[(args.batches + 1) * args.batch :], args.batch, args.batches
        )
        print("where one store's pages go ...", file=sys.stderr)
        at = args.prefill + 2 * args.stores
        try:
            pages: tuple[dict[str, float], int] | None = store_pages(
                root / "single.db", texts[at : at + args.page_stores]
            )
        except sqlite3.OperationalError as exc:  # an SQLite built without the dbstat table
            print(f"  skipped: {exc}", file=sys.stderr)
            pages = None
    md = render(args, machine, pair, rates, parts, stages, pages, os.getloadavg()[0])
    print(md)
    if not args.no_write:
        write_section("writes", md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
