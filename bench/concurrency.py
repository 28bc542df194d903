"""Concurrency: a 90/10 read/write mix on a 100k-item file, and the latency of a single store.

Rows (side by side in one run, on one copy of the file):
- the mix (90% hybrid fetch top 10 with LoCoMo questions, 10% single-item store) as operations per
  second for 1, 2 and 4 asyncio tasks sharing one engine, and for 1 and 2 processes with an engine
  each; beside each row the fetch and store p50, the CPU the engine processes used per operation and
  in cores (CPU seconds per wall second: 2.0 is this machine's ceiling), and the 1-min load at the end;
- the same mix with 4 tasks and `readers=0` (reads share the writer's thread, as before issue 14);
- a single `store` (one turn, default embedder) p50 / p95 for 1 caller and for 8 concurrent callers,
  with durability "full" (every commit synced) and "normal" (synced at checkpoints).

    python bench/concurrency.py [--items 100000] [--seconds 10] [--stores 300] [--db FILE] [--no-write]

Without --db the file is built with the default embedder (bench/coldstart.py's `build`, about 30 s
at 100k); with --db a copy of FILE is used, never FILE itself. The default run takes about 3 minutes.
BLAS runs on one thread.
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import asyncio  # noqa: E402
import json  # noqa: E402
import random  # noqa: E402
import shutil  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from report import machine_line, percentile, table, write_section  # noqa: E402
from tinymemory.api import FetchMode, FetchRequest, ItemKind, ItemMeta, Namespace, NewItem  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
LOCOMO = ROOT.parent / "shared" / "bench" / "locomo_dev.json"
WRITE_SHARE = 0.10
TOP = 10
WARM_FETCHES = 5
THREADS = (1, 2, 4)
PROCESSES = (1, 2)
CALLERS = (1, 8)


def questions() -> list[str]:
    return [q["question"] for conv in json.loads(LOCOMO.read_text()) for q in conv["qa"]]


def new_item(tag: str, n: int) -> NewItem:
    """A fresh turn (never a replay): the text holds the writer's tag and a counter."""
    ns = Namespace.parse(f"team:t{n % 20}/agent:a{n % 3}")
    return NewItem(
        ItemKind.LEARNING,
        f"{tag} note {n}: we talked about the garden and the new paints",
        ItemMeta(namespace=ns),
    )


def cpu_seconds() -> float:
    t = os.times()
    return t.user + t.system


@dataclass
class Tally:
    fetch_ms: list[float] = field(default_factory=list)
    store_ms: list[float] = field(default_factory=list)

    @property
    def ops(self) -> int:
        return len(self.fetch_ms) + len(self.store_ms)

    def merge(self, other: Tally) -> None:
        self.fetch_ms += other.fetch_ms
        self.store_ms += other.store_ms


async def mix_worker(engine: Any, qs: list[str], tag: str, seed: int, until: float, tally: Tally) -> None:
    """The 90/10 loop of one task until the monotonic deadline."""
    rng = random.Random(seed)
    n = 0
    while time.perf_counter() < until:
        t = time.perf_counter()
        if rng.random() < WRITE_SHARE:
            await engine.store(new_item(tag, n))
            n += 1
            tally.store_ms.append((time.perf_counter() - t) * 1000)
        else:
            q = qs[rng.randrange(len(qs))]
            await engine.fetch(FetchRequest(q, mode=FetchMode.HYBRID, limit=TOP))
            tally.fetch_ms.append((time.perf_counter() - t) * 1000)


async def prebuild_graph(path: Path) -> float | None:
    """Build the file's HNSW graph before the timed runs, as `tinymemory db index` does; seconds, or
    None when the engine has no vectors to index."""
    from tinymemory.engines.sqlite import SqliteEngine

    async with SqliteEngine(str(path)) as engine:
        if engine.embedder is None:
            return None
        return (await engine.build_index()).seconds


async def warm(engine: Any, qs: list[str]) -> None:
    """Open the file and load what a first hybrid fetch loads, outside the timed window."""
    for q in qs[:WARM_FETCHES]:
        await engine.fetch(FetchRequest(q, mode=FetchMode.HYBRID, limit=TOP))


async def mix_in_process(
    path: Path, tasks: int, seconds: float, qs: list[str], **engine_kw: Any
) -> dict[str, Any]:
    from tinymemory.engines.sqlite import SqliteEngine

    async with SqliteEngine(str(path), **engine_kw) as engine:
        await warm(engine, qs)
        tallies = [Tally() for _ in range(tasks)]
        cpu0, t0 = cpu_seconds(), time.perf_counter()
        until = t0 + seconds
        tag = f"thread{tasks}-{time.time_ns()}"
        await asyncio.gather(
            *(mix_worker(engine, qs, f"{tag}-{i}", i, until, tallies[i]) for i in range(tasks))
        )
        wall, cpu = time.perf_counter() - t0, cpu_seconds() - cpu0
    total = Tally()
    for t in tallies:
        total.merge(t)
    return summary(total, wall, cpu)


