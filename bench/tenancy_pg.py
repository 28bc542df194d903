"""What one user's read costs on Postgres as the database around it grows (issue 24, part 1).

Builds Postgres databases (a throwaway pgserver, or the server `--pg` names) of N synthetic memories each
(default 10k and 100k): one user, `team:acme/user:u0`, holds 500 of them, scattered through the
database; the rest are spread over users of 500 memories each (bench/tenancy.py's `owners`). Vectors come
from the random-projection embedder (bench/synthetic.py, dim 384), so building stays fast; the HNSW index
is built once after the load, as a bulk import would, and ANALYZE runs as autovacuum would.

Then, for each LoCoMo question, that user's lexical, semantic and hybrid `fetch` and a `recall`, on
every database in turn, interleaved question by question so that load falls on every size alike;
p50 / p95 per size and the largest / smallest p50 ratio. The semantic plan each read took is counted.
Writes the `tenancy-postgres` section of docs/benchmarks.md.

    python bench/tenancy_pg.py [--sizes 10000,100000] [--queries 200] [--pg ADMIN_URL] [--no-write]
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse
import asyncio
import contextlib
import json
import sys
import time
from collections import Counter
from typing import Any

from pg import ROLE, Postgres, _with_database, _with_user
from report import machine_line, percentile, table, write_section
from scale import BATCH, LOCOMO
from synthetic import ProjectionEmbedder, sentences, vocabulary
from tenancy import USER_ROWS, owners, user
from tinymemory.api import FetchMode, FetchRequest, ItemKind, ItemMeta, MetaFilter, NewItem, RecallRequest
from tinymemory.engines.postgres import PostgresEngine
from tinymemory.engines.postgres.schema import vector_index_name

MODES = ("lexical", "semantic", "hybrid", "recall")
LIMIT = 10


def kept(pg: Postgres, n: int) -> tuple[str, bool]:
    """The kept database of size `n` (`--keep`): its URL, and whether an earlier run finished it."""
    import psycopg

    name = f"tenancy_pg_{n}"
    with psycopg.connect(pg.admin_url, autocommit=True) as conn:
        found = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone()
    if found is None:
        pg.sql(f"CREATE DATABASE {name} OWNER {ROLE}")
        pg.sql("CREATE EXTENSION IF NOT EXISTS vector", database=name)
    url = _with_user(_with_database(pg.admin_url, name), ROLE)
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CREATE TABLE IF NOT EXISTS bench_built (n BIGINT NOT NULL)")
        done = conn.execute("SELECT 1 FROM bench_built WHERE n = %s", (n,)).fetchone()
    return url, done is not None


async def build(pg: Postgres, n: int, texts: list[str], keep: bool) -> dict[str, Any]:
    """A database of `n` memories; the seconds the load and the index took. With `keep`, a database an
    earlier run finished is measured as it is (its build times are not known then)."""
    import psycopg

    url, done = kept(pg, n) if keep else (pg.fresh(), False)
    who = owners(n)
    row: dict[str, Any] = {
        "url": url,
        "users": len(set(who)),
        "load_s": float("nan"),
        "index_s": float("nan"),
    }
    if not done:
        embedder = ProjectionEmbedder()
        async with PostgresEngine(url, embedder=embedder) as engine:
            await engine.upgrade()  # the schema (and the index, dropped for the load)
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(f'DROP INDEX IF EXISTS "{vector_index_name(embedder.name, embedder.dim)}"')
        # without migrations an engine only checks the schema, so the index stays missing until below
        async with PostgresEngine(url, embedder=embedder, migrate=False) as engine:
            t = time.perf_counter()
            for at in range(0, n, BATCH):
                batch = [
                    NewItem(ItemKind.CONVERSATION, texts[i], ItemMeta(namespace=user(who[i])))
                    for i in range(at, min(n, at + BATCH))
                ]
                await engine.store_many(batch)
            row["load_s"] = time.perf_counter() - t
        t = time.perf_counter()
        async with PostgresEngine(url, embedder=embedder) as engine:
            await engine.upgrade()  # creates the missing index
        row["index_s"] = time.perf_counter() - t
        pg.analyze(url)
        if keep:
            with psycopg.connect(url, autocommit=True) as conn:
                conn.execute("INSERT INTO bench_built (n) VALUES (%s)", (n,))
    row["mb"] = pg.size_mb(url)
    return row


async def one(engine: PostgresEngine, mode: str, q: str, flt: MetaFilter) -> tuple[float, list[str]]:
    t = time.perf_counter()
    if mode == "recall":
        answer = await engine.recall(RecallRequest(question=q, filter=flt, limit=LIMIT))
        took = time.perf_counter() - t
        return took * 1000, [c.id for c in answer.citations]
    result = await engine.fetch(FetchRequest(q, mode=FetchMode(mode), filter=flt, limit=LIMIT))
    took = time.perf_counter() - t
    return took * 1000, [h.item.id for h in result.hits]


async def measure(urls: dict[int, str], queries: list[str]) -> dict[int, dict[str, Any]]:
    flt = MetaFilter(namespace=user(0))
    out: dict[int, dict[str, Any]] = {
        n: {"lat": {m: [] for m in MODES}, "plans": Counter(), "empty": 0} for n in urls
    }
    async with contextlib.AsyncExitStack() as stack:
        engines = {
            n: await stack.enter_async_context(PostgresEngine(url, embedder=ProjectionEmbedder()))
            for n, url in urls.items()
        }
        for engine in engines.values():  # warm: connections, plans, the user's pages
            for q in queries[:5]:
                for mode in MODES:
                    await one(engine, mode, q, flt)
        for at, q in enumerate(queries):
            # every size in turn, the order reversed every other question so none always goes first
            order = list(engines.items())
            for mode in MODES:
                for n, engine in order if at % 2 else order[::-1]:
                    ms, ids = await one(engine, mode, q, flt)
                    out[n]["lat"][mode].append(ms)
                    if mode == "semantic":
                        plan = engine.last_semantic_plan
                        out[n]["plans"][plan.value if plan is not None else "none"] += 1
                        out[n]["empty"] += not ids
    return out


def fmt(values: list[float]) -> str:
    return f"{percentile(values, 50):.2f} / {percentile(values, 95):.2f}"


def built_line(n: int, b: dict[str, Any]) -> str:
    if b["load_s"] != b["load_s"]:  # nan: a database kept from an earlier run
        return f"{n:,} kept from an earlier run of this bench"
    return f"{n:,} stored in {b['load_s']:.0f} s ({n / b['load_s']:.0f} items/s), index {b['index_s']:.0f} s"


def render(built: dict[int, dict[str, Any]], res: dict[int, dict[str, Any]], load: str, nq: int) -> str:
    sizes = sorted(built)
    small, large = sizes[0], sizes[-1]
    lines = [
        "## Tenancy on Postgres: one user's read in a growing database (`bench/tenancy_pg.py`)",
        "",
        f"One user of {USER_ROWS} memories among {', '.join(f'{n:,}' for n in sizes)} synthetic memories "
        "(the rest spread over users of 500, every user's rows scattered through the table), each size its "
        "own database on one Postgres server (pgserver's build of Postgres 16.2 with pgvector 0.6.2, default "
        "settings, on this machine, over a unix socket), vectors from the random-projection embedder (dim "
        "384; the query embedded in the fetch), the HNSW index built after the load, then ANALYZE. "
        f"{nq} LoCoMo questions, `limit={LIMIT}`, the user's namespace as the filter; every question runs "
        "on every size in turn (interleaved, so load falls on all alike; the order reversed every other "
        f"question), one client, one connection at a time; {machine_line()}; 1-min load {load}. "
        "Milliseconds, p50 / p95.",
        "",
    ]
    rows = []
    for n in sizes:
        b = built[n]
        rows.append(
            [
                f"{n:,} ({b['users']} users, {b['mb']:.0f} MB)",
                *(fmt(res[n]["lat"][m]) for m in MODES),
                ", ".join(f"{p} {c}" for p, c in sorted(res[n]["plans"].items())),
            ]
        )
    headers = ["database", *(f"{m} {'fetch' if m != 'recall' else ''}".strip() for m in MODES)]
    lines.append(table([*headers, "semantic plans"], rows))
    ratios = ", ".join(
        f"{m} {percentile(res[large]['lat'][m], 50) / percentile(res[small]['lat'][m], 50):.2f}x"
        for m in MODES
    )
    lines += [
        "",
        f"Growth, {large:,} / {small:,} p50: {ratios}.",
        "",
        "Build (`store_many` in batches of "
        f"{BATCH:,}, then the index): " + "; ".join(built_line(n, built[n]) for n in sizes) + ".",
        "",
        "The issue's target is a 1M / 10k ratio of at most 1.3 per mode; the sizes above are what this "
        "machine builds in the time a run has (`--sizes` takes larger ones).",
    ]
    return "\n".join(lines) + "\n"


async def run(
    pg: Postgres, sizes: list[int], queries: list[str], keep: bool
) -> tuple[dict[int, Any], dict[int, Any]]:
    words, p = vocabulary(LOCOMO)
    built: dict[int, dict[str, Any]] = {}
    for n in sizes:
        built[n] = await build(pg, n, sentences(n, words, p), keep)
        b = built[n]
        print(
            f"  stored {n:,} ({b['users']} users) in {b['load_s']:.0f} s, index {b['index_s']:.0f} s",
            file=sys.stderr,
            flush=True,
        )
    res = await measure({n: built[n]["url"] for n in sizes}, queries)
    return built, res


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", default="10000,100000", help="database sizes, comma-separated")
    parser.add_argument("--queries", type=int, default=200, help="LoCoMo questions to ask")
    parser.add_argument(
        "--pg", help="administrator URL of a Postgres with pgvector (default: a throwaway server)"
    )
    parser.add_argument("--index-memory", default="1GB", help="maintenance_work_mem for the index build")
    parser.add_argument(
        "--keep", action="store_true", help="with --pg: keep the databases, and measure kept ones as they are"
    )
    parser.add_argument("--no-write", action="store_true", help="print only; leave docs/benchmarks.md")
    args = parser.parse_args()
    sizes = sorted(int(s) for s in args.sizes.split(","))
    if len(sizes) < 2 or sizes[0] < USER_ROWS + 1:
        print(f"tenancy_pg: --sizes needs two sizes of more than {USER_ROWS} memories", file=sys.stderr)
        return 2
    questions = [q["question"] for s in json.loads(LOCOMO.read_text()) for q in s["qa"]][: args.queries]
    loads = [os.getloadavg()[0]]
    pg = Postgres(args.pg)
    # room to build the HNSW index in memory after the load (the default 64 MB spills to disk at 100k)
    pg.sql(f"ALTER ROLE {ROLE} SET maintenance_work_mem = '{args.index_memory}'")
    try:
        built, res = asyncio.run(run(pg, sizes, questions, args.keep and args.pg is not None))
    finally:
        pg.close()
    loads.append(os.getloadavg()[0])
    md = render(built, res, f"{min(loads):.1f} to {max(loads):.1f}", len(questions))
    print(md)
    if not args.no_write:
        write_section("tenancy-postgres", md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
