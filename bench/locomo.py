"""Evidence recall@k on LoCoMo-format data, per category and fetch mode, with query latency.

Protocol (../shared/bench/README.md): every turn is one memory (`Speaker: text`, plus the photo caption
when present), observed at its session's date-time, each conversation in its own namespace; for each
question of categories 1-4, fetch the top k and score |evidence ∩ top-k| / |evidence|.

    python bench/locomo.py [FILE] [--modes lexical,semantic,hybrid] [--ablation] [--answers] [--no-write]
                           [--speaker-as source|tag|label|all]

The last line printed is `recall@10=<value>` for the engine's default mode.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from report import machine_line, percentile, table, write_section
from tinymemory.api import (
    FetchMode,
    FetchRequest,
    ItemKind,
    ItemMeta,
    MemoryEngine,
    MetaFilter,
    Namespace,
    NewItem,
    Reach,
    Source,
)
from tinymemory.retrieval.config import STAGES, RetrievalConfig

DEFAULT_FILE = Path(__file__).resolve().parent.parent.parent / "shared" / "bench" / "locomo_dev.json"
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
KS = (5, 10, 20)


@dataclass
class Conversation:
    sample_id: str
    items: list[NewItem]
    dia_ids: list[str]
    questions: list[tuple[str, int, list[str]]]


@dataclass
class EvidenceStats:
    total: int = 0
    split: int = 0
    repaired: int = 0
    dropped: int = 0
    questions_without_evidence: int = 0
    notes: list[str] = field(default_factory=list)


def parse_session_time(text: str) -> datetime:
    return datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)


def clean_evidence(raw: list[str], known: set[str], stats: EvidenceStats) -> list[str]:
    """Split `D8:6; D9:17`, repair `D:11:26` -> `D11:26` and `D30:05` -> `D30:5`, drop unknown ids."""
    out: list[str] = []
    for entry in raw:
        stats.total += 1
        parts = [p for p in re.split(r"[;,\s]+", entry) if p]
        if len(parts) > 1:
            stats.split += 1
        for part in parts:
            fixed = part
            m = re.fullmatch(r"D:?(\d+):0*(\d+)", part)
            if m:
                fixed = f"D{m.group(1)}:{m.group(2)}"
            if fixed != part:
                stats.repaired += 1
            if fixed in known:
                if fixed not in out:
                    out.append(fixed)
            else:
                stats.dropped += 1
    return out


SPEAKER_PLACEMENTS = ("source", "tag", "label")


def turn_meta(speaker: str, placement: str) -> tuple[Source, tuple[str, ...]]:
    """Where a turn's speaker goes besides the text's own `Speaker:` label: the source (`source`), a
    tag beside `source="user"` (`tag`), or nowhere (`label`: the label alone says who spoke)."""
    if placement == "source":
        return Source("user", speaker), ()
    if placement == "tag":
        return Source("user"), (speaker,)
    if placement == "label":
        return Source("user"), ()
    raise ValueError(f"--speaker-as: `{placement}` is not one of {', '.join(SPEAKER_PLACEMENTS)}")


def load(path: Path, stats: EvidenceStats, speaker_as: str = "source") -> list[Conversation]:
    data: list[dict[str, Any]] = json.loads(path.read_text())
    convs = []
    for sample in data:
        sid = str(sample.get("sample_id", f"s{len(convs)}"))
        ns = Namespace.parse(f"bench:locomo/conv:{re.sub(r'[^A-Za-z0-9._-]', '-', sid)}")
        conv = sample["conversation"]
        items: list[NewItem] = []
        dia_ids: list[str] = []
        n = 1
        while f"session_{n}" in conv:
            when = parse_session_time(conv[f"session_{n}_date_time"])
            for turn in conv[f"session_{n}"]:
                text = f"{turn['speaker']}: {turn['text']}"
                if turn.get("blip_caption"):
                    text += f" [shares a photo of {turn['blip_caption']}]"
                source, tags = turn_meta(turn["speaker"], speaker_as)
                items.append(
                    NewItem(
                        kind=ItemKind.CONVERSATION,
                        text=text,
                        identity=turn["dia_id"],
                        meta=ItemMeta(
                            namespace=ns,
                            source=source,
                            tags=tags,
                            thread_id=f"session_{n}",
                            observed_at=when,
                        ),
                    )
                )
                dia_ids.append(turn["dia_id"])
            n += 1
        known = set(dia_ids)
        questions = []
        for qa in sample["qa"]:
            cat = int(qa["category"])
            if cat not in CATEGORIES:
                continue
            evidence = clean_evidence([str(e) for e in qa.get("evidence", [])], known, stats)
            if not evidence:
                stats.questions_without_evidence += 1
                continue
            questions.append((str(qa["question"]), cat, evidence))
        convs.append(Conversation(sid, items, dia_ids, questions))
    return convs


class CachedEmbedder:
    """The bench's embedder wrapper: each distinct text is embedded once per run, so the ablation's
    extra stores (same turns, another analyzer) cost no model time. Vectors are identical."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.name: str = inner.name
        self.dim: int = inner.dim
        self._docs: dict[str, Any] = {}

    def embed(self, texts: Any) -> Any:
        import numpy as np

        todo = [t for t in dict.fromkeys(texts) if t not in self._docs]
        if todo:
            for t, v in zip(todo, self.inner.embed(todo), strict=True):
                self._docs[t] = v
        return np.stack([self._docs[t] for t in texts]) if texts else self.inner.embed(texts)

    def embed_query(self, text: str) -> Any:
        return self.inner.embed_query(text)  # uncached: its cost belongs in the latency figures


