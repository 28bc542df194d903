"""Cold start: what a first read costs after opening a large file, as a library call and as a process.

Rows (side by side in one run, medians of `--repeats`):
- the first hybrid fetch after opening the file, for the whole store and for one agent's scope, and a
  second fetch on the same engine (the warm cost);
- `tinymemory fetch` as a process (spawn, imports, open, embed the query, fetch), beside the floors of
  `python -c pass` and `tinymemory --version`;
- `tinymemory mcp` spawned by the official MCP client over stdio until its first answered memory_fetch;
- a fresh process per scope that opens the file, times its first hybrid fetch (query embedding and any
  table or index load included), runs 30 more, and reports its resident memory (VmRSS, its peak VmHWM,
  and the anonymous part: what mapped files do not account for).

The file is filled with the default embedder (static-minilm), so the CLI and the MCP server, which use
the default too, read its vectors.

    python bench/coldstart.py [--items 100000] [--repeats 5] [--no-write] [--db FILE]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from report import machine_line, percentile, table, write_section
from scale import build_graph, items_for
from synthetic import sentences, vocabulary
from tinymemory.api import FetchMode, FetchRequest, MetaFilter, Namespace, Reach

LOCOMO = Path(__file__).resolve().parent.parent.parent / "shared" / "bench" / "locomo_dev.json"
AGENT = "team:t3/agent:a1"
QUERY = "what did she paint for the exhibition"
BATCH = 2000


async def build(path: Path, n: int) -> float:
    """Fill `path` with `n` synthetic items through the default embedder; seconds taken."""
    from tinymemory.engines.sqlite import SqliteEngine

    words, p = vocabulary(LOCOMO)
    texts = sentences(n, words, p)
    started = time.perf_counter()
    async with SqliteEngine(str(path)) as engine:
        for at in range(0, n, BATCH):
            await engine.store_many(items_for(texts[at : at + BATCH], offset=at))
    return time.perf_counter() - started


async def first_fetches(path: Path, flt: MetaFilter) -> tuple[float, float]:
    """Milliseconds of the first and the second hybrid fetch on a freshly opened engine."""
    from tinymemory.engines.sqlite import SqliteEngine

    async with SqliteEngine(str(path)) as engine:
        out = []
        for _ in range(2):
            t = time.perf_counter()
            await engine.fetch(FetchRequest(QUERY, mode=FetchMode.HYBRID, filter=flt, limit=10))
            out.append((time.perf_counter() - t) * 1000)
    return out[0], out[1]


def process_ms(args: list[str]) -> float:
    t = time.perf_counter()
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return (time.perf_counter() - t) * 1000


async def mcp_first_fetch_ms(path: Path) -> float:
    """Spawn `tinymemory mcp` with the official client and time it until a memory_fetch is answered."""
    from mcp import Client, StdioServerParameters

    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "tinymemory", "mcp", "--db", str(path)],
        env={**os.environ, "TINYMEMORY_PLACE": AGENT},
    )
    t = time.perf_counter()
    async with Client(params) as client:
        result = await client.call_tool("memory_fetch", {"query": QUERY, "limit": 10})
        if result.is_error:
            raise RuntimeError(f"coldstart: memory_fetch failed: {result.content}")
    return (time.perf_counter() - t) * 1000


def memory_mb() -> dict[str, int]:
    """This process's VmRSS, VmHWM (peak) and RssAnon in MB (Linux)."""
    out: dict[str, int] = {}
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM", "RssAnon"):
                out[key] = int(value.split()[0]) // 1024
    return out


async def probe(path: Path, scope: str) -> None:
    """Run in a fresh process: print the first fetch's ms and the memory after 30 more, as JSON."""
    from tinymemory.engines.sqlite import SqliteEngine

    flt = MetaFilter(reach=Reach.of(Namespace.parse(AGENT))) if scope == "agent" else MetaFilter()
    queries = [q["question"] for conv in json.loads(LOCOMO.read_text()) for q in conv["qa"]][:30]
    async with SqliteEngine(str(path)) as engine:
        t = time.perf_counter()
        await engine.fetch(FetchRequest(QUERY, mode=FetchMode.HYBRID, filter=flt, limit=10))
        first = (time.perf_counter() - t) * 1000
        for q in queries:
            await engine.fetch(FetchRequest(q, mode=FetchMode.HYBRID, filter=flt, limit=10))
        print(json.dumps({"first_ms": first, **memory_mb()}))


