"""tinymemory, mem0 and chromadb side by side in one process, interleaved, on the same data.

    pip install -e '.[peers]'        # mem0ai and chromadb, pinned; bench-only, never a runtime dependency
    python bench/peers.py [--systems tinymemory,tinymemory-default,chromadb,mem0,...]
                           [--synthetic-n N] [--skip-synthetic] [--no-write]

Two data sets: LoCoMo dev (every turn one memory, each conversation its own scope: a namespace, a mem0
user_id, a chromadb metadata filter; evidence recall@10 over categories 1-4, as in bench/locomo.py) and
5,000 synthetic chat-like sentences (bench/synthetic.py) in one scope (the default size keeps a run
under ten minutes on two idle cores; `--synthetic-n 10000` for the earlier scale). For each: add
throughput (the embedding included, it is part of every add), and search latency p50/p95 for the top 10,
one query at a time, query embedding included.

Interleaved: every system's store is open at once and the work goes round-robin, one LoCoMo session (or
500 synthetic items) per system per round on add, one question per system per round on search, the
order rotating each round; so load on the shared machine falls on all systems alike, and the ratios come
from one run.

Embedders: the peers get one shared all-MiniLM-L6-v2 (tinymemory's numpy model, query cache off);
tinymemory runs on that same instance and on its own default embedder, so each ratio splits into the
store's part and the embedder's part. BLAS runs on one thread for all (set below, before numpy loads);
TINYMEMORY_EMBEDDER is cleared so "default" is the shipped default. Each system gets a fresh store per
data set and three untimed warm-up searches. Everything is offline: mem0 runs with infer=False and no LLM
call (a dummy OPENAI_API_KEY satisfies its config), telemetry is off for mem0 and chromadb.

Metadata: tinymemory gets each LoCoMo turn's speaker, session and session date; chromadb gets the same as
per-item metadata, mem0 as run_id, message name and metadata (bench/peers_systems.py); only tinymemory
ranks with them, and the `tinymemory-text-only` row shows what they are worth to it.
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
os.environ.pop("TINYMEMORY_EMBEDDER", None)

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
)
from report import machine_line, percentile, table, write_section
from synthetic import sentences, vocabulary
from tinymemory.api import FetchMode, NewItem
from tinymemory.retrieval.embedders import MiniLMEmbedder

SYSTEMS = (
    "tinymemory",
    "tinymemory-text-only",
    "tinymemory-default",
    "tinymemory-lexical",
    "chromadb",
    "mem0",
)
PEERS = ("mem0", "chromadb")
PEER_MODULES = {"chromadb": "chromadb", "mem0": "mem0"}
LOCOMO_ONLY = {"tinymemory-text-only"}  # the synthetic items carry no metadata: it would repeat tinymemory
K = 10
SYNTHETIC_N = 5_000
SYNTHETIC_BATCH = 500
SYNTHETIC_QUERIES = 200
WARMUP = 3
DATA = ("locomo", "synth")  # the two data sets, in the order the ratio columns show them
T = TypeVar("T")


def load1() -> float:
    return os.getloadavg()[0]


def build(name: str, where: Path) -> System:
    where.mkdir(parents=True, exist_ok=True)
    db = where / "tm.db"
    if name == "tinymemory":
        return TinyMemory("tinymemory", db, FetchMode.HYBRID, "shared")
    if name == "tinymemory-text-only":
        return TinyMemory("tinymemory, text only", db, FetchMode.HYBRID, "shared", metadata=False)
    if name == "tinymemory-default":
        return TinyMemory("tinymemory, default embedder", db, FetchMode.HYBRID, "default")
    if name == "tinymemory-lexical":
        return TinyMemory("tinymemory, lexical", db, FetchMode.LEXICAL, None)
    if name == "chromadb":
        return Chroma(where / "chroma")
    if name == "mem0":
        return Mem0(where)
    raise SystemExit(f"peers: `--systems` `{name}` is not one of {', '.join(SYSTEMS)}")


@dataclass
class Tally:
    """One system on one data set: add time, search latencies, and both without the embedder's time."""

    system: System
    added: int = 0
    add_wall: float = 0.0
    add_model: float = 0.0
    latencies: list[float] = field(default_factory=list)
    own: list[float] = field(default_factory=list)
    scores: list[float] = field(default_factory=list)
    id_to_dia: dict[str, str] = field(default_factory=dict)

    def _timed(self, fn: Callable[[], T]) -> tuple[T, float, float]:
        timer = self.system.timer
        m0 = timer.seconds if timer is not None else 0.0
        t0 = time.perf_counter()
        out = fn()
        wall = time.perf_counter() - t0
        return out, wall, (timer.seconds - m0 if timer is not None else 0.0)

    def add(self, scope: str, items: Sequence[NewItem]) -> list[str]:
        ids, wall, model = self._timed(lambda: self.system.add(scope, items))
        self.added += len(ids)
        self.add_wall += wall
        self.add_model += model
        return ids

    def search(self, scope: str, query: str) -> list[str]:
        ranked, wall, model = self._timed(lambda: self.system.search(scope, query, K))
        self.latencies.append(wall * 1000)
        self.own.append((wall - model) * 1000)
        return ranked


