"""tinymemory, mem0 and chromadb side by side in one process, on the same data and the same embedder.

    pip install -e '.[peers]'        # mem0ai and chromadb, pinned; bench-only
    python bench/peers.py [--systems tinymemory,tinymemory-default,chromadb,mem0,...]
                           [--skip-10k] [--no-write]

Two data sets: LoCoMo dev (every turn one memory, each conversation its own scope: a namespace, a mem0
user_id, a chromadb metadata filter; evidence recall@10 over categories 1-4, as in bench/locomo.py) and
10,000 synthetic chat-like sentences (bench/synthetic.py) in one scope. For each: add throughput (the
MiniLM embedding included, it is part of every add), and search latency p50/p95 for the top 10, one query
at a time, query embedding included.

Fairness: one MiniLM instance (tinymemory's numpy model, query cache off) serves all three; BLAS runs on
one thread for all (set below, before numpy loads); each system gets a fresh store per data set and three
untimed warm-up searches. Everything is offline: mem0 runs with infer=False and no LLM call (a dummy
OPENAI_API_KEY satisfies its config), telemetry is off for mem0 and chromadb.
"""

# ruff: noqa: E402  (thread and telemetry variables must be set before numpy, mem0 or chromadb load)
from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")
os.environ["MEM0_TELEMETRY"] = "False"
os.environ["ANONYMIZED_TELEMETRY"] = "False"
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ.setdefault("OPENAI_API_KEY", "sk-offline-bench-no-llm-is-called")

import argparse
import importlib.util
import json
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

sys.path.insert(0, str(Path(__file__).resolve().parent))
from locomo import DEFAULT_FILE, Conversation, EvidenceStats, load
from peers_systems import (
    Chroma,
    Mem0,
    System,
    TimedEmbedder,
    TinyMemory,
    plain_items,
    share_embedder,
    shared_embedder,
)
from report import machine_line, percentile, table, write_section
from synthetic import sentences, vocabulary
from tinymemory.api import FetchMode
from tinymemory.retrieval.embedders import MiniLMEmbedder

SYSTEMS = ("tinymemory", "tinymemory-lexical", "tinymemory-default", "chromadb", "mem0")
PEER_MODULES = {"chromadb": "chromadb", "mem0": "mem0"}
K = 10
SYNTHETIC_N = 10_000
SYNTHETIC_QUERIES = 200
WARMUP = 3
T = TypeVar("T")


@dataclass
class Figures:
    label: str
    mode: str
    batching: str
    recall: float | None = None
    locomo_add: float | None = None
    locomo_search: tuple[float, float] | None = None
    big_add: float | None = None
    big_search: tuple[float, float] | None = None
    # The same, with the time spent inside the shared embedder subtracted: the system's own cost.
    locomo_add_own: float | None = None
    locomo_search_own: float | None = None
    big_add_own: float | None = None
    big_search_own: float | None = None
    loads: list[float] = field(default_factory=list)


def load1() -> float:
    return os.getloadavg()[0]


def build(name: str, where: Path) -> System:
    where.mkdir(parents=True, exist_ok=True)
    if name == "tinymemory":
        return TinyMemory(where / "tm.db", FetchMode.HYBRID)
    if name == "tinymemory-lexical":
        return TinyMemory(where / "tm.db", FetchMode.LEXICAL)
    if name == "tinymemory-default":
        return TinyMemory(where / "tm.db", FetchMode.HYBRID, own_embedder=True)
    if name == "chromadb":
        return Chroma(where / "chroma")
    if name == "mem0":
        return Mem0(where)
    raise SystemExit(f"peers: `--systems` `{name}` is not one of {', '.join(SYSTEMS)}")


@dataclass
class Clock:
    """Wall seconds, and the part of them spent inside the shared embedder."""

    wall: float = 0.0
    model: float = 0.0

    def measure(self, fn: Callable[[], T]) -> T:
        timer = shared_embedder()
        m0, t0 = timer.seconds, time.perf_counter()
        out = fn()
        self.wall += time.perf_counter() - t0
        self.model += timer.seconds - m0
        return out


