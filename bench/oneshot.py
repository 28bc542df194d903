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
is measured, so the original's graph files are left alone).

    python bench/oneshot.py [--items 100000] [--repeats 3] [--no-write] [--db FILE]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

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


def run_embedder() -> dict[str, float]:
    done = subprocess.run([sys.executable, __file__, "--probe", "embedder"], capture_output=True, text=True)
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


def run_floor(path: Path) -> dict[str, float | str]:
    done = subprocess.run(
        [sys.executable, __file__, "--probe", "floor", "--db", str(path)], capture_output=True, text=True
    )
    if done.returncode != 0:
        raise RuntimeError(f"oneshot: the floor probe exited {done.returncode}: {done.stderr[-800:]}")
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def run_probe(path: Path, background: bool) -> dict[str, float | str]:
    mode = "library" if background else "oneshot"
    done = subprocess.run(
        [sys.executable, __file__, "--probe", mode, "--db", str(path)],
        capture_output=True,
        text=True,
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
        drop_copies(path)
        record_probe(bare_oneshot, run_probe(path, background=False))  # leaves the copy
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
        record_probe(no_graph_oneshot, run_probe(path, background=False))
        record_probe(no_graph_library, run_probe(path, background=True))
        drop_graphs(path)  # a stopped build saves nothing, but make sure the next round starts bare
        loads.append(os.getloadavg()[0])
    floors = {"no saved graph": run_floor(path)}
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
        record_probe(saved, run_probe(path, background=False))
        record("python -c pass", process_ms([sys.executable, "-c", "pass"]))
        record("the default embedder's first query in a fresh process (its load)", run_embedder()["first_ms"])
        loads.append(os.getloadavg()[0])

    floors["saved graph"] = run_floor(path)
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
        for label in (bare_oneshot, no_graph_oneshot, no_graph_library, saved)
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
            "writes it whole, then a second one extends it.",
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
        "--probe", choices=["oneshot", "library", "floor", "writer", "embedder"], help=argparse.SUPPRESS
    )
    parser.add_argument("--offset", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.probe == "embedder":
        embedder_probe()
        return 0
    if args.probe == "writer":
        asyncio.run(writer(Path(args.db), args.offset))
        return 0
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
