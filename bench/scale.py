"""Store throughput, fetch latency per mode, memory and disk at growing sizes, the growth chart, and a
probe of an HNSW index against the exact scan.

    python bench/scale.py [--sizes 10000,100000,1000000] [--queries 200] [--ann-sizes 10000,100000]
                          [--lexical-max 200000] [--query-embedder default|minilm] [--no-write]

The three sizes above take about 10 minutes on 2 cores (1M items build in about 4.5 minutes); the
default sizes skip 1M.

Items are synthetic chat-like sentences spread over 20 teams x 3 agents. Item vectors come from a
random-projection embedder (bench/synthetic.py) of the query embedder's dimension, so that large
indexes build in minutes; every query still pays the real query embedder (`--query-embedder default`:
what `default_embedder()` gives, static-minilm; `minilm`: the full model, 384-d), so fetch latency is
what a user sees. Separate rows measure store throughput with the real embedders on a small batch.
BLAS runs on one thread (set here, before numpy loads) so that figures do not depend on OpenBLAS
spinning on a shared machine.

The HNSW probe needs `usearch` (the `bench` extra); without it the probe is skipped.
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import asyncio  # noqa: E402
import gc  # noqa: E402
import json  # noqa: E402
import sqlite3  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
from collections.abc import Sequence  # noqa: E402
from dataclasses import replace  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from report import machine_line, percentile, table, write_section  # noqa: E402
from synthetic import ProjectionEmbedder, sentences, vocabulary  # noqa: E402
from tinymemory.api import (  # noqa: E402
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
CHART = ROOT / "docs" / "scale_growth.png"
BATCH = 2000
TEAMS, AGENTS = 20, 3
REAL_ITEMS = 2000  # items per real-embedder store row
TOP = 10
EXPANSIONS = (64, 256)  # HNSW search expansion (ef) probed
# Targets from the scale issue: p50 / p95 ms at 100k, p50 ms at 1M (query embedding included).
TARGET_100K = (10.0, 30.0)
TARGET_1M = 100.0


class Timed:
    """Wraps an embedder and adds up the time spent in `embed`, so store throughput can be reported with
    and without the embedding cost."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.seconds = 0.0

    @property
    def name(self) -> str:
        return str(self.inner.name)

    @property
    def dim(self) -> int:
        return int(self.inner.dim)

    def embed(self, texts: Sequence[str]) -> Any:
        started = time.perf_counter()
        try:
            return self.inner.embed(texts)
        finally:
            self.seconds += time.perf_counter() - started

    def embed_query(self, text: str) -> Any:
        return self.inner.embed_query(text)


class LoadSampler:
    """The 1-min load every 10 s for the whole run (a long run meets other work; one reading per size
    would miss it), summarised as its range and median."""

    def __init__(self, every_s: float = 10.0) -> None:
        self.samples = [os.getloadavg()[0]]
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(every_s,), daemon=True)
        self._thread.start()

    def _run(self, every_s: float) -> None:
        while not self._done.wait(every_s):
            self.samples.append(os.getloadavg()[0])

    def stop(self) -> str:
        self._done.set()
        self._thread.join()
        s = self.samples
        return f"{min(s):.1f} to {max(s):.1f}, median {statistics.median(s):.1f} ({len(s)} samples)"


