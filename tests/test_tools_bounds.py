"""Result bounds: no tool result carries a whole large document except memory_get, and none is unbounded.

Sizes are measured on the compact JSON text a runtime hands the model (`call_tool(...).text`).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engines import make_engine
from tinymemory.adapters import call_tool
from tinymemory.api import InvalidRequest
from tinymemory.engines.sqlite import SqliteEngine
from tinymemory.retrieval.answer import ExtractiveAnswerer
from tinymemory.tools import MemoryTools, build_specs
from tinymemory.tools.preview import ResultBounds, fair_share, opening, preview, text_size
from tinymemory.tools.spec import PREVIEW_BYTES, RESULT_BYTES

WORDS = ["harbour", "lantern", "quarterly", "meridian", "copper", "violet", "anchor", "ledger"]


def document(size: int, salt: str = "") -> str:
    """Plain prose of exactly `size` UTF-8 bytes, mentioning `zephyr` once at the start."""
    words = [f"zephyr{salt}"]
    i = 0
    while len(" ".join(words)) < size:
        words.append(WORDS[i % len(WORDS)])
        i += 1
    return " ".join(words)[:size]


BIG = document(21_600)


@pytest.fixture
async def engine(tmp_path: Path) -> AsyncIterator[SqliteEngine]:
    eng = make_engine(tmp_path / "memory.db", embedder=None)
    yield eng
    await eng.close()


@pytest.fixture
def tools(engine: SqliteEngine) -> MemoryTools:
    return MemoryTools(engine).placed_at("team:acme/agent:writer")


async def call(tools: MemoryTools, name: str, args: dict[str, Any]) -> tuple[dict[str, Any], int]:
    """The result and its size in bytes as the model reads it; the text must be valid JSON."""
    out = await call_tool(tools, name, args)
    assert not out.is_error, out.text
    assert out.value is not None and json.loads(out.text) == out.value
    return out.value, len(out.text.encode("utf-8"))


async def store(tools: MemoryTools, text: str, title: str = "Harbour notes") -> str:
    result, _ = await call(tools, "memory_store", {"document": {"title": title, "text": text}})
    return str(result["id"])


def assert_preview(entry: dict[str, Any], full: str, limit: int) -> None:
    assert entry["truncated"] is True
    assert entry["bytes"] == len(full.encode("utf-8"))
    assert full.startswith(entry["text"]) and entry["text"]
    assert text_size(entry["text"], limit) <= limit


async def test_a_large_document_reads_as_a_preview_everywhere_but_memory_get(tools: MemoryTools) -> None:
    assert len(BIG.encode("utf-8")) == 21_600
    doc_id = await store(tools, BIG)

    fetched, size = await call(tools, "memory_fetch", {"query": "zephyr"})
    assert [h["id"] for h in fetched["hits"]] == [doc_id]
    assert_preview(fetched["hits"][0], BIG, PREVIEW_BYTES)
    assert size < PREVIEW_BYTES + 1024

    listed, _ = await call(tools, "memory_list", {})
    assert_preview(listed["items"][0], BIG, PREVIEW_BYTES)

    recalled, _ = await call(tools, "memory_recall", {"question": "zephyr"})
    assert recalled["citations"] and recalled["citations"][0]["id"] == doc_id
    assert_preview(recalled["citations"][0], BIG, PREVIEW_BYTES)

    got, size = await call(tools, "memory_get", {"ids": [doc_id]})
    assert got["items"][0]["text"] == BIG and "truncated" not in got["items"][0]
    assert got["missing"] == [] and "next_ids" not in got
    assert size <= RESULT_BYTES


async def test_a_short_text_is_whole_and_unmarked(tools: MemoryTools) -> None:
    await store(tools, "zephyr is the harbour cat")
    fetched, _ = await call(tools, "memory_fetch", {"query": "zephyr"})
    hit = fetched["hits"][0]
    assert hit["text"] == "zephyr is the harbour cat"
    assert "truncated" not in hit and "bytes" not in hit


async def test_preview_is_cut_at_a_word_boundary(tools: MemoryTools) -> None:
    await store(tools, BIG)
    fetched, _ = await call(tools, "memory_fetch", {"query": "zephyr"})
    text = fetched["hits"][0]["text"]
    assert BIG[len(text)] == " " and not text.endswith(" ")


@pytest.mark.parametrize(
    "unit",
    ["東京の港は朝から賑やかだ。", "🙂🚢⚓ ", "👩‍👩‍👧‍👦", "e\u0301te\u0301 ", "naïve café ", '"q"\n\t\\ '],
    ids=["cjk", "emoji", "zwj-family", "combining", "latin", "escapes"],
)
async def test_multibyte_text_is_cut_at_a_character_boundary(tools: MemoryTools, unit: str) -> None:
    text = "zephyr " + unit * (3 * PREVIEW_BYTES // len(unit.encode("utf-8")))
    await store(tools, text)
    fetched, _ = await call(tools, "memory_fetch", {"query": "zephyr"})
    hit = fetched["hits"][0]
    assert_preview(hit, text, PREVIEW_BYTES)
    assert text.encode("utf-8").startswith(hit["text"].encode("utf-8"))
    assert text_size(hit["text"], PREVIEW_BYTES) > PREVIEW_BYTES - 64  # cut near the limit, not far off
    rest = text[len(hit["text"]) :]
    assert not rest.startswith(("\u200d", "\u0301")), "a joined character sequence was split"


async def test_fifty_large_hits_stay_under_the_result_bound(tools: MemoryTools) -> None:
    tricky = 'quotes " and \\ back\nslashes\ttabs 🙂 東京 \x01 '
    for i in range(50):
        text = document(20_000, salt="") + " " + tricky * 200 + f" copy {i}"
        await store(tools, text, title=f"copy {i}")
    for name, args, key in (
        ("memory_fetch", {"query": "zephyr", "limit": 50}, "hits"),
        ("memory_list", {"limit": 50}, "items"),
        ("memory_recall", {"question": "zephyr", "limit": 50}, "citations"),
    ):
        result, size = await call(tools, name, args)
        assert size <= RESULT_BYTES, name
        entries = result[key]
        assert len(entries) == 50 if key != "citations" else entries
        for entry in entries:
            assert entry["truncated"] is True and entry["bytes"] > 20_000
            assert len(entry["text"].encode("utf-8")) > 500, "the texts share the result evenly"


async def test_memory_get_returns_what_fits_whole_and_names_the_rest(tools: MemoryTools) -> None:
    texts = [document(21_600, salt=str(i)) for i in range(6)]
    ids = [await store(tools, t, title=f"part {i}") for i, t in enumerate(texts)]
    got, size = await call(tools, "memory_get", {"ids": ids})
    assert size <= RESULT_BYTES
    assert got["items"] and got["next_ids"]
    seen = {it["id"]: it["text"] for it in got["items"]}
    assert all("truncated" not in it for it in got["items"])
    pending = got["next_ids"]
    assert set(seen) | set(pending) == set(ids) and not set(seen) & set(pending)
    while pending:
        got, size = await call(tools, "memory_get", {"ids": pending})
        assert size <= RESULT_BYTES and got["items"]
        seen.update({it["id"]: it["text"] for it in got["items"]})
        pending = got.get("next_ids", [])
    assert seen == dict(zip(ids, texts, strict=True))


async def test_memory_get_cuts_a_memory_larger_than_the_whole_result(engine: SqliteEngine) -> None:
    tools = MemoryTools(engine).with_bounds(preview_bytes=1024, result_bytes=8192)
    small = await store(tools, "zephyr harbour cat")
    big = await store(tools, BIG)
    got, size = await call(tools, "memory_get", {"ids": [big, small]})
    assert size <= 8192
    assert [it["id"] for it in got["items"]] == [big]
    assert_preview(got["items"][0], BIG, 8192)
    assert len(got["items"][0]["text"].encode("utf-8")) > 7000
    assert got["next_ids"] == [small]
    got, _ = await call(tools, "memory_get", {"ids": got["next_ids"]})
    assert got["items"][0]["text"] == "zephyr harbour cat"


async def test_bounds_are_settable_and_checked(engine: SqliteEngine) -> None:
    tools = MemoryTools(engine).with_bounds(preview_bytes=500)
    assert tools.bounds == ResultBounds(500, RESULT_BYTES)
    assert tools.placed_at("team:acme").in_zone("UTC").read_only().bounds.preview_bytes == 500
    await store(tools, BIG)
    fetched, _ = await call(tools, "memory_fetch", {"query": "zephyr"})
    assert_preview(fetched["hits"][0], BIG, 500)
    assert MemoryTools(engine).bounds == ResultBounds(PREVIEW_BYTES, RESULT_BYTES)
    for bad in ({"preview_bytes": 10}, {"result_bytes": 100}, {"preview_bytes": True}):
        with pytest.raises(InvalidRequest, match=r"tools: `(preview|result)_bytes`"):
            MemoryTools(engine).with_bounds(**bad)


async def test_the_recall_answer_is_bounded(tmp_path: Path) -> None:
    engine = make_engine(tmp_path / "m.db", embedder=None, answerer=ExtractiveAnswerer(budget=100_000))
    try:
        tools = MemoryTools(engine).with_bounds(preview_bytes=1000)
        sentences = " ".join(f"Zephyr visited harbour {i} at dawn." for i in range(400))
        await store(tools, sentences)
        recalled, size = await call(tools, "memory_recall", {"question": "zephyr harbour"})
        answer = recalled["answer"]
        assert answer.endswith("…") and text_size(answer, 1000) <= 1000 and len(answer) > 900
        assert size <= RESULT_BYTES
    finally:
        await engine.close()


def test_descriptions_tell_the_model_how_to_read_the_rest() -> None:
    specs = {s.name: s.description for s in build_specs((), writes=False)}
    for name in ("memory_recall", "memory_list"):
        assert "truncated" in specs[name] and "memory_get" in specs[name], name
    assert "next_ids" in specs["memory_get"] and "truncated" in specs["memory_get"]


# The pure functions the policy tools reuse.


@settings(max_examples=300, deadline=None)
@given(st.text(), st.integers(min_value=0, max_value=300))
def test_opening_is_a_prefix_within_the_limit(text: str, limit: int) -> None:
    cut = opening(text, limit)
    assert text.startswith(cut)
    assert text_size(cut, limit) <= limit
    shown = preview(text, limit)
    assert shown.full_bytes == len(text.encode("utf-8", "surrogatepass"))
    assert shown.truncated == (text_size(text, limit) > limit)
    assert shown.text == (cut if shown.truncated else text)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=500), max_size=60), st.integers(-10, 5000))
def test_fair_share_fills_the_room_and_never_exceeds_it(sizes: list[int], room: int) -> None:
    cap = 300
    share = fair_share(sizes, room, cap)
    assert 0 <= share <= cap
    used = sum(min(s, share) for s in sizes)
    assert used <= max(room, 0)
    if share < cap and any(s > share for s in sizes):
        assert sum(min(s, share + 1) for s in sizes) > room, "a larger share would still have fit"


def test_opening_examples() -> None:
    assert opening("hello wonderful world", 12) == "hello"
    assert opening("東京の港", 7) == "東京"
    assert opening("ab👩‍👩‍👧 c", 8) == "ab"
    assert opening("abcdefgh", 5) == "abcde"
    assert opening('say "hi"', 6) == "say"
    assert preview("short", 8192).truncated is False
