"""What one user's read costs as the store around it grows (issue 24, part 1).

One user, `workspace:acme/user:u0`, holds 500 memories in each of several files (default 10k and 100k
synthetic memories; `--sizes 10000,100000,1000000` for the issue's 1M); the rest of each file is spread
over other users of 500 memories each (2,000 users at 1M), every user's rows scattered through the file.
Files are built through `SqliteEngine.store_many` in batches with a random-projection embedder
(bench/synthetic.py), so that a million rows build in minutes; every query still pays the default
query embedder's cost, so a fetch costs what a user sees.

All files are open at once and every question runs against each file in turn, operation by operation, so
that load falls on every size alike and the ratios are measured side by side in one run:

- `lexical`, `semantic`, `hybrid`: `engine.fetch` in that mode, filtered to the user's namespace;
- `Memory.fetch`, `Memory.recall`: the public API (`AsyncMemory` placed at the user's namespace);
- `memory__recall`: the policy tool call for the verified user (`PolicyTools`, in-process).

Also the lexical postings' bytes per item (SQLite's `dbstat`). Writes the `tenancy` section of
docs/benchmarks.md.

    python bench/tenancy.py [--sizes 10000,100000] [--queries 200] [--no-write]
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse
import asyncio
import json
import sqlite3
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from report import machine_line, percentile, table, write_section
from scale import BATCH, LOCOMO
from synthetic import ProjectionEmbedder, sentences, vocabulary
from tinymemory import AsyncMemory
from tinymemory.api import FetchMode, FetchRequest, ItemKind, ItemMeta, MetaFilter, Namespace, NewItem
from tinymemory.engines.sqlite import SqliteEngine
from tinymemory.policy import Identity, PolicyTools
from tinymemory.retrieval.embedders import default_embedder

USER_ROWS = 500
WORKSPACE = "acme"
OPS = ("lexical", "semantic", "hybrid", "Memory.fetch", "Memory.recall", "memory__recall")
TARGET_RATIO = 1.3
TARGET_HYBRID_MS = 3.0


def user(u: int) -> Namespace:
    return Namespace.parse(f"workspace:{WORKSPACE}/user:u{u}")


def owners(n: int) -> list[int]:
    """The user of each of `n` memories, USER_ROWS each (the last user holds the remainder); each user's
    k-th row at (k + 0.5) / size of the way through the file: an even interleave."""
    sizes = [USER_ROWS] * (n // USER_ROWS) + ([n % USER_ROWS] if n % USER_ROWS else [])
    order = sorted(((k + 0.5) / size, u) for u, size in enumerate(sizes) for k in range(size))
    return [u for _, u in order]


async def build(path: Path, n: int, texts: list[str], embedder: ProjectionEmbedder) -> tuple[float, int]:
    who = owners(n)
    took = 0.0
    async with SqliteEngine(path, embedder=embedder) as engine:
        for at in range(0, n, BATCH):
            batch = [
                NewItem(ItemKind.CONVERSATION, texts[i], ItemMeta(namespace=user(who[i])))
                for i in range(at, min(n, at + BATCH))
            ]
            t = time.perf_counter()
            await engine.store_many(batch)
            took += time.perf_counter() - t
            if at and at % 100_000 == 0:
                print(f"    {at:,} of {n:,} stored", file=sys.stderr, flush=True)
    return took, len(set(who))


def postings_bytes(path: Path) -> dict[str, float]:
    """Bytes per item of the lexical postings and of the analysed columns (pages, from dbstat)."""
    conn = sqlite3.connect(path)
    try:
        n = int(conn.execute("SELECT count(*) FROM items").fetchone()[0])
        rows = dict(conn.execute("SELECT name, sum(pgsize) FROM dbstat GROUP BY name").fetchall())
    except sqlite3.OperationalError:
        return {}
    finally:
        conn.close()
    postings, docs = int(rows.get("lex_postings", 0)), int(rows.get("lex_docs", 0))
    return {"lex_postings": postings / n, "lex_docs": docs / n, "file": path.stat().st_size / n}


Op = Callable[[str], Awaitable[Any]]


def operations(engine: SqliteEngine, mem: AsyncMemory, tools: PolicyTools) -> dict[str, Op]:
    flt = MetaFilter(namespace=user(0))

    def mode(m: FetchMode) -> Op:
        return lambda q: engine.fetch(FetchRequest(q, mode=m, filter=flt))

    async def recall_tool(q: str) -> Any:
        out = await tools.call("memory__recall", {"query": q})
        assert "memories" in out
        return out

    return {
        "lexical": mode(FetchMode.LEXICAL),
        "semantic": mode(FetchMode.SEMANTIC),
        "hybrid": mode(FetchMode.HYBRID),
        "Memory.fetch": lambda q: mem.fetch(q),
        "Memory.recall": lambda q: mem.recall(q),
        "memory__recall": recall_tool,
    }


async def measure(paths: dict[int, Path], queries: list[str]) -> dict[int, dict[str, list[float]]]:
    query_model = default_embedder()
    engines: dict[int, SqliteEngine] = {}
    ops: dict[int, dict[str, Op]] = {}
    lat: dict[int, dict[str, list[float]]] = {n: {op: [] for op in OPS} for n in paths}
    try:
        for n, path in paths.items():
            engine = SqliteEngine(path, embedder=ProjectionEmbedder(pay_query_with=query_model))
            engines[n] = engine
            mem = AsyncMemory(engine=engine, namespace=str(user(0)))
            tools = PolicyTools.for_identity(engine, Identity(WORKSPACE, "u0", verified=True))
            ops[n] = operations(engine, mem, tools)
            for op in OPS:  # warm: connections open, the query model loaded
                await ops[n][op](queries[0])
        for q in queries:
            for op in OPS:
                for n in paths:
                    t = time.perf_counter()
                    await ops[n][op](q)
                    lat[n][op].append((time.perf_counter() - t) * 1000)
    finally:
        for engine in engines.values():
            await engine.close()
    return lat


async def run(sizes: list[int], queries: list[str], keep: Path | None) -> dict[str, Any]:
    words, p = vocabulary(LOCOMO)
    res: dict[str, Any] = {"sizes": {}}
    with tempfile.TemporaryDirectory(prefix="tinymemory-tenancy-") as tmp:
        where = keep if keep is not None else Path(tmp)
        paths: dict[int, Path] = {}
        for n in sizes:
            path = where / f"tenancy-{n}.db"
            row: dict[str, Any] = {}
            if not path.exists():
                took, users = await build(path, n, sentences(n, words, p), ProjectionEmbedder())
                row["store_s"] = took
                print(f"  stored {n:,} ({users} users) in {took:.0f} s", file=sys.stderr, flush=True)
            row["users"] = len(set(owners(n)))
            row["bytes"] = postings_bytes(path)
            paths[n] = path
            res["sizes"][n] = row
        lat = await measure(paths, queries)
        for n in sizes:
            res["sizes"][n]["lat"] = lat[n]
    return res


def p50(values: list[float]) -> float:
    return percentile(values, 50)


def ms(values: list[float]) -> str:
    return f"{percentile(values, 50):.2f} / {percentile(values, 95):.2f}"


def render(res: dict[str, Any], load: str, n_queries: int) -> str:
    sizes = sorted(res["sizes"])
    small, large = sizes[0], sizes[-1]
    r = res["sizes"]
    lines = [
        "## Tenancy: one user's read in a growing store (`bench/tenancy.py`)",
        "",
        f"One user of {USER_ROWS} memories among {', '.join(f'{n:,}' for n in sizes)} synthetic memories "
        f"(the rest spread over users of {USER_ROWS}, every user's rows scattered through the file), built "
        "through `store_many` with a random-projection embedder; each query pays the default query "
        f"embedder. {n_queries} LoCoMo questions; all files open at once and every question asked of each "
        "file in turn, operation by operation (ratios side by side in one run); one client, in-process, "
        f"one thread; {machine_line()}; 1-min load {load}. Milliseconds, p50 / p95. `lexical`, "
        "`semantic`, `hybrid`: `engine.fetch` filtered to the user's namespace; `Memory.fetch` / "
        "`Memory.recall`: the public API placed at that namespace; `memory__recall`: the policy tool "
        "for the verified user (its tiers: the workspace's node and the user's).",
        "",
    ]
    header = ["operation", *(f"{n:,} ({r[n]['users']:,} users)" for n in sizes), f"{large:,} / {small:,}"]
    rows = []
    for op in OPS:
        ratio = p50(r[large]["lat"][op]) / p50(r[small]["lat"][op])
        rows.append([f"`{op}`", *(ms(r[n]["lat"][op]) for n in sizes), f"{ratio:.2f}x"])
    lines.append(table(header, rows))
    worst = max(p50(r[large]["lat"][op]) / p50(r[small]["lat"][op]) for op in OPS)
    hybrid = p50(r[large]["lat"]["hybrid"])
    lines += [
        "",
        f"Largest {large:,} / {small:,} p50 ratio: {worst:.2f}x "
        f"(target at most {TARGET_RATIO}x at 1M / 10k); "
        f"hybrid fetch p50 at {large:,}: {hybrid:.2f} ms (target at most {TARGET_HYBRID_MS:.0f} ms at 1M).",
    ]
    if all(r[n]["bytes"] for n in sizes):
        lines += [
            "",
            "Bytes per item (pages, `dbstat`): the per-namespace postings, the analysed columns they "
            "are counted from (`lex_docs`, schema 12; an FTS5 index up to 11) and the whole file:",
            "",
            table(
                ["store", "lex_postings", "lex_docs", "file"],
                [
                    [
                        f"{n:,}",
                        f"{r[n]['bytes']['lex_postings']:,.0f}",
                        f"{r[n]['bytes']['lex_docs']:,.0f}",
                        f"{r[n]['bytes']['file']:,.0f}",
                    ]
                    for n in sizes
                ],
            ),
        ]
    built = [f"{n:,} in {r[n]['store_s']:.0f} s" for n in sizes if "store_s" in r[n]]
    if built:
        lines += ["", f"Building (store_many, batches of {BATCH:,}): {', '.join(built)}."]
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", default="10000,100000", help="store sizes, comma-separated")
    parser.add_argument("--queries", type=int, default=200, help="LoCoMo questions to ask")
    parser.add_argument("--keep", default=None, help="a directory to keep (and reuse) the built files in")
    parser.add_argument("--no-write", action="store_true", help="print only; leave docs/benchmarks.md")
    args = parser.parse_args()
    try:
        sizes = sorted({int(s) for s in args.sizes.split(",") if s})
    except ValueError:
        parser.error("--sizes: comma-separated whole numbers")
    if len(sizes) < 2 or sizes[0] < USER_ROWS:
        parser.error(f"--sizes: at least two sizes, each at least {USER_ROWS}")
    keep = Path(args.keep) if args.keep else None
    if keep is not None and not keep.is_dir():
        parser.error("--keep: not a directory")
    questions = [q["question"] for s in json.loads(LOCOMO.read_text()) for q in s["qa"]][: args.queries]
    loads = [os.getloadavg()[0]]
    res = asyncio.run(run(sizes, questions, keep))
    loads.append(os.getloadavg()[0])
    md = render(res, f"{min(loads):.1f} to {max(loads):.1f}", len(questions))
    print(md)
    if not args.no_write:
        write_section("tenancy", md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
