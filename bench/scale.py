"""Store throughput, fetch latency per mode, memory and disk at growing sizes.

    python bench/scale.py [--sizes 10000,100000] [--queries 200] [--no-write]

Items are synthetic chat-like sentences spread over 20 teams x 3 agents. Item vectors come from a
random-projection embedder (bench/synthetic.py) so that large indexes build in minutes; every query
still pays a real MiniLM query embedding, so fetch latency is what a user sees. A separate row measures
store throughput with the real MiniLM embedder on a small batch.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from report import machine_line, percentile, table, write_section
from synthetic import ProjectionEmbedder, sentences, vocabulary
from tinymemory.api import (
    FetchMode,
    FetchRequest,
    ItemKind,
    ItemMeta,
    MetaFilter,
    Namespace,
    NewItem,
    Reach,
)

ROOT = Path(__file__).resolve().parent.parent
LOCOMO = ROOT.parent / "shared" / "bench" / "locomo_dev.json"
BATCH = 2000
TEAMS, AGENTS = 20, 3


def rss_mb() -> float:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def items_for(texts: list[str], offset: int = 0) -> list[NewItem]:
    out = []
    for i, text in enumerate(texts, start=offset):
        ns = Namespace.parse(f"team:t{i % TEAMS}/agent:a{(i // TEAMS) % AGENTS}")
        out.append(
            NewItem(kind=ItemKind.LEARNING, text=text, meta=ItemMeta(namespace=ns, tags=(f"tag{i % 50}",)))
        )
    return out


async def store_all(engine: Any, items: list[NewItem]) -> float:
    started = time.perf_counter()
    for at in range(0, len(items), BATCH):
        await engine.store_many(items[at : at + BATCH])
    return len(items) / (time.perf_counter() - started)


async def time_fetches(engine: Any, queries: list[str], mode: FetchMode, flt: MetaFilter) -> list[float]:
    lat = []
    for q in queries:
        t = time.perf_counter()
        await engine.fetch(FetchRequest(query=q, mode=mode, filter=flt, limit=10))
        lat.append((time.perf_counter() - t) * 1000)
    return lat


def disk_mb(path: Path) -> float:
    total = 0
    for suffix in ("", "-wal", "-shm"):
        p = Path(str(path) + suffix)
        if p.exists():
            total += p.stat().st_size
    return total / 1e6


async def run_size(n: int, words: list[str], p: Any, queries: list[str], minilm: Any) -> dict[str, Any]:
    from tinymemory.engines.sqlite import SqliteEngine

    texts = sentences(n, words, p)
    items = items_for(texts)
    res: dict[str, Any] = {"n": n}
    with tempfile.TemporaryDirectory(prefix="tinymemory-scale-") as tmp:
        lex_path = Path(tmp) / "lexical.db"
        async with SqliteEngine(str(lex_path), embedder=None) as lex:
            res["store_lexical"] = await store_all(lex, items)
        gc.collect()
        path = Path(tmp) / "hybrid.db"
        rss0 = rss_mb()
        async with SqliteEngine(str(path), embedder=ProjectionEmbedder(pay_query_with=minilm)) as eng:
            res["store_vectors"] = await store_all(eng, items)
            del items, texts
            gc.collect()
            one_team = MetaFilter(reach=Reach.subtree(Namespace.parse("team:t3")))
            everything = MetaFilter()
            await time_fetches(eng, queries[:5], FetchMode.HYBRID, everything)  # warm: load the matrix
            for mode in eng.descriptor.fetch_modes:
                for label, flt in (("all", everything), ("team", one_team)):
                    lat = await time_fetches(eng, queries, mode, flt)
                    res[f"{mode.value}/{label}"] = (percentile(lat, 50), percentile(lat, 95))
            res["rss_mb"] = rss_mb() - rss0
            res["disk_mb"] = disk_mb(path)
    return res


async def minilm_store_rate(minilm: Any, words: list[str], p: Any, n: int = 1000) -> float:
    from tinymemory.engines.sqlite import SqliteEngine

    items = items_for(sentences(n, words, p, seed=99))
    with tempfile.TemporaryDirectory(prefix="tinymemory-scale-") as tmp:
        async with SqliteEngine(str(Path(tmp) / "m.db"), embedder=minilm) as eng:
            return await store_all(eng, items)


def render(rows: list[dict[str, Any]], minilm_rate: float | None, n_queries: int) -> str:
    modes = [m.value for m in FetchMode]
    headers = ["items", "store/s lexical", "store/s with vectors"]
    for m in modes:
        headers += [f"{m} p50/p95 ms (all)", f"{m} p50/p95 ms (1 team)"]
    headers += ["RSS MB", "disk MB"]
    body = []
    for r in rows:
        line = [f"{r['n']:,}", f"{r['store_lexical']:,.0f}", f"{r['store_vectors']:,.0f}"]
        for m in modes:
            for label in ("all", "team"):
                v = r.get(f"{m}/{label}")
                line.append(f"{v[0]:.2f} / {v[1]:.2f}" if v else "n/a")
        line += [f"{r['rss_mb']:.0f}", f"{r['disk_mb']:.0f}"]
        body.append(line)
    minilm_line = (
        f"Store with the real MiniLM embedder (batches of {BATCH}, embeddings included): "
        f"**{minilm_rate:,.0f} items/s**; the model's forward pass bounds it."
        if minilm_rate
        else "MiniLM weights not installed: no real-embedder store row."
    )
    return "\n".join(
        [
            "## Scale (`bench/scale.py`)",
            "",
            f"Machine: {machine_line()}. {n_queries} queries per cell (LoCoMo questions), top 10, one at a "
            "time; latency includes the real MiniLM query embedding. '1 team' confines the reach to one of "
            f"{TEAMS} teams (about {100 // TEAMS}% of items). Item vectors come from a random-projection "
            "embedder (see the script's docstring); store/s is measured in batches of "
            f"{BATCH} through `store_many`.",
            "",
            table(headers, body),
            "",
            minilm_line,
        ]
    )


async def main_async(args: argparse.Namespace) -> int:
    import json

    from tinymemory.retrieval.embedders import default_embedder

    words, p = vocabulary(LOCOMO)
    questions = [q["question"] for s in json.loads(LOCOMO.read_text()) for q in s["qa"]]
    queries = questions[: args.queries]
    minilm = default_embedder()
    rows = []
    for n in [int(x) for x in args.sizes.split(",")]:
        print(f"size {n:,} ...", file=sys.stderr, flush=True)
        rows.append(await run_size(n, words, p, queries, minilm))
        print(rows[-1], file=sys.stderr, flush=True)
    rate = await minilm_store_rate(minilm, words, p) if minilm is not None else None
    md = render(rows, rate, len(queries))
    print(md)
    if not args.no_write:
        write_section("scale", md)
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", default=os.environ.get("TINYMEMORY_BENCH_SIZES", "10000,100000"))
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--no-write", action="store_true")
    return asyncio.run(main_async(parser.parse_args()))


if __name__ == "__main__":
    sys.exit(main())
