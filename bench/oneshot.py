"""Short-lived processes on a large file: the first fetch against a warm one, and how they exit.

A process that reads a large file with no saved HNSW graph either starts building one in the background
(the library's default, for long-lived processes) or does not (`background_index=False`, what the CLI's
one-shot commands open). Without a graph it scans the vector matrix, mapped from its copy beside the file
(engines/sqlite/vecfile.py) when there is one: the process that stored the vectors writes or extends that
copy as it closes (copies.py), and a reader that had to read the table saves one too.
Rows (medians of `--repeats` rounds, interleaved):

- `tinymemory fetch` over the whole store as a process, spawn to exit (and its exit code), without and
  with the matrix's saved copy;
- a fresh process that opens the file as a one-shot command does: its first hybrid fetch of the whole
  store (query embedding included), the p50 of 20 more (warm), and how long it takes to exit after the
  last one, without `close()` (a process that read the table waits there for its copy to be written);
  with no copy at all (a file no process has kept one for), then with the copy a writer left (a process
  that stored `WRITER_ITEMS` items and closed: timed too, writing the whole copy, then extending it);
- the same with the library's default, where the first large read starts a background build that the
  exit hook has to stop;
- the one-shot process again once `tinymemory db index` has saved the graph.

The file is filled with the default embedder (as in bench/coldstart.py) or copied from `--db` (the copy
is measured, so the original's graph files are left alone). `--baseline SRC` runs every fresh-process
probe a second time, beside the first (which goes first alternates by round), with `SRC` (another
build's `src` folder, such as `git archive <commit> src` unpacked) first on the import path: the rows
marked "old build" are that build's, measured side by side with this one's.

`--phases` (with `--db`, a file with its saved graph and matrix copy) measures instead where a warm
whole-store fetch's time goes: in fresh processes, each phase's wall time (the engine's functions
wrapped) over 40 questions per mode, beside the exact scan of the same matrix; its own section,
`oneshot_phases`.

    python bench/oneshot.py [--items 100000] [--repeats 3] [--no-write] [--db FILE] [--baseline SRC]
    python bench/oneshot.py --phases --db FILE [--repeats 3] [--baseline SRC]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from coldstart import LOCOMO, QUERY, build, count_items, process_ms
from report import machine_line, percentile, table, write_section
from tinymemory.api import FetchMode, FetchRequest

WARM = 20
WRITER_ITEMS = 2_000  # what a writer stores per round: past the rows a close brings into the copy
CLI_FETCH = "`tinymemory fetch` (whole store), spawn to exit"


async def writer(path: Path, offset: int) -> None:
    """In a fresh process: store WRITER_ITEMS items in one batch and close (which writes the copy when
    it is due); print the store's and the close's milliseconds."""
    from scale import items_for
    from synthetic import sentences, vocabulary
    from tinymemory.engines.sqlite import SqliteEngine

    words, p = vocabulary(LOCOMO)
    texts = sentences(WRITER_ITEMS, words, p, seed=offset)
    engine = SqliteEngine(str(path), background_index=False)
    t = time.perf_counter()
    await engine.store_many(items_for(texts, offset=offset))
    stored = time.perf_counter()
    await engine.close()
    closed = time.perf_counter()
    print(json.dumps({"store_ms": (stored - t) * 1000, "close_ms": (closed - stored) * 1000}), flush=True)


def run_writer(path: Path, offset: int) -> dict[str, float]:
    t = time.perf_counter()
    done = subprocess.run(
        [sys.executable, __file__, "--probe", "writer", "--db", str(path), "--offset", str(offset)],
        capture_output=True,
        text=True,
    )
    took = (time.perf_counter() - t) * 1000
    if done.returncode != 0:
        raise RuntimeError(f"oneshot: the writer exited {done.returncode}: {done.stderr[-800:]}")
    return {**json.loads(done.stdout.strip().splitlines()[-1]), "process_ms": took}


async def probe(path: Path, background: bool) -> None:
    """In a fresh process: time the first and 20 more whole-store hybrid fetches, print them with the
    wall clock at the end, and return without closing the engine (exit is measured by the caller)."""
    from tinymemory.engines.sqlite import SqliteEngine

    queries = [q["question"] for conv in json.loads(LOCOMO.read_text()) for q in conv["qa"]][:WARM]
    engine = SqliteEngine(str(path), background_index=background)
    took = []
    for q in [QUERY, *queries]:
        t = time.perf_counter()
        await engine.fetch(FetchRequest(q, mode=FetchMode.HYBRID, limit=10))
        took.append((time.perf_counter() - t) * 1000)
    plan = engine.last_semantic_plan.value if engine.last_semantic_plan else None
    out = {"first_ms": took[0], "warm_ms": percentile(took[1:], 50), "plan": plan, "done_at": time.time()}
    print(json.dumps(out), flush=True)


def embedder_probe() -> None:
    """In a fresh process: the default embedder's first query (its load included) and a second one."""
    from tinymemory.engines.embedder_choice import resolve_embedder

    embedder = resolve_embedder("default", "sqlite")
    assert embedder is not None
    took = []
    for q in (QUERY, "when did he go camping"):
        t = time.perf_counter()
        embedder.embed_query(q)
        took.append((time.perf_counter() - t) * 1000)
    print(json.dumps({"first_ms": took[0], "second_ms": took[1]}), flush=True)


