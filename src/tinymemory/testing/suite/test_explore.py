"""explore: every facet's buckets, total, missing and more_buckets."""

from __future__ import annotations

from typing import Any

import pytest

from tinymemory.api import (
    ExploreRequest,
    Facet,
    ItemKind,
    MemoryEngine,
    MetaFilter,
    NewItem,
    Source,
)
from tinymemory.api.filters import FACET_META_FIELDS

from .helpers import item


def _item_with(facet: Facet, value: str | None, n: int) -> NewItem:
    """An item whose value for `facet` is `value` (None: the item has no value for it)."""
    text = f"facet sample {n}"
    meta: dict[str, Any] = {}
    if facet is Facet.KIND:
        raise AssertionError("kind is seeded separately")
    if facet is Facet.SOURCE:
        meta["source"] = None if value is None else Source(value)
    elif facet is Facet.SOURCE_ID:
        meta["source"] = Source("import", value)
    elif facet is Facet.TAG:
        meta["tags"] = () if value is None else (value,)
    else:
        meta[FACET_META_FIELDS[facet]] = value
    return item(text, **meta)


# three x, two y, one z, one without a value
VALUES: list[str | None] = ["x", "x", "x", "y", "y", "z", None]


def test_every_facet_is_covered() -> None:
    assert set(FACET_META_FIELDS) | {Facet.KIND, Facet.SOURCE, Facet.SOURCE_ID, Facet.TAG} == set(Facet)


@pytest.mark.parametrize("facet", [f for f in Facet if f is not Facet.KIND], ids=str)
@pytest.mark.asyncio
async def test_facet_counts(engine: MemoryEngine, facet: Facet) -> None:
    prefix = f"{facet.value}-"
    await engine.store_many(
        [_item_with(facet, None if v is None else prefix + v, n) for n, v in enumerate(VALUES)]
    )
    full = await engine.explore(ExploreRequest(facet=facet, limit=10))
    assert full.facet is facet
    assert [(b.value, b.count) for b in full.buckets] == [
        (prefix + "x", 3),
        (prefix + "y", 2),
        (prefix + "z", 1),
    ]
    assert (full.total, full.missing, full.more_buckets, full.truncated) == (7, 1, False, False)

    cut = await engine.explore(ExploreRequest(facet=facet, limit=2))
    assert [(b.value, b.count) for b in cut.buckets] == [(prefix + "x", 3), (prefix + "y", 2)]
    assert (cut.total, cut.missing, cut.more_buckets) == (7, 1, True)

    exact_fit = await engine.explore(ExploreRequest(facet=facet, limit=3))
    assert len(exact_fit.buckets) == 3
    assert exact_fit.more_buckets is False


@pytest.mark.asyncio
async def test_kind_facet(engine: MemoryEngine) -> None:
    kinds = [ItemKind.LEARNING] * 3 + [ItemKind.DOCUMENT] * 2 + [ItemKind.CONVERSATION]
    await engine.store_many([item(f"kind sample {n}", k) for n, k in enumerate(kinds)])
    result = await engine.explore(ExploreRequest(facet=Facet.KIND, limit=10))
    assert [(b.value, b.count) for b in result.buckets] == [
        ("learning", 3),
        ("document", 2),
        ("conversation", 1),
    ]
    assert (result.total, result.missing, result.more_buckets) == (6, 0, False)


@pytest.mark.asyncio
async def test_tag_facet_counts_each_tag_of_an_item(engine: MemoryEngine) -> None:
    await engine.store_many(
        [item("tagged one", tags=("a", "b")), item("tagged two", tags=("a",)), item("untagged")]
    )
    result = await engine.explore(ExploreRequest(facet=Facet.TAG, limit=10))
    assert [(b.value, b.count) for b in result.buckets] == [("a", 2), ("b", 1)]
    assert (result.total, result.missing) == (3, 1)


@pytest.mark.asyncio
async def test_explore_honours_the_filter(engine: MemoryEngine) -> None:
    await engine.store_many(
        [item("in repo one", repo="r1", language="py"), item("in repo two", repo="r2", language="go")]
    )
    result = await engine.explore(ExploreRequest(facet=Facet.LANGUAGE, filter=MetaFilter(repo="r1")))
    assert [(b.value, b.count) for b in result.buckets] == [("py", 1)]
    assert result.total == 1


@pytest.mark.asyncio
async def test_explore_on_an_empty_engine(engine: MemoryEngine) -> None:
    result = await engine.explore(ExploreRequest(facet=Facet.REPO))
    assert (result.buckets, result.total, result.missing, result.more_buckets) == ((), 0, 0, False)