def rss_mb() -> float:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def items_for(texts: list[str], offset: int = 0) -> list[NewItem]:
    spaces = [Namespace.parse(f"team:t{t}/agent:a{a}") for t in range(TEAMS) for a in range(AGENTS)]
    out = []
    for i, text in enumerate(texts, start=offset):
        ns = spaces[(i % TEAMS) * AGENTS + (i // TEAMS) % AGENTS]
        out.append(
            NewItem(kind=ItemKind.LEARNING, text=text, meta=ItemMeta(namespace=ns, tags=(f"tag{i % 50}",)))
        )
    return out


async def store_all(engine: Any, texts: list[str]) -> float:
    """Seconds spent in store_many storing `texts` in batches of BATCH. Items are built per batch, so a
    1M-item run never holds them all (which would also blur the RSS figure)."""
    took = 0.0
    for at in range(0, len(texts), BATCH):
        batch = items_for(texts[at : at + BATCH], offset=at)
        started = time.perf_counter()
        await engine.store_many(batch)
        took += time.perf_counter() - started
    return took


async def time_fetches(engine: Any, queries: list[str], mode: FetchMode, flt: MetaFilter) -> list[float]:
    lat = []
    for q in queries:
        t = time.perf_counter()
        await engine.fetch(FetchRequest(query=q, mode=mode, filter=flt, limit=TOP))
        lat.append((time.perf_counter() - t) * 1000)
    return lat


async def reranker_cost(engine: Any, queries: list[str], flt: MetaFilter) -> dict[str, Any]:
    """Lexical and hybrid latency with the reranker on and off, alternating query by query in one run, so
    the load of the machine falls on both alike."""
    on = engine.retrieval
    off = replace(on, rerank=replace(on.rerank, model=False))
    lat: dict[str, list[float]] = {}
    for mode in (FetchMode.LEXICAL, FetchMode.HYBRID):
        if mode not in engine.descriptor.fetch_modes:
            continue
        for q in queries:
            for label, cfg in (("on", on), ("off", off)):
                engine.retrieval = cfg
                took = await time_fetches(engine, [q], mode, flt)
                lat.setdefault(f"{mode.value}/rerank-{label}", []).extend(took)
    engine.retrieval = on
    return {key: (percentile(v, 50), percentile(v, 95)) for key, v in lat.items()}


async def build_graph(engine: Any, query: str) -> float | None:
    """Seconds to build the HNSW graph (started by one large read, waited for), or None below the size
    at which reads use it."""
    from tinymemory.engines.sqlite import ann

    graphs = engine.storage._graphs
    rows = (
        engine.storage._matrix.size
        if engine.storage._matrix is not None and engine.storage._matrix.loaded
        else None
    )
    if graphs is None or (rows is not None and rows < ann.ANN_MIN_ROWS):
        return None
    started = time.perf_counter()
    await engine.fetch(FetchRequest(query=query, mode=FetchMode.SEMANTIC, limit=TOP))
    await asyncio.to_thread(graphs.wait)
    if not graphs.files():
        return None
    return time.perf_counter() - started


async def graph_vs_exact(engine: Any, queries: list[str]) -> dict[str, Any]:
    """Semantic and hybrid reads of the whole store through the graph and by the exact scan, alternating
    query by query in one run; recall@10 of the graph's ids against the exact ones."""
    graphs = engine.storage._graphs
    lat: dict[str, list[float]] = {}
    overlap: dict[str, list[float]] = {}
    for mode in (FetchMode.SEMANTIC, FetchMode.HYBRID):
        for q in queries:
            ids: dict[str, list[str]] = {}
            for label, holder in (("graph", graphs), ("exact", None)):
                engine.storage._graphs = holder
                t = time.perf_counter()
                got = await engine.fetch(FetchRequest(query=q, mode=mode, limit=TOP))
                lat.setdefault(f"{mode.value}/{label}", []).append((time.perf_counter() - t) * 1000)
                ids[label] = [h.item.id for h in got.hits]
            exact = set(ids["exact"])
            overlap.setdefault(mode.value, []).append(len(exact & set(ids["graph"])) / max(len(exact), 1))
    engine.storage._graphs = graphs
    if engine.storage._matrix is not None:
        # as the engine leaves it once a graph serves: reads after use no matrix
        engine.storage._matrix.reset()
    out: dict[str, Any] = {k: (percentile(v, 50), percentile(v, 95)) for k, v in lat.items()}
    out.update({f"{m}/recall": sum(v) / len(v) for m, v in overlap.items()})
    return out


def disk_mb(path: Path) -> float:
    total = 0
    for suffix in ("", "-wal", "-shm"):
        p = Path(str(path) + suffix)
        if p.exists():
            total += p.stat().st_size
    return total / 1e6


async def run_size(
    n: int, words: list[str], p: Any, queries: list[str], query_embedder: Any, args: argparse.Namespace
) -> dict[str, Any]:
    from tinymemory.engines.sqlite import SqliteEngine

    started = time.perf_counter()
    texts = sentences(n, words, p)
    res: dict[str, Any] = {"n": n}
    with tempfile.TemporaryDirectory(prefix="tinymemory-scale-") as tmp:
        lex_n = min(n, args.lexical_max)
        res["lexical_n"] = lex_n
        async with SqliteEngine(str(Path(tmp) / "lexical.db"), embedder=None) as lex:
            res["store_lexical"] = lex_n / await store_all(lex, texts[:lex_n])
        gc.collect()
        path = Path(tmp) / "hybrid.db"
        rss0 = rss_mb()
        timed = Timed(ProjectionEmbedder(dim=query_embedder.dim, pay_query_with=query_embedder))
        async with SqliteEngine(str(path), embedder=timed) as eng:
            took = await store_all(eng, texts)
            res["store_vectors"] = n / took
            res["store_no_embed"] = n / max(took - timed.seconds, 1e-9)
            del texts
            gc.collect()
            print(f"  stored {n:,} in {took:.0f} s", file=sys.stderr, flush=True)
            one_team = MetaFilter(reach=Reach.subtree(Namespace.parse("team:t3")))
            everything = MetaFilter()
            await time_fetches(eng, queries[:5], FetchMode.HYBRID, everything)  # warm: load the matrix
            built = await build_graph(eng, queries[0])
            if built is not None:
                res["graph_build_s"] = built
                print(f"  HNSW graph built in {built:.0f} s", file=sys.stderr, flush=True)
                res["graph"] = await graph_vs_exact(eng, queries)
            for mode in eng.descriptor.fetch_modes:
                for label, flt in (("all", everything), ("team", one_team)):
                    lat = await time_fetches(eng, queries, mode, flt)
                    res[f"{mode.value}/{label}"] = (percentile(lat, 50), percentile(lat, 95))
            res.update(await reranker_cost(eng, queries, everything))
            matrix = eng.storage._matrix
            res["matrix_mb"] = matrix.nbytes / 1e6 if matrix is not None else 0.0
            res["rss_mb"] = rss_mb() - rss0
            res["disk_mb"] = disk_mb(path)
        if args.ann_sizes and n in args.ann_sizes:
            res["ann"] = ann_probe(path, timed.inner, queries)
    res["seconds"] = time.perf_counter() - started
    return res


def load_matrix(path: Path, embedder: Any) -> Any:
    from tinymemory.engines.sqlite.vectors import VectorMatrix

    matrix = VectorMatrix(embedder.name, embedder.dim)
    conn = sqlite3.connect(str(path))
    try:
        matrix.refresh(conn)
    finally:
        conn.close()
    return matrix


def ann_probe(path: Path, embedder: Any, queries: list[str]) -> dict[str, Any] | None:
    """The exact top 10 against the optional HNSW index (engines/sqlite/ann.py, f16 and i8) over the same
    file: build time from SQL, query latency (vector search alone: no embedding, no SQL re-check),
    recall@10, and the time to save and to load the persisted graph."""
    from tinymemory.engines.sqlite import ann
    from tinymemory.engines.sqlite.vectors import top_order

    if not ann.available():
        return None
    matrix = load_matrix(path, embedder)
    qvecs = [embedder._one(q) for q in queries]
    exact_lat, truth = [], []
    for q in qvecs:
        t = time.perf_counter()
        order = top_order(matrix.scores(q), TOP)
        exact_lat.append((time.perf_counter() - t) * 1000)
        truth.append({int(matrix.rowids[i]) for i in order})
    out: dict[str, Any] = {"exact": (percentile(exact_lat, 50), percentile(exact_lat, 95))}
    del matrix
    gc.collect()
    for dtype in ("f16", "i8"):
        index = ann.HnswIndex(str(path), embedder.name, embedder.dim, dtype=dtype)
        conn = sqlite3.connect(str(path))
        try:
            t = time.perf_counter()
            index.refresh(conn)
            build = time.perf_counter() - t
        finally:
            conn.close()
        searched = {}
        for ef in EXPANSIONS if dtype == "f16" else EXPANSIONS[:1]:
            index.set_expansion(ef)
            lat, recall = [], []
            for q, want in zip(qvecs, truth, strict=True):
                t = time.perf_counter()
                keys, _ = index.search(q, TOP)
                lat.append((time.perf_counter() - t) * 1000)
                recall.append(len(want & set(keys.tolist())) / TOP)
            searched[ef] = (percentile(lat, 50), percentile(lat, 95), float(np.mean(recall)))
        t = time.perf_counter()
        index.save()
        saved = time.perf_counter() - t
        assert index.path is not None
        size = index.path.stat().st_size / 1e6
        del index
        gc.collect()
        again = ann.HnswIndex(str(path), embedder.name, embedder.dim, dtype=dtype)
        t = time.perf_counter()
        again.load()
        loaded = time.perf_counter() - t
        del again
        out[dtype] = {
            "build_s": build,
            "search": searched,
            "file_mb": size,
            "save_s": saved,
            "load_s": loaded,
        }
        print(f"  hnsw {dtype}: {out[dtype]}", file=sys.stderr, flush=True)
    return out


async def real_store_rate(embedder: Any, words: list[str], p: Any) -> dict[str, Any]:
    """Store REAL_ITEMS through a real embedder (batched): the rate and the share spent embedding."""
    from tinymemory.engines.sqlite import SqliteEngine

    texts = sentences(REAL_ITEMS, words, p, seed=99)
    timed = Timed(embedder)
    with tempfile.TemporaryDirectory(prefix="tinymemory-scale-") as tmp:
        async with SqliteEngine(str(Path(tmp) / "m.db"), embedder=timed) as eng:
            took = await store_all(eng, texts)
    return {
        "name": embedder.name,
        "rate": REAL_ITEMS / took,
        "embed_share": timed.seconds / took,
        "embed_rate": REAL_ITEMS / max(timed.seconds, 1e-9),
    }


def query_cost(embedder: Any, queries: list[str]) -> tuple[float, float]:
    """p50 / p95 ms of one uncached query embedding (`embed`, which no query cache serves)."""
    embedder.embed([queries[0]])
    lat = []
    for q in queries:
        t = time.perf_counter()
        embedder.embed([q])
        lat.append((time.perf_counter() - t) * 1000)
    return percentile(lat, 50), percentile(lat, 95)


def fmt_ms(v: tuple[float, float] | None) -> str:
    return f"{v[0]:.1f} / {v[1]:.1f}" if v else "n/a"


def render(
    rows: list[dict[str, Any]], real: list[dict[str, Any]], qinfo: dict[str, Any], n_queries: int, load: str
) -> str:
    modes = [m.value for m in FetchMode]
    headers = ["items", "store/s lexical", "store/s with vectors", "store/s excl. embedding"]
    for m in modes:
        headers += [f"{m} p50 / p95 ms (all)", f"{m} p50 / p95 ms (1 team)"]
    headers += ["matrix MB", "RSS growth MB", "disk MB"]
    body = []
    for r in rows:
        lex = f"{r['store_lexical']:,.0f}"
        if r["lexical_n"] < r["n"]:
            lex += f" (first {r['lexical_n']:,})"
        line = [f"{r['n']:,}", lex, f"{r['store_vectors']:,.0f}", f"{r['store_no_embed']:,.0f}"]
        for m in modes:
            for label in ("all", "team"):
                line.append(fmt_ms(r.get(f"{m}/{label}")))
        line += [f"{r['matrix_mb']:,.0f}", f"{r['rss_mb']:,.0f}", f"{r['disk_mb']:,.0f}"]
        body.append(line)
    out = [
        "## Scale (`bench/scale.py`)",
        "",
        f"Machine: {machine_line()}; 1-min load during the run: {load}. {n_queries} queries per cell "
        f"(LoCoMo questions), top {TOP}, one at a time, medians (p50) and p95; every fetch includes a real, "
        f"uncached query embedding by `{qinfo['name']}` ({qinfo['p50']:.2f} / {qinfo['p95']:.2f} ms p50 / "
        f"p95 alone). '1 team' confines the reach to one of {TEAMS} teams (about {100 // TEAMS}% of items). "
        f"Item vectors come from a {qinfo['dim']}-d random-projection embedder (see `bench/synthetic.py`); "
        "store/s is measured in batches of "
        f"{BATCH} through `store_many`; 'excl. embedding' subtracts the time spent in the item embedder. "
        "Vectors are stored as float16 and scored as float32; a whole-store read of a file past 50,000 "
        "vectors walks the HNSW graph (built before the queries; compared with the exact scan below), "
        "any other read scans its rows exactly. RSS growth is the process's resident memory after "
        "the queries minus before opening the file (the matrix plus SQLite's page cache).",
        "",
        table(headers, body),
        "",
        "![p50 fetch latency and store throughput against items](scale_growth.png)",
        "",
    ]
    out += targets_lines(rows)
    cost = [r for r in rows if r.get("hybrid/rerank-on")]
    if cost:
        out += [
            "",
            "The reranker's share (all items, the same queries alternating with it on and off, p50 / p95 ms; "
            "these items have no threads or sources, so it pays its full cost for no structural signal):",
            "",
        ]
        for r in cost:
            parts = [
                f"{m} {fmt_ms(r.get(f'{m}/rerank-on'))} with, {fmt_ms(r.get(f'{m}/rerank-off'))} without"
                for m in ("lexical", "hybrid")
                if r.get(f"{m}/rerank-on")
            ]
            out.append(f"- {r['n']:,} items: " + "; ".join(parts) + ".")
    if real:
        out += [
            "",
            f"Store with real embedders ({REAL_ITEMS:,} items in batches of {BATCH}, embeddings included):",
            "",
        ]
        for r in real:
            out.append(
                f"- `{r['name']}`: **{r['rate']:,.0f} items/s**; {r['embed_share']:.0%} of the time is "
                f"embedding (which alone runs at {r['embed_rate']:,.0f} texts/s)."
            )
        out += [
            "",
            "Excluding embedding, the store path runs at the 'excl. embedding' column above; what bounds it "
            "is Python work per item (validation, content keys, text analysis for the lexical index, row "
            "building) and the inserts, in that order of cost (see docs/architecture/sqlite.md).",
        ]
    else:
        out += ["", "No embedder weights installed: no real-embedder store rows."]
    graph_rows = [r for r in rows if r.get("graph")]
    if graph_rows:
        out += ["", *graph_lines(graph_rows)]
    ann_rows = [r for r in rows if r.get("ann")]
    if ann_rows:
        out += ["", *ann_table(ann_rows)]
    return "\n".join(out)


def graph_lines(rows: list[dict[str, Any]]) -> list[str]:
    """The HNSW plan against the exact scan, measured side by side (graph_vs_exact)."""
    out = [
        "Whole-store reads through the HNSW graph (the engine's plan past 50,000 vectors, once its graph "
        "is built) against the exact scan, alternating query by query; the table's 'all' columns above "
        "are the engine's default plan, i.e. the graph. Recall@10 is the share of the exact plan's "
        "top 10 ids the graph plan returned (vectors here are random projections, harder for a graph "
        "than text; see the ann section for text vectors).",
        "",
    ]
    for r in rows:
        g = r["graph"]
        out.append(
            f"- {r['n']:,} items: graph built in {r['graph_build_s']:.0f} s (one thread, in the background); "
            f"semantic {fmt_ms(g.get('semantic/graph'))} through the graph, "
            f"{fmt_ms(g.get('semantic/exact'))} exact (p50 / p95 ms), "
            f"recall@10 {g.get('semantic/recall', float('nan')):.3f}; hybrid "
            f"{fmt_ms(g.get('hybrid/graph'))} against {fmt_ms(g.get('hybrid/exact'))}, recall@10 "
            f"{g.get('hybrid/recall', float('nan')):.3f}."
        )
    return out


def targets_lines(rows: list[dict[str, Any]]) -> list[str]:
    by_n = {r["n"]: r for r in rows}
    lines = []
    if 100_000 in by_n:
        r = by_n[100_000]
        cells = ", ".join(f"{m.value} {fmt_ms(r.get(f'{m.value}/all'))}" for m in FetchMode)
        lines.append(
            f"- Target at 100k, p50 < {TARGET_100K[0]:.0f} ms and p95 < {TARGET_100K[1]:.0f} ms: {cells}."
        )
    if 1_000_000 in by_n:
        r = by_n[1_000_000]
        keys = [(m.value, f"{m.value}/all") for m in FetchMode]
        cells = ", ".join(f"{name} {r[key][0]:.1f}" for name, key in keys if key in r)
        lines.append(f"- Target at 1M, p50 < {TARGET_1M:.0f} ms: {cells} (p50 ms).")
    return lines


def ann_table(rows: list[dict[str, Any]]) -> list[str]:
    lo, hi = EXPANSIONS
    headers = [
        "items",
        "exact scan p50 / p95 ms",
        "HNSW f16 build s",
        f"f16 ef {lo}: p50 / p95 ms, recall@10",
        f"f16 ef {hi}: p50 / p95 ms, recall@10",
        "HNSW i8 build s",
        f"i8 ef {lo}: p50 / p95 ms, recall@10",
        "f16 file MB",
        "f16 save / load s",
    ]

    def cell(v: tuple[float, float, float]) -> str:
        return f"{v[0]:.2f} / {v[1]:.2f}, {v[2]:.3f}"

    body = []
    for r in rows:
        a = r["ann"]
        f16, i8 = a["f16"], a["i8"]
        body.append(
            [
                f"{r['n']:,}",
                fmt_ms(a["exact"]),
                f"{f16['build_s']:.0f}",
                cell(f16["search"][lo]),
                cell(f16["search"][hi]),
                f"{i8['build_s']:.0f}",
                cell(i8["search"][lo]),
                f"{f16['file_mb']:,.0f}",
                f"{f16['save_s']:.1f} / {f16['load_s']:.1f}",
            ]
        )
    return [
        "HNSW probe: the optional index of `engines/sqlite/ann.py` (usearch, connectivity 16, inner "
        f"product), built from the file's vectors table with {os.cpu_count()} threads and searched with one "
        f"at two search expansions (ef; {lo} is usearch's default). Latency is the vector search alone (no "
        "query embedding, no SQL re-check), against the exact scan over the same rows; recall@10 is the "
        "share of the exact top 10 found; save and load time the persisted graph.",
        "",
        table(headers, body),
    ]


def chart(rows: list[dict[str, Any]], real: list[dict[str, Any]], qname: str, out: Path) -> bool:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib not installed (the `bench` extra): no chart", file=sys.stderr)
        return False
    ns = [r["n"] for r in rows]
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2))
    for mode, marker in zip(FetchMode, "osD", strict=False):
        key = f"{mode.value}/all"
        if all(key in r for r in rows):
            left.plot(ns, [r[key][0] for r in rows], marker=marker, label=f"{mode.value} p50")
    left.axhline(TARGET_100K[0], color="grey", ls=":", lw=1)
    left.axhline(TARGET_1M, color="grey", ls="--", lw=1)
    left.text(ns[0], TARGET_100K[0] * 1.08, "100k target p50", fontsize=8, color="grey")
    left.text(ns[0], TARGET_1M * 1.08, "1M target p50", fontsize=8, color="grey")
    left.set(xscale="log", yscale="log", xlabel="items", ylabel="fetch ms (query embedding included)")
    left.set_title(f"fetch p50, top {TOP}, all items; query by {qname}", fontsize=9)
    left.legend(fontsize=8)
    # the lexical-only file holds at most --lexical-max items: plot it where it was measured
    right.plot(
        [r["lexical_n"] for r in rows], [r["store_lexical"] for r in rows], marker="o", label="lexical only"
    )
    right.plot(ns, [r["store_vectors"] for r in rows], marker="s", label="with vectors (projection)")
    right.plot(ns, [r["store_no_embed"] for r in rows], marker="^", label="with vectors, excl. embedding")
    for r, color in zip(real, ("tab:red", "tab:purple"), strict=False):
        right.axhline(
            r["rate"], color=color, ls="--", lw=1, label=f"{r['name']} (real, {REAL_ITEMS:,} items)"
        )
    right.axhline(1000, color="grey", ls=":", lw=1)
    right.text(ns[0], 1000 * 1.04, "target 1,000/s", fontsize=8, color="grey")
    right.set(xscale="log", xlabel="items", ylabel="items stored / s")
    right.set_ylim(bottom=0)
    right.set_title(f"store throughput (store_many, batches of {BATCH})", fontsize=10)
    right.legend(fontsize=8)
    for ax in (left, right):
        ax.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return True


