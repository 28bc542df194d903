"""Fit the reranker's weights (src/tinymemory/retrieval/rerank_model.py) on LoCoMo conversations 0-1.

The script stores the LoCoMo dev file as bench/locomo.py does, runs every question through the SQLite
engine with a neutral model in place, and captures what the pipeline hands the reranker (the two
candidate lists, the detailed light columns, the reach's statistics). It builds the features with the
pipeline's own `features_of`, fits one logistic regression per mode on the tuning conversations only
(positives up-weighted to balance the classes, L2), prints recall@k of the fitted order on both splits,
and with `--write` rewrites the MODELS block of rerank_model.py.

    python bench/fit_reranker.py [FILE] [--write] [--drop FEATURE,...]

Then `python bench/locomo.py --ablation` measures the shipped result through the public API.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import sqlite3
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from locomo import CHECK, DEFAULT_FILE, TUNE, CachedEmbedder, EvidenceStats, load, store_all
from tinymemory.api import FetchMode, FetchRequest, MetaFilter, Reach
from tinymemory.engines.sqlite import SqliteEngine
from tinymemory.retrieval import pipeline, rerank_model
from tinymemory.retrieval.embedders.default import default_embedder
from tinymemory.retrieval.features import FEATURES

MODEL_FILE = Path(__file__).resolve().parent.parent / "src" / "tinymemory" / "retrieval" / "rerank_model.py"
# Features a mode's model may weigh: lexical-only reads have no semantic list.
MODE_FEATURES = {
    "hybrid": tuple(f for f in FEATURES if f != "lex_norm"),
    "lexical": tuple(f for f in FEATURES if f not in ("lex_norm", "sem_norm", "sem_rank", "cosine")),
}
L2 = 1e-3
STEPS = 3000
RATE = 0.5


Sample = tuple[int, list[int], np.ndarray[Any, Any], set[int]]  # conversation, keys, features, relevant


async def capture(path: Path, mode: FetchMode) -> list[Sample]:
    """Per question: its conversation index, the pooled row keys, their features, the evidence rows."""
    convs = load(path, EvidenceStats())
    embedder = default_embedder() if mode is FetchMode.HYBRID else None
    seen: list[tuple[list[int], np.ndarray[Any, Any]]] = []
    original: Callable[..., pipeline.Ranked] = pipeline.rank

    def spy(mode_: FetchMode, lex: pipeline.Ranked, sem: pipeline.Ranked, light: Any, **kw: Any) -> Any:
        window = kw.get("hint") or kw.get("derived")
        seen.append(pipeline.features_of(lex, sem, light, kw["stats"], kw["query"], kw["analyzer"], window))
        return original(mode_, lex, sem, light, **kw)

    saved = dict(rerank_model.MODELS)
    rerank_model.MODELS.clear()
    rerank_model.MODELS[mode.value] = (0.0, {})  # neutral: detailed light is loaded, order kept
    pipeline.rank = spy  # type: ignore[assignment]
    samples: list[Sample] = []
    try:
        with tempfile.TemporaryDirectory() as tmp:
            engine = SqliteEngine(
                Path(tmp) / "fit.db", embedder=CachedEmbedder(embedder) if embedder else None
            )
            id_to_dia, _, _ = await store_all(engine, convs)
            rowid_of = rowids_by_turn(Path(tmp) / "fit.db", id_to_dia)
            for ci, conv in enumerate(convs):
                ns = conv.items[0].meta.namespace
                flt = MetaFilter(reach=Reach.exact(ns))
                for question, _cat, evidence in conv.questions:
                    seen.clear()
                    await engine.fetch(FetchRequest(query=question, mode=mode, filter=flt, limit=20))
                    keys, rows = seen[-1]
                    relevant = {rowid_of[(str(ns), d)] for d in evidence if (str(ns), d) in rowid_of}
                    samples.append((ci, keys, np.asarray(rows, dtype=np.float64), relevant))
            await engine.close()
    finally:
        pipeline.rank = original  # type: ignore[assignment]
        rerank_model.MODELS.clear()
        rerank_model.MODELS.update(saved)
    return samples


def rowids_by_turn(db: Path, id_to_dia: dict[str, str]) -> dict[tuple[str, str], int]:
    """The SQLite row key of each (namespace, turn): the pipeline ranks row keys, not item ids."""
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT rowid, id, ns FROM items").fetchall()
    return {(str(ns), id_to_dia[item_id]): int(rowid) for rowid, item_id, ns in rows if item_id in id_to_dia}


def fit(samples: list[Sample], columns: list[int]) -> tuple[float, np.ndarray[Any, Any]]:
    """Logistic regression on standardised features; returns (bias, weights) on the raw features."""
    x = np.concatenate([f[:, columns] for _, _, f, _ in samples])
    y = np.concatenate([[1.0 if k in rel else 0.0 for k in keys] for _, keys, _, rel in samples])
    mu, sd = x.mean(axis=0), x.std(axis=0) + 1e-9
    z = (x - mu) / sd
    w = np.zeros(z.shape[1])
    b = 0.0
    balance = np.where(y > 0, (1.0 - y.mean()) / max(y.mean(), 1e-9), 1.0)
    for _ in range(STEPS):
        p = 1.0 / (1.0 + np.exp(-(z @ w + b)))
        g = (p - y) * balance
        w -= RATE * (z.T @ g / len(z) + L2 * w)
        b -= RATE * float(g.mean())
    raw = w / sd
    return float(b - raw @ mu), raw


def recall_at(
    samples: list[Sample],
    score: Callable[[np.ndarray[Any, Any]], np.ndarray[Any, Any]],
    k: int,
    picks: range | None,
) -> float:
    vals = []
    for ci, keys, f, rel in samples:
        if picks is not None and ci not in picks:
            continue
        if not rel:
            continue
        order = np.argsort(-score(f), kind="stable")[:k]
        vals.append(len({keys[i] for i in order} & rel) / len(rel))
    return float(np.mean(vals)) if vals else float("nan")


def report(mode: str, samples: list[Sample], columns: list[int], bias: float, w: Any) -> None:
    """Recall@k of the fused order (its proxy: half each normalised score) and of the fitted model."""

    def fused(f: Any) -> Any:
        return f[:, 0] * 0.5 + f[:, 1] * 0.5

    def fitted(f: Any) -> Any:
        return f[:, columns] @ w + bias

    for label, fn in (("before (fused)", fused), ("fitted", fitted)):
        cells = []
        for k in (5, 10, 20):
            tune, check = recall_at(samples, fn, k, TUNE), recall_at(samples, fn, k, CHECK)
            cells.append(f"R@{k} tune {tune:.3f} check {check:.3f}")
        print(f"{mode:8s} {label:15s} " + " | ".join(cells))


def render(models: dict[str, tuple[float, dict[str, float]]]) -> str:
    lines = ["MODELS: dict[str, tuple[float, dict[str, float]]] = {"]
    for mode, (bias, weights) in models.items():
        lines.append(f'    "{mode}": (')
        lines.append(f"        {bias:.4f},")
        lines.append("        {")
        lines += [f'            "{name}": {w:.4f},' for name, w in weights.items()]
        lines.append("        },")
        lines.append("    ),")
    lines.append("}")
    return "\n".join(lines)


def write_models(models: dict[str, tuple[float, dict[str, float]]]) -> None:
    text = MODEL_FILE.read_text()
    block = re.compile(r"^MODELS: dict\[str, tuple\[float, dict\[str, float\]\]\] = \{.*?^\}", re.S | re.M)
    if not block.search(text):
        raise SystemExit(f"fit_reranker: no MODELS block in {MODEL_FILE.name}")
    MODEL_FILE.write_text(block.sub(lambda _: render(models), text, count=1))


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", nargs="?", default=str(DEFAULT_FILE), help="LoCoMo-format JSON")
    parser.add_argument("--write", action="store_true", help="rewrite the MODELS block of rerank_model.py")
    parser.add_argument(
        "--drop", default="", help="comma-separated features left out of the fit (weight 0), for a control"
    )
    args = parser.parse_args()
    dropped = {f for f in args.drop.split(",") if f}
    unknown = dropped - set(FEATURES)
    if unknown:
        raise SystemExit(f"fit_reranker: --drop: no feature named {', '.join(sorted(unknown))}")
    models: dict[str, tuple[float, dict[str, float]]] = {}
    for mode in (FetchMode.HYBRID, FetchMode.LEXICAL):
        samples = await capture(Path(args.file), mode)
        names = tuple(n for n in MODE_FEATURES[mode.value] if n not in dropped)
        columns = [FEATURES.index(n) for n in names]
        tune = [s for s in samples if s[0] in TUNE]
        bias, w = fit(tune, columns)
        models[mode.value] = (bias, {n: float(x) for n, x in zip(names, w, strict=True)})
        report(mode.value, samples, columns, bias, w)
    print(render(models))
    if args.write:
        write_models(models)
        print(f"fit_reranker: wrote {MODEL_FILE.name}")


if __name__ == "__main__":
    asyncio.run(main())
