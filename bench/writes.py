"""What a write costs (issue 24, part 5): `Memory.store` against a plain durable SQLite insert on the same
file, `store_many` throughput, and where one store's time goes.

A fresh SQLite file, the default embedder, prefilled with `--prefill` synthetic memories through
`store_many`; durability "full" (the default: WAL, and every commit waits for the WAL's fsync, so an
acknowledged write survives a power cut). Then, interleaved one for one so that the machine's load falls
on both alike:

- `Memory.store` of one new memory (the sync facade, as a script calls it);
- a plain insert of the same text into a table of its own in the same file, one transaction each, on a
  connection with the same settings (WAL, synchronous=FULL): the floor any durable write pays.

`store_many` is timed per batch of `--batch` new memories into a second file, with the default embedder
and without one (embedder=None: the lexical index only), so the embedding's share shows.

The stage breakdown times one engine-level store's parts in order (validation, content key, embedding,
the date reader, the write and its commit), medians over the same texts.

    python bench/writes.py [--stores 400] [--batches 8] [--batch 1000] [--prefill 2000] [--no-write]
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse
import asyncio
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

from report import machine_line, percentile, table, write_section
from scale import LOCOMO
from synthetic import sentences, vocabulary
from tinymemory import Memory
from tinymemory.api import ItemKind, ItemMeta, Namespace, NewItem, validate
from tinymemory.api.ids import content_key
from tinymemory.engines.sqlite import SqliteEngine
from tinymemory.engines.versions import Pending, embed_new
from tinymemory.retrieval.temporal import with_event_range

NAMESPACE = "team:acme/user:u0"
TARGET_RATIO = 2.0  # Memory.store p50 over a plain durable insert
TARGET_RATE = 5_000  # store_many items per second


def p50_p95(values: list[float]) -> str:
    return f"{statistics.median(values):.2f} / {percentile(values, 95):.2f}"


def store_vs_plain(path: Path, texts: list[str], prefill: int, stores: int) -> dict[str, list[float]]:
    """Memory.store and a plain insert, interleaved, in ms."""
    mem = Memory(path, namespace=NAMESPACE)
    try:
        mem.store_many(texts[:prefill])
        plain = sqlite3.connect(path, isolation_level=None)
        try:
            plain.execute("PRAGMA journal_mode = WAL")
            plain.execute("PRAGMA synchronous = FULL")
            plain.execute("CREATE TABLE IF NOT EXISTS bench_plain (id INTEGER PRIMARY KEY, body TEXT)")
            out: dict[str, list[float]] = {"store": [], "plain": []}
            for text in texts[prefill : prefill + stores]:
                t = time.perf_counter()
                mem.store(text)
                out["store"].append((time.perf_counter() - t) * 1000)
                t = time.perf_counter()
                plain.execute("BEGIN")
                plain.execute("INSERT INTO bench_plain (body) VALUES (?)", (f"plain {text}",))
                plain.execute("COMMIT")
                out["plain"].append((time.perf_counter() - t) * 1000)
            return out
        finally:
            plain.close()
    finally:
        mem.close()


async def batch_rates(
    path: Path, texts: list[str], batch: int, batches: int, embedder: str | None
) -> list[float]:
    """Items per second of each `store_many` batch of new memories."""
    ns = Namespace.parse(NAMESPACE)
    rates: list[float] = []
    async with SqliteEngine(path, embedder=embedder) as engine:
        await engine.store_many(
            [NewItem(ItemKind.CONVERSATION, t, ItemMeta(namespace=ns)) for t in texts[:batch]]
        )
        for b in range(1, batches + 1):
            items = [
                NewItem(ItemKind.CONVERSATION, t, ItemMeta(namespace=ns))
                for t in texts[b * batch : (b + 1) * batch]
            ]
            t = time.perf_counter()
            await engine.store_many(items)
            rates.append(len(items) / (time.perf_counter() - t))
    return rates


async def stages(path: Path, texts: list[str], prefill: int, stores: int) -> dict[str, list[float]]:
    """One engine-level store's parts, timed in order (microseconds)."""
    ns = Namespace.parse(NAMESPACE)
    names = ("validation", "content key", "embedding", "date reader", "write and commit", "all")
    out: dict[str, list[float]] = {n: [] for n in names}
    async with SqliteEngine(path) as engine:
        assert engine.embedder is not None
        await engine.store_many(
            [NewItem(ItemKind.CONVERSATION, t, ItemMeta(namespace=ns)) for t in texts[:prefill]]
        )
        for text in texts[prefill : prefill + stores]:
            marks = [time.perf_counter()]
            item = validate.check_new_item(
                "store", NewItem(ItemKind.CONVERSATION, text, ItemMeta(namespace=ns))
            )
            marks.append(time.perf_counter())
            key = content_key(item)
            marks.append(time.perf_counter())
            vectors = await embed_new("store", engine.embedder, [item], [key], set())
            marks.append(time.perf_counter())
            dated = with_event_range(item)
            marks.append(time.perf_counter())
            await engine.storage.write("store", [Pending(dated, key, vectors.get(0))], engine.clock())
            marks.append(time.perf_counter())
            for i, name in enumerate(names[:-1]):
                out[name].append((marks[i + 1] - marks[i]) * 1e6)
            out["all"].append((marks[-1] - marks[0]) * 1e6)
    return out