async def store_all(engine: MemoryEngine, convs: list[Conversation]) -> tuple[dict[str, str], int, float]:
    id_to_dia: dict[str, str] = {}
    store_seconds = 0.0
    n_items = 0
    for conv in convs:
        t = time.perf_counter()
        results = await engine.store_many(conv.items)
        store_seconds += time.perf_counter() - t
        n_items += len(results)
        for res, dia in zip(results, conv.dia_ids, strict=True):
            id_to_dia[res.id] = dia
    return id_to_dia, n_items, store_seconds


class RecallTally:
    """Recall per k and category (0 = all), R@10 per conversation, and latency: one per retriever."""

    def __init__(self) -> None:
        self.scores: dict[int, dict[int, list[float]]] = {k: defaultdict(list) for k in KS}
        self.per_conv: list[list[float]] = []
        # per conversation: each question's (category, R@10, R@20), for the by-split table
        self.per_conv_cat: list[list[tuple[int, float, float]]] = []
        self.latencies: list[float] = []

    def start_conversation(self) -> None:
        self.per_conv.append([])
        self.per_conv_cat.append([])

    def add(self, cat: int, evidence: list[str], ranked: list[str], latency_ms: float) -> None:
        self.latencies.append(latency_ms)
        at = {k: len(set(ranked[:k]) & set(evidence)) / len(evidence) for k in (10, 20)}
        self.per_conv_cat[-1].append((cat, at[10], at[20]))
        for k in KS:
            got = len(set(ranked[:k]) & set(evidence)) / len(evidence)
            self.scores[k][cat].append(got)
            self.scores[k][0].append(got)
            if k == 10:
                self.per_conv[-1].append(got)

    def result(self) -> dict[str, Any]:
        return {
            "recall": {k: {c: sum(v) / len(v) for c, v in self.scores[k].items()} for k in KS},
            "per_conv": self.per_conv,
            "per_conv_cat": self.per_conv_cat,
            "p50_ms": percentile(self.latencies, 50),
            "p95_ms": percentile(self.latencies, 95),
            "questions": len(self.latencies),
        }


