"""LoCoMo evidence recall of whole-store reads through the HNSW graph, and the ranked ids they give.

bench/locomo.py reads each conversation inside its own namespace, so its reads never walk the graph
(a filtered read is scored exactly). Here the four conversations' turns (threads, speakers and times as
bench/locomo.py stores them) sit among synthetic rows, 100,000 in all, the graph is saved
(`build_index`), and every question is a whole-store read: no filter, so hybrid and semantic reads walk
the graph. `probe` prints R@5/10/20 per mode and writes each question's ranked ids (top 20) to a JSON
file, so two builds or two settings can be compared id for id.

    python bench/locomo_whole.py build FILE [--items 100000]
    python bench/locomo_whole.py probe FILE [--modes hybrid,semantic] [--dump OUT.json] [--questions N]
    python bench/locomo_whole.py standard [--modes ...] [--dump OUT.json]

`standard` is bench/locomo.py's own setting instead (the four conversations alone, in a temporary
file, each question read inside its conversation's namespace), with the same dump.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from coldstart import LOCOMO
from locomo import KS, EvidenceStats, load
from scale import items_for
from synthetic import sentences, vocabulary
from tinymemory.api import FetchMode, FetchRequest, MetaFilter, Reach

BATCH = 2_000


async def build(path: Path, n: int) -> None:
    from tinymemory.engines.sqlite import SqliteEngine

    convs = load(LOCOMO, EvidenceStats())
    turns = sum(len(c.items) for c in convs)
    words, p = vocabulary(LOCOMO)
    texts = sentences(n - turns, words, p)
    id_to_dia: dict[str, list[object]] = {}
    started = time.perf_counter()
    async with SqliteEngine(str(path)) as engine:
        for ci, conv in enumerate(convs):
            for res, dia in zip(await engine.store_many(conv.items), conv.dia_ids, strict=True):
                id_to_dia[res.id] = [ci, dia]
        for at in range(0, len(texts), BATCH):
            await engine.store_many(items_for(texts[at : at + BATCH], offset=at))
        stored = time.perf_counter() - started
        report = await engine.build_index()
    Path(f"{path}.dia.json").write_text(json.dumps(id_to_dia))
    print(f"stored {n:,} items in {stored:.0f} s; graph: {report}", file=sys.stderr)


async def probe(path: Path, modes: list[FetchMode], dump: Path | None, limit: int) -> None:
    from tinymemory.engines.sqlite import SqliteEngine

    convs = load(LOCOMO, EvidenceStats())
    id_to_dia = {
        k: (int(v[0]), str(v[1])) for k, v in json.loads(Path(f"{path}.dia.json").read_text()).items()
    }
    qs = [(ci, q, cat, ev) for ci, c in enumerate(convs) for q, cat, ev in c.questions][:limit]
    out: dict[str, object] = {}
    ranked_ids: dict[str, list[list[str]]] = {}
    engine = SqliteEngine(str(path), background_index=False)
    try:
        for mode in modes:
            recall = {k: 0.0 for k in KS}
            ids: list[list[str]] = []
            plans: set[str] = set()
            for ci, question, _, evidence in qs:
                res = await engine.fetch(FetchRequest(query=question, mode=mode, limit=max(KS)))
                if engine.last_semantic_plan is not None:
                    plans.add(engine.last_semantic_plan.value)
                got = [h.item.id for h in res.hits]
                ids.append(got)
                for k in KS:
                    top = {id_to_dia[i][1] for i in got[:k] if i in id_to_dia and id_to_dia[i][0] == ci}
                    recall[k] += len(top & set(evidence)) / len(evidence)
            out[mode.value] = {f"R@{k}": round(v / len(qs), 4) for k, v in recall.items()} | {
                "plans": sorted(plans)
            }
            ranked_ids[mode.value] = ids
    finally:
        await engine.close()
    print(json.dumps({"questions": len(qs), **out}), flush=True)
    if dump is not None:
        dump.write_text(json.dumps(ranked_ids))


async def standard(modes: list[FetchMode], dump: Path | None) -> None:
    import tempfile

    from locomo import query_all, store_all
    from tinymemory.engines.sqlite import SqliteEngine

    convs = load(LOCOMO, EvidenceStats())
    out: dict[str, object] = {}
    ranked_ids: dict[str, list[list[str]]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        async with SqliteEngine(str(Path(tmp) / "locomo.db")) as engine:
            id_to_dia, _, _ = await store_all(engine, convs)
            for mode in modes:
                got = await query_all(engine, convs, mode, id_to_dia)
                out[mode.value] = {f"R@{k}": round(got["recall"][k][0], 4) for k in KS}
                ids: list[list[str]] = []
                for conv in convs:
                    flt = MetaFilter(reach=Reach.exact(conv.items[0].meta.namespace))
                    for question, _, _ in conv.questions:
                        res = await engine.fetch(
                            FetchRequest(query=question, mode=mode, filter=flt, limit=20)
                        )
                        ids.append([id_to_dia[h.item.id] for h in res.hits])
                ranked_ids[mode.value] = ids
    print(json.dumps(out), flush=True)
    if dump is not None:
        dump.write_text(json.dumps(ranked_ids))


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("what", choices=["build", "probe", "standard"])
    parser.add_argument("file", nargs="?")
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--modes", default="hybrid,semantic")
    parser.add_argument("--dump", help="write each question's ranked ids here (JSON)")
    parser.add_argument("--questions", type=int, default=10_000, help="the first N questions only")
    args = parser.parse_args()
    if args.what == "build":
        asyncio.run(build(Path(args.file), args.items))
        return 0
    modes = [FetchMode(m) for m in args.modes.split(",")]
    if args.what == "standard":
        asyncio.run(standard(modes, Path(args.dump) if args.dump else None))
        return 0
    asyncio.run(probe(Path(args.file), modes, Path(args.dump) if args.dump else None, args.questions))
    return 0


if __name__ == "__main__":
    sys.exit(main())
