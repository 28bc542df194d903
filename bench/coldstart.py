"""Cold start: what a first read costs after opening a large file, as a library call and as a process.

Rows (side by side in one run, medians of `--repeats`):
- the first hybrid fetch after opening the file, for the whole store and for one agent's scope, and a
  second fetch on the same engine (the warm cost);
- `tinymemory fetch` as a process (spawn, imports, open, embed the query, fetch), beside the floors of
  `python -c pass` and `tinymemory --version`;
- `tinymemory mcp` spawned by the official MCP client over stdio until its first answered memory_fetch.

The file is filled with the default embedder (static-minilm), so the CLI and the MCP server, which use
the default too, read its vectors.

    python bench/coldstart.py [--items 100000] [--repeats 5] [--no-write]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from report import machine_line, percentile, table, write_section
from scale import items_for
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


def med(values: list[float]) -> str:
    return f"{percentile(values, 50):,.0f}"


async def main_async(args: argparse.Namespace) -> int:
    with tempfile.TemporaryDirectory(prefix="tinymemory-coldstart-") as tmp:
        path = Path(tmp) / "cold.db"
        took = await build(path, args.items)
        print(f"built {args.items:,} items in {took:.0f} s", file=sys.stderr)
        loads = [f"{os.getloadavg()[0]:.2f}"]
        agent = MetaFilter(reach=Reach.of(Namespace.parse(AGENT)))
        scopes = {"whole store": MetaFilter(), "one agent": agent}
        first: dict[str, list[float]] = {k: [] for k in scopes}
        second: dict[str, list[float]] = {k: [] for k in scopes}
        procs: dict[str, list[float]] = {
            "python -c pass": [],
            "tinymemory --version": [],
            "tinymemory fetch": [],
        }
        mcp: list[float] = []
        tm = [sys.executable, "-m", "tinymemory"]
        for _ in range(args.repeats):  # interleaved, so load falls on every row alike
            for label, flt in scopes.items():
                a, b = await first_fetches(path, flt)
                first[label].append(a)
                second[label].append(b)
            procs["python -c pass"].append(process_ms([sys.executable, "-c", "pass"]))
            procs["tinymemory --version"].append(process_ms([*tm, "--version"]))
            procs["tinymemory fetch"].append(
                process_ms([*tm, "fetch", QUERY, "--db", str(path), "--namespace", AGENT, "--limit", "10"])
            )
            mcp.append(await mcp_first_fetch_ms(path))
        loads.append(f"{os.getloadavg()[0]:.2f}")
    rows = [[f"first hybrid fetch after opening ({k})", med(first[k])] for k in scopes]
    rows += [[f"second hybrid fetch, same engine ({k})", med(second[k])] for k in scopes]
    rows += [[label, med(v)] for label, v in procs.items()]
    rows.append(["`tinymemory mcp`: spawn to first answered memory_fetch", med(mcp)])
    md = "\n".join(
        [
            "## Cold start (`bench/coldstart.py`)",
            "",
            f"{args.items:,} synthetic items stored with the default embedder; {machine_line()}; 1-min load "
            f"after the build and at the end: {loads[0]} / {loads[1]}. Medians of {args.repeats} rounds, "
            "each row once a round, interleaved. 'One agent' reads its own node and ancestors "
            "(about 1/60 of the items).",
            "",
            table(["what", "ms (p50)"], rows),
        ]
    )
    print(md)
    if not args.no_write:
        write_section("coldstart", md)
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--no-write", action="store_true", help="do not update docs/benchmarks.md")
    args = parser.parse_args()
    if args.items < 1 or args.repeats < 1:
        parser.error("--items and --repeats must be at least 1")
    return asyncio.run(main_async(args))


if __name__ == "__main__":
    sys.exit(main())