async def query_all(
    engine: MemoryEngine, convs: list[Conversation], mode: FetchMode, id_to_dia: dict[str, str]
) -> dict[str, Any]:
    """Recall per k and category, per conversation at R@10, and latency, for one mode."""
    tally = RecallTally()
    for conv in convs:
        flt = MetaFilter(reach=Reach.exact(conv.items[0].meta.namespace))
        tally.start_conversation()
        for question, cat, evidence in conv.questions:
            t = time.perf_counter()
            res = await engine.fetch(FetchRequest(query=question, mode=mode, filter=flt, limit=max(KS)))
            latency = (time.perf_counter() - t) * 1000
            tally.add(cat, evidence, [id_to_dia.get(h.item.id, "") for h in res.hits], latency)
    return tally.result()


async def evaluate(engine: MemoryEngine, convs: list[Conversation], modes: list[FetchMode]) -> dict[str, Any]:
    id_to_dia, n_items, store_seconds = await store_all(engine, convs)
    out: dict[str, Any] = {"items": n_items, "store_per_s": n_items / store_seconds, "modes": {}}
    out["id_to_dia"] = id_to_dia
    for mode in modes:
        out["modes"][mode.value] = await query_all(engine, convs, mode, id_to_dia)
    return out


def split_recall(per_conv: list[list[float]], picks: range) -> float:
    """Mean R@10 over the questions of the conversations at `picks` (the tuning or the check split)."""
    vals = [v for i in picks if i < len(per_conv) for v in per_conv[i]]
    return sum(vals) / len(vals) if vals else float("nan")


TUNE, CHECK = range(0, 2), range(2, 4)


def split_category(
    per_conv_cat: list[list[tuple[int, float, float]]], picks: range, cat: int, k: int
) -> float:
    """Mean R@k (10 or 20) over one category's questions of the conversations at `picks`."""
    col = 1 if k == 10 else 2
    vals = [q[col] for i in picks if i < len(per_conv_cat) for q in per_conv_cat[i] if q[0] == cat]
    return sum(vals) / len(vals) if vals else float("nan")


def render_splits(r: dict[str, Any]) -> str:
    """One mode's R@10 and R@20 per category on the tuning and the check conversations, side by side."""
    rows = []
    cats = [(0, "all"), *CATEGORIES.items()]
    for c, name in cats:
        cells = [name]
        for k in (10, 20):
            for picks in (TUNE, CHECK):
                if c == 0:
                    vals = [q[1 if k == 10 else 2] for i in picks for q in r["per_conv_cat"][i]]
                    cells.append(f"{sum(vals) / len(vals):.3f}" if vals else "nan")
                else:
                    cells.append(f"{split_category(r['per_conv_cat'], picks, c, k):.3f}")
        rows.append(cells)
    headers = ["category", "R@10 tune (0-1)", "R@10 check (2-3)", "R@20 tune (0-1)", "R@20 check (2-3)"]
    return table(headers, rows)


def split_line(r: dict[str, Any]) -> str:
    """A one-line summary of the by-split figures (printed last, for a quick comparison between runs)."""
    parts = []
    for c, name, k in ((2, "temporal", 10), (1, "multi-hop", 20), (3, "open-domain", 10)):
        tune = split_category(r["per_conv_cat"], TUNE, c, k)
        check = split_category(r["per_conv_cat"], CHECK, c, k)
        parts.append(f"{name} R@{k} tune {tune:.3f} check {check:.3f}")
    overall = [split_recall(r["per_conv"], picks) for picks in (TUNE, CHECK)]
    return f"R@10 tune {overall[0]:.3f} check {overall[1]:.3f}; " + "; ".join(parts)


def _row(label: str, r: dict[str, Any]) -> list[str]:
    rec = r["recall"]
    return (
        [label]
        + [f"{rec[k][0]:.3f}" for k in KS]
        + [f"{rec[10].get(c, float('nan')):.3f}" for c in CATEGORIES]
        + [f"{rec[20].get(1, float('nan')):.3f}", f"{r['p50_ms']:.1f}", f"{r['p95_ms']:.1f}"]
    )


HEADERS = (
    ["retriever", "R@5", "R@10", "R@20"]
    + [f"R@10 {name}" for name in CATEGORIES.values()]
    + ["R@20 multi-hop", "p50 ms", "p95 ms"]
)


