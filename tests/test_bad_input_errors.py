"""Bad input fails with the library's own errors (InvalidRequest naming the operation and the field) and
writes nothing: no OverflowError, UnicodeEncodeError, TypeError or ValueError escapes any layer."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest

from tinymemory import Memory
from tinymemory.api import (
    About,
    ExploreRequest,
    Facet,
    FetchRequest,
    ForgetRequest,
    GetRequest,
    InvalidRequest,
    ItemKind,
    ItemMeta,
    ListRequest,
    MetaFilter,
    NewItem,
    PurgeRequest,
    RecallRequest,
    Ref,
    Source,
    TimeHint,
    parse_rfc3339,
)
from tinymemory.engines.sqlite import SqliteEngine
from tinymemory.tools import MemoryTools

EARLIEST = datetime(1, 1, 1, tzinfo=timezone(timedelta(hours=23, minutes=59)))  # before year 1 in UTC
LATEST = datetime(9999, 12, 31, 23, 59, 59, tzinfo=timezone(-timedelta(hours=23, minutes=59)))  # past 9999


@pytest.fixture
async def engine(tmp_path: Path) -> AsyncIterator[SqliteEngine]:
    async with SqliteEngine(tmp_path / "mem.db", embedder=None) as eng:
        yield eng


@pytest.fixture
def mem(tmp_path: Path) -> Iterator[Memory]:
    with Memory(tmp_path / "mem.db", namespace="team:acme", embedder=None) as m:
        yield m


async def count(engine: SqliteEngine) -> int:
    return len((await engine.list(ListRequest(limit=1000))).items)


# -- instants whose conversion to UTC leaves the datetime range -----------------------------------------


@pytest.mark.parametrize("text", ["0001-01-01T00:00:00+23:59", "9999-12-31T23:59:59-23:59"])
def test_rfc3339_offsets_past_the_datetime_range_are_invalid(text: str) -> None:
    with pytest.raises(InvalidRequest, match=r"^observed_after: .*range"):
        parse_rfc3339(text, field="observed_after")


@pytest.mark.parametrize(
    "text",
    [
        "2024-05-08T13:56:00Z\n",
        "2024-05-08T13:56:00+01:00\n",
        "２０２４-05-08T13:56:00Z",
        "2024-05-08T13:56:00",
    ],
)
def test_rfc3339_is_matched_in_full_and_in_ascii(text: str) -> None:
    with pytest.raises(InvalidRequest, match=r"^t: "):
        parse_rfc3339(text, field="t")


@pytest.mark.parametrize("text", ["0001-01-01T00:00:00+23:59", "9999-12-31T23:59:59-23:59"])
@pytest.mark.parametrize("key", ["observed_after", "observed_before"])
async def test_tool_filters_with_out_of_range_offsets_name_the_tool_and_field(
    engine: SqliteEngine, text: str, key: str
) -> None:
    tools = MemoryTools(engine)
    for name, args in (("memory_fetch", {"query": "x"}), ("memory_list", {}), ("memory_forget", {})):
        with pytest.raises(InvalidRequest, match=rf"^{name}: `filter\.{key}`"):
            await tools.call(name, {**args, "filter": {key: text}})


@pytest.mark.parametrize("bad", ["2024-01-01\n", "２０２４-01-01"])
async def test_refers_to_dates_are_matched_in_full(engine: SqliteEngine, bad: str) -> None:
    with pytest.raises(InvalidRequest, match=r"^memory_fetch: `refers_to\.from`"):
        await MemoryTools(engine).call("memory_fetch", {"query": "x", "refers_to": {"from": bad}})


@pytest.mark.parametrize("instant", [EARLIEST, LATEST])
async def test_datetimes_given_to_the_engine_that_leave_the_range_are_invalid(
    engine: SqliteEngine, instant: datetime
) -> None:
    ok = datetime(2024, 1, 1, tzinfo=UTC)
    cases: list[tuple[Callable[[], Awaitable[object]], str]] = [
        (
            lambda: engine.fetch(FetchRequest("x", filter=MetaFilter(observed_after=instant))),
            "filter.observed_after",
        ),
        (
            lambda: engine.list(ListRequest(filter=MetaFilter(observed_before=instant))),
            "filter.observed_before",
        ),
        (lambda: engine.list(ListRequest(filter=MetaFilter(as_of=instant))), "filter.as_of"),
        (lambda: engine.recall(RecallRequest("x", time_hint=TimeHint(instant, ok))), "time_hint.start"),
        (
            lambda: engine.store(NewItem(ItemKind.LEARNING, "x", ItemMeta(observed_at=instant))),
            "meta.observed_at",
        ),
        (
            lambda: engine.store(NewItem(ItemKind.LEARNING, "x", ItemMeta(event_from=instant))),
            "meta.event_from",
        ),
        (lambda: engine.purge(PurgeRequest(forgotten_before=instant)), "forgotten_before"),
    ]
    for call, field in cases:
        with pytest.raises(InvalidRequest, match=rf"^\w+: `{field}`.* range"):
            await call()
    assert await count(engine) == 0


def test_the_facade_refuses_out_of_range_datetimes(mem: Memory) -> None:
    with pytest.raises(InvalidRequest, match=r"^store: `meta\.observed_at`"):
        mem.store("x", observed_at=EARLIEST)
    with pytest.raises(InvalidRequest, match=r"^fetch: `filter\.observed_after`"):
        mem.fetch("x", observed_after=LATEST)
    assert mem.list().items == ()


# -- lone surrogates (text Python holds but UTF-8 cannot encode) ------------------------------------------

LONE = "a\ud800b"


def test_the_facade_refuses_lone_surrogates_naming_the_field(mem: Memory) -> None:
    with pytest.raises(InvalidRequest, match=r"^store: `text` is not valid unicode"):
        mem.store(LONE)
    with pytest.raises(InvalidRequest, match=r"^store: `meta\.tags\[1\]` is not valid unicode"):
        mem.store("fine", tags=["ok", LONE])
    with pytest.raises(InvalidRequest, match=r"^store: `meta\.thread_id` is not valid unicode"):
        mem.store("fine", thread_id=LONE)
    with pytest.raises(InvalidRequest, match=r"^store_many: `items\[1\]\.text` is not valid unicode"):
        mem.store_many(["fine", LONE, "also fine"])
    with pytest.raises(InvalidRequest, match=r"^fetch: `query` is not valid unicode"):
        mem.fetch(LONE)
    with pytest.raises(InvalidRequest, match=r"^recall: `question` is not valid unicode"):
        mem.recall(LONE)
    with pytest.raises(InvalidRequest, match=r"^list: `filter\.thread_id` is not valid unicode"):
        mem.list(thread_id=LONE)
    with pytest.raises(InvalidRequest, match=r"^get: `ids\[0\]` is not valid unicode"):
        mem.get([LONE])
    with pytest.raises(InvalidRequest, match=r"^forget: `ids\[0\]` is not valid unicode"):
        mem.forget([LONE])
    assert mem.list().items == ()


STRING_META = [
    *(
        ({name: LONE}, f"meta.{name}")
        for name in ("workspace", "file_path", "url", "title", "summary", "parent")
    ),
    ({"source": Source("agent", LONE)}, "meta.source.id"),
    ({"about": About("topic", LONE)}, "meta.about.key"),
    ({"evidence": ("m_1", LONE)}, r"meta.evidence\[1\]"),
    ({"refs": (Ref("image", LONE),)}, r"meta.refs\[0\].ref"),
    ({"extra": (("k", LONE),)}, r"meta.extra\[0\]"),
]


@pytest.mark.parametrize(("meta", "field"), STRING_META)
async def test_every_string_of_a_new_item_is_checked(
    engine: SqliteEngine, meta: dict[str, object], field: str
) -> None:
    bad = NewItem(ItemKind.LEARNING, "fine", ItemMeta(**meta))  # type: ignore[arg-type]
    with pytest.raises(InvalidRequest, match=rf"^store: `{field}` is not valid unicode"):
        await engine.store(bad)
    with pytest.raises(InvalidRequest, match=rf"^store_many: `items\[1\]\.{field}` is not valid unicode"):
        await engine.store_many([NewItem(ItemKind.LEARNING, "good"), bad])
    with pytest.raises(InvalidRequest, match=r"^store: `identity` is not valid unicode"):
        await engine.store(NewItem(ItemKind.LEARNING, "fine", identity=LONE))
    assert await count(engine) == 0


async def test_every_request_string_is_checked(engine: SqliteEngine) -> None:
    cases: list[tuple[Callable[[], Awaitable[object]], str]] = [
        (lambda: engine.fetch(FetchRequest(LONE)), "fetch: `query`"),
        (lambda: engine.fetch(FetchRequest("x", cursor=LONE)), "fetch: `cursor`"),
        (lambda: engine.list(ListRequest(cursor=LONE)), "list: `cursor`"),
        (lambda: engine.recall(RecallRequest(LONE)), "recall: `question`"),
        (lambda: engine.recall(RecallRequest("x", instructions=LONE)), "recall: `instructions`"),
        (lambda: engine.get(GetRequest((LONE,))), r"get: `ids\[0\]`"),
        (lambda: engine.forget(ForgetRequest(ids=("m_1", LONE))), r"forget: `ids\[1\]`"),
        (lambda: engine.forget(ForgetRequest(filter=MetaFilter(repo=LONE))), "forget: `filter.repo`"),
        (
            lambda: engine.explore(ExploreRequest(Facet.TAG, MetaFilter(tags_any=(LONE,)))),
            r"explore: `filter.tags_any\[0\]`",
        ),
        (lambda: engine.list(ListRequest(MetaFilter(sources=(LONE,)))), r"list: `filter.sources\[0\]`"),
        (lambda: engine.list(ListRequest(MetaFilter(about=About(LONE, "k")))), "list: `filter.about.kind`"),
        (lambda: engine.list(ListRequest(MetaFilter(categories=(LONE,)))), r"list: `filter.categories\[0\]`"),
    ]
    for call, where in cases:
        with pytest.raises(InvalidRequest, match=rf"^{where} "):
            await call()