OLD = " (old build)"


def env_for(src: str | None) -> dict[str, str] | None:
    """The environment of a probe of the build in `src` first on the import path; None for this one."""
    if src is None:
        return None
    return {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (src, os.environ.get("PYTHONPATH")) if p)}


def run_embedder(src: str | None = None) -> dict[str, float]:
    done = subprocess.run(
        [sys.executable, __file__, "--probe", "embedder"], capture_output=True, text=True, env=env_for(src)
    )
    if done.returncode != 0:
        raise RuntimeError(f"oneshot: the embedder probe exited {done.returncode}: {done.stderr[-800:]}")
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


async def floor_probe(path: Path) -> None:
    """In a fresh process, warm: whole-store hybrid, semantic and lexical fetches beside the exact scan
    of the same matrix in numpy (every row scored, the best 50 picked), interleaved query by query."""
    import sqlite3

    from tinymemory.engines.sqlite import SqliteEngine
    from tinymemory.engines.sqlite.vectors import VectorMatrix, top_order

    queries = [q["question"] for conv in json.loads(LOCOMO.read_text()) for q in conv["qa"]][: 2 * WARM]
    engine = SqliteEngine(str(path), background_index=False)
    embedder = engine.storage.embedder
    assert embedder is not None
    matrix = VectorMatrix(embedder.name, embedder.dim)
    conn = sqlite3.connect(path)
    matrix.refresh(conn)
    took: dict[str, list[float]] = {"hybrid": [], "semantic": [], "lexical": [], "exact scan": []}
    plans = set()
    for q in queries[:5]:  # warm up: graph or matrix loaded, embedder loaded
        await engine.fetch(FetchRequest(q, mode=FetchMode.HYBRID, limit=10))
    for q in queries:
        for mode in (FetchMode.HYBRID, FetchMode.SEMANTIC, FetchMode.LEXICAL):
            t = time.perf_counter()
            await engine.fetch(FetchRequest(q, mode=mode, limit=10))
            took[mode.value].append((time.perf_counter() - t) * 1000)
            if mode is FetchMode.SEMANTIC and engine.last_semantic_plan is not None:
                plans.add(engine.last_semantic_plan.value)
        qvec = embedder.embed_query(q)
        t = time.perf_counter()
        top_order(matrix.scores(qvec), 50)
        took["exact scan"].append((time.perf_counter() - t) * 1000)
    out = {k: percentile(v, 50) for k, v in took.items()}
    print(json.dumps({**out, "plan": ",".join(sorted(plans)), "rows": matrix.size}), flush=True)
    conn.close()
    await engine.close()


# Where a warm whole-store fetch's time goes (`--probe phases`): wall time inside each phase.
PHASES = [
    ("search", "scope_stats", "lexical: the reach's statistics (lexstats.stats)"),
    ("search", "lexical_whole", "lexical: the whole store's bm25 (search.lexical_whole; FTS5's before)"),
    ("search", "_lexical_fts", "lexical: the whole store's bm25 (search.lexical_whole; FTS5's before)"),
    (
        "engine",
        "QueryVector.get",
        "semantic: the reader waits for the helper (query vector, first round)",
    ),
    ("ann", "HnswIndex.first_round", "semantic, on the helper: the graph's first round (usearch search)"),
    ("search", "_approximate", "semantic: the graph plan on the reader (tail, re-scoring, state check)"),
    ("search", "_scan", "semantic: exact scans (reads of a time window the query names)"),
    ("search", "_visible", "the candidates' state check in SQL (search._visible)"),
    ("search", "light_rows", "the candidates' light columns (search.light_rows)"),
    ("pipeline", "FetchRanking._rank", "fusion and reranking, once a fetch (pipeline.FetchRanking._rank)"),
    ("search", "link_holders", "links: the rare names' holders (search.link_holders)"),
    ("pipeline", "FetchRanking.page", "the linked order and the page (pipeline.FetchRanking.page)"),
    ("reads", "items_by_rowid", "the page's items (reads.items_by_rowid)"),
]


