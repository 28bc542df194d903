"""Property tests for the two privacy rules on a real SQLite file with the default embedder.

1. Random stores, forgets and purges outside a reach change no byte of any read confined to it
   (fetch in every mode and its next page, recall, explore, list).
2. After purge the database file and its WAL hold no byte sequence of the purged text.
"""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engines import make_engine
from tinymemory.api import (
    About,
    ExploreRequest,
    Facet,
    FetchRequest,
    ForgetRequest,
    ItemKind,
    ItemMeta,
    ListRequest,
    MetaFilter,
    Namespace,
    NewItem,
    PurgeRequest,
    Reach,
    RecallRequest,
)
from tinymemory.engines.sqlite import SqliteEngine

WORDS = ["initech", "globex", "coffee", "deploy", "friday", "laptop", "tea", "report", "berlin", "office"]
INSIDE = Namespace.parse("team:acme/agent:writer")
OUTSIDE = [Namespace.parse(t) for t in ("team:other", "team:acme/agent:sibling", "team:other/agent:x")]
REACHES = [Reach.of(INSIDE), Reach.exact(INSIDE), Reach.subtree(Namespace.parse("team:acme/agent:writer"))]
QUERIES = ["initech", "coffee friday", "what do you know about me?", "deploy report berlin", "tea"]

_EMBEDDER: dict[str, Any] = {}


def embedder() -> Any:
    if "e" not in _EMBEDDER:
        from tinymemory.retrieval.embedders import default_embedder

        try:
            _EMBEDDER["e"] = default_embedder()
        except Exception:  # pragma: no cover - without the weights package: lexical only
            _EMBEDDER["e"] = None
    return _EMBEDDER["e"]


def note(text: str, place: Namespace, i: int, **meta: Any) -> NewItem:
    return NewItem(
        ItemKind.CONVERSATION if "thread_id" in meta else ItemKind.LEARNING,
        text,
        ItemMeta(namespace=place, tags=(WORDS[i % len(WORDS)],), **meta),
        confidence=0.5 + (i % 5) / 10,
    )


async def confined_reads(engine: SqliteEngine, reach: Reach) -> list[Any]:
    flt = MetaFilter(reach=reach)
    out: list[Any] = []
    for query in QUERIES:
        for mode in engine.descriptor.fetch_modes:
            page = await engine.fetch(FetchRequest(query, mode=mode, filter=flt, limit=3))
            out.append([(h.item.id, h.score, h.item.text) for h in page.hits])
            if page.next_cursor is not None:
                more = await engine.fetch(
                    FetchRequest(query, mode=mode, filter=flt, limit=3, cursor=page.next_cursor)
                )
                out.append([(h.item.id, h.score) for h in more.hits])
        recall = await engine.recall(RecallRequest(query, filter=flt, limit=5))
        out.append((recall.answer, [(c.id, c.score) for c in recall.citations]))
    for facet in (Facet.TAG, Facet.KIND, Facet.THREAD):
        out.append(await engine.explore(ExploreRequest(facet, filter=flt)))
    listed = await engine.list(ListRequest(filter=flt, limit=50))
    out.append([i.id for i in listed.items])
    return out


inside_texts = st.lists(
    st.lists(st.sampled_from(WORDS), min_size=1, max_size=5).map(" ".join), min_size=1, max_size=6
)
outside_ops = st.lists(
    st.one_of(
        st.tuples(
            st.just("store"),
            st.sampled_from(range(len(OUTSIDE))),
            st.lists(st.sampled_from(WORDS), min_size=1, max_size=6).map(" ".join),
            st.booleans(),
        ),
        st.tuples(st.just("forget"), st.integers(0, 50), st.just(""), st.just(False)),
        st.tuples(st.just("purge"), st.just(0), st.just(""), st.just(False)),
    ),
    min_size=1,
    max_size=12,
)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mine=inside_texts, ops=outside_ops, reach=st.sampled_from(REACHES))
def test_nothing_outside_the_reach_moves_a_confined_read(
    mine: list[str], ops: list[tuple[str, int, str, bool]], reach: Reach
) -> None:
    async def run(path: Path) -> None:
        async with make_engine(path, embedder=embedder()) as engine:
            for i, text in enumerate(mine):
                extra = {"thread_id": "t1"} if i % 2 else {}
                await engine.store(note(text, INSIDE, i, **extra))
            before = await confined_reads(engine, reach)
            stored: list[str] = []
            for n, (op, which, text, threaded) in enumerate(ops):
                if op == "store":
                    extra = {"thread_id": "t1"} if threaded else {}
                    stored.append((await engine.store(note(f"{text} {n}", OUTSIDE[which], n, **extra))).id)
                elif op == "forget" and stored:
                    await engine.forget(ForgetRequest(ids=(stored[which % len(stored)],)))
                elif op == "purge":
                    await engine.purge(PurgeRequest())
            assert await confined_reads(engine, reach) == before

    with tempfile.TemporaryDirectory() as tmp:
        asyncio.run(run(Path(tmp) / "memory.db"))


SECRET = "zebrasecret42"


def file_bytes(path: Path) -> bytes:
    data = b""
    for suffix in ("", "-wal", "-shm", "-journal"):
        part = Path(str(path) + suffix)
        if part.exists():
            data += part.read_bytes()
    return data


@pytest.mark.sqlite_only  # reads the SQLite file and its WAL (tests/postgres/test_purge.py for Postgres)
@pytest.mark.parametrize("with_embedder", [False, True])
async def test_purge_leaves_no_byte_of_the_text_in_the_file_or_its_wal(
    tmp_path: Path, with_embedder: bool
) -> None:
    path = tmp_path / "memory.db"
    place = Namespace.parse("team:acme/agent:writer")
    async with make_engine(path, embedder=embedder() if with_embedder else None) as engine:
        for i in range(300):  # enough rows that the index spans many pages and segments
            await engine.store(note(f"filler memory {i} about {WORDS[i % len(WORDS)]}", place, i))
        first = await engine.store(note("we set up the laptop", place, 1, thread_id="t1"))
        secret = await engine.store(
            NewItem(
                ItemKind.CONVERSATION,
                f"my password is {SECRET} and the pin is {SECRET}99",
                ItemMeta(
                    namespace=place,
                    thread_id="t1",
                    title=f"{SECRET} title",
                    tags=(f"{SECRET}tag",),
                    about=About("secret", f"{SECRET}key"),
                ),
            )
        )
        await engine.store(note("remember the coffee beans", place, 2, thread_id="t1"))
        await engine.store(
            NewItem(
                ItemKind.LEARNING,
                f"the password is {SECRET}",
                ItemMeta(namespace=place, evidence=(secret.id,)),
            )
        )
        await engine.forget(ForgetRequest(ids=(secret.id,)))
        assert SECRET.encode() in file_bytes(path)  # soft delete keeps the bytes until purge
        assert (await engine.purge(PurgeRequest())).purged == 2
        assert first.id  # the neighbours survive
        assert SECRET.encode() not in file_bytes(path)
        await engine.store(note("one more write after the purge", place, 3))
    assert SECRET.encode() not in file_bytes(path)
