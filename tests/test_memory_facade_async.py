"""AsyncMemory over a real SQLite file under pytest-asyncio, and its parity with the sync Memory: the same
public names and signatures, coroutines on one side and plain methods on the other."""

from __future__ import annotations

import asyncio
import inspect
import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

import tinymemory
from test_memory_facade_context import BAD as CONTEXT_BAD
from test_memory_facade_context import HANDBOOK, write_folder
from test_memory_facade_tools import BAD as TOOLS_BAD
from test_memory_facade_tools import TOOL_BAD
from tinymemory import AsyncMemory, InvalidRequest, ItemKind, Memory, Namespace
from tinymemory.async_memory import AsyncTools
from tinymemory.context import ContextPack
from tinymemory.memory import Tools
from tinymemory.tools import TOOL_NAMES

AGENT = "team:acme/agent:writer"
# Methods that do no I/O stay plain functions in both classes.
PLAIN = {"item", "tools", "names", "specs"}
RENAMED = {"AsyncTools": "Tools", "AsyncMemory": "Memory"}


def public(cls: type) -> set[str]:
    return {name for name in dir(cls) if not name.startswith("_")}


def sync_annotation(annotation: object) -> object:
    return RENAMED.get(annotation, annotation) if isinstance(annotation, str) else annotation


@pytest.mark.parametrize(("sync_cls", "async_cls"), [(Memory, AsyncMemory), (Tools, AsyncTools)])
def test_both_classes_expose_the_same_names_and_signatures(sync_cls: type, async_cls: type) -> None:
    assert public(sync_cls) == public(async_cls)
    for name in sorted(public(async_cls)):
        a, s = inspect.getattr_static(async_cls, name), inspect.getattr_static(sync_cls, name)
        if isinstance(a, property):
            assert isinstance(s, property), name
            assert inspect.signature(a.fget).return_annotation == inspect.signature(s.fget).return_annotation
            continue
        assert inspect.iscoroutinefunction(a) is (name not in PLAIN), name
        assert not inspect.iscoroutinefunction(s), name
        sig_a, sig_s = inspect.signature(a), inspect.signature(s)
        assert list(sig_a.parameters.values()) == list(sig_s.parameters.values()), name
        assert sync_annotation(sig_a.return_annotation) == sig_s.return_annotation, name
        assert (inspect.getdoc(a) or "").strip() and (inspect.getdoc(s) or "").strip(), name
    if sync_cls is Memory:  # tool sets are made by their facade, so only the facades' constructors match
        assert inspect.signature(async_cls.__init__) == inspect.signature(sync_cls.__init__)


@pytest.mark.parametrize(("sync_cls", "async_cls"), [(Memory, AsyncMemory), (Tools, AsyncTools)])
def test_the_sync_members_are_built_from_the_async_ones(sync_cls: type, async_cls: type) -> None:
    """Each sync member runs the async member of its name and shows its docstring: none is a copy."""
    own = {"close"}  # the one member of the sync side's own: it also stops the loop thread
    for name in sorted(public(async_cls) - own):
        a, s = inspect.getattr_static(async_cls, name), inspect.getattr_static(sync_cls, name)
        a_fn, s_fn = (a.fget, s.fget) if isinstance(a, property) else (a, s)
        assert s_fn.__derived_from__ is a_fn, name
        assert s.__doc__ == a.__doc__, name
        assert s_fn.__qualname__ == f"{sync_cls.__name__}.{name}", name
        assert s_fn.__module__ == sync_cls.__module__, name


def test_a_member_built_from_another_name_is_refused() -> None:
    from tinymemory._sync import SyncFacade, blocking, derived

    with pytest.raises(TypeError, match=r"Wrong.fetch does not run AsyncMemory.fetch"):

        @derived(AsyncMemory)
        class Wrong(SyncFacade[AsyncMemory]):
            fetch = blocking(AsyncMemory.list)


def test_async_memory_is_exported_lazily() -> None:
    assert tinymemory.AsyncMemory is AsyncMemory
    assert "AsyncMemory" in tinymemory.__all__ and "AsyncMemory" in dir(tinymemory)


@pytest.fixture
async def amem(tmp_path: Path) -> AsyncIterator[AsyncMemory]:
    async with AsyncMemory(tmp_path / "mem.db", namespace=AGENT, embedder=None) as m:
        yield m