@dataclass
class Figures:
    """What the tables show for one system."""

    label: str
    embedder: str
    mode: str
    batching: str
    recall: float | None = None
    add: dict[str, float | None] = field(default_factory=dict)  # data set -> items/s
    add_own: dict[str, float | None] = field(default_factory=dict)
    search: dict[str, tuple[float, float]] = field(default_factory=dict)  # data set -> p50, p95 ms
    search_own: dict[str, float] = field(default_factory=dict)

    def take(self, data: str, t: Tally) -> None:
        self.add[data] = per_second(t.added, t.add_wall)
        self.add_own[data] = per_second(t.added, t.add_wall - t.add_model)
        self.search[data] = (percentile(t.latencies, 50), percentile(t.latencies, 95))
        self.search_own[data] = percentile(t.own, 50)


def per_second(n: int, seconds: float) -> float | None:
    return n / seconds if seconds > 0 else None


def rotated(names: list[str], i: int) -> list[str]:
    k = i % len(names)
    return names[k:] + names[:k]


def open_all(names: list[str], where: Path) -> dict[str, Tally]:
    tallies: dict[str, Tally] = {}
    try:
        for name in names:
            tallies[name] = Tally(build(name, where / name))
    except BaseException:
        close_all(tallies)
        raise
    return tallies


def close_all(tallies: dict[str, Tally]) -> None:
    for t in tallies.values():
        t.system.close()


def sessions(convs: list[Conversation]) -> list[tuple[str, list[NewItem], list[str]]]:
    """Each conversation cut into its sessions, in order: the unit of one add round."""
    out: list[tuple[str, list[NewItem], list[str]]] = []
    for conv in convs:
        for at, item in enumerate(conv.items):
            if at == 0 or item.meta.thread_id != conv.items[at - 1].meta.thread_id:
                out.append((conv.sample_id, [], []))
            out[-1][1].append(item)
            out[-1][2].append(conv.dia_ids[at])
    return out


def run_locomo(names: list[str], where: Path, convs: list[Conversation]) -> dict[str, Tally]:
    tallies = open_all(names, where)
    try:
        for i, (scope, items, dia_ids) in enumerate(sessions(convs)):
            for name in rotated(names, i):
                t = tallies[name]
                t.id_to_dia.update(zip(t.add(scope, items), dia_ids, strict=True))
        asked = [(conv.sample_id, q, set(ev)) for conv in convs for q, _, ev in conv.questions]
        for name in names:
            for scope, q, _ in asked[:WARMUP]:
                tallies[name].system.search(scope, q, K)
        for i, (scope, q, evidence) in enumerate(asked):
            for name in rotated(names, i):
                t = tallies[name]
                got = {t.id_to_dia.get(x, "") for x in t.search(scope, q)[:K]}
                t.scores.append(len(got & evidence) / len(evidence))
    finally:
        close_all(tallies)
    return tallies


