"""What the privacy rules cost at scale: reach-scoped bm25 against whole-file bm25, side by side.

Builds a lexical-only file of N synthetic memories (default 100k) spread over 20 teams x 3 agents, as
bench/scale.py does, then for each LoCoMo question ranks it three ways on one connection, interleaved
query by query so that load falls on all alike:

- `leaks`: the ranking before schema 5, bm25 with whole-file statistics and the reach applied as a
  filter (what a confined read used to do; its scores reveal other tenants' words). It was FTS5's
  `bm25()` up to schema 11; it is now `search.lexical_whole` with the reach's filter, the same floats;
- `scoped`: bm25 from the reach's own statistics over the reach's own postings (`lex_postings`; today's
  path for any read confined to part of the tree);
- `whole file`: the whole file's bm25 with no reach (today's path when a read reaches every namespace).

It also times an end-to-end lexical `fetch` for an agent's scope, storing (the statistics are kept on
write), forgetting 200 items and purging them (the postings copied into a fresh table so their words
leave it), and the statistics' share of the file. Writes the `privacy` section of docs/benchmarks.md.

    python bench/privacy.py [--n 100000] [--queries 200] [--no-write]
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
from scale import BATCH, LOCOMO, items_for
from synthetic import sentences, vocabulary
from tinymemory.api import (
    FetchMode,
    FetchRequest,
    ForgetRequest,
    ListRequest,
    MetaFilter,
    Namespace,
    PurgeRequest,
    Reach,
)
from tinymemory.engines.sqlite import SqliteEngine, db, lexstats, search
from tinymemory.retrieval.text import default_analyzer

TOP = 10
STATISTICS = ("lex_ns", "sqlite_autoindex_lex_ns_1", "lex_terms")  # the b-trees of the per-namespace counts
AGENT = Namespace.parse("team:t3/agent:a1")
SCOPES = {
    "one agent (its node and ancestors)": MetaFilter(reach=Reach.of(AGENT)),
    "one team (subtree)": MetaFilter(reach=Reach.subtree(Namespace.parse("team:t3"))),
}


def ms(values: list[float]) -> str:
    return f"{percentile(values, 50):.2f} / {percentile(values, 95):.2f}"


def rank_side_by_side(conn: sqlite3.Connection, queries: list[str]) -> dict[str, dict[str, list[float]]]:
    analyzer = default_analyzer()
    snapshot = search.max_rowid(conn)
    want = 50  # one fetch pool (pipeline.pool_size for a limit of 10)
    out: dict[str, dict[str, list[float]]] = {}
    for label, flt in SCOPES.items():
        lat: dict[str, list[float]] = {"leaks": [], "scoped": [], "whole file": []}
        for q in queries:
            terms = analyzer.query_terms(q)
            t = time.perf_counter()
            whole = lexstats.stats(conn, None, terms)  # whole-file counts
            pruned = search.prune(terms, whole.df, search.POSTINGS_BUDGET)
            search.lexical_whole(conn, pruned, flt, snapshot, want, whole, 0.5)
            lat["leaks"].append((time.perf_counter() - t) * 1000)
            t = time.perf_counter()  # statistics, pruning at the scoped budget, postings, scores
            search.lexical(conn, analyzer, q, flt, snapshot, want, search.POSTINGS_BUDGET, 0.5)
            lat["scoped"].append((time.perf_counter() - t) * 1000)
            t = time.perf_counter()
            search.lexical(conn, analyzer, q, MetaFilter(), snapshot, want, search.POSTINGS_BUDGET, 0.5)
            lat["whole file"].append((time.perf_counter() - t) * 1000)
        out[label] = lat
    return out


def table_bytes(conn: sqlite3.Connection) -> dict[str, int] | None:
    try:
        rows = conn.execute("SELECT name, sum(pgsize) FROM dbstat GROUP BY name").fetchall()
    except sqlite3.Error:
        return None
    return {str(n): int(b) for n, b in rows}


async def run(n: int, queries: list[str]) -> dict[str, Any]:
    words, p = vocabulary(LOCOMO)
    texts = sentences(n, words, p)
    res: dict[str, Any] = {"n": n}
    with tempfile.TemporaryDirectory(prefix="tinymemory-privacy-") as tmp:
        path = Path(tmp) / "memory.db"
        async with SqliteEngine(path, embedder=None) as engine:
            took = 0.0
            for at in range(0, n, BATCH):
                batch = items_for(texts[at : at + BATCH], offset=at)
                t = time.perf_counter()
                await engine.store_many(batch)
                took += time.perf_counter() - t
            res["store_per_s"] = n / took
            print(f"  stored {n:,} in {took:.0f} s", file=sys.stderr, flush=True)
            lat = []
            for q in queries:
                t = time.perf_counter()
                await engine.fetch(
                    FetchRequest(
                        q, mode=FetchMode.LEXICAL, filter=SCOPES["one agent (its node and ancestors)"]
                    )
                )
                lat.append((time.perf_counter() - t) * 1000)
            res["fetch_agent"] = lat
            listed = await engine.list(ListRequest(filter=MetaFilter(reach=Reach.exact(AGENT)), limit=50))
            victims: list[str] = [i.id for i in listed.items]
            more = await engine.list(
                ListRequest(filter=MetaFilter(reach=Reach.exact(AGENT)), limit=50, cursor=listed.next_cursor)
            )
            victims += [i.id for i in more.items]
            t = time.perf_counter()
            for i in range(0, len(victims), 10):
                await engine.forget(ForgetRequest(ids=tuple(victims[i : i + 10])))
            res["forget_ms_per_call"] = (time.perf_counter() - t) * 1000 / max(1, len(victims) // 10)
            res["forgotten"] = len(victims)
            t = time.perf_counter()
            res["purged"] = (await engine.purge(PurgeRequest())).purged
            res["purge_s"] = time.perf_counter() - t
        conn = db.connect(str(path))
        try:
            res["rank"] = rank_side_by_side(conn, queries)
            res["bytes"] = table_bytes(conn)
        finally:
            conn.close()
        res["file_mb"] = path.stat().st_size / 1e6
    return res


def render(res: dict[str, Any], load: str, n_queries: int) -> str:
    lines = [
        "## Privacy: reach-scoped ranking (`bench/privacy.py`)",
        "",
        f"{res['n']:,} synthetic memories over 20 teams x 3 agents, lexical only, "
        f"{n_queries} LoCoMo questions, "
        f"top {TOP}; {machine_line()}; 1-min load {load}. Milliseconds, p50 / p95, the three rankers timed "
        "query by query on one connection (ranking only, candidates of one fetch pool).",
        "",
    ]
    rows = []
    for scope, lat in res["rank"].items():
        leak, scoped, whole = lat["leaks"], lat["scoped"], lat["whole file"]
        ratio = percentile(scoped, 50) / max(percentile(leak, 50), 1e-9)
        rows.append([scope, ms(leak), ms(scoped), f"{ratio:.2f}x", ms(whole)])
    lines.append(
        table(
            [
                "reach",
                "whole-file statistics, the reach as a filter (leaks)",
                "scoped bm25",
                "p50 ratio",
                "no reach",
            ],
            rows,
        )
    )
    lines += [
        "",
        f"- End-to-end lexical `fetch` for one agent's reach: {ms(res['fetch_agent'])} ms.",
        f"- Storing with the statistics kept on write: {res['store_per_s']:,.0f} items/s "
        f"(batches of {BATCH}, lexical only).",
        f"- Forgetting {res['forgotten']} items, 10 ids a call (each takes its row out of the index and "
        f"the statistics): {res['forget_ms_per_call']:.1f} ms a call.",
        f"- Purging them (rows deleted, the postings copied into a fresh table so their words leave it, "
        f"freed pages zeroed, WAL truncated): {res['purge_s']:.2f} s at {res['n']:,} items.",
    ]
    if res.get("bytes"):
        b = res["bytes"]
        # the counts only: the postings (`lex_postings`) and the analysed columns (`lex_docs`) are the index
        stats = sum(v for k, v in b.items() if k in STATISTICS)
        total = sum(b.values())
        lines.append(
            f"- The per-namespace statistics (`lex_ns`, `lex_terms`) take {stats / 1e6:.1f} MB of "
            f"{total / 1e6:.1f} MB ({100 * stats / max(total, 1):.0f}%; "
            f"{stats / res['n']:.0f} bytes per item)."
        )
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--n", type=int, default=100_000, help="memories to store")
    parser.add_argument("--queries", type=int, default=200, help="LoCoMo questions to rank")
    parser.add_argument("--no-write", action="store_true", help="print only; leave docs/benchmarks.md")
    args = parser.parse_args()
    questions = [q["question"] for s in json.loads(LOCOMO.read_text()) for q in s["qa"]][: args.queries]
    loads = [os.getloadavg()[0]]
    res = asyncio.run(run(args.n, questions))
    loads.append(os.getloadavg()[0])
    md = render(res, f"{min(loads):.1f} to {max(loads):.1f}", len(questions))
    print(md)
    if not args.no_write:
        write_section("privacy", md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
