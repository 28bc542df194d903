"""The Postgres engine ranks as the SQLite engine does: the same items give the same hits, in the same
order, with the same scores (bm25 over the reach's statistics, the same fusion and priors)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tinymemory.api import (
    ExploreRequest,
    Facet,
    FetchRequest,
    ForgetRequest,
    ItemKind,
    MemoryEngine,
    MetaFilter,
    Namespace,
    NewItem,
    Reach,
)
from tinymemory.api.relations import ExpandRequest
from tinymemory.engines.postgres import PostgresEngine
from tinymemory.engines.sqlite import SqliteEngine

from .helpers import HashEmbedder, note

pytestmark = pytest.mark.asyncio


def corpus() -> list[NewItem]:
    items = [
        note("the deploy runs every thursday at noon", "team:acme", title="deploy schedule", tags=("ops",)),
        note("deploys are frozen during the holidays", "team:acme/agent:writer", summary="holiday freeze"),
        note("the release train leaves on friday", "team:globex", tags=("ops", "release")),
        note("release notes live in the wiki", "team:acme/agent:writer", confidence=0.4),
        note("dana prefers short release notes", "user:dana", confidence=0.9),
        note("the wiki password rotates monthly", "", tags=("security",)),
    ]
    turns = ["can we move the deploy", "only if the release is ready", "the release is ready on friday"]
    items += [
        note(t, "team:acme/agent:writer", ItemKind.CONVERSATION, thread_id="t1", tags=("chat",))
        for t in turns
    ]
    # the speaker as a tag and as a metadata pair (speakers.py reads both off the row's extra column)
    items += [
        note(
            "I would rather deploy on monday",
            "team:acme/agent:writer",
            ItemKind.CONVERSATION,
            thread_id="t2",
            tags=("Dana",),
        ),
        note(
            "monday deploys suit me too",
            "team:acme/agent:writer",
            ItemKind.CONVERSATION,
            thread_id="t2",
            extra=(("speaker", "Eli"),),
        ),
    ]
    return items


QUERIES = [
    "deploy",
    "release notes",
    "friday release deploy",
    "wiki password",
    "holiday",
    "when does Eli deploy",
    "what did we release this week",
]
REACHES = [
    None,
    Reach.of(Namespace.parse("team:acme/agent:writer")),
    Reach.subtree(Namespace.parse("team:acme")),
    Reach.exact(Namespace.parse("team:globex")),
]


async def everything(engine: MemoryEngine) -> list[object]:
    out: list[object] = []
    for reach in REACHES:
        flt = MetaFilter(reach=reach)
        for query in QUERIES:
            for mode in engine.descriptor.fetch_modes:
                result = await engine.fetch(FetchRequest(query, mode=mode, filter=flt, limit=20))
                out.append((str(reach), query, mode, [(h.item.id, round(h.score, 5)) for h in result.hits]))
        explored = await engine.explore(ExploreRequest(Facet.TAG, filter=flt))
        out.append((str(reach), explored.buckets, explored.total, explored.missing))
    expanded = await engine.expand(ExpandRequest("dana"))
    out.append([h.item.id for h in expanded.hits])
    return out


@pytest.mark.parametrize("semantic", [False, True], ids=["lexical", "hybrid"])
async def test_both_engines_return_the_same_reads(pg_dsn: str, tmp_path: Path, semantic: bool) -> None:
    async with (
        SqliteEngine(tmp_path / "m.db", embedder=HashEmbedder() if semantic else None) as lite,
        PostgresEngine(pg_dsn, embedder=HashEmbedder() if semantic else None) as pg,
    ):
        for engine in (lite, pg):
            stored = await engine.store_many(corpus())
            await engine.forget(ForgetRequest(ids=(stored[1].id,)))  # and one forgotten
        ours, theirs = await everything(pg), await everything(lite)
        assert len(ours) == len(theirs)
        for mine, other in zip(ours, theirs, strict=True):
            assert _rounded(mine) == _rounded(other)


def _rounded(read: object) -> object:
    """Scores to 4 places: vectors are compared in float32 by SQLite and in double by pgvector."""
    if isinstance(read, tuple) and len(read) == 4 and isinstance(read[3], list):
        return (*read[:3], [(i, round(s, 4)) for i, s in read[3]])
    return read