def render_categories(result: dict[str, Any]) -> str:
    rows = []
    for mode, r in result["modes"].items():
        rec = r["recall"]
        for c, name in CATEGORIES.items():
            rows.append([mode, name] + [f"{rec[k].get(c, float('nan')):.3f}" for k in KS])
    return table(["mode", "category", "R@5", "R@10", "R@20"], rows)


def render_ablation(rows: list[tuple[str, dict[str, Any]]]) -> str:
    out = []
    for label, r in rows:
        rec = r["recall"]
        out.append(
            [label]
            + [f"{rec[k][0]:.3f}" for k in KS]
            + [f"{rec[20].get(1, float('nan')):.3f}"]
            + [f"{split_recall(r['per_conv'], TUNE):.3f}", f"{split_recall(r['per_conv'], CHECK):.3f}"]
            + [f"{r['p50_ms']:.1f}", f"{r['p95_ms']:.1f}"]
        )
    headers = ["config", "R@5", "R@10", "R@20", "R@20 multi-hop", "R@10 tune (0-1)", "R@10 check (2-3)"]
    return table([*headers, "p50 ms", "p95 ms"], out)


def render(
    result: dict[str, Any],
    stats: EvidenceStats,
    path: Path,
    default: str,
    embedder: str,
    ablation: list[tuple[str, dict[str, Any]]] | None = None,
    machine: str = "",
    baselines: dict[str, dict[str, Any]] | None = None,
) -> str:
    rows = [
        _row(f"tinymemory {mode}" + (" (default)" if mode == default else ""), r)
        for mode, r in result["modes"].items()
    ]
    rows += [_row(f"baseline: {name}", r) for name, r in (baselines or {}).items()]
    questions = next(iter(result["modes"].values()))["questions"] if result["modes"] else 0
    lines = [
        "## LoCoMo evidence recall (`bench/locomo.py`)",
        "",
        f"Data: `{path.name}`, {result['items']} turns, {questions} questions (categories 1-4). "
        f"Embedder: {embedder}. Machine: {machine or machine_line()}. Latency is per fetch of the top 20, "
        "query embedding included, one query at a time; the machine is shared, so latency is noisy "
        "while recall figures are deterministic.",
        "",
        table(HEADERS, rows),
        "",
        "Baselines on the same split (from `../shared/bench/README.md`): BM25 R@10 0.524, "
        "all-MiniLM-L6-v2 dense R@10 0.489."
        + (
            " The `baseline:` rows recompute both here, on the same turns and questions." if baselines else ""
        ),
        "",
    ]
    if baselines and default in result["modes"]:
        lines += [category_check(result["modes"][default], baselines, default), ""]
    if default in result["modes"]:
        per_conv = result["modes"][default]["per_conv"]
        lines += [
            f"Default mode ({default}) R@10 by split: tuning conversations (samples 0-1) "
            f"{split_recall(per_conv, TUNE):.3f}, check conversations (samples 2-3) "
            f"{split_recall(per_conv, CHECK):.3f}. Constants were chosen on the tuning split only.",
            "",
            f"By split ({default}), per category:",
            "",
            render_splits(result["modes"][default]),
            "",
            "Per category and k:",
            "",
            render_categories(result),
            "",
        ]
    if ablation:
        lines += [
            f"Ablation (`--ablation`, mode {default}): the default configuration, then each stage of "
            "`RetrievalConfig` switched off in turn, then all off. Query-time stages share one store; "
            "the analyzer and all-off rows build their own (same turns, cached document vectors).",
            "",
            render_ablation(ablation),
            "",
        ]
    lines.append(
        f"Evidence clean-up: {stats.total} evidence entries; {stats.split} held several ids and were "
        f"split, {stats.repaired} ids were repaired (`D:11:26` -> `D11:26`, `D30:05` -> `D30:5`), "
        f"{stats.dropped} pointed at no turn and were dropped; "
        f"{stats.questions_without_evidence} questions were left with no evidence and skipped."
    )
    return "\n".join(lines)