def run_synthetic(names: list[str], where: Path, texts: list[str], queries: list[str]) -> dict[str, Tally]:
    items = plain_items("synthetic", texts)
    tallies = open_all(names, where)
    try:
        for i, at in enumerate(range(0, len(items), SYNTHETIC_BATCH)):
            for name in rotated(names, i):
                tallies[name].add("synthetic", items[at : at + SYNTHETIC_BATCH])
        for name in names:
            for q in queries[:WARMUP]:
                tallies[name].system.search("synthetic", q, K)
        for i, q in enumerate(queries):
            for name in rotated(names, i):
                tallies[name].search("synthetic", q)
    finally:
        close_all(tallies)
    return tallies


def embedder_rates(embedder: MiniLMEmbedder, texts: list[str]) -> tuple[float, float]:
    """MiniLM alone, batched and one text at a time: the ceiling every add/s figure sits under."""
    many, few = texts[:1000], texts[:200]
    t = time.perf_counter()
    embedder.embed(many)
    batched = len(many) / (time.perf_counter() - t)
    t = time.perf_counter()
    for text in few:
        embedder.embed([text])
    return batched, len(few) / (time.perf_counter() - t)


def fmt(v: float | None, spec: str = ",.0f") -> str:
    return "n/a" if v is None else format(v, spec)


def fmt_lat(v: tuple[float, float] | None) -> str:
    return "n/a" if v is None else f"{v[0]:.1f} / {v[1]:.1f}"


def ratio(mine: float | None, theirs: float | None, *, lower_is_better: bool) -> float | None:
    if mine is None or theirs is None or mine <= 0 or theirs <= 0:
        return None
    return theirs / mine if lower_is_better else mine / theirs


def fx(v: float | None) -> str:
    return "n/a" if v is None else f"{v:.1f}x"


def p50(f: Figures, data: str) -> float | None:
    got = f.search.get(data)
    return None if got is None else got[0]


def ratios(tm: Figures, peer: Figures, *, own: bool = False) -> list[float | None]:
    """tinymemory over the peer: add LoCoMo, add synthetic, search p50 LoCoMo, search p50 synthetic
    (>1: tinymemory faster)."""
    add, search = (tm.add_own, tm.search_own) if own else (tm.add, {d: p50(tm, d) for d in tm.search})
    padd, psearch = (
        (peer.add_own, peer.search_own) if own else (peer.add, {d: p50(peer, d) for d in peer.search})
    )
    return [ratio(add.get(d), padd.get(d), lower_is_better=False) for d in DATA] + [
        ratio(search.get(d), psearch.get(d), lower_is_better=True) for d in DATA
    ]


def ratio_row(what: str, values: Sequence[float | None], recall: str = "") -> list[str]:
    return [what, *(fx(v) for v in values), recall]


def recalls(tm: Figures, peer: Figures) -> str:
    return f"{fmt(tm.recall, '.3f')} / {fmt(peer.recall, '.3f')}"