LABELS = list(dict.fromkeys(label for _, _, label in PHASES))


async def phases_probe(path: Path) -> None:
    """In a fresh process, warm: whole-store hybrid, semantic and lexical fetches, each phase's wall
    time summed by wrapping the engine's functions (the same code runs; a wrapper adds about a
    microsecond a call). Phases on the helper thread overlap the reader's."""
    import functools
    import threading

    from tinymemory.engines.sqlite import SqliteEngine, ann, reads, search
    from tinymemory.engines.sqlite import engine as engine_module
    from tinymemory.retrieval import pipeline

    spent: dict[str, float] = {}
    lock = threading.Lock()
    owners = {"search": search, "ann": ann, "reads": reads, "pipeline": pipeline, "engine": engine_module}

    def wrap(owner: Any, name: str, label: str) -> None:
        inner = getattr(owner, name, None)
        if inner is None:  # a phase another build names differently
            return

        @functools.wraps(inner)
        def timed(*a: Any, **k: Any) -> Any:
            t = time.perf_counter()
            try:
                return inner(*a, **k)
            finally:
                with lock:
                    spent[label] = spent.get(label, 0.0) + time.perf_counter() - t

        setattr(owner, name, timed)

    for module, name, label in PHASES:
        owner: Any = owners[module]
        if "." in name:
            cls, name = name.split(".")
            owner = getattr(owner, cls)
        wrap(owner, name, label)
    queries = [q["question"] for conv in json.loads(LOCOMO.read_text()) for q in conv["qa"]][: 2 * WARM]
    engine = SqliteEngine(str(path), background_index=False)
    for q in queries[:5]:
        await engine.fetch(FetchRequest(q, mode=FetchMode.HYBRID, limit=10))
    out: dict[str, dict[str, float]] = {}
    for mode in (FetchMode.HYBRID, FetchMode.SEMANTIC, FetchMode.LEXICAL):
        spent.clear()
        took = []
        for q in queries:
            t = time.perf_counter()
            await engine.fetch(FetchRequest(q, mode=mode, limit=10))
            took.append((time.perf_counter() - t) * 1000)
        phases = {label: spent.get(label, 0.0) * 1000 / len(queries) for label in LABELS}
        out[mode.value] = {"p50": percentile(took, 50), "mean": sum(took) / len(took), **phases}
    plan = engine.last_semantic_plan.value if engine.last_semantic_plan else None
    print(json.dumps({"plan": plan, "modes": out}), flush=True)
    await engine.close()


def run_phases(path: Path, src: str | None = None) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, __file__, "--probe", "phases", "--db", str(path)],
        capture_output=True,
        text=True,
        env=env_for(src),
    )
    if done.returncode != 0:
        raise RuntimeError(f"oneshot: the phases probe exited {done.returncode}: {done.stderr[-800:]}")
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def copy_with_sidecars(db: Path, path: Path) -> None:
    """`db` copied to `path` with its saved graphs and matrix copies (named after the file)."""
    shutil.copy(db, path)
    for side in db.parent.glob(f"{db.name}.hnsw-*") if db.parent.exists() else []:
        if not side.name.endswith(".tmp"):
            shutil.copy(side, path.parent / (path.name + side.name[len(db.name) :]))
    for side in db.parent.glob(f"{db.name}.vectors-*"):
        if not side.name.endswith(".tmp"):
            shutil.copy(side, path.parent / (path.name + side.name[len(db.name) :]))


