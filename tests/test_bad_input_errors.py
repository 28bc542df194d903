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
    Unavailable,
    parse_rfc3339,
)
from tinymemory.api.ids import content_key
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


# -- the facade: bad arguments name the method and the field ----------------------------------------------

FACADE_CASES: list[tuple[str, Callable[[Memory], object], str]] = [
    ("huge confidence", lambda m: m.store("x", confidence=10**400), "store: `confidence`"),
    ("nan confidence", lambda m: m.store("x", confidence=float("nan")), "store: `confidence`"),
    ("inf confidence", lambda m: m.store("x", confidence=float("inf")), "store: `confidence`"),
    ("short about", lambda m: m.store("x", about=("a",)), "store: `about`"),
    ("about of ints", lambda m: m.store("x", about=(1, 2)), "store: `about`"),  # type: ignore[arg-type]
    (
        "unknown keyword",
        lambda m: m.store("x", bogus_field=1),
        "store: `bogus_field` is not a known argument",
    ),
    ("namespace keyword", lambda m: m.store("x", namespace="team:y"), "store: `namespace`"),
    ("tags as one string", lambda m: m.store("x", tags="abc"), "store: `tags`"),
    ("tags not iterable", lambda m: m.store("x", tags=5), "store: `tags`"),  # type: ignore[arg-type]
    ("kind unhashable", lambda m: m.store("x", kind=[1]), "store: `kind`"),  # type: ignore[arg-type]
    ("source not a string", lambda m: m.store("x", source=5), "store: `source`"),  # type: ignore[arg-type]
    ("text not a string", lambda m: m.store(5), "store: `text`"),  # type: ignore[arg-type]
    ("text missing", lambda m: m.store(), "store: `text` is required"),  # type: ignore[call-arg]
    ("many: one string", lambda m: m.store_many("abc"), "store_many: `items`"),
    ("many: not iterable", lambda m: m.store_many(5), "store_many: `items`"),  # type: ignore[arg-type]
    ("many: odd item", lambda m: m.store_many(["ok", 5]), r"store_many: `items\[1\]`"),  # type: ignore[list-item]
    ("item: unknown keyword", lambda m: m.item("x", colour="red"), "item: `colour` is not a known argument"),
    ("bad mode", lambda m: m.fetch("q", mode="bogus"), "fetch: `mode`"),
    ("mode unhashable", lambda m: m.fetch("q", mode=[1]), "fetch: `mode`"),  # type: ignore[arg-type]
    ("fetch: unknown keyword", lambda m: m.fetch("q", bogus=1), "fetch: `bogus` is not a known argument"),
    ("fetch: bad kinds", lambda m: m.fetch("q", kinds=["memo"]), "fetch: `filter.kinds`"),
    ("fetch: kinds not iterable", lambda m: m.fetch("q", kinds=5), "fetch: `filter.kinds`"),
    ("fetch: about", lambda m: m.fetch("q", about=5), "fetch: `filter.about`"),
    ("fetch: limit", lambda m: m.fetch("q", limit="5"), "fetch: `limit`"),  # type: ignore[arg-type]
    ("fetch: huge limit", lambda m: m.fetch("q", limit=10**5000), "fetch: `limit`"),
    ("fetch: time hint", lambda m: m.fetch("q", time_hint="today"), "fetch: `time_hint`"),  # type: ignore[arg-type]
    ("fetch: positional", lambda m: m.fetch("q", "lexical"), "fetch: "),  # type: ignore[misc]
    ("fetch: query missing", lambda m: m.fetch(), "fetch: `query` is required"),  # type: ignore[call-arg]
    ("fetch: reach", lambda m: m.fetch("q", reach=None), "fetch: `reach`"),
    ("recall: unknown keyword", lambda m: m.recall("q", bogus=1), "recall: `bogus` is not a known argument"),
    (
        "recall: huge min_confidence",
        lambda m: m.recall("q", min_confidence=10**400),
        "recall: `filter.min_confidence`",
    ),
    ("list: unknown keyword", lambda m: m.list(bogus=1), "list: `bogus` is not a known argument"),
    ("list: bad cursor", lambda m: m.list(cursor=5), "list: `cursor`"),  # type: ignore[arg-type]
    ("get: one string", lambda m: m.get("m_0123"), "get: `ids`"),
    ("get: not iterable", lambda m: m.get(5), "get: `ids`"),  # type: ignore[arg-type]
    ("get: unknown keyword", lambda m: m.get(["m_1"], bogus=1), "get: `bogus` is not a known argument"),  # type: ignore[call-arg]
    ("forget: one string", lambda m: m.forget("m_0123"), "forget: `ids`"),
    ("forget: unknown filter", lambda m: m.forget(bogus=1), "forget: `bogus` is not a known argument"),
    ("explore: facet", lambda m: m.explore([1]), "explore: `facet`"),  # type: ignore[arg-type]
    (
        "explore: unknown keyword",
        lambda m: m.explore("tag", bogus=1),
        "explore: `bogus` is not a known argument",
    ),
    ("purge: argument", lambda m: m.purge(1), "purge: "),  # type: ignore[call-arg]
]