async def test_the_engine_operations_as_coroutines(amem: AsyncMemory) -> None:
    first = await amem.store("Dana prefers short paragraphs and active voice", tags=["preference"])
    await amem.store("The quarterly report is due on the last Friday of June")
    assert (await amem.fetch("how does Dana like her paragraphs?")).hits[0].item.id == first.id
    assert "June" in (await amem.recall("When is the report due?")).answer
    assert (await amem.store("Dana prefers short paragraphs and active voice")).replayed
    many = await amem.store_many(["one more note", amem.item("and another", tags=["x"])])
    assert len(many) == 2
    assert len((await amem.list(limit=10)).items) == 4
    assert (await amem.get([first.id])).items[0].text.startswith("Dana")
    assert (await amem.explore("tag")).total == 4
    assert (await amem.forget(tags_any=["x"])).forgotten == (many[1].id,)
    assert (await amem.purge()).purged >= 1
    assert amem.namespace == Namespace.parse(AGENT) and amem.descriptor.name == "sqlite"


async def test_context_recall_ingest_and_tools_as_coroutines(amem: AsyncMemory, tmp_path: Path) -> None:
    learned = await amem.store("Dana prefers aisle seats on long flights", learning_kind="preference")
    brief = await amem.context_md()
    assert isinstance(brief, ContextPack) and learned.id in brief.refs

    report = await amem.ingest(write_folder(tmp_path / "handbook"), source="handbook")
    assert sorted(report.stored) == sorted(HANDBOOK)
    assert (await amem.ingest_text("# Desk\n\nHot desks are booked a day ahead.", name="desk.md")).chunks == 1
    hits = (await amem.fetch("when are travel expenses filed", kinds=["chunk"])).hits
    assert hits[0].item.meta.file_path == "travel/expenses.md"
    pack = await amem.recall_context("flights seats business class")
    assert {i.kind for i in pack.items} <= {ItemKind.LEARNING, ItemKind.CHUNK}
    assert learned.id in pack.refs and "business" in pack.markdown

    tools = amem.tools()
    assert isinstance(tools, AsyncTools) and tools.names() == list(TOOL_NAMES)
    stored = await tools.call("memory_store", {"learning": {"text": "Dana takes the 8:15 train"}})
    found = await tools.call("memory_fetch", json.dumps({"query": "which train does Dana take"}))
    assert found["hits"][0]["id"] == stored["id"]
    out = await tools.output("memory_get", {"ids": [stored["id"]]})
    assert not out.is_error and json.loads(out.text)["items"][0]["text"] == "Dana takes the 8:15 train"
    assert [s["name"] for s in tools.specs("anthropic")] == list(TOOL_NAMES)


async def test_concurrent_calls_on_one_async_memory(amem: AsyncMemory) -> None:
    results = await asyncio.gather(*(amem.store(f"note number {i} about gardening") for i in range(8)))
    assert len({r.id for r in results}) == 8
    assert (await amem.explore("kind")).total == 8


async def test_a_closed_async_memory_refuses_calls(tmp_path: Path) -> None:
    amem = AsyncMemory(tmp_path / "mem.db", embedder=None)
    await amem.close()
    await amem.close()  # closing twice is harmless
    with pytest.raises(RuntimeError, match="closed"):
        await amem.list()
    with pytest.raises(RuntimeError, match="closed"):
        amem.tools()


async def test_construction_refuses_bad_arguments(tmp_path: Path) -> None:
    with pytest.raises(InvalidRequest, match=r"^memory: `reach`"):
        AsyncMemory(tmp_path / "mem.db", reach="everything")  # type: ignore[arg-type]
    with pytest.raises(InvalidRequest, match=r"^namespace: "):
        AsyncMemory(tmp_path / "mem.db", namespace="no spaces")


async def test_a_bad_call_raises_when_awaited(amem: AsyncMemory) -> None:
    pending = amem.fetch()  # type: ignore[call-arg]
    with pytest.raises(InvalidRequest, match=r"^fetch: `query` is required"):
        await pending


@pytest.mark.parametrize(
    ("method", "args", "kwargs", "expected"),
    CONTEXT_BAD + TOOLS_BAD,
    ids=[f"{b[0]}-{b[3]}" for b in CONTEXT_BAD + TOOLS_BAD],
)
async def test_bad_arguments_name_the_method(
    amem: AsyncMemory, method: str, args: tuple[object, ...], kwargs: dict[str, object], expected: str
) -> None:
    with pytest.raises(InvalidRequest, match=f"^{expected}"):
        result = getattr(amem, method)(*args, **kwargs)
        if inspect.isawaitable(result):
            await result
    assert (await amem.list()).items == ()


@pytest.mark.parametrize(("method", "args", "kwargs", "expected"), TOOL_BAD, ids=[b[3] for b in TOOL_BAD])
async def test_bad_tool_calls_name_the_method(
    amem: AsyncMemory, method: str, args: tuple[object, ...], kwargs: dict[str, object], expected: str
) -> None:
    with pytest.raises(InvalidRequest, match=f"^{expected}"):
        result = getattr(amem.tools(), method)(*args, **kwargs)
        if inspect.isawaitable(result):
            await result
    assert (await amem.list()).items == ()