def summary(total: Tally, wall: float, cpu: float) -> dict[str, Any]:
    return {
        "ops_s": total.ops / wall,
        "fetch_p50": percentile(total.fetch_ms, 50),
        "store_p50": percentile(total.store_ms, 50),
        "cpu_ms_op": cpu * 1000 / max(total.ops, 1),
        "cores": cpu / wall,
        "load": os.getloadavg()[0],
    }


async def child_main(path: str, seconds: float, seed: int) -> None:
    """One process of a multi-process row: open, warm, say ready, wait for go, run, report."""
    from tinymemory.engines.sqlite import SqliteEngine

    qs = questions()
    async with SqliteEngine(path) as engine:
        await warm(engine, qs)
        print("ready", flush=True)
        sys.stdin.readline()
        tally = Tally()
        cpu0, t0 = cpu_seconds(), time.perf_counter()
        await mix_worker(engine, qs, f"proc{seed}-{time.time_ns()}", seed, t0 + seconds, tally)
        wall, cpu = time.perf_counter() - t0, cpu_seconds() - cpu0
    print(
        json.dumps({"fetch_ms": tally.fetch_ms, "store_ms": tally.store_ms, "wall": wall, "cpu": cpu}),
        flush=True,
    )


def mix_in_processes(path: Path, procs: int, seconds: float) -> dict[str, Any]:
    children = [
        subprocess.Popen(
            [sys.executable, __file__, "--child", str(path), str(seconds), str(i)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        for i in range(procs)
    ]
    try:
        for c in children:
            assert c.stdout is not None
            if c.stdout.readline().strip() != "ready":
                raise RuntimeError("concurrency: a child process failed to start")
        for c in children:
            assert c.stdin is not None
            c.stdin.write("go\n")
            c.stdin.flush()
        reports = []
        for c in children:
            out, _ = c.communicate(timeout=seconds * 10 + 120)
            if c.returncode != 0:
                raise RuntimeError(f"concurrency: a child process exited with {c.returncode}")
            reports.append(json.loads(out.strip().splitlines()[-1]))
    finally:
        for c in children:
            if c.poll() is None:
                c.kill()
                c.wait()
    total = Tally()
    for r in reports:
        total.merge(Tally(r["fetch_ms"], r["store_ms"]))
    wall = max(r["wall"] for r in reports)
    return summary(total, wall, sum(r["cpu"] for r in reports))


async def store_latency(path: Path, callers: int, stores: int, durability: str) -> dict[str, Any]:
    """p50 / p95 ms of single stores, `callers` at a time, about `stores` in all."""
    from tinymemory.engines.sqlite import SqliteEngine

    lat: list[float] = []
    async with SqliteEngine(str(path), durability=durability) as engine:
        tag = f"single-{durability}-{callers}-{time.time_ns()}"
        await engine.store(new_item(tag, -1))  # open and warm

        async def caller(c: int) -> None:
            for k in range(max(1, stores // callers)):
                t = time.perf_counter()
                await engine.store(new_item(f"{tag}-{c}", k))
                lat.append((time.perf_counter() - t) * 1000)

        t0 = time.perf_counter()
        await asyncio.gather(*(caller(c) for c in range(callers)))
        wall = time.perf_counter() - t0
        groups = engine.storage._commits.groups
    return {
        "p50": percentile(lat, 50),
        "p95": percentile(lat, 95),
        "stores_s": len(lat) / wall,
        "groups": groups,
        "load": os.getloadavg()[0],
    }


def f1(v: float) -> str:
    return f"{v:,.1f}"


def f2(v: float) -> str:
    return f"{v:.2f}"


def render(
    args: argparse.Namespace,
    mix: list[tuple[str, dict[str, Any]]],
    stores: list[tuple[str, int, dict[str, Any]]],
    built: str,
) -> str:
    mix_rows = [
        [
            label,
            f"{r['ops_s']:,.0f}",
            f1(r["fetch_p50"]),
            f1(r["store_p50"]),
            f1(r["cpu_ms_op"]),
            f2(r["cores"]),
            f2(r["load"]),
        ]
        for label, r in mix
    ]
    cpu = percentile([r["cpu_ms_op"] for _, r in mix], 50)
    busiest = max(mix, key=lambda row: row[1]["cores"])
    cores = os.cpu_count() or 1
    ceiling = 1000 * cores / cpu
    if busiest[1]["cores"] < 0.75 * cores and busiest[1]["load"] < cores:
        verdict = "cores were left idle, so something other than CPU bounds this run"
    else:
        verdict = "the load column shows what the machine's other work left to this one"
    bound = (
        f"An operation of this mix costs about {cpu:.0f} ms of CPU whatever runs it, so {cores} whole cores "
        f"would carry at most about {ceiling:,.0f} ops/s; the busiest row ({busiest[0]}) kept "
        f"{busiest[1]['cores']:.2f} cores busy and reached {busiest[1]['ops_s']:,.0f} ops/s: {verdict}."
    )
    store_rows = [
        [
            dur,
            str(callers),
            f2(r["p50"]),
            f2(r["p95"]),
            f"{r['stores_s']:,.0f}",
            str(r["groups"]),
            f2(r["load"]),
        ]
        for dur, callers, r in stores
    ]
    return "\n".join(
        [
            "## Concurrency (`bench/concurrency.py`)",
            "",
            f"{args.items:,} synthetic items ({built}) stored with the default embedder; {machine_line()}. "
            f"Each mix row runs {args.seconds:g} s on the same copy of the file after {WARM_FETCHES} warm-up "
            "fetches: 90% hybrid fetch top 10 (LoCoMo questions), 10% single-item store. Threads are asyncio "
            "tasks sharing one engine (2 reader connections, the default); processes run an engine each. "
            "CPU is the user+system time of the engine processes: 'cores busy' is CPU seconds per wall "
            "second (2.00 is all of this machine). Load is the 1-min load average when the row ended.",
            "",
            table(
                ["90/10 mix", "ops/s", "fetch p50 ms", "store p50 ms", "CPU ms/op", "cores busy", "load"],
                mix_rows,
            ),
            "",
            bound,
            "",
            f"Single `store` of one turn, about {args.stores} per row, default embedder (embedding "
            "included). 'full' syncs the WAL at every commit (an acknowledged store survives power loss); "
            "'normal' syncs at checkpoints (it survives a killed process, but the last commits may be lost "
            "on power loss or an OS crash). 'groups': commits that carried more than one caller's store.",
            "",
            table(["durability", "callers", "p50 ms", "p95 ms", "stores/s", "groups", "load"], store_rows),
        ]
    )


async def main_async(args: argparse.Namespace) -> int:
    from coldstart import build

    qs = questions()
    with tempfile.TemporaryDirectory(prefix="tinymemory-concurrency-") as tmp:
        path = Path(tmp) / "mix.db"
        if args.db:
            shutil.copyfile(args.db, path)
            built = "a copy of a prebuilt file"
        else:
            took = await build(path, args.items)
            built = f"built in {took:.0f} s"
            print(f"built {args.items:,} items in {took:.0f} s", file=sys.stderr, flush=True)
        graph = await prebuild_graph(path)
        if graph is not None:
            built += f", its HNSW graph built beforehand in {graph:.0f} s (so no build runs while timed)"
        mix: list[tuple[str, dict[str, Any]]] = []
        for tasks in THREADS:
            mix.append(
                (
                    f"{tasks} thread{'s' if tasks > 1 else ''}",
                    await mix_in_process(path, tasks, args.seconds, qs),
                )
            )
            print(mix[-1], file=sys.stderr, flush=True)
        for procs in PROCESSES:
            label = f"{procs} process{'es' if procs > 1 else ''}"
            mix.append((label, mix_in_processes(path, procs, args.seconds)))
            print(mix[-1], file=sys.stderr, flush=True)
        before = await mix_in_process(path, max(THREADS), args.seconds, qs, readers=0)
        mix.append((f"{max(THREADS)} threads, readers=0 (reads on the writer's thread)", before))
        print(mix[-1], file=sys.stderr, flush=True)
        stores: list[tuple[str, int, dict[str, Any]]] = []
        for durability in ("full", "normal"):
            for callers in CALLERS:
                stores.append(
                    (durability, callers, await store_latency(path, callers, args.stores, durability))
                )
                print(stores[-1], file=sys.stderr, flush=True)
    md = render(args, mix, stores, built)
    print(md)
    if not args.no_write:
        write_section("concurrency", md)
    return 0


def main() -> int:
    if len(sys.argv) == 5 and sys.argv[1] == "--child":
        asyncio.run(child_main(sys.argv[2], float(sys.argv[3]), int(sys.argv[4])))
        return 0
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--items", type=int, default=100_000, help="items to build (ignored with --db)")
    parser.add_argument("--seconds", type=float, default=10.0, help="timed seconds per mix row")
    parser.add_argument("--stores", type=int, default=300, help="single stores per latency row")
    parser.add_argument("--db", type=Path, help="copy this prebuilt file instead of building one")
    parser.add_argument("--no-write", action="store_true", help="do not update docs/benchmarks.md")
    args = parser.parse_args()
    if args.items < 1 or args.seconds <= 0 or args.stores < 1:
        parser.error("--items, --seconds and --stores must be positive")
    if args.db is not None and not args.db.is_file():
        parser.error(f"--db {args.db} is not a file")
    return asyncio.run(main_async(args))


if __name__ == "__main__":
    sys.exit(main())