def phases(args: argparse.Namespace) -> int:
    """`--phases`: where the warm whole-store fetches' time goes, in fresh processes on a copy of
    `--db` with its saved graph and matrix copy, beside the exact scan of the same matrix; this build
    and the baseline's alternating, medians of `--repeats` processes each."""
    with tempfile.TemporaryDirectory(prefix="tinymemory-oneshot-") as tmp:
        builds: list[tuple[str, str | None]] = [("this build", None)]
        if args.baseline:
            builds.append(("old build", args.baseline))
        # a copy per build: a build with a newer schema upgrades its copy, which an older one cannot open
        paths = {name: Path(tmp) / f"oneshot-{i}.db" for i, (name, _) in enumerate(builds)}
        for path in paths.values():
            copy_with_sidecars(Path(args.db), path)
        got: dict[str, list[dict[str, Any]]] = {name: [] for name, _ in builds}
        floors: dict[str, list[float]] = {name: [] for name, _ in builds}
        loads = []
        for round_ in range(args.repeats):
            for name, src in builds if round_ % 2 == 0 else builds[::-1]:
                got[name].append(run_phases(paths[name], src))
                floors[name].append(float(run_floor(paths[name], src)["exact scan"]))
            loads.append(os.getloadavg()[0])
        rows = count_items(paths["this build"])
    labels = LABELS
    head = ["ms per fetch (median of processes)"]
    cols: list[tuple[str, str]] = []
    for name, _ in builds:
        for mode in ("hybrid", "semantic", "lexical"):
            cols.append((name, mode))
            head.append(f"{mode}, {name}" if args.baseline else mode)

    def med(name: str, mode: str, key: str) -> str:
        return f"{statistics.median(float(r['modes'][mode][key]) for r in got[name]):.2f}"

    body = [["fetch p50 (of the process's 40)"] + [med(n, m, "p50") for n, m in cols]]
    body.append(["fetch mean"] + [med(n, m, "mean") for n, m in cols])
    body += [[label] + [med(n, m, label) for n, m in cols] for label in labels]
    floor = {name: statistics.median(v) for name, v in floors.items()}
    plans = sorted({str(r["plan"]) for rs in got.values() for r in rs})
    md = "\n".join(
        [
            "### Where a warm whole-store fetch's time goes (`bench/oneshot.py --phases`)",
            "",
            f"{rows:,} items, the graph saved (semantic plan: {', '.join(plans)}); {machine_line()}; "
            f"1-min load after each round: {min(loads):.1f} to {max(loads):.1f}. Each process opens the "
            f"file, warms up on 5 fetches, then runs {2 * WARM} LoCoMo questions per mode; each phase's "
            "wall time is summed by wrapping the engine's functions and divided by the fetches, so "
            "phases on the helper thread (marked) overlap the reader's, and the rows do not add up to the "
            "fetch. The exact scan of the same matrix in numpy (every row scored, the best 50 picked), "
            "p50 in the same processes: "
            + ", ".join(f"{floor[name]:.1f} ms ({name})" for name, _ in builds)
            + f". {args.repeats} processes per build"
            + (", alternating which goes first." if args.baseline else "."),
            "",
            table(head, body),
        ]
    )
    print(md)
    if not args.no_write:
        write_section("oneshot_phases", md)
    return 0


def run_floor(path: Path, src: str | None = None) -> dict[str, float | str]:
    done = subprocess.run(
        [sys.executable, __file__, "--probe", "floor", "--db", str(path)],
        capture_output=True,
        text=True,
        env=env_for(src),
    )
    if done.returncode != 0:
        raise RuntimeError(f"oneshot: the floor probe exited {done.returncode}: {done.stderr[-800:]}")
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def run_probe(path: Path, background: bool, src: str | None = None) -> dict[str, float | str]:
    mode = "library" if background else "oneshot"
    done = subprocess.run(
        [sys.executable, __file__, "--probe", mode, "--db", str(path)],
        capture_output=True,
        text=True,
        env=env_for(src),
    )
    ended = time.time()
    if done.returncode != 0:
        raise RuntimeError(f"oneshot: the {mode} probe exited {done.returncode}: {done.stderr[-800:]}")
    got = json.loads(done.stdout.strip().splitlines()[-1])
    got["exit_ms"] = (ended - float(got["done_at"])) * 1000
    return dict(got)


def drop_graphs(path: Path) -> None:
    for graph in path.parent.glob(f"{path.name}.hnsw-*"):
        graph.unlink()


def drop_copies(path: Path) -> None:
    """The matrix's saved copies (vecfile.py): a round starts as a file no process has scanned yet."""
    for copy in path.parent.glob(f"{path.name}.vectors-*"):
        copy.unlink()


def cli_fetch(path: Path) -> tuple[float, int]:
    t = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "tinymemory", "fetch", QUERY, "--db", str(path), "--limit", "10"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    return (time.perf_counter() - t) * 1000, done.returncode


