"""`tinymemory demo`: a short tour on the embedded default engine (what `make run` shows).

It stores memories for two sibling agents and their team, searches in every served mode, recalls an
answer with citations, replays a store, supersedes a corrected preference (and reads the old one back
with as_of), and shows that one agent cannot read its sibling's memory.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from rich.console import Console
from rich.table import Table

from tinymemory.api import (
    About,
    ExploreRequest,
    Facet,
    FetchRequest,
    GetRequest,
    ItemKind,
    ItemMeta,
    MemoryEngine,
    MetaFilter,
    Namespace,
    NewItem,
    Reach,
    RecallRequest,
    Source,
    TinyMemoryError,
)
from tinymemory.tools import MemoryTools

TEAM = Namespace.parse("team:acme")
WRITER = Namespace.parse("team:acme/agent:writer")
REVIEWER = Namespace.parse("team:acme/agent:reviewer")
T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def _learning(
    ns: Namespace,
    text: str,
    *,
    days: int,
    tags: tuple[str, ...] = (),
    about: About | None = None,
    kind: str = "fact",
) -> NewItem:
    return NewItem(
        kind=ItemKind.LEARNING,
        text=text,
        confidence=0.9,
        meta=ItemMeta(
            namespace=ns,
            source=Source("agent", ns.get("agent")),
            tags=tags,
            learning_kind=kind,
            about=about,
            observed_at=T0 + timedelta(days=days),
        ),
    )


SEED = [
    _learning(
        TEAM,
        "Acme's style guide: write in British English and keep headlines under 60 characters.",
        days=0,
        tags=("style",),
        kind="instruction",
    ),
    _learning(TEAM, "The quarterly report is due on the last Friday of June.", days=1, tags=("deadline",)),
    _learning(
        WRITER,
        "Dana, the editor, prefers short paragraphs and active voice.",
        days=2,
        tags=("preference",),
        kind="preference",
    ),
    _learning(
        WRITER,
        "Dana drinks oat-milk flat whites during long editing sessions.",
        days=3,
        tags=("preference",),
        about=About("preference", "dana.coffee"),
        kind="preference",
    ),
    _learning(
        WRITER,
        "The launch article about the solar kettle went live on 14 March.",
        days=12,
        tags=("event",),
        kind="event",
    ),
    _learning(
        REVIEWER,
        "Reviewer-only note: the legal team is still checking the kettle's safety claims.",
        days=13,
        tags=("legal",),
    ),
]


def _table(console: Console, title: str, rows: list[tuple[str, ...]], headers: tuple[str, ...]) -> None:
    table = Table(title=title, title_justify="left", show_lines=False)
    for h in headers:
        table.add_column(h, overflow="fold")
    for r in rows:
        table.add_row(*r)
    console.print(table)


async def run_demo(engine: MemoryEngine, console: Console) -> None:
    d = engine.descriptor
    modes = ", ".join(m.value for m in d.fetch_modes)
    console.print(f"[bold]engine[/] {d.name} {d.version}  modes: {modes}  embedder: {d.embedder or 'none'}")

    started = time.perf_counter()
    results = await engine.store_many(SEED)
    ms = (time.perf_counter() - started) * 1000
    console.print(f"stored {len(results)} memories in one batch ({ms:.0f} ms, embeddings included)")

    again = await engine.store(SEED[2])
    console.print(f"storing the same memory again -> id {again.id}, replayed={again.replayed}")

    writer_reach = Reach.of(WRITER)  # the writer, its team and the root; never its sibling
    question = "What coffee does Dana like?"
    for mode in d.fetch_modes:
        res = await engine.fetch(
            FetchRequest(query=question, mode=mode, filter=MetaFilter(reach=writer_reach), limit=3)
        )
        _table(
            console,
            f"fetch ({mode.value}): {question}",
            [(f"{h.score:.4f}", h.item.text) for h in res.hits],
            ("score", "text"),
        )

    fixed = _learning(
        WRITER,
        "Dana switched to black filter coffee; no more oat milk.",
        days=20,
        tags=("preference",),
        about=About("preference", "dana.coffee"),
        kind="preference",
    )
    sup = await engine.store(fixed)
    console.print(f"correction stored as {sup.id}; it superseded {list(sup.superseded)}")
    now = await engine.recall(
        RecallRequest(question=question, filter=MetaFilter(reach=writer_reach), limit=3)
    )
    console.print(f"[bold]recall now[/]: {now.answer}")
    console.print("  citations: " + ", ".join(c.id for c in now.citations))
    before = await engine.recall(
        RecallRequest(
            question=question, filter=MetaFilter(reach=writer_reach, as_of=T0 + timedelta(days=10)), limit=3
        )
    )
    console.print(f"[bold]recall as of day 10[/]: {before.answer}")

    probe = await engine.get(GetRequest(ids=(results[5].id,), reach=writer_reach))
    console.print(
        f"writer asks for the reviewer's note by id -> items={len(probe.items)}, "
        f"missing={list(probe.missing)}"
    )
    leak = await engine.fetch(
        FetchRequest(query="legal safety claims kettle", filter=MetaFilter(reach=writer_reach))
    )
    console.print(f"writer searches for it -> {sum('legal team' in h.item.text for h in leak.hits)} hits")

    # The same store through the agent tools a model would be given: the host fixes the scope.
    tools = MemoryTools(engine).placed_at(WRITER)
    console.print(f"[bold]agent tools[/] for {WRITER}: " + ", ".join(s.name for s in tools.specs()))
    stored = await tools.call(
        "memory_store", {"learning": {"text": "Dana wants the kettle piece shortened to 600 words."}}
    )
    console.print(f"memory_store -> {json.dumps(stored)}")
    found = await tools.call("memory_fetch", {"query": "how long should the kettle piece be?", "limit": 1})
    console.print(f"memory_fetch -> {json.dumps(found['hits'][0]['text'])}")
    try:
        await tools.call("memory_list", {"filter": {"namespace": str(REVIEWER)}})
    except TinyMemoryError as exc:
        console.print(f"a model asking for the sibling's namespace gets: [italic]{exc}[/]")

    tags = await engine.explore(ExploreRequest(facet=Facet.TAG, filter=MetaFilter(reach=Reach.subtree(TEAM))))
    _table(
        console,
        "explore tags across the team (auditor's view)",
        [(b.value, str(b.count)) for b in tags.buckets],
        ("tag", "count"),
    )


def _run(args: argparse.Namespace) -> int:
    from tinymemory.engines import open_engine

    console = Console()
    tmp: tempfile.TemporaryDirectory[str] | None = None
    if args.db:
        path = Path(args.db)
    else:
        tmp = tempfile.TemporaryDirectory(prefix="tinymemory-demo-")
        path = Path(tmp.name) / "demo.db"

    async def main() -> None:
        engine = open_engine(path, embedder=None if args.no_embedder else "default")
        try:
            await run_demo(engine, console)
        finally:
            await engine.close()

    try:
        asyncio.run(main())
        console.print(f"[dim]store file: {path}{' (temporary, removed now)' if tmp else ''}[/]")
    finally:
        if tmp is not None:
            tmp.cleanup()
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "demo",
        help="a short tour: store, search, recall, supersede, scope",
        description="A guided tour on a throwaway store: two sibling agents and their team store "
        "memories; search in every mode; recall with citations; a replayed store; a corrected "
        "preference superseding the old one (read back with as_of); one agent failing to read its "
        "sibling's memory; the same store through the agent tools. Prints tables, not JSON.",
    )
    p.add_argument("--db", help="keep the demo store in this file (default: a temporary file, removed after)")
    p.add_argument("--no-embedder", action="store_true", help="lexical only: do not load the embedding model")
    p.set_defaults(func=_run)