def ratio_rows(by: dict[str, Figures], big: str) -> tuple[list[list[str]], list[str]]:
    """Per peer: same embedder, tinymemory's default embedder, the embedder's share (their quotient),
    own cost (embedder time subtracted on both sides), lexical; and one sentence per peer that reads it."""
    rows: list[list[str]] = []
    notes: list[str] = []
    same, default, lexical = by.get("tinymemory"), by.get("tinymemory-default"), by.get("tinymemory-lexical")
    for name in PEERS:
        peer = by.get(name)
        if peer is None:
            continue
        r_same = ratios(same, peer) if same else None
        r_default = ratios(default, peer) if default else None
        if same and r_same:
            rows.append(
                ratio_row(f"vs {name}: same embedder (MiniLM both sides)", r_same, recalls(same, peer))
            )
        if default and r_default:
            what = f"vs {name}: tinymemory on its default embedder, {name} on MiniLM"
            rows.append(ratio_row(what, r_default, recalls(default, peer)))
        if r_same and r_default:
            share = [
                None if a is None or b is None else b / a for a, b in zip(r_same, r_default, strict=True)
            ]
            rows.append(ratio_row(f"vs {name}: of which the embedder (default ÷ same)", share))
            if share[1] is not None and share[3] is not None:
                notes.append(
                    f"- vs {name} at {big}: add {fx(r_default[1])} = {fx(r_same[1])} from the store "
                    f"(same MiniLM) × {fx(share[1])} from the embedder; search p50 {fx(r_default[3])} = "
                    f"{fx(r_same[3])} × {fx(share[3])}."
                )
        if same:
            what = f"vs {name}: own cost, embedder time subtracted on both sides"
            rows.append(ratio_row(what, ratios(same, peer, own=True)))
        if lexical:
            what = f"vs {name}: tinymemory lexical (no embedder at all)"
            rows.append(ratio_row(what, ratios(lexical, peer), recalls(lexical, peer)))
    return rows, notes


def target_line(by: dict[str, Figures], big: str) -> str:
    """The target set for this comparison: the default mode 5x mem0 on add and search, recall no lower;
    once with the shared MiniLM (same model as the peers) and once with tinymemory's own default embedder."""
    head = f"Target (default mode at least 5x mem0 on add and search at {big}, recall no lower)"
    mem0 = by.get("mem0")
    lines = []
    for name in ("tinymemory", "tinymemory-default"):
        f = by.get(name)
        if mem0 is None or f is None:
            continue
        r = ratios(f, mem0)
        if r[1] is None or r[3] is None:
            continue
        recall_ok = (f.recall or 0.0) >= (mem0.recall or 0.0)
        recalls = f"{fmt(f.recall, '.3f')} vs {fmt(mem0.recall, '.3f')}"
        lines.append(
            f"- {f.label} on {f.embedder}: add {fx(r[1])} ({'met' if r[1] >= 5 else 'not met'}), "
            f"search p50 {fx(r[3])} ({'met' if r[3] >= 5 else 'not met'}), "
            f"R@{K} {recalls} ({'met' if recall_ok else 'not met'})."
        )
    if not lines:
        return f"{head}: not measured."
    return f"{head}:\n\n" + "\n".join(lines)


GIVEN = {
    "tinymemory": "each turn's text, speaker (`source`), session (`thread_id`) and session date "
    "(`observed_at`); its hybrid ranking reads them (speaker named in the question, neighbouring turns "
    "of the session, dates against time words in the question)",
    "tinymemory-text-only": "the text alone (kind and an identity, so two equal lines stay two memories); "
    "no speaker, session or date (the date defaults to the time of the store)",
    "tinymemory-default": "as tinymemory",
    "tinymemory-lexical": "as tinymemory; no vectors at all",
    "chromadb": "the text, plus scope, speaker, session and date (ISO and epoch seconds) as per-item "
    "metadata; the scope is a `where` filter, the rest is stored and not ranked with (chromadb ranks by "
    "vector distance alone)",
    "mem0": "the text, one `add` per session with `run_id` = session, each message named by its speaker "
    "(kept as `actor_id`), session and date in `metadata`; OSS search ranks by vector similarity (plus "
    "BM25 and entity boosts when fastembed and spaCy are installed, neither here) and reads none of these "
    "fields; its `timestamp` on add and `reference_date` on search are Platform-only (the OSS `Memory` "
    "raises)",
}


def metadata_line(by: dict[str, Figures]) -> str:
    """What the speaker, session and date are worth to tinymemory, next to the peers that store them."""
    with_meta, without = by.get("tinymemory"), by.get("tinymemory-text-only")
    if with_meta is None or without is None:
        return "The text-only row was not run, so what the metadata is worth is not measured here."
    peers = ", ".join(f"{n} {fmt(by[n].recall, '.3f')}" for n in PEERS if n in by)
    return (
        f"What the metadata is worth, same embedder: tinymemory R@{K} {fmt(with_meta.recall, '.3f')} with "
        f"it, {fmt(without.recall, '.3f')} on the text alone" + (f"; the peers ({peers})." if peers else ".")
    )


