"""Embedders side by side on the LoCoMo dev split: recall, speed, and quality per millisecond.

For each embedder that can run here (lexical-only as the reference, numpy MiniLM, static MiniLM):
semantic R@10/R@20 and hybrid R@10 (the engine's default fusion) through bench/locomo.py's protocol,
store rate through the engine, batched embed throughput on chat turns, one-query embedding p50, and
load (or build) time. Then MiniLM's one-BLAS-thread rule, quiet and with both cores kept busy by two
spinning processes.

    python bench/embedders.py [FILE] [--static PATH] [--no-threads] [--no-write]
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from locomo import DEFAULT_FILE, Conversation, EvidenceStats, evaluate, load
from report import machine_line, percentile, table, write_section
from tinymemory.api import FetchMode
from tinymemory.retrieval.embedders import (
    Embedder,
    MiniLMEmbedder,
    StaticMiniLMEmbedder,
    build_static_minilm,
    minilm_available,
)

THROUGHPUT_TEXTS = 1024
QUERY_SAMPLES = 150


@dataclass
class Candidate:
    label: str
    make: Callable[[], Embedder | None]
    prepare_s: float = float("nan")  # load, or build + load for the static table
    prepare_note: str = "load"


def _spin() -> None:
    while True:
        pass


@contextmanager
def busy_cores(n: int) -> Iterator[None]:
    """Keep `n` cores busy with spinning child processes for the duration of the block."""
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_spin, daemon=True) for _ in range(n)]
    for p in procs:
        p.start()
    time.sleep(0.5)
    try:
        yield
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            p.join()


def turn_texts(convs: list[Conversation]) -> list[str]:
    return [item.text for conv in convs for item in conv.items]


def questions(convs: list[Conversation]) -> list[str]:
    return [q for conv in convs for q, _, _ in conv.questions]


def throughput(emb: Embedder, texts: list[str]) -> float:
    """Texts/s for one batched call, best of two (the first call also warms caches)."""
    best = float("inf")
    for _ in range(2):
        t = time.perf_counter()
        emb.embed(texts)
        best = min(best, time.perf_counter() - t)
    return len(texts) / best


def query_p50_ms(emb: Embedder, qs: list[str]) -> float:
    """One uncached query at a time (embed, not embed_query, so the LRU cannot help)."""
    times = []
    for q in qs:
        t = time.perf_counter()
        emb.embed([q])
        times.append((time.perf_counter() - t) * 1000)
    return percentile(times, 50)


async def recall(emb: Embedder | None, convs: list[Conversation]) -> dict[str, Any]:
    from tinymemory.engines.sqlite import SqliteEngine

    modes = [FetchMode.LEXICAL] if emb is None else [FetchMode.SEMANTIC, FetchMode.HYBRID]
    with tempfile.TemporaryDirectory(prefix="tinymemory-embedders-") as tmp:
        async with SqliteEngine(str(Path(tmp) / "e.db"), embedder=emb) as engine:
            return await evaluate(engine, convs, modes)


def candidates(static_path: Path | None, tmp: Path) -> list[Candidate]:
    out = [Candidate("none (lexical only)", lambda: None, 0.0, "-")]
    if not minilm_available():
        print("minilm weights not installed: only the lexical reference runs", file=sys.stderr)
        return out

    def minilm() -> Embedder:
        emb = MiniLMEmbedder()
        t = time.perf_counter()
        emb.load()
        out[1].prepare_s = time.perf_counter() - t
        return emb

    out.append(Candidate("minilm (numpy, 384-d)", minilm))
    if static_path is None:
        t = time.perf_counter()
        static_path = build_static_minilm(tmp / "static.npy", progress=False)
        build_s = time.perf_counter() - t
    else:
        build_s = float("nan")

    def static() -> Embedder:
        emb = StaticMiniLMEmbedder(static_path, build_if_missing=False)
        t = time.perf_counter()
        emb.load()
        out[2].prepare_s = time.perf_counter() - t
        out[2].prepare_note = f"load (build {build_s:.0f} s)" if build_s == build_s else "load"
        return emb

    out.append(Candidate("static-minilm (256-d)", static))
    return out


def embedder_rows(cands: list[Candidate], convs: list[Conversation]) -> list[list[str]]:
    texts = turn_texts(convs)[:THROUGHPUT_TEXTS]
    qs = questions(convs)[:QUERY_SAMPLES]
    rows = []
    for cand in cands:
        emb = cand.make()
        res = asyncio.run(recall(emb, convs))
        modes = res["modes"]
        if emb is None:
            sem10 = sem20 = "-"
            hyb = modes["lexical"]["recall"][10][0]
            tput = q_ms = float("nan")
            per_ms = "-"
        else:
            sem = modes["semantic"]["recall"]
            sem10, sem20 = f"{sem[10][0]:.3f}", f"{sem[20][0]:.3f}"
            hyb = modes["hybrid"]["recall"][10][0]
            tput = throughput(emb, texts)
            q_ms = query_p50_ms(emb, qs)
            per_ms = f"{sem[10][0] / q_ms:.3f}"
        rows.append(
            [
                cand.label,
                sem10,
                sem20,
                f"{hyb:.3f}",
                f"{res['store_per_s']:.0f}",
                "-" if tput != tput else f"{tput:.0f}",
                "-" if q_ms != q_ms else f"{q_ms:.2f}",
                per_ms,
                "-" if cand.prepare_s != cand.prepare_s else f"{cand.prepare_s:.2f} s {cand.prepare_note}",
            ]
        )
        print(rows[-1], file=sys.stderr)
    return rows


def thread_rows(convs: list[Conversation]) -> list[list[str]]:
    """MiniLM texts/s by call size: BLAS default threads vs one thread, quiet and with both cores busy."""
    texts = turn_texts(convs)
    sizes = (1, 32, 256)
    rows = []
    for load_label, spinners in (("as found", 0), ("2 spinning processes", 2)):
        default = MiniLMEmbedder(one_thread_tokens=0)
        single = MiniLMEmbedder(one_thread_tokens=10**9)
        default.load()
        single.load()
        with busy_cores(spinners) if spinners else _nothing():
            for size in sizes:
                reps = max(3, 96 // size)
                got = []
                for emb in (default, single):
                    times = []
                    for r in range(reps):
                        chunk = texts[r * size : (r + 1) * size]
                        t = time.perf_counter()
                        emb.embed(chunk)
                        times.append(time.perf_counter() - t)
                    got.append(size / statistics.median(times))
                rows.append(
                    [load_label, str(size), f"{got[0]:.0f}", f"{got[1]:.0f}", f"{got[1] / got[0]:.1f}x"]
                )
                print(rows[-1], file=sys.stderr)
    return rows


@contextmanager
def _nothing() -> Iterator[None]:
    yield


def render(emb_rows: list[list[str]], thr_rows: list[list[str]], path: Path, n_q: int, n_t: int) -> str:
    parts = [
        "## Embedders (`bench/embedders.py`)",
        "",
        f"Data: `{path.name}`, {n_t} turns, {n_q} questions (categories 1-4), the LoCoMo protocol of "
        f"`bench/locomo.py`. Machine: {machine_line()}. Throughput: one `embed()` call on the first "
        f"{THROUGHPUT_TEXTS} turn texts, best of 2. Query: `embed([q])` on {QUERY_SAMPLES} questions, "
        "p50. Store/s: `store_many` of every turn through the SQLite engine, embedding included. "
        "Quality per ms: semantic R@10 divided by query p50 ms.",
        "",
        table(
            [
                "embedder",
                "sem R@10",
                "sem R@20",
                "hybrid R@10",
                "store/s",
                "embed texts/s",
                "query p50 ms",
                "R@10 per ms",
                "prepare",
            ],
            emb_rows,
        ),
    ]
    if thr_rows:
        parts += [
            "",
            "MiniLM texts/s by call size, BLAS default (2 threads) vs one thread (the rule `embed` applies "
            "to calls of at most 1,024 tokens):",
            "",
            table(["load", "texts per call", "default threads", "one thread", "gain"], thr_rows),
        ]
    return "\n".join(parts)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("file", nargs="?", default=str(DEFAULT_FILE), help="LoCoMo-format JSON")
    parser.add_argument("--static", help="an existing static-minilm .npy (default: build one, timed)")
    parser.add_argument("--no-threads", action="store_true", help="skip the BLAS thread comparison")
    parser.add_argument("--no-write", action="store_true", help="do not update docs/benchmarks.md")
    args = parser.parse_args()
    path = Path(args.file)
    convs = load(path, EvidenceStats())
    with tempfile.TemporaryDirectory(prefix="tinymemory-static-") as tmp:
        cands = candidates(Path(args.static) if args.static else None, Path(tmp))
        emb_rows = embedder_rows(cands, convs)
    thr_rows = [] if args.no_threads or not minilm_available() else thread_rows(convs)
    md = render(emb_rows, thr_rows, path, len(questions(convs)), len(turn_texts(convs)))
    print(md)
    if not args.no_write:
        write_section("embedders", md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
