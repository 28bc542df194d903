"""SQLite and Postgres side by side in one run: LoCoMo recall, store throughput and fetch latency.

    python bench/engines.py [--sizes 100000] [--lexical-sizes 1000000] [--queries 200] [--pg URL]
                            [--skip-locomo] [--no-write]

Both engines run the same code above them (the ranking pipeline in tinymemory.retrieval), so LoCoMo recall
must agree; the synthetic rows show what each storage costs. Postgres is a throwaway server from the
`pgserver` wheel (PostgreSQL 16 with pgvector, over a unix socket on this machine) unless `--pg` names an
administrator URL of another server; every run gets fresh databases and a plain role, so row-level
security is on, as in a deployment. The two engines alternate within each size, on the same cores,
with BLAS on one thread.

Items and queries are those of bench/scale.py (synthetic chat-like sentences over 20 teams x 3 agents,
vectors from a random projection of the query embedder's dimension; every query pays the real query
embedder).
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import asyncio  # noqa: E402
import contextlib  # noqa: E402
import json  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
import uuid  # noqa: E402
from collections.abc import AsyncIterator, Callable  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
import locomo  # noqa: E402
import scale  # noqa: E402
from pg import Postgres, postgres  # noqa: E402
from report import machine_line, percentile, table, write_section  # noqa: E402
from synthetic import ProjectionEmbedder, sentences, vocabulary  # noqa: E402
from tinymemory.api import FetchMode, MemoryEngine, MetaFilter, Namespace, Reach  # noqa: E402

ENGINES = ("sqlite", "postgres")


@contextlib.asynccontextmanager
async def opened(
    kind: str, pg: Postgres, tmp: Path, embedder: Any
) -> AsyncIterator[tuple[MemoryEngine, Callable[[], float]]]:
    """A fresh engine of `kind` and a function giving its storage size in MB."""
    if kind == "sqlite":
        from tinymemory.engines.sqlite import SqliteEngine

        path = tmp / f"{uuid.uuid4().hex[:8]}.db"
        async with SqliteEngine(str(path), embedder=embedder) as eng:
            yield eng, lambda: scale.disk_mb(path)
        return
    from tinymemory.engines.postgres import PostgresEngine

    url = pg.fresh()
    async with PostgresEngine(url, embedder=embedder) as peng:
        yield peng, lambda: pg.size_mb(url)


async def locomo_side_by_side(pg: Postgres, tmp: Path, path: Path) -> dict[str, Any]:
    from tinymemory.retrieval.embedders import default_embedder

    stats = locomo.EvidenceStats()
    convs = locomo.load(path, stats)
    embedder = locomo.CachedEmbedder(default_embedder())
    out: dict[str, Any] = {}
    for kind in ENGINES:
        async with opened(kind, pg, tmp, embedder) as (eng, _):
            modes = list(eng.descriptor.fetch_modes)
            out[kind] = await locomo.evaluate(eng, convs, modes)
            print(f"  locomo on {kind}: done", file=sys.stderr, flush=True)
    return out


async def scale_side_by_side(
    pg: Postgres,
    tmp: Path,
    n: int,
    queries: list[str],
    query_embedder: Any,
    words: list[str],
    p: Any,
    lexical_only: bool = False,
) -> dict[str, Any]:
    texts = sentences(n, words, p)
    res: dict[str, Any] = {"n": n, "lexical_only": lexical_only}
    one_team = MetaFilter(reach=Reach.subtree(Namespace.parse("team:t3")))
    one_agent = MetaFilter(reach=Reach.of(Namespace.parse("team:t3/agent:a1")))
    for kind in ENGINES:
        timed = scale.Timed(ProjectionEmbedder(dim=query_embedder.dim, pay_query_with=query_embedder))
        async with opened(kind, pg, tmp, None if lexical_only else timed) as (eng, size):
            took = await scale.store_all(eng, texts)
            row: dict[str, Any] = {
                "store_per_s": n / took,
                "store_no_embed_per_s": n / max(took - timed.seconds, 1e-9),
            }
            print(f"  {kind}: stored {n:,} in {took:.0f} s", file=sys.stderr, flush=True)
            if kind == "postgres":
                # what autovacuum does within a minute of a bulk load: fresh planner statistics (without
                # them the first reads after a large load plan as if the tables were empty)
                pg.analyze(pg.last_url)
            warm = FetchMode.LEXICAL if lexical_only else FetchMode.HYBRID
            await scale.time_fetches(eng, queries[:5], warm, one_team)  # warm caches
            for mode in eng.descriptor.fetch_modes:
                for label, flt in (("agent", one_agent), ("team", one_team)):
                    lat = await scale.time_fetches(eng, queries, mode, flt)
                    row[f"{mode.value}/{label}"] = (percentile(lat, 50), percentile(lat, 95))
            row["disk_mb"] = size()
        res[kind] = row
    return res


def recall_rows(result: dict[str, Any]) -> tuple[list[list[str]], float]:
    rows: list[list[str]] = []
    worst = 0.0
    for mode in ("lexical", "semantic", "hybrid"):
        got = {k: result[k]["modes"].get(mode) for k in ENGINES}
        if any(v is None for v in got.values()):
            continue
        for kind in ENGINES:
            rows.append(locomo._row(f"{kind} {mode}", got[kind]))
        for k in locomo.KS:
            for cat in [0, *locomo.CATEGORIES]:
                a = got["sqlite"]["recall"][k].get(cat)
                b = got["postgres"]["recall"][k].get(cat)
                if a is not None and b is not None:
                    worst = max(worst, abs(a - b))
    return rows, worst


def render(run: dict[str, Any]) -> str:
    lines = [
        "## SQLite and Postgres side by side (bench/engines.py)",
        "",
        f"Machine: {run['machine']}. Postgres {run['pg_version']} with pgvector {run['pgvector']}, on the"
        " same machine over a unix socket, a plain role (row-level security on). Engines alternate within"
        " each size; one process, BLAS on one thread. After each Postgres load the bench runs ANALYZE, as"
        " autovacuum would within about a minute; without fresh statistics the first reads after a bulk"
        " load are planned as over empty tables (measured at 100k: a hybrid fetch for one agent took 56 ms"
        " before ANALYZE, 15 ms after).",
        "",
    ]
    if "locomo" in run:
        rows, worst = recall_rows(run["locomo"])
        lines += [
            "LoCoMo evidence recall, each conversation in its own namespace (the same data and embedder):",
            "",
            table(locomo.HEADERS, rows),
            "",
            f"Largest difference between the engines over every k and category: {worst:.4f}.",
            "Store rate on LoCoMo turns (items/s, with the default embedder): "
            + ", ".join(f"{k} {run['locomo'][k]['store_per_s']:.0f}" for k in ENGINES)
            + ".",
            "",
        ]
    for size in run.get("scale", []):
        n = size["n"]
        headers = ["engine", "store items/s", "store items/s (embedding excluded)", "disk MB"]
        rows = [
            [
                k,
                f"{size[k]['store_per_s']:.0f}",
                f"{size[k]['store_no_embed_per_s']:.0f}",
                f"{size[k]['disk_mb']:.0f}",
            ]
            for k in ENGINES
        ]
        what = "lexical only (no embedder)" if size.get("lexical_only") else "with vectors"
        lines += [f"### {n:,} synthetic items, {what}", "", table(headers, rows), ""]
        keys = [key for key in size["sqlite"] if "/" in key]
        fetch_rows = []
        for key in keys:
            a, b = size["sqlite"][key], size["postgres"].get(key)
            if b is None:
                continue
            fetch_rows.append(
                [key, f"{a[0]:.1f} / {a[1]:.1f}", f"{b[0]:.1f} / {b[1]:.1f}", f"{b[0] / a[0]:.2f}x"]
            )
        lines += [
            "Fetch latency, p50 / p95 ms, top 10 (`agent`: one agent's inherited reach;"
            " `team`: a team's subtree):",
            "",
            table(["mode/reach", "sqlite", "postgres", "p50 ratio"], fetch_rows),
            "",
        ]
    return "\n".join(lines)


async def main_async(args: argparse.Namespace) -> int:
    import psycopg

    run: dict[str, Any] = {"machine": machine_line()}
    with postgres(args.pg) as pg, tempfile.TemporaryDirectory(prefix="tinymemory-engines-") as tmp:
        with psycopg.connect(pg.admin_url) as conn:
            run["pg_version"] = str(conn.execute("SHOW server_version").fetchone()[0])  # type: ignore[index]
            got = conn.execute("SELECT default_version FROM pg_available_extensions WHERE name = 'vector'")
            row = got.fetchone()
            run["pgvector"] = str(row[0]) if row else "?"
        if not args.skip_locomo:
            run["locomo"] = await locomo_side_by_side(pg, Path(tmp), Path(args.locomo))
        if args.sizes or args.lexical_sizes:
            query_embedder, _ = scale.embedders("default")
            words, p = vocabulary(scale.LOCOMO)
            questions = [q["question"] for s in json.loads(scale.LOCOMO.read_text()) for q in s["qa"]]
            queries = questions[: args.queries]
            run["scale"] = []
            plan = [(int(s), False) for s in args.sizes.split(",") if s.strip()]
            plan += [(int(s), True) for s in args.lexical_sizes.split(",") if s.strip()]
            for n, lexical_only in plan:
                started = time.perf_counter()
                run["scale"].append(
                    await scale_side_by_side(
                        pg, Path(tmp), n, queries, query_embedder, words, p, lexical_only=lexical_only
                    )
                )
                print(f"size {n:,}: {time.perf_counter() - started:.0f} s", file=sys.stderr, flush=True)
    out_dir = Path(__file__).resolve().parent / "out"
    out_dir.mkdir(exist_ok=True)
    (out_dir / "engines-last.json").write_text(json.dumps(run, indent=1, default=str))
    md = render(run)
    print(md)
    if not args.no_write:
        write_section("engines", md)
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", default=os.environ.get("TINYMEMORY_BENCH_ENGINE_SIZES", "100000"))
    parser.add_argument(
        "--lexical-sizes",
        default="",
        help="sizes run without an embedder on both engines (a 1M-item HNSW index takes hours to build here)",
    )
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument(
        "--pg", help="administrator URL of a Postgres with pgvector (default: a throwaway server)"
    )
    parser.add_argument("--locomo", default=str(locomo.DEFAULT_FILE), help="LoCoMo-format JSON")
    parser.add_argument("--skip-locomo", action="store_true")
    parser.add_argument("--no-write", action="store_true", help="do not update docs/benchmarks.md")
    return asyncio.run(main_async(parser.parse_args()))


if __name__ == "__main__":
    sys.exit(main())
