"""What one user's lexical read costs as the store around it grows (issue 24, part 1).

Builds lexical-only files (embedder=None, so that building stays fast: the figures are the lexical side
only) of N synthetic memories each (default 10k and 100k): one user, `team:acme/user:u0`, holds 500 of
them, scattered through the file; in the largest file further users hold 1,000 to 8,000 (the threshold
sweep); the rest are spread over users of 500 memories each. For each LoCoMo question that user's read
is ranked both ways on one connection, interleaved query by query so that load falls on both alike:

- `postings`: bm25 from FTS5's postings of the kept query terms (every tenant's rows), then the filter
  (`search.DIRECT_MAX = 0`, the path before);
- `own rows`: the reach's own rows read and their terms counted in Python (the path for a reach of at
  most `search.DIRECT_MAX` indexed rows).

Both use the reach's statistics and the same pruning, so they return the same ranking (checked here
too). Also an end-to-end lexical `fetch` of the user both ways. Writes the `tenancy` section of
docs/benchmarks.md.

Then a hybrid `fetch` of the user both ways, in files built with the default embedder (default 10k and
50k).

    python bench/tenancy.py [--sizes 10000,100000] [--hybrid-sizes 10000,50000] [--queries 200]
        [--no-write]
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
from pathlib import Path
from typing import Any

from report import machine_line, percentile, table, write_section
from scale import BATCH, LOCOMO
from synthetic import sentences, vocabulary
from tinymemory.api import FetchMode, FetchRequest, ItemKind, ItemMeta, MetaFilter, Namespace, NewItem
from tinymemory.engines.sqlite import SqliteEngine, db, lexstats, search
from tinymemory.retrieval.text import default_analyzer

USER_ROWS = 500
SWEEP = (1_000, 2_000, 4_000, 8_000)  # further users' sizes, in the largest file only
WANT = 50  # one fetch pool (pipeline.pool_size for a limit of 10)
CONTEXT_WEIGHT = 0.5


def user(u: int) -> Namespace:
    return Namespace.parse(f"team:acme/user:u{u}")


def owners(n: int, sweep: tuple[int, ...]) -> list[int]:
    """The user of each of `n` memories: user 0 holds USER_ROWS, users 1.. the sweep's sizes, the rest
    500 each; interleaved, so every user's rows are scattered through the file."""
    sizes = [USER_ROWS, *sweep]
    rest = n - sum(sizes)
    sizes += [500] * (rest // 500) + ([rest % 500] if rest % 500 else [])
    # each user's k-th row at (k + 0.5) / size of the way through the file: an even interleave
    order = sorted(((k + 0.5) / size, u) for u, size in enumerate(sizes) for k in range(size))
    return [u for _, u in order]


async def build(
    path: Path, n: int, sweep: tuple[int, ...], texts: list[str], embedder: str | None = None
) -> tuple[float, int]:
    who = owners(n, sweep)
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
    return took, len(set(who))


def rank_both(conn: sqlite3.Connection, flt: MetaFilter, queries: list[str]) -> dict[str, list[float]]:
    analyzer = default_analyzer()
    snapshot = search.max_rowid(conn)
    default = search.DIRECT_MAX
    lat: dict[str, list[float]] = {"postings": [], "own rows": []}
    try:
        for q in queries:
            got = {}
            for label, limit in (("postings", 0), ("own rows", 10**9)):
                search.DIRECT_MAX = limit
                t = time.perf_counter()  # statistics, pruning, scores: all of `lexical`
                got[label] = search.lexical(
                    conn, analyzer, q, flt, snapshot, WANT, search.POSTINGS_BUDGET, CONTEXT_WEIGHT
                )
                lat[label].append((time.perf_counter() - t) * 1000)
            a, b = got["postings"], got["own rows"]
            assert [r for r, _ in a] == [r for r, _ in b], q
            assert all(abs(x - y) < 1e-9 for (_, x), (_, y) in zip(a, b, strict=True)), q
    finally:
        search.DIRECT_MAX = default
    return lat


async def fetch_both(
    path: Path, flt: MetaFilter, queries: list[str], mode: FetchMode = FetchMode.LEXICAL
) -> dict[str, list[float]]:
    default = search.DIRECT_MAX
    lat: dict[str, list[float]] = {"postings": [], "own rows": []}
    embedder = None if mode is FetchMode.LEXICAL else "default"
    try:
        async with SqliteEngine(path, embedder=embedder) as engine:
            for q in queries:
                for label, limit in (("postings", 0), ("own rows", default)):
                    search.DIRECT_MAX = limit
                    t = time.perf_counter()
                    await engine.fetch(FetchRequest(q, mode=mode, filter=flt))
                    lat[label].append((time.perf_counter() - t) * 1000)
    finally:
        search.DIRECT_MAX = default
    return lat


async def run(sizes: list[int], hybrid: list[int], queries: list[str]) -> dict[str, Any]:
    words, p = vocabulary(LOCOMO)
    res: dict[str, Any] = {"sizes": {}, "hybrid": {}}
    largest = max(sizes)
    with tempfile.TemporaryDirectory(prefix="tinymemory-tenancy-") as tmp:
        for n in sizes:
            sweep = SWEEP if n == largest and n >= 2 * sum(SWEEP) else ()
            path = Path(tmp) / f"m{n}.db"
            took, users = await build(path, n, sweep, sentences(n, words, p))
            print(f"  stored {n:,} ({users} users) in {took:.0f} s", file=sys.stderr, flush=True)
            row: dict[str, Any] = {"users": users, "store_s": took}
            conn = db.connect(str(path))
            try:
                docs = lexstats.stats(conn, lexstats.scope_of(MetaFilter(namespace=user(0))), []).docs
                row["user_rows"] = docs
                row["rank"] = rank_both(conn, MetaFilter(namespace=user(0)), queries)
                row["sweep"] = {
                    size: rank_both(conn, MetaFilter(namespace=user(k)), queries)
                    for k, size in enumerate(sweep, 1)
                }
            finally:
                conn.close()
            row["fetch"] = await fetch_both(path, MetaFilter(namespace=user(0)), queries)
            res["sizes"][n] = row
            path.unlink()
        for n in hybrid:
            path = Path(tmp) / f"h{n}.db"
            took, users = await build(path, n, (), sentences(n, words, p), "default")
            print(
                f"  stored {n:,} ({users} users, default embedder) in {took:.0f} s",
                file=sys.stderr,
                flush=True,
            )
            lat = await fetch_both(path, MetaFilter(namespace=user(0)), queries, FetchMode.HYBRID)
            res["hybrid"][n] = {"users": users, "store_s": took, "fetch": lat}
            path.unlink()
    return res


def p50(values: list[float]) -> float:
    return percentile(values, 50)


def ms(values: list[float]) -> str:
    return f"{percentile(values, 50):.2f} / {percentile(values, 95):.2f}"


def render(res: dict[str, Any], load: str, n_queries: int) -> str:
    sizes = sorted(res["sizes"])
    small, large = sizes[0], sizes[-1]
    lines = [
        "## Tenancy: one user's read in a growing store (`bench/tenancy.py`)",
        "",
        f"One user of {USER_ROWS} memories among {', '.join(f'{n:,}' for n in sizes)} synthetic memories "
        f"(the rest spread over users of 500, every user's rows scattered through the file), lexical only "
        f"(embedder=None: these are the lexical side's figures), {n_queries} LoCoMo questions, a fetch "
        f"pool of {WANT}, context weight {CONTEXT_WEIGHT}; one thread; {machine_line()}; 1-min load {load}. "
        "Milliseconds, p50 / p95. `postings` is the path before (bm25 from FTS5's postings of the kept "
        "terms, every tenant's, then the filter); `own rows` the path for a reach of at most "
        f"{search.DIRECT_MAX:,} indexed rows (the reach's rows read, their terms counted). Both run query "
        "by query on one connection, interleaved; their rankings and scores are checked equal.",
        "",
    ]
    rows = []
    for n in sizes:
        r = res["sizes"][n]
        rows.append(
            [
                f"{n:,} ({r['users']} users)",
                ms(r["rank"]["postings"]),
                ms(r["rank"]["own rows"]),
                ms(r["fetch"]["postings"]),
                ms(r["fetch"]["own rows"]),
            ]
        )
    lines.append(
        table(
            [
                "store",
                "ranking: postings",
                "ranking: own rows",
                "lexical fetch: postings",
                "lexical fetch: own rows",
            ],
            rows,
        )
    )
    a, b = res["sizes"][small], res["sizes"][large]

    def grew(part: str, side: str) -> str:
        return f"{p50(b[part][side]) / p50(a[part][side]):.2f}x"

    lines += [
        "",
        f"Growth, {large:,} / {small:,} p50: ranking {grew('rank', 'postings')} by postings, "
        f"{grew('rank', 'own rows')} by own rows; lexical fetch {grew('fetch', 'postings')} by postings, "
        f"{grew('fetch', 'own rows')} by own rows.",
        "",
        f"The threshold: users of other sizes in the {large:,} file, ranked both ways (p50 / p95 ms):",
        "",
    ]
    sweep = [[f"{USER_ROWS:,}", ms(b["rank"]["postings"]), ms(b["rank"]["own rows"])]]
    sweep += [[f"{size:,}", ms(lat["postings"]), ms(lat["own rows"])] for size, lat in b["sweep"].items()]
    lines.append(table(["user's rows", "postings", "own rows"], sweep))
    if res["hybrid"]:
        hsizes = sorted(res["hybrid"])
        lines += [
            "",
            "Hybrid `fetch` of the same user (the default embedder, files built with it; the query embedded "
            f"in the fetch; the semantic side reads the user's {USER_ROWS} vectors filter-first), "
            "p50 / p95 ms:",
            "",
        ]
        hrows = [
            [
                f"{n:,} ({res['hybrid'][n]['users']} users)",
                ms(res["hybrid"][n]["fetch"]["postings"]),
                ms(res["hybrid"][n]["fetch"]["own rows"]),
            ]
            for n in hsizes
        ]
        lines.append(table(["store", "hybrid fetch: postings", "hybrid fetch: own rows"], hrows))
        if len(hsizes) > 1:
            h0, h1 = res["hybrid"][hsizes[0]]["fetch"], res["hybrid"][hsizes[-1]]["fetch"]
            lines += [
                "",
                f"Growth, {hsizes[-1]:,} / {hsizes[0]:,} p50: "
                f"{p50(h1['postings']) / p50(h0['postings']):.2f}x by postings, "
                f"{p50(h1['own rows']) / p50(h0['own rows']):.2f}x by own rows.",
            ]
    lines += ["", TARGETS]
    return "\n".join(lines) + "\n"


TARGETS = (
    "The issue's targets are measured at 1M memories: a 1M / 10k p50 ratio of at most 1.3 for a user's "
    "read, and a user's hybrid fetch at most 3 ms p50. This bench does not build 1M (`--sizes` can)."
)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", default="10000,100000", help="store sizes, comma-separated")
    parser.add_argument("--hybrid-sizes", default="10000,50000", help="hybrid store sizes ('' for none)")
    parser.add_argument("--queries", type=int, default=200, help="LoCoMo questions to rank")
    parser.add_argument("--no-write", action="store_true", help="print only; leave docs/benchmarks.md")
    args = parser.parse_args()
    questions = [q["question"] for s in json.loads(LOCOMO.read_text()) for q in s["qa"]][: args.queries]
    loads = [os.getloadavg()[0]]
    sizes = [int(s) for s in args.sizes.split(",")]
    hybrid = [int(s) for s in args.hybrid_sizes.split(",") if s]
    res = asyncio.run(run(sizes, hybrid, questions))
    loads.append(os.getloadavg()[0])
    md = render(res, f"{min(loads):.1f} to {max(loads):.1f}", len(questions))
    print(md)
    if not args.no_write:
        write_section("tenancy", md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