def category_check(ours: dict[str, Any], baselines: dict[str, dict[str, Any]], mode: str) -> str:
    """Per category and k, our default mode against the best baseline."""
    worse = []
    for c, name in CATEGORIES.items():
        for k in KS:
            best = max(b["recall"][k].get(c, 0.0) for b in baselines.values())
            mine = ours["recall"][k].get(c, 0.0)
            if mine < best:
                worse.append(f"{name} R@{k} ({mine:.3f} < {best:.3f})")
    if not worse:
        return f"Per category and k, {mode} is at or above the best baseline everywhere."
    return f"Per category and k, {mode} is below the best baseline at: " + ", ".join(worse) + "."


def _query_time_only(stage: str) -> bool:
    """Stages whose switch changes only how a fetch ranks, so their ablation can reuse the store."""
    return stage != "analyzer"


def _on_store(cfg: RetrievalConfig, stage: str) -> RetrievalConfig:
    """The query-time equivalent of switching `stage` off on a store built with the default config."""
    off = cfg.without(stage)
    if stage == "context":  # the field stays indexed; weight 0 leaves it out of matching
        return replace(off, context=replace(cfg.context, weight=0.0))
    return off


async def ablation_runs(
    engine: Any,
    convs: list[Conversation],
    mode: FetchMode,
    id_to_dia: dict[str, str],
    embedder: Any,
    tmp: str,
) -> list[tuple[str, dict[str, Any]]]:
    from tinymemory.engines.sqlite import SqliteEngine

    base: RetrievalConfig = engine.retrieval
    rows = [("default (all stages on)", await query_all(engine, convs, mode, id_to_dia))]
    for stage in STAGES:
        if _query_time_only(stage):
            engine.retrieval = _on_store(base, stage)
            rows.append((f"without {stage}", await query_all(engine, convs, mode, id_to_dia)))
            engine.retrieval = base
            continue
        async with SqliteEngine(
            str(Path(tmp) / f"no-{stage}.db"), embedder=embedder, retrieval=base.without(stage)
        ) as other:
            ids, _, _ = await store_all(other, convs)
            rows.append((f"without {stage}", await query_all(other, convs, mode, ids)))
    async with SqliteEngine(
        str(Path(tmp) / "all-off.db"), embedder=embedder, retrieval=base.all_off()
    ) as other:
        ids, _, _ = await store_all(other, convs)
        rows.append(("all stages off", await query_all(other, convs, mode, ids)))
    return rows


async def speaker_runs(path: Path, embedder: Any, mode: FetchMode | None, tmp: str) -> str:
    """The default mode's recall with the speaker stored in each placement (`--speaker-as all`): the
    reranker reads the speaker from the source, a tag or the text's label alike (retrieval/speakers.py),
    so the rows should agree."""
    from tinymemory.engines.sqlite import SqliteEngine

    rows = []
    for placement in SPEAKER_PLACEMENTS:
        stats = EvidenceStats()
        convs = load(path, stats, placement)
        async with SqliteEngine(str(Path(tmp) / f"speaker-{placement}.db"), embedder=embedder) as engine:
            chosen = mode or engine.descriptor.default_mode()
            assert chosen is not None
            result = await evaluate(engine, convs, [chosen])
        r = result["modes"][chosen.value]
        rec = r["recall"]
        rows.append(
            [placement, chosen.value]
            + [f"{rec[k][0]:.3f}" for k in KS]
            + [f"{rec[10].get(c, float('nan')):.3f}" for c in CATEGORIES]
            + [f"{split_recall(r['per_conv'], TUNE):.3f}", f"{split_recall(r['per_conv'], CHECK):.3f}"]
        )
    headers = ["speaker stored as", "mode", "R@5", "R@10", "R@20"]
    headers += [f"R@10 {n}" for n in CATEGORIES.values()] + ["R@10 tune (0-1)", "R@10 check (2-3)"]
    return "\n".join(
        [
            "### Where the speaker is stored (`bench/locomo.py --speaker-as all`)",
            "",
            "The same turns and questions stored three ways: the speaker as the turn's `source` (the "
            "protocol's default), as a tag beside `source=\"user\"`, or only as the text's leading "
            "`Speaker:` label (every turn's text keeps that label in all three). The reranker's speaker "
            "feature reads all of them (`retrieval/speakers.py`). Recall is deterministic.",
            "",
            table(headers, rows),
        ]
    )