def run_probe(path: Path, scope: str) -> dict[str, float]:
    done = subprocess.run(
        [sys.executable, __file__, "--probe", scope, "--db", str(path)],
        check=True,
        capture_output=True,
        text=True,
    )
    return {k: float(v) for k, v in json.loads(done.stdout.strip().splitlines()[-1]).items()}


def med(values: list[float]) -> str:
    return f"{percentile(values, 50):,.0f}"


def load_now() -> float:
    return os.getloadavg()[0]


async def main_async(args: argparse.Namespace) -> int:
    with tempfile.TemporaryDirectory(prefix="tinymemory-coldstart-") as tmp:
        path = Path(args.db) if args.db else Path(tmp) / "cold.db"
        if not args.db:
            took = await build(path, args.items)
            print(f"built {args.items:,} items in {took:.0f} s", file=sys.stderr)
        return await measure(path, args)


async def prepare_graph(path: Path) -> float | None:
    """Build the file's HNSW graph as a long-running engine would (its first large read starts it)."""
    from tinymemory.engines.sqlite import SqliteEngine

    async with SqliteEngine(str(path)) as engine:
        return await build_graph(engine, QUERY)


async def measure(path: Path, args: argparse.Namespace) -> int:
    graph_s = await prepare_graph(path)
    agent = MetaFilter(reach=Reach.of(Namespace.parse(AGENT)))
    scopes = {"whole store": MetaFilter(), "one agent": agent}
    tm = [sys.executable, "-m", "tinymemory"]
    rows: dict[str, list[float]] = {}
    loads: dict[str, list[float]] = {}

    def record(label: str, value: float) -> None:
        rows.setdefault(label, []).append(value)
        loads.setdefault(label, []).append(load_now())

    for _ in range(args.repeats):  # interleaved, so load falls on every row alike
        for label, flt in scopes.items():
            a, b = await first_fetches(path, flt)
            record(f"first hybrid fetch after opening ({label})", a)
            record(f"second hybrid fetch, same engine ({label})", b)
        for label, scope in (("whole store", "whole"), ("one agent", "agent")):
            got = run_probe(path, scope)
            record(f"fresh process: first hybrid fetch, embedding included ({label})", got["first_ms"])
            record(f"fresh process: RSS MB after 31 fetches ({label})", got["VmRSS"])
            record(f"fresh process: peak RSS MB ({label})", got["VmHWM"])
            record(f"fresh process: anonymous RSS MB ({label})", got["RssAnon"])
        record("python -c pass", process_ms([sys.executable, "-c", "pass"]))
        record("tinymemory --version", process_ms([*tm, "--version"]))
        record(
            "tinymemory fetch (one agent)",
            process_ms([*tm, "fetch", QUERY, "--db", str(path), "--namespace", AGENT, "--limit", "10"]),
        )
        record(
            "`tinymemory mcp` (one agent): spawn to first answered memory_fetch",
            await mcp_first_fetch_ms(path),
        )
    items = count_items(path)
    table_rows = [[label, med(v), f"{percentile(loads[label], 50):.2f}"] for label, v in rows.items()]
    md = "\n".join(
        [
            "## Cold start (`bench/coldstart.py`)",
            "",
            f"{items:,} synthetic items stored with the default embedder; {machine_line()}. Medians of "
            f"{args.repeats} rounds, each row once a round, interleaved; the load column is the median "
            "1-min load average read right after each measurement. 'One agent' reads its own node and "
            "ancestors (about 1/60 of the items); its semantic part is scored row by row from SQL. The "
            "whole store is read through the file's HNSW graph, built once before the rounds"
            + (f" ({graph_s:.0f} s on one thread)" if graph_s is not None else " (not built: too few rows)")
            + ".",
            "",
            table(["what", "ms or MB (p50)", "1-min load"], table_rows),
        ]
    )
    print(md)
    if not args.no_write:
        write_section("coldstart", md)
    return 0


def count_items(path: Path) -> int:
    with sqlite3.connect(path) as conn:
        return int(conn.execute("SELECT count(*) FROM items").fetchone()[0])


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--no-write", action="store_true", help="do not update docs/benchmarks.md")
    parser.add_argument("--db", help="measure this existing file instead of building one")
    parser.add_argument("--probe", choices=["whole", "agent"], help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.probe:
        asyncio.run(probe(Path(args.db), args.probe))
        return 0
    if args.items < 1 or args.repeats < 1:
        parser.error("--items and --repeats must be at least 1")
    return asyncio.run(main_async(args))


if __name__ == "__main__":
    sys.exit(main())
