"""The version rules every engine applies when content is stored again, in one place.

Storing the same content twice is a replay, unless the second store corrects a field outside the
memory's identity (confidence, the descriptive fields, its relations): then it becomes a new version,
which keeps what the caller left out. Both SQL engines decide with these functions over the active
row's columns (any mapping of column name to value), so their histories agree row for row.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import json
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import numpy.typing as npt

from tinymemory.api.blocking import MAY_BLOCK
from tinymemory.api.errors import Unavailable
from tinymemory.api.items import NewItem, Relation
from tinymemory.api.relations import entity_key
from tinymemory.retrieval.embedders.base import Embedder

Floats = npt.NDArray[np.float32]


def stored_precision(vector: object) -> Floats:
    """A vector as every engine keeps it: float32 values rounded to float16 precision.

    SQLite stores float16 blobs (half the bytes); Postgres stores the same rounded values, so the two
    engines score and order every read alike (tests/postgres/test_parity.py)."""
    return np.asarray(vector, dtype=np.float32).reshape(-1).astype(np.float16).astype(np.float32)


# Fields outside a memory's identity that a caller may correct by storing the same content again: the
# correction becomes a new version (the old one stays readable with as_of), never a silent replay.
CORRECTABLE = ("confidence", "learning_kind", "title", "summary", "purpose", "category")


@dataclass(frozen=True, slots=True)
class Pending:
    """A validated item with its content key and (when an embedder serves) its precomputed vector."""

    item: NewItem
    ckey: str
    vector: Floats | None = None


@dataclass(frozen=True, slots=True)
class VectorSpace:
    """Which embedder's vectors an engine writes, and how to embed a straggler inside the lock."""

    name: str
    dim: int
    embed: Callable[[Sequence[str]], Floats]


def embedding_text(title: str | None, text: str) -> str:
    """The text embedded for a memory: its title, if any, over its text (stores and re-embeds agree)."""
    return f"{title}\n{text}" if title else text


def embed_text(item: NewItem) -> str:
    return embedding_text(item.meta.title, item.text)


def relations_of(extra: Mapping[str, Any]) -> tuple[Relation, ...]:
    """The relations kept in a decoded `extra` column (the relations table holds the same edges)."""
    return tuple(Relation(str(s), str(t), str(o)) for s, t, o in extra.get("relations", ()))


def stored_relations(extra: str | None) -> tuple[Relation, ...]:
    """The relations of a stored row, from its `extra` JSON."""
    return relations_of(json.loads(extra or "{}"))


def _keys(relations: Sequence[Relation]) -> set[tuple[str, str, str]]:
    return {(entity_key(r.subject), r.type, entity_key(r.object)) for r in relations}


def relations_corrected(relations: Sequence[Relation], extra: str | None) -> bool:
    """Whether storing the same content with `relations` changes the active version's edges (an
    empty tuple changes nothing: the caller did not say)."""
    return bool(relations) and _keys(relations) != _keys(stored_relations(extra))


def corrects(active: Mapping[str, Any], item: NewItem) -> bool:
    """Whether storing `item` again changes a correctable field of the active version."""
    if relations_corrected(item.meta.relations, active["extra"]):
        return True
    for name in CORRECTABLE:
        old = active[name]
        if name == "confidence":
            new = item.confidence
            if new is not None and (old is None or abs(float(old) - float(new)) > 1e-9):
                return True
        else:
            value = getattr(item.meta, name)
            if value is not None and value != old:
                return True
    return False


def carry_over(item: NewItem, active: Mapping[str, Any]) -> NewItem:
    """The correcting version keeps what the caller left out (descriptive fields and tags)."""
    meta = item.meta
    kept = {
        name: active[name] for name in CORRECTABLE if name != "confidence" and getattr(meta, name) is None
    }
    if not meta.tags:
        tags = json.loads(active["extra"] or "{}").get("tags")
        if tags:
            kept["tags"] = tuple(str(t) for t in tags)
    if not meta.relations:
        kept["relations"] = stored_relations(active["extra"])
    confidence = item.confidence if item.confidence is not None else active["confidence"]
    return replace(item, meta=replace(meta, **kept), confidence=confidence)