@pytest.mark.parametrize(
    ("call", "expected"), [c[1:] for c in FACADE_CASES], ids=[c[0] for c in FACADE_CASES]
)
def test_facade_bad_arguments_are_invalid_requests(
    mem: Memory, call: Callable[[Memory], object], expected: str
) -> None:
    with pytest.raises(InvalidRequest, match=f"^{expected}"):
        call(mem)
    assert mem.list().items == ()


@pytest.mark.parametrize(
    ("kwargs", "expected"),
    [
        ({"namespace": 5}, "namespace: "),
        ({"reach": "everything"}, "memory: `reach`"),
        ({"embedder": "gpt"}, "memory: `embedder`"),
    ],
)
def test_facade_construction_refuses_bad_arguments(
    tmp_path: Path, kwargs: dict[str, object], expected: str
) -> None:
    with pytest.raises(InvalidRequest, match=f"^{expected}"):
        Memory(tmp_path / "mem.db", **kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize("confidence", [10**400, float("inf"), float("nan"), -0.1])
async def test_tool_confidence_out_of_range_names_the_tool(engine: SqliteEngine, confidence: float) -> None:
    with pytest.raises(InvalidRequest, match=r"^memory_store: `learning\.confidence` must be between"):
        await MemoryTools(engine).call("memory_store", {"learning": {"text": "x", "confidence": confidence}})
    assert await count(engine) == 0


async def test_engine_errors_reached_through_a_tool_name_the_tool(tmp_path: Path) -> None:
    """The model called `memory_list`; an engine error must not speak of `list` or `write`."""
    engine = SqliteEngine(tmp_path / "mem.db", embedder=None)
    tools = MemoryTools(engine)
    await tools.call("memory_store", {"learning": {"text": "kept"}})
    await engine.close()
    with pytest.raises(Unavailable, match=r"^memory_list: the engine is closed"):
        await tools.call("memory_list", {})
    with pytest.raises(Unavailable, match=r"^memory_store: the engine is closed"):
        await tools.call("memory_store", {"learning": {"text": "more"}})


def test_content_key_of_an_unencodable_item_is_an_invalid_request() -> None:
    """Callers outside the engine (lifecycle) derive ids from items the engine has not validated yet."""
    with pytest.raises(InvalidRequest, match=r"^content_key: `text` is not valid unicode"):
        content_key(NewItem(ItemKind.LEARNING, LONE))
    with pytest.raises(InvalidRequest, match=r"^content_key: `meta\.thread_id` is not valid unicode"):
        content_key(NewItem(ItemKind.LEARNING, "fine", ItemMeta(thread_id=LONE)))