def parse_sizes(text: str) -> list[int]:
    return [int(x.replace("_", "")) for x in text.split(",") if x.strip()]


def embedders(choice: str) -> tuple[Any, list[Any]]:
    """The query embedder asked for, and the real embedders to measure store throughput with."""
    from tinymemory.retrieval.embedders import MiniLMEmbedder, default_embedder, find_minilm_dir

    default = default_embedder()
    model_dir = find_minilm_dir()
    full = MiniLMEmbedder(model_dir) if model_dir is not None else None
    real = [e for e in (default, full) if e is not None]
    if len(real) == 2 and real[0].name == real[1].name:
        real = real[:1]
    return (full if choice == "minilm" else default), real


async def main_async(args: argparse.Namespace) -> int:
    words, p = vocabulary(LOCOMO)
    questions = [q["question"] for s in json.loads(LOCOMO.read_text()) for q in s["qa"]]
    queries = questions[: args.queries]
    query_embedder, real_embedders = embedders(args.query_embedder)
    if query_embedder is None:
        print("no embedder weights installed: queries pay no embedding", file=sys.stderr)
        query_embedder = ProjectionEmbedder()
        qinfo: dict[str, Any] = {"name": "none (projection only)", "dim": 384, "p50": 0.0, "p95": 0.0}
    else:
        q50, q95 = query_cost(query_embedder, queries)
        qinfo = {"name": query_embedder.name, "dim": query_embedder.dim, "p50": q50, "p95": q95}
    print(f"query embedder: {qinfo}", file=sys.stderr, flush=True)
    sampler = LoadSampler()
    rows = []
    for n in parse_sizes(args.sizes):
        print(f"size {n:,} ...", file=sys.stderr, flush=True)
        rows.append(await run_size(n, words, p, queries, query_embedder, args))
        print({k: v for k, v in rows[-1].items() if k != "ann"}, file=sys.stderr, flush=True)
    real = [await real_store_rate(e, words, p) for e in real_embedders]
    load = sampler.stop()
    md = render(rows, real, qinfo, len(queries), load)
    print(md)
    if not args.no_write:
        chart(rows, real, qinfo["name"], CHART)
        write_section("scale", md)
    dump = {"rows": rows, "real": real, "query": qinfo, "load": load}
    saved = Path(tempfile.gettempdir()) / "tinymemory-scale.json"
    saved.write_text(json.dumps(dump, default=str))
    print(f"raw figures: {saved}", file=sys.stderr)
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", default=os.environ.get("TINYMEMORY_BENCH_SIZES", "10000,100000"))
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument(
        "--ann-sizes",
        type=parse_sizes,
        default=parse_sizes("10000,100000"),
        help="sizes at which to probe an HNSW index (builds take minutes past 100k; '' skips)",
    )
    parser.add_argument(
        "--lexical-max",
        type=int,
        default=200_000,
        help="store at most this many items in the lexical-only file (its rate is flat past 100k)",
    )
    parser.add_argument(
        "--query-embedder",
        choices=("default", "minilm"),
        default="default",
        help="who embeds each query: default_embedder() (static-minilm) or the full MiniLM",
    )
    parser.add_argument("--no-write", action="store_true")
    parser.add_argument(
        "--chart-from", type=Path, help="only redraw docs/scale_growth.png from a saved run's json dump"
    )
    args = parser.parse_args()
    if args.chart_from is not None:
        dump = json.loads(args.chart_from.read_text())
        return 0 if chart(dump["rows"], dump["real"], dump["query"]["name"], CHART) else 1
    return asyncio.run(main_async(args))


if __name__ == "__main__":
    sys.exit(main())