async def main_async(args: argparse.Namespace) -> int:
    from tinymemory.engines.sqlite import SqliteEngine

    path = Path(args.file)
    if args.speaker_as == "all":
        from tinymemory.retrieval.embedders import default_embedder

        with tempfile.TemporaryDirectory(prefix="tinymemory-locomo-") as tmp:
            embedder = None if args.lexical_only else CachedEmbedder(default_embedder())
            mode = FetchMode(args.modes.split(",")[0]) if args.modes else None
            md = await speaker_runs(path, embedder, mode, tmp)
        print(md)
        if not args.no_write:
            write_section("locomo-speaker", md)
        return 0
    stats = EvidenceStats()
    convs = load(path, stats, args.speaker_as)
    machine = machine_line()
    ablation: list[tuple[str, dict[str, Any]]] | None = None
    with tempfile.TemporaryDirectory(prefix="tinymemory-locomo-") as tmp:
        embedder: Any = None
        if not args.lexical_only:
            from tinymemory.retrieval.embedders import default_embedder

            try:
                embedder = CachedEmbedder(default_embedder())
            except Exception as exc:  # no weights: lexical only, as the engine itself would do
                print(f"embedder unavailable ({exc}); lexical only", file=sys.stderr)
        async with SqliteEngine(str(Path(tmp) / "locomo.db"), embedder=embedder) as engine:
            served = list(engine.descriptor.fetch_modes)
            modes = [FetchMode(m) for m in args.modes.split(",")] if args.modes else served
            modes = [m for m in modes if m in served]
            default = engine.descriptor.default_mode()
            result = await evaluate(engine, convs, modes)
            baselines = None
            if args.baselines:
                from baselines import run_baselines

                baselines = run_baselines(convs)
            if args.ablation and default is not None:
                ablation = await ablation_runs(engine, convs, default, result["id_to_dia"], embedder, tmp)
            md = render(
                result,
                stats,
                path,
                default.value if default else "",
                engine.descriptor.embedder or "none",
                ablation,
                machine,
                baselines,
            )
    print(md)
    if not args.no_write:
        write_section("locomo", md)
    if default is None or default.value not in result["modes"]:
        print("recall@10=nan")
        return 1
    print(f"by split: {split_line(result['modes'][default.value])}")
    print(f"recall@10={result['modes'][default.value]['recall'][10][0]:.4f}")
    if args.answers:
        from locomo_answers import run_answers

        answers = await run_answers(path, not args.no_write, None, lexical_only=args.lexical_only)
        print(answers["markdown"])
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("file", nargs="?", default=str(DEFAULT_FILE), help="LoCoMo-format JSON")
    parser.add_argument("--modes", help="comma-separated fetch modes (default: every served mode)")
    parser.add_argument("--lexical-only", action="store_true", help="run without the embedder")
    parser.add_argument(
        "--ablation", action="store_true", help="also switch each retrieval stage off in turn"
    )
    parser.add_argument(
        "--speaker-as",
        choices=(*SPEAKER_PLACEMENTS, "all"),
        default="source",
        help="where each turn's speaker is stored besides its text's label (default: source); `all` "
        "runs the default mode with each placement and writes the `locomo-speaker` section",
    )
    parser.add_argument("--no-write", action="store_true", help="do not update docs/benchmarks.md")
    parser.add_argument(
        "--baselines", action="store_true", help="also run plain BM25 (bm25s) and dense MiniLM side by side"
    )
    parser.add_argument(
        "--answers",
        action="store_true",
        help="also score recall's answers against the gold answers (bench/locomo_answers.py)",
    )
    return asyncio.run(main_async(parser.parse_args()))


if __name__ == "__main__":
    sys.exit(main())