def per_second(n: int, seconds: float) -> float | None:
    return n / seconds if seconds > 0 else None


def timed_searches(
    system: System, scope: str, queries: Sequence[str]
) -> tuple[list[float], list[float], list[list[str]]]:
    """Latency per query (ms), the same without the query embedding, and the ranked ids."""
    for q in queries[:WARMUP]:
        system.search(scope, q, K)
    lat, own, ranked = [], [], []
    for q in queries:
        clock = Clock()
        ranked.append(clock.measure(lambda q=q: system.search(scope, q, K)))  # type: ignore[misc]
        lat.append(clock.wall * 1000)
        own.append((clock.wall - clock.model) * 1000)
    return lat, own, ranked


def run_locomo(system: System, convs: list[Conversation], figs: Figures) -> None:
    id_to_dia: dict[str, str] = {}
    clock, n = Clock(), 0
    for conv in convs:
        ids = clock.measure(lambda c=conv: system.add(c.sample_id, c.items))  # type: ignore[misc]
        n += len(ids)
        id_to_dia.update(zip(ids, conv.dia_ids, strict=True))
    figs.locomo_add = per_second(n, clock.wall)
    figs.locomo_add_own = per_second(n, clock.wall - clock.model)
    latencies, own, scores = [], [], []
    for conv in convs:
        questions = [q for q, _, _ in conv.questions]
        lat, mine, ranked = timed_searches(system, conv.sample_id, questions)
        latencies += lat
        own += mine
        for ids, (_, _, evidence) in zip(ranked, conv.questions, strict=True):
            got = {id_to_dia.get(i, "") for i in ids[:K]}
            scores.append(len(got & set(evidence)) / len(evidence))
    figs.recall = sum(scores) / len(scores)
    figs.locomo_search = (percentile(latencies, 50), percentile(latencies, 95))
    figs.locomo_search_own = percentile(own, 50)


def run_synthetic(system: System, texts: list[str], queries: list[str], figs: Figures) -> None:
    items = plain_items("synthetic", texts)
    clock = Clock()
    clock.measure(lambda: system.add("synthetic", items))
    figs.big_add = per_second(len(items), clock.wall)
    figs.big_add_own = per_second(len(items), clock.wall - clock.model)
    lat, own, _ = timed_searches(system, "synthetic", queries)
    figs.big_search = (percentile(lat, 50), percentile(lat, 95))
    figs.big_search_own = percentile(own, 50)


def embedder_rates(embedder: MiniLMEmbedder, texts: list[str]) -> tuple[float, float]:
    """MiniLM alone, batched and one text at a time: the ceiling every add/s figure sits under."""
    t = time.perf_counter()
    embedder.embed(texts[:1000])
    batched = 1000 / (time.perf_counter() - t)
    t = time.perf_counter()
    for text in texts[:200]:
        embedder.embed([text])
    return batched, 200 / (time.perf_counter() - t)


def fmt(v: float | None, spec: str = ",.0f") -> str:
    return "n/a" if v is None else format(v, spec)


def fmt_lat(v: tuple[float, float] | None) -> str:
    return "n/a" if v is None else f"{v[0]:.1f} / {v[1]:.1f}"


def p50(v: tuple[float, float] | None) -> float | None:
    return None if v is None else v[0]


def speedup(mine: float | None, theirs: float | None, *, lower_is_better: bool) -> str:
    if mine is None or theirs is None or mine <= 0 or theirs <= 0:
        return "n/a"
    return f"{(theirs / mine if lower_is_better else mine / theirs):.1f}x"