def render(results: dict[str, Figures], meta: dict[str, str]) -> str:
    big = meta["big"]
    headers = [
        "system",
        "embedder",
        "mode",
        f"LoCoMo R@{K}",
        "add/s LoCoMo",
        "search p50 / p95 ms LoCoMo",
        f"add/s {big}",
        f"search p50 / p95 ms {big}",
    ]
    rows = [
        [
            f.label,
            f.embedder,
            f.mode,
            fmt(f.recall, ".3f"),
            fmt(f.add.get("locomo")),
            fmt_lat(f.search.get("locomo")),
            fmt(f.add.get("synth")),
            fmt_lat(f.search.get("synth")),
        ]
        for f in results.values()
    ]
    ratio_headers = [
        "tinymemory ÷ peer (>1: tinymemory faster)",
        "add LoCoMo",
        f"add {big}",
        "search p50 LoCoMo",
        f"search p50 {big}",
        f"R@{K} tinymemory / peer",
    ]
    r_rows, notes = ratio_rows(results, big)
    given = "\n".join(f"- {f.label} ({f.embedder}, {f.mode}): {GIVEN[n]}." for n, f in results.items())
    how = "\n".join(f"- {f.label} ({f.embedder}, {f.mode}): {f.batching}." for f in results.values())
    own_headers = [
        "system",
        "embedder",
        "add/s LoCoMo",
        f"add/s {big}",
        "search p50 ms LoCoMo",
        f"search p50 ms {big}",
    ]
    own_rows = [
        [
            f.label,
            f.embedder,
            fmt(f.add_own.get("locomo")),
            fmt(f.add_own.get("synth")),
            fmt(f.search_own.get("locomo"), ".2f"),
            fmt(f.search_own.get("synth"), ".2f"),
        ]
        for f in results.values()
    ]
    share = (
        "Which part of a ratio is the embedder: the peers run on MiniLM here (mem0's own default calls a "
        "hosted embedding API; chromadb's default is this same MiniLM, run through ONNX, which it downloads "
        "on first use), so the `same embedder` rows are the store's part and the `of which the embedder` "
        "rows the part that comes from tinymemory's default static-minilm (a table lookup, no forward "
        "pass) instead of MiniLM. The same-embedder add ratio to mem0 still includes batching: mem0 has "
        "no batch path for raw memories and embeds each message on its own; the own-cost row takes the "
        "model out on both sides."
    )
    return "\n".join(
        [
            "## Peers: tinymemory, mem0, chromadb (`bench/peers.py`)",
            "",
            f"One process, same data, the systems interleaved: all stores open at once, the work round-robin "
            f"(on add one LoCoMo session or {SYNTHETIC_BATCH:,} synthetic items per system per round, on "
            "search one question per system per round, the order rotating), so machine load falls on all "
            f"alike. Machine: {meta['machine']}. 1-min load: {meta['loads']}. Run time {meta['seconds']} s. "
            f"Versions: {meta['versions']}. LoCoMo: `{meta['file']}`, {meta['turns']} turns, "
            f"{meta['questions']} questions (categories 1-4), one scope per conversation. {big}: "
            f"{meta['synthetic_n']} synthetic sentences in one scope (text only for every system), "
            f"{SYNTHETIC_QUERIES} LoCoMo questions as queries. Searches return the top {K}, one at a time, "
            "query embedding included; add/s (items over total add time) includes embedding; latencies are "
            "medians (p50) and p95 over the queries.",
            "",
            table(headers, rows),
            "",
            "Ratios, from the same run:",
            "",
            table(ratio_headers, r_rows),
            "",
            share,
            "",
            *notes,
            "",
            "What each system is given on LoCoMo, and what it uses:",
            "",
            given,
            "",
            metadata_line(results),
            "",
            target_line(results, big),
            "",
            f"What bounds add/s: the MiniLM forward pass. Alone, on this machine in this run, it embeds "
            f"{meta['embed_batched']} texts/s batched and {meta['embed_single']} texts/s one at a time. "
            "tinymemory and chromadb embed in batches; mem0 embeds each message on its own, so its "
            "ceiling is the one-at-a-time rate. How each adds:",
            "",
            how,
            "",
            "Each system's own cost: the same runs with the wall time spent inside its embedder "
            "subtracted (every system waits for it on its add and search paths; tinymemory embeds the "
            "query on a helper thread while its lexical side ranks, so on two busy cores the two contend "
            "and its hybrid search figure here carries some of that):",
            "",
            table(own_headers, own_rows),
            "",
            "mem0's own add cost is mostly two SQLite commits per memory (its local Qdrant's persistence and "
            "its history table), so it follows the disk's load. "
            "mem0's BM25 hybrid scoring needs fastembed, which downloads its BM25 model at run time, "
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
    parser.add_argument(
        "--skip-synthetic", "--skip-10k", action="store_true", help="LoCoMo only, no synthetic run"
    )
    parser.add_argument(
        "--synthetic-n", type=int, default=SYNTHETIC_N, help="synthetic items (a smaller run for a check)"
    )
    parser.add_argument("--no-write", action="store_true", help="do not update docs/benchmarks.md")
    args = parser.parse_args()
    names = [s.strip() for s in args.systems.split(",") if s.strip()]
    for name in names:
        if name not in SYSTEMS:
            parser.error(f"`--systems` `{name}` is not one of {', '.join(SYSTEMS)}")
        module = PEER_MODULES.get(name)
        if module and importlib.util.find_spec(module) is None:
            parser.error(f"`--systems` `{name}` needs the `peers` extra: pip install -e '.[peers]'")

    started = time.perf_counter()
    machine = machine_line()
    loads = [("start", load1())]
    path = Path(args.file)
    stats = EvidenceStats()
    convs = load(path, stats)
    words, p = vocabulary(path)
    texts = sentences(args.synthetic_n, words, p)
    queries = [q["question"] for s in json.loads(path.read_text()) for q in s["qa"]][:SYNTHETIC_QUERIES]
    embedder = MiniLMEmbedder(query_cache_size=0)
    embedder.load()
    share_embedder(TimedEmbedder(embedder))
    batched, single = embedder_rates(embedder, texts)
    print(f"minilm alone: {batched:.0f}/s batched, {single:.0f}/s one at a time", file=sys.stderr, flush=True)

    tmp = Path(tempfile.mkdtemp(prefix="tinymemory-peers-"))
    os.environ["MEM0_DIR"] = str(tmp / "mem0-home")  # read when mem0 is first imported
    results: dict[str, Figures] = {}
    try:
        print(f"LoCoMo, interleaved: {', '.join(names)} ...", file=sys.stderr, flush=True)
        for name, t in run_locomo(names, tmp / "locomo", convs).items():
            s = t.system
            f = results[name] = Figures(s.label, s.embedder, s.mode, s.batching)
            f.recall = sum(t.scores) / len(t.scores)
            f.take("locomo", t)
        loads.append(("after LoCoMo", load1()))
        synth = [n for n in names if n not in LOCOMO_ONLY]
        if not args.skip_synthetic and synth:
            print(f"synthetic, interleaved: {', '.join(synth)} ...", file=sys.stderr, flush=True)
            for name, t in run_synthetic(synth, tmp / "synthetic", texts, queries).items():
                results[name].take("synth", t)
            loads.append(("end", load1()))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for f in results.values():
        print(f"{f}", file=sys.stderr, flush=True)

    meta = {
        "machine": machine,
        "loads": ", ".join(f"{what} {x:.2f}" for what, x in loads),
        "seconds": f"{time.perf_counter() - started:.0f}",
        "versions": versions(names),
        "file": path.name,
        "turns": str(sum(len(c.items) for c in convs)),
        "synthetic_n": f"{len(texts):,}",
        "big": f"{len(texts) / 1000:g}k",
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
