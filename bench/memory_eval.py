"""Recall on memory that is not chat: learnings and document chunks with hand-written questions.

The set (`bench/data/memory_eval.json`) is one user's learnings (preferences, facts, instructions,
events) and chunks of a few documents (runbooks, policies, API guides, meeting notes, a recipe, home-lab
notes); each question lists the memories that answer it, and some need several. No memory is a turn of a
thread and none has a speaker, so the reranker's structural features are 0 here: this measures what its
other features (the two rankers' views, coverage, shape) do on such memory, beside LoCoMo.

Every memory is stored in one namespace of a SQLite engine with the default embedder; each question is
fetched (top 10) in each mode with the default retrieval config and with the reranker off, and scored
as |relevant ∩ top-k| / |relevant|, plus the reciprocal rank of the first relevant hit.

    python bench/memory_eval.py [--no-write]

Writes the `memory-eval` section of docs/benchmarks.md; the last line is `recall@10=<hybrid default>`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from dataclasses import dataclass
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
from tinymemory.retrieval.config import RetrievalConfig

DATA = Path(__file__).resolve().parent / "data" / "memory_eval.json"
LOCOMO = Path(__file__).resolve().parent.parent.parent / "shared" / "bench" / "locomo_dev.json"
NS = Namespace.parse("bench:memory-eval/user:priya")
KS = (1, 5, 10)


@dataclass(frozen=True)
class Question:
    text: str
    relevant: frozenset[str]


def load(path: Path) -> tuple[list[NewItem], list[str], list[Question]]:
    """The memories as items (with their set ids, in order) and the questions."""
    data: dict[str, Any] = json.loads(path.read_text())
    items: list[NewItem] = []
    ids: list[str] = []
    for m in data["memories"]:
        if m["kind"] == "learning":
            meta = ItemMeta(namespace=NS, source=Source("user"), learning_kind=m["learning_kind"])
            items.append(NewItem(ItemKind.LEARNING, m["text"], meta, identity=m["id"]))
        else:
            meta = ItemMeta(
                namespace=NS,
                source=Source("import"),
                title=m["document"],
                parent_title=m["document"],
                file_path=m["document"].split(":")[0].strip().lower().replace(" ", "-") + ".md",
            )
            items.append(NewItem(ItemKind.CHUNK, m["text"], meta, identity=m["id"]))
        ids.append(m["id"])
    questions = [Question(q["question"], frozenset(q["relevant"])) for q in data["questions"]]
    return items, ids, questions


def distractors(n: int) -> list[NewItem]:
    """`n` unrelated memories in the same namespace: LoCoMo chat turns stored as plain notes (no label,
    thread or speaker), so the set's memories compete with a store's worth of other talk."""
    if n <= 0 or not LOCOMO.exists():
        return []
    out: list[NewItem] = []
    for sample in json.loads(LOCOMO.read_text()):
        conv = sample["conversation"]
        s = 1
        while f"session_{s}" in conv and len(out) < n:
            for turn in conv[f"session_{s}"]:
                meta = ItemMeta(namespace=NS, source=Source("import"), learning_kind="fact")
                out.append(
                    NewItem(
                        ItemKind.LEARNING, turn["text"], meta, identity=turn["dia_id"] + sample["sample_id"]
                    )
                )
            s += 1
    return out[:n]


async def score(
    engine: MemoryEngine, questions: list[Question], mode: FetchMode, set_id: dict[str, str]
) -> dict[str, float]:
    flt = MetaFilter(reach=Reach.exact(NS))
    cells: dict[str, list[float]] = {}
    latencies = []
    for q in questions:
        t = time.perf_counter()
        res = await engine.fetch(FetchRequest(query=q.text, mode=mode, filter=flt, limit=max(KS)))
        latencies.append((time.perf_counter() - t) * 1000)
        got = [set_id.get(h.item.id, "") for h in res.hits]
        group = "several" if len(q.relevant) > 1 else "one"
        for k in KS:
            r = len(set(got[:k]) & q.relevant) / len(q.relevant)
            cells.setdefault(f"R@{k}", []).append(r)
            cells.setdefault(f"R@{k} {group}", []).append(r)
        first = next((i for i, g in enumerate(got) if g in q.relevant), None)
        cells.setdefault("MRR", []).append(0.0 if first is None else 1.0 / (first + 1))
    out = {name: sum(v) / len(v) for name, v in cells.items()}
    out["p50 ms"] = percentile(latencies, 50)
    return out


async def table_rows(
    engine: Any,
    questions: list[Question],
    set_id: dict[str, str],
    configs: list[tuple[str, RetrievalConfig]],
    store: str,
) -> list[list[str]]:
    """One row per mode and config (semantic reads have no reranker to switch off)."""
    rows = []
    base = engine.retrieval
    for mode in (FetchMode.HYBRID, FetchMode.LEXICAL, FetchMode.SEMANTIC):
        for label, cfg in configs:
            if mode is FetchMode.SEMANTIC and label != "default":
                continue
            engine.retrieval = cfg
            r = await score(engine, questions, mode, set_id)
            engine.retrieval = base
            cells = [f"{r[c]:.3f}" if c != "p50 ms" else f"{r[c]:.1f}" for c in COLUMNS]
            rows.append([store, f"{mode.value}, {label}", *cells])
    return rows


COLUMNS = ["R@1", "R@5", "R@10", "MRR", "R@5 one", "R@10 one", "R@5 several", "R@10 several", "p50 ms"]


async def run(path: Path, noise: int) -> tuple[str, float]:
    from tinymemory.engines.sqlite import SqliteEngine
    from tinymemory.retrieval.embedders import default_embedder

    items, ids, questions = load(path)
    configs = [("default", RetrievalConfig()), ("reranker off", RetrievalConfig().without("rerank"))]
    rows = []
    headline = float("nan")
    embedder_name = "none"
    extra = distractors(noise)
    with tempfile.TemporaryDirectory(prefix="tinymemory-memeval-") as tmp:
        embedder = default_embedder()
        for store, with_noise in (("alone", []), (f"+ {len(extra)} other notes", extra)):
            if store != "alone" and not with_noise:
                continue
            async with SqliteEngine(str(Path(tmp) / f"m{len(with_noise)}.db"), embedder=embedder) as engine:
                stored = await engine.store_many(items + with_noise)
                set_id = {r.id: i for r, i in zip(stored, ids, strict=False)}
                rows += await table_rows(engine, questions, set_id, configs, store)
                if store == "alone":
                    headline = float(rows[0][4])
                embedder_name = engine.descriptor.embedder or "none"
    several = sum(1 for q in questions if len(q.relevant) > 1)
    md = "\n".join(
        [
            "## Recall on learnings and documents (`bench/memory_eval.py`)",
            "",
            f"Data: `bench/data/memory_eval.json`, {len(items)} memories (learnings and document chunks, "
            f"no threads, no speakers) and {len(questions)} hand-written questions, {several} of them "
            "answered by several memories (`several`; `one` is the rest); stored alone, then beside "
            f"{len(extra)} unrelated notes in the same namespace (the text of LoCoMo chat turns, stored as "
            "plain learnings with no thread or speaker). Embedder: "
            f"{embedder_name}. SQLite, top 10 per question, one namespace. The reranker's weights were "
            "fitted on LoCoMo chat only; this set was never used to choose anything. Machine: "
            f"{machine_line()}; shared, so latency is noisy, while recall is deterministic.",
            "",
            table(["store", "mode, config", *COLUMNS], rows),
        ]
    )
    return md, headline


async def main_async(args: argparse.Namespace) -> int:
    md, headline = await run(Path(args.file), args.distractors)
    print(md)
    if not args.no_write:
        write_section("memory-eval", md)
    print(f"recall@10={headline:.4f}")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", nargs="?", default=str(DATA), help="the labelled set (JSON)")
    parser.add_argument(
        "--distractors", type=int, default=2000, help="unrelated notes stored beside the set (default 2000)"
    )
    parser.add_argument("--no-write", action="store_true", help="do not update docs/benchmarks.md")
    return asyncio.run(main_async(parser.parse_args()))


if __name__ == "__main__":
    sys.exit(main())