def target_line(results: list[Figures], mem0: Figures | None) -> str:
    """The target set for this comparison: the default mode 5x mem0 on add and search, recall no lower;
    once with the shared MiniLM (same model as the peers) and once with tinymemory's own default embedder."""
    head = "Target (default mode at least 5x mem0 on add and search at 10k, recall no lower)"
    lines = []
    for f in results:
        if not (f.label.startswith("tinymemory") and "default" in f"{f.label} {f.mode}"):
            continue
        if mem0 is None or f.big_add is None or mem0.big_add is None:
            continue
        add_x = f.big_add / mem0.big_add
        search_x = p50(mem0.big_search) / p50(f.big_search)  # type: ignore[operator]
        recall_ok = (f.recall or 0.0) >= (mem0.recall or 0.0)
        lines.append(
            f"- {f.label}: add {add_x:.1f}x ({'met' if add_x >= 5 else 'not met'}), "
            f"search p50 {search_x:.1f}x ({'met' if search_x >= 5 else 'not met'}), "
            f"R@{K} {f.recall:.3f} vs {mem0.recall:.3f} ({'met' if recall_ok else 'not met'})."
        )
    if not lines:
        return f"{head}: not measured."
    return f"{head}:\n\n" + "\n".join(lines)


def render(results: list[Figures], meta: dict[str, str]) -> str:
    mem0 = next((f for f in results if f.label == "mem0"), None)
    headers = [
        "system",
        "mode",
        f"LoCoMo R@{K}",
        "add/s LoCoMo",
        "search p50 / p95 ms LoCoMo",
        "add/s 10k",
        "search p50 / p95 ms 10k",
        "vs mem0: add (LoCoMo / 10k)",
        "vs mem0: search p50 (LoCoMo / 10k)",
    ]
    rows = []
    for f in results:
        row = [
            f.label,
            f.mode,
            fmt(f.recall, ".3f"),
            fmt(f.locomo_add),
            fmt_lat(f.locomo_search),
            fmt(f.big_add),
            fmt_lat(f.big_search),
        ]
        if mem0 is None or f is mem0:
            row += ["-", "-"]
        else:
            row += [
                f"{speedup(f.locomo_add, mem0.locomo_add, lower_is_better=False)} / "
                f"{speedup(f.big_add, mem0.big_add, lower_is_better=False)}",
                f"{speedup(p50(f.locomo_search), p50(mem0.locomo_search), lower_is_better=True)} / "
                f"{speedup(p50(f.big_search), p50(mem0.big_search), lower_is_better=True)}",
            ]
        rows.append(row)
    how = "\n".join(f"- {f.label} ({f.mode}): {f.batching}." for f in results)
    own_headers = ["system", "mode", "add/s LoCoMo", "add/s 10k", "search p50 ms LoCoMo", "search p50 ms 10k"]
    own_rows = [
        [
            f.label,
            f.mode,
            fmt(f.locomo_add_own),
            fmt(f.big_add_own),
            fmt(f.locomo_search_own, ".2f"),
            fmt(f.big_search_own, ".2f"),
        ]
        for f in results
    ]
    verdict = target_line(results, mem0)
    loads = ", ".join(f"{f.label} {' / '.join(f'{x:.1f}' for x in f.loads)}" for f in results)
    return "\n".join(
        [
            "## Peers: tinymemory, mem0, chromadb (`bench/peers.py`)",
            "",
            f"One process, same data, same embedder. Machine: {meta['machine']}. "
            f"Versions: {meta['versions']}. "
            f"Embedder for all: tinymemory's numpy all-MiniLM-L6-v2 (query cache off), handed to chromadb as "
            f"an embedding function and to mem0 as a custom embedder. LoCoMo: `{meta['file']}`, "
            f"{meta['turns']} turns, {meta['questions']} questions (categories 1-4), one scope per "
            f"conversation. 10k: {SYNTHETIC_N:,} synthetic sentences in one scope, {SYNTHETIC_QUERIES} "
            f"LoCoMo questions as queries. Searches return the top {K}, one at a time, query embedding "
            "included; add/s includes embedding.",
            "",
            table(headers, rows),
            "",
            verdict,
            "",
            f"What bounds add/s: the MiniLM forward pass. Alone, on this machine in this run, it embeds "
            f"{meta['embed_batched']} texts/s batched and {meta['embed_single']} texts/s one at a time. "
            "tinymemory and chromadb embed in batches; mem0 embeds each message on its own, so its "
            "ceiling is the one-at-a-time rate. The lexical row stores no vectors at all. How each adds:",
            "",
            how,
            "",
            "Each system's own cost: the same runs with the wall time spent inside the shared embedder "
            "subtracted (every system calls it synchronously on its add and search paths):",
            "",
            table(own_headers, own_rows),
            "",
            f"1-min load average when each system started (LoCoMo / 10k): {loads}. The machine is shared; "
            "under load every figure drops, and the ratios measured in the same run are the figures to "
            "read. mem0's BM25 hybrid scoring needs fastembed, which downloads its BM25 model at run time, "
            "so it is off here (the offline rule); earlier, on this split, it reached R@10 0.608 at 278 ms "
            "(`../shared/bench/README.md`). mem0 searches run with `threshold=0.0` so that no hit is cut.",
        ]
    )