async def main_async(args: argparse.Namespace) -> int:
    with tempfile.TemporaryDirectory(prefix="tinymemory-oneshot-") as tmp:
        path = Path(tmp) / "oneshot.db"
        if args.db:
            shutil.copy(args.db, path)
        else:
            took = await build(path, args.items)
            print(f"built {args.items:,} items in {took:.0f} s", file=sys.stderr)
        drop_graphs(path)
        return measure(path, args)


def measure(path: Path, args: argparse.Namespace) -> int:
    rows: dict[str, list[float]] = {}
    codes: set[int] = set()
    plans: dict[str, set[str]] = {}
    loads: list[float] = []
    items_at_start = count_items(path)

    def record(label: str, value: float) -> None:
        rows.setdefault(label, []).append(value)

    def record_probe(label: str, got: dict[str, float | str]) -> None:
        record(f"{label}: first hybrid fetch", float(got["first_ms"]))
        record(f"{label}: warm hybrid fetch (p50 of {WARM})", float(got["warm_ms"]))
        record(f"{label}: exit after the last fetch, no close()", float(got["exit_ms"]))
        plans.setdefault(label, set()).add(str(got["plan"]))

    turn = [0]  # the baseline's probe goes first in every other round

    def probes(label: str, background: bool, before: Callable[[], None] = lambda: None) -> None:
        """This build's probe and the baseline's right beside it (each after `before`)."""
        builds: list[tuple[str, str | None]] = [(label, None)]
        if args.baseline:
            builds.append((label + OLD, args.baseline))
            if turn[0] % 2:
                builds.reverse()
        for name, src in builds:
            before()
            record_probe(name, run_probe(path, background, src))

    bare_oneshot = "no saved graph or matrix copy, one-shot (background_index=False)"
    no_graph_oneshot = "no saved graph, the copy the writer left, one-shot (background_index=False)"
    no_graph_library = "no saved graph, the copy the writer left, library default (background build)"
    offset = 10_000_000
    for _ in range(args.repeats):
        drop_graphs(path)
        drop_copies(path)
        ms, code = cli_fetch(path)
        record("no saved graph or matrix copy: `tinymemory fetch` (whole store), spawn to exit", ms)
        codes.add(code)
        probes(bare_oneshot, False, lambda: drop_copies(path))  # each leaves the copy
        drop_copies(path)
        for label in ("no copy: writes it whole", "a copy: extends it"):
            wrote = run_writer(path, offset)
            offset += WRITER_ITEMS
            record(f"writer, {WRITER_ITEMS:,} items, {label}: store_many", wrote["store_ms"])
            record(f"writer, {WRITER_ITEMS:,} items, {label}: close()", wrote["close_ms"])
            record(f"writer, {WRITER_ITEMS:,} items, {label}: spawn to exit", wrote["process_ms"])
        ms, code = cli_fetch(path)
        record(
            "no saved graph, the copy the writer left: `tinymemory fetch` (whole store), spawn to exit", ms
        )
        codes.add(code)
        probes(no_graph_oneshot, False)
        probes(no_graph_library, True)
        drop_graphs(path)  # a stopped build saves nothing, but make sure the next round starts bare
        loads.append(os.getloadavg()[0])
        turn[0] += 1
    floors = {"no saved graph": run_floor(path)}
    if args.baseline:
        floors["no saved graph" + OLD] = run_floor(path, args.baseline)
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "tinymemory", "db", "index", "--db", str(path)],
        check=True,
        capture_output=True,
    )
    index_s = time.perf_counter() - started
    saved = "saved graph, one-shot"
    for _ in range(args.repeats):
        ms, code = cli_fetch(path)
        record("saved graph: `tinymemory fetch` (whole store), spawn to exit", ms)
        codes.add(code)
        probes(saved, False)
        record("python -c pass", process_ms([sys.executable, "-c", "pass"]))
        embedder_load = "the default embedder's first query in a fresh process (its load)"
        record(embedder_load, run_embedder()["first_ms"])
        if args.baseline:
            record(embedder_load + OLD, run_embedder(args.baseline)["first_ms"])
        loads.append(os.getloadavg()[0])
        turn[0] += 1

    floors["saved graph"] = run_floor(path)
    if args.baseline:
        floors["saved graph" + OLD] = run_floor(path, args.baseline)
    matrix_rows = int(floors["saved graph"]["rows"])

    def ratio(label: str) -> str:
        first = percentile(rows[f"{label}: first hybrid fetch"], 50)
        warm = percentile(rows[f"{label}: warm hybrid fetch (p50 of {WARM})"], 50)
        return f"{first / warm:.1f}x"

    copies = list(path.parent.glob(f"{path.name}.vectors-*"))
    copy_mb = sum(c.stat().st_size for c in copies) / 1e6
    table_rows = [[label, f"{percentile(v, 50):,.0f}"] for label, v in rows.items()]
    ratios = [
        [label, ratio(label), ", ".join(sorted(plans[label]))]
        for base in (bare_oneshot, no_graph_oneshot, no_graph_library, saved)
        for label in ([base, base + OLD] if args.baseline else [base])
    ]
    md = "\n".join(
        [
            "## One-shot processes on a large file (`bench/oneshot.py`)",
            "",
            f"{items_at_start:,} synthetic items stored with the default embedder ({count_items(path):,} "
            f"after the writer processes' rounds); {machine_line()}; "
            f"1-min load after each round: {min(loads):.1f} to {max(loads):.1f}. "
            f"Medians of {args.repeats} rounds, interleaved. Each probe is a fresh process that opens the "
            f"file, runs one whole-store hybrid fetch and {WARM} more, and returns without `close()`; its "
            "exit is the wall time from its last line to the end of the process. The graph was then saved "
            f"by `tinymemory db index` ({index_s:.0f} s). `tinymemory fetch` exit codes seen: "
            f"{sorted(codes)}. A matrix copy is the float32 rows kept beside the file ({copy_mb:,.0f} MB "
            "here) by the process that stored them (at its close) or by one that read them from the "
            f"table; a round starts with none, and a writer process storing {WRITER_ITEMS:,} items first "
            "writes it whole, then a second one extends it."
            + (
                f" Rows marked '{OLD.strip()}' are {args.baseline_name}, run as the same fresh-process "
                "probes right beside this build's (which goes first alternates by round)."
                if args.baseline
                else ""
            ),
            "",
            table(["what", "ms (p50)"], table_rows),
            "",
            table(["process", "first fetch / warm fetch", "plan of the warm fetches"], ratios),
            "",
            f"Warm whole-store fetches against the exact scan of the same {matrix_rows:,}-row matrix in "
            f"numpy (every row scored, the best 50 picked), in one process, p50 of {2 * WARM} "
            "queries each, interleaved query by query:",
            "",
            table(
                [
                    "file",
                    "semantic plan",
                    "hybrid ms",
                    "semantic ms",
                    "lexical ms",
                    "exact scan ms",
                    "hybrid / exact scan",
                ],
                [
                    [
                        label,
                        str(f["plan"]),
                        f"{float(f['hybrid']):.1f}",
                        f"{float(f['semantic']):.1f}",
                        f"{float(f['lexical']):.1f}",
                        f"{float(f['exact scan']):.1f}",
                        f"{float(f['hybrid']) / float(f['exact scan']):.2f}x",
                    ]
                    for label, f in floors.items()
                ],
            ),
        ]
    )
    print(md)
    if not args.no_write:
        write_section("oneshot", md)
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--no-write", action="store_true", help="do not update docs/benchmarks.md")
    parser.add_argument("--db", help="measure a copy of this existing file instead of building one")
    parser.add_argument(
        "--baseline", help="another build's src folder: its probes run beside this build's (old build)"
    )
    parser.add_argument(
        "--phases", action="store_true", help="where a warm fetch's time goes (needs --db), then stop"
    )
    parser.add_argument("--baseline-name", default="the baseline build", help="how the text names it")
    parser.add_argument(
        "--probe",
        choices=["oneshot", "library", "floor", "writer", "embedder", "phases"],
        help=argparse.SUPPRESS,
    )
    parser.add_argument("--offset", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.probe == "embedder":
        embedder_probe()
        return 0
    if args.probe == "writer":
        asyncio.run(writer(Path(args.db), args.offset))
        return 0
    if args.probe == "phases":
        asyncio.run(phases_probe(Path(args.db)))
        return 0
    if args.phases:
        if not args.db:
            parser.error("--phases needs --db (a file with its saved graph)")
        return phases(args)
    if args.probe == "floor":
        asyncio.run(floor_probe(Path(args.db)))
        return 0
    if args.probe:
        asyncio.run(probe(Path(args.db), background=args.probe == "library"))
        return 0
    if args.items < 1 or args.repeats < 1:
        parser.error("--items and --repeats must be at least 1")
    return asyncio.run(main_async(args))


if __name__ == "__main__":
    sys.exit(main())