async def embed_new(
    op: str, embedder: Embedder, items: Sequence[NewItem], keys: Sequence[str], active: set[str]
) -> dict[int, Floats]:
    """Vectors for the items of a store that will not be replays (their content key has no active
    version in `active`, and is the first of its key in the batch), embedded in one batch off the event
    loop; keyed by the item's position. An embedder that fails or answers the wrong shape is Unavailable."""
    return await start_embed_new(op, embedder, items, keys, active)


def start_embed_new(
    op: str, embedder: Embedder, items: Sequence[NewItem], keys: Sequence[str], active: set[str]
) -> Awaitable[dict[int, Floats]]:
    """`embed_new`, already at work on a worker thread when it returns (unless `embeds_here`), so the
    caller's own work on the loop overlaps it; await the answer (always: the thread's answer is read)."""
    todo: dict[str, int] = {}
    for i, key in enumerate(keys):
        if key not in active and key not in todo:
            todo[key] = i
    rows = list(todo.values())
    block = start_embed(op, embedder, [embed_text(items[i]) for i in rows]) if rows else None

    async def vectors() -> dict[int, Floats]:
        if block is None:
            return {}
        got = await block
        return {i: got[row] for row, i in enumerate(rows)}

    return vectors()


def embeds_inline(embedder: Embedder, count: int) -> bool:
    """Whether `count` texts are embedded on the event loop itself: an embedder that says it embeds that
    many faster than a hand-off to a worker thread costs (`inline_texts`, see the static embedder).
    Anything else (a model, a remote endpoint, a large batch) runs off the loop."""
    return 0 < count <= _inline_texts(embedder)


def embeds_here(embedder: Embedder, count: int) -> bool:
    """Whether `count` texts are embedded where the caller runs rather than on a worker thread: when
    `embeds_inline`, and for any count when a table embedder (one with `inline_texts`) is called by a
    sync caller on its own loop (`MAY_BLOCK`). Nothing else waits on that loop, and the table's lookups
    and the loop's own work beside them (the date reader) are both Python under the one interpreter
    lock: a worker thread would only add a hand-off and their contention for it."""
    return embeds_inline(embedder, count) or (_inline_texts(embedder) > 0 and MAY_BLOCK.get())


def _inline_texts(embedder: Embedder) -> int:
    """How many texts the embedder says it embeds faster than a hand-off to a thread (0: none said)."""
    inline = getattr(embedder, "inline_texts", 0)
    return inline if isinstance(inline, int) else 0


async def embed_checked(op: str, embedder: Embedder, texts: list[str]) -> Floats:
    """`texts` embedded as one float32 block of shape (len(texts), dim), off the event loop unless
    `embeds_here`; an embedder that fails or answers another shape is Unavailable, naming `op`."""
    return await start_embed(op, embedder, texts)


def start_embed(op: str, embedder: Embedder, texts: list[str]) -> Awaitable[Floats]:
    """`embed_checked`, handed to a worker thread before it returns (unless `embeds_here`: then it runs
    where it is awaited)."""
    answer: asyncio.Future[Any] | None = None
    if not embeds_here(embedder, len(texts)):
        run = functools.partial(contextvars.copy_context().run, embedder.embed, texts)
        answer = asyncio.get_running_loop().run_in_executor(None, run)

    async def checked() -> Floats:
        try:
            raw = embedder.embed(texts) if answer is None else await answer
            block = np.asarray(raw, dtype=np.float32)
        except Exception as exc:
            raise Unavailable(f"{op}: the embedder failed ({exc})") from exc
        want = (len(texts), embedder.dim)
        if block.shape != want:
            raise Unavailable(f"{op}: the embedder returned shape {block.shape}, expected {want}")
        return block

    return checked()