def versions(names: list[str]) -> str:
    from importlib.metadata import PackageNotFoundError, version

    out = []
    for pkg in ("tinymemory", "mem0ai", "chromadb", "qdrant-client", "numpy"):
        if pkg in ("mem0ai", "chromadb") and pkg.removesuffix("ai") not in names:
            continue
        try:
            out.append(f"{pkg} {version(pkg)}")
        except PackageNotFoundError:
            continue
    return ", ".join(out)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("file", nargs="?", default=str(DEFAULT_FILE), help="LoCoMo-format JSON")
    parser.add_argument(
        "--systems", default=",".join(SYSTEMS), help=f"comma-separated, of {', '.join(SYSTEMS)}"
    )
    parser.add_argument("--skip-10k", action="store_true", help="LoCoMo only, no 10k synthetic run")
    parser.add_argument("--no-write", action="store_true", help="do not update docs/benchmarks.md")
    args = parser.parse_args()
    names = [s.strip() for s in args.systems.split(",") if s.strip()]
    for name in names:
        if name not in SYSTEMS:
            parser.error(f"`--systems` `{name}` is not one of {', '.join(SYSTEMS)}")
        module = PEER_MODULES.get(name)
        if module and importlib.util.find_spec(module) is None:
            parser.error(f"`--systems` `{name}` needs the `peers` extra: pip install -e '.[peers]'")

    machine = machine_line()
    path = Path(args.file)
    stats = EvidenceStats()
    convs = load(path, stats)
    words, p = vocabulary(path)
    texts = sentences(SYNTHETIC_N, words, p)
    queries = [q["question"] for s in json.loads(path.read_text()) for q in s["qa"]][:SYNTHETIC_QUERIES]
    embedder = MiniLMEmbedder(query_cache_size=0)
    embedder.load()
    share_embedder(TimedEmbedder(embedder))
    batched, single = embedder_rates(embedder, texts)
    print(f"minilm alone: {batched:.0f}/s batched, {single:.0f}/s one at a time", file=sys.stderr, flush=True)

    tmp = Path(tempfile.mkdtemp(prefix="tinymemory-peers-"))
    os.environ["MEM0_DIR"] = str(tmp / "mem0-home")  # read when mem0 is first imported
    results = []
    try:
        for name in names:
            print(f"{name}: LoCoMo ...", file=sys.stderr, flush=True)
            system = build(name, tmp / name / "locomo")
            figs = Figures(system.label, system.mode, system.batching, loads=[load1()])
            if name == "tinymemory":
                figs.mode += " (default)"
            try:
                run_locomo(system, convs, figs)
            finally:
                system.close()
            if not args.skip_10k:
                print(f"{name}: 10k ...", file=sys.stderr, flush=True)
                figs.loads.append(load1())
                system = build(name, tmp / name / "synthetic")
                try:
                    run_synthetic(system, texts, queries, figs)
                finally:
                    system.close()
            print(f"{name}: {figs}", file=sys.stderr, flush=True)
            results.append(figs)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    meta = {
        "machine": machine,
        "versions": versions(names),
        "file": path.name,
        "turns": str(sum(len(c.items) for c in convs)),
        "questions": str(sum(len(c.questions) for c in convs)),
        "embed_batched": f"{batched:,.0f}",
        "embed_single": f"{single:,.0f}",
    }
    md = render(results, meta)
    print(md)
    if not args.no_write:
        write_section("peers", md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