def render(
    args: argparse.Namespace,
    machine: str,
    pair: dict[str, list[float]],
    rates: dict[str, list[float]],
    parts: dict[str, list[float]],
    load_end: float,
) -> str:
    ratio = statistics.median(pair["store"]) / statistics.median(pair["plain"])
    paired = statistics.median(s / p for s, p in zip(pair["store"], pair["plain"], strict=True))
    lines = [
        "## Writes (`bench/writes.py`)",
        "",
        f"{machine}; 1-min load at the end: {load_end:.2f}. A fresh SQLite file, the default embedder, "
        f'prefilled with {args.prefill:,} synthetic memories; durability "full" (WAL, every commit waits '
        "for the WAL's fsync: an acknowledged write survives a power cut). "
        f"{args.stores} `Memory.store` calls (the sync facade), each followed by a plain insert of the same "
        "text into a table of its own in the same file, one transaction each, on a connection with the "
        "same settings (WAL, synchronous=FULL). Milliseconds, p50 / p95.",
        "",
        table(
            ["write", "ms (p50 / p95)"],
            [["`Memory.store`", p50_p95(pair["store"])], ["plain durable insert", p50_p95(pair["plain"])]],
        ),
        "",
        f"`Memory.store` / plain insert: {ratio:.2f}x by their p50s, {paired:.2f}x the median of the paired "
        f"ratios (target at most {TARGET_RATIO:.0f}x: **{'met' if ratio <= TARGET_RATIO else 'not met'}**).",
        "",
        f"`store_many`, {args.batches} batches of {args.batch:,} new memories each into a fresh file "
        "(after one untimed batch), items per second:",
        "",
        table(
            ["embedder", "items/s (median)", "slowest batch"],
            [[k, f"{statistics.median(v):,.0f}", f"{min(v):,.0f}"] for k, v in rates.items()],
        ),
        "",
        f"Target at least {TARGET_RATE:,} items/s with the default embedder: "
        f"**{'met' if statistics.median(rates['default']) >= TARGET_RATE else 'not met'}**.",
        "",
        "Where one store's time goes (engine level, the parts run in order; microseconds, p50 over "
        f"{args.stores} new memories):",
        "",
        table(["part", "µs (p50)"], [[k, f"{statistics.median(v):,.0f}"] for k, v in parts.items()]),
    ]
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--stores", type=int, default=400, help="single stores (and plain inserts) to time")
    parser.add_argument("--batches", type=int, default=8, help="timed store_many batches per embedder")
    parser.add_argument("--batch", type=int, default=1000, help="memories per store_many batch")
    parser.add_argument("--prefill", type=int, default=2000, help="memories stored before the single stores")
    parser.add_argument("--no-write", action="store_true", help="print the section, leave docs/ alone")
    args = parser.parse_args()
    for name in ("stores", "batches", "batch", "prefill"):
        if getattr(args, name) < 1:
            parser.error(f"--{name} must be at least 1")
    machine = machine_line()
    words, p = vocabulary(LOCOMO)
    need = max(args.prefill + args.stores, (args.batches + 1) * args.batch)
    texts = sentences(need, words, p)
    with tempfile.TemporaryDirectory(prefix="tinymemory-writes-") as tmp:
        root = Path(tmp)
        print(f"{args.stores} stores against plain inserts ...", file=sys.stderr)
        pair = store_vs_plain(root / "single.db", texts, args.prefill, args.stores)
        rates: dict[str, list[float]] = {}
        for label, embedder in (("default", "default"), ("none (lexical only)", None)):
            print(f"store_many, embedder {label} ...", file=sys.stderr)
            rates[label] = asyncio.run(
                batch_rates(root / f"many-{embedder}.db", texts, args.batch, args.batches, embedder)
            )
        print("stages ...", file=sys.stderr)
        parts = asyncio.run(stages(root / "stages.db", texts, args.prefill, args.stores))
    md = render(args, machine, pair, rates, parts, os.getloadavg()[0])
    print(md)
    if not args.no_write:
        write_section("writes", md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
