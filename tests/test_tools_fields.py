"""Each memory_ tool argument is declared once (in its tool's module, or tools.args when shared): the
schema a model sees and the reading of a call both come from that declaration, and moving onto it
changed neither.

The table pins the exact message of one bad call per rule (and of calls breaking two rules at once,
where the order of the checks decides which one is reported).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from engines import make_engine
from tinymemory.api import DEFAULT_LIMIT, FetchMode, InvalidRequest, Namespace
from tinymemory.api.validate import MAX_CURSOR_CHARS, MAX_QUERY_CHARS, MAX_TAG_CHARS, MAX_TEXT_CHARS
from tinymemory.tools import TOOL_NAMES, MemoryTools, args
from tinymemory.tools.catalog import memory_fetch, memory_recall, memory_store
from tinymemory.tools.registry import build_specs, shapes

FIXTURE = Path(__file__).parent / "fixtures" / "tool_contracts.json"
ALL_MODES = (FetchMode.LEXICAL, FetchMode.SEMANTIC, FetchMode.HYBRID)
MODE_SETS = [ALL_MODES, (FetchMode.LEXICAL,), (FetchMode.SEMANTIC, FetchMode.LEXICAL)]


@pytest.fixture
async def tools(tmp_path: Path) -> AsyncIterator[MemoryTools]:
    engine = make_engine(tmp_path / "memory.db", embedder=None)  # serves lexical only
    yield MemoryTools(engine).placed_at(Namespace.parse("team:acme/agent:writer")).in_zone("UTC")
    await engine.close()


def test_the_contract_text_is_unchanged_to_the_byte() -> None:
    """Stricter than test_tool_contracts (which compares parsed JSON): key order is what a model reads."""
    now = {
        "fetch_modes": [m.value for m in ALL_MODES],
        "tools": [s.to_dict() for s in build_specs(ALL_MODES, writes=True)],
    }
    text = json.dumps(now, indent=2, ensure_ascii=False) + "\n"
    assert text == FIXTURE.read_text(encoding="utf-8")


@pytest.mark.parametrize("modes", MODE_SETS, ids=lambda ms: "+".join(m.value for m in ms))
def test_every_schema_is_its_declaration(modes: tuple[FetchMode, ...]) -> None:
    declared = shapes(modes)
    specs = build_specs(modes, writes=True)
    assert [s.name for s in specs] == list(TOOL_NAMES) == list(declared)
    for spec in specs:
        assert spec.parameters == declared[spec.name].schema(), spec.name


def test_fetch_mode_enum_is_what_the_engine_serves() -> None:
    for modes in MODE_SETS:
        mode = memory_fetch.fetch_mode(modes)
        assert mode.choices == tuple(m.value for m in modes)
    assert "default hybrid" in memory_fetch.fetch_mode(ALL_MODES).description
    assert "default semantic" in memory_fetch.fetch_mode(MODE_SETS[2]).description


def test_bounds_come_from_the_engines_constants() -> None:
    assert args.LIMIT.default == DEFAULT_LIMIT
    assert args.CURSOR.max_chars == MAX_CURSOR_CHARS
    assert (
        memory_recall.QUESTION.max_chars
        == memory_fetch.QUERY.max_chars
        == memory_recall.INSTRUCTIONS.max_chars
        == MAX_QUERY_CHARS
    )
    assert memory_store.TAGS.max_chars == MAX_TAG_CHARS
    assert memory_store.LEARNING_TEXT.max_chars == memory_store.DOCUMENT_TEXT.max_chars == MAX_TEXT_CHARS


FILTER_KEYS = "kinds, sources, tags_any, workspace, folder, file_path, repo"
FILTER_KEYS += ", url, thread_id, agent_id, observed_after, observed_before"
FACETS = "kind, source, source_id, workspace, folder, file_path, language, repo, url, thread, agent, "
FACETS += "tool_call, tag"
KINDS = "fact, preference, instruction, event, decision, procedure"

CASES: list[tuple[str, dict[str, Any], str]] = [
    (
        "memory_list",
        {"filter": {"kinds": "learning"}},
        "`filter.kinds` must be an array of item kinds, got string",
    ),
    ("memory_list", {"filter": {"kinds": ["memo"]}}, "`filter.kinds` `memo` is not an item kind"),
    ("memory_list", {"filter": {"kinds": ["learning", 3]}}, "`filter.kinds` `3` is not an item kind"),
    ("memory_list", {"filter": {"sources": ["a"] * 65}}, "`filter.sources` has more than 64 items"),
    (
        "memory_list",
        {"filter": {"tags_any": ["x" * 65]}},
        "`filter.tags_any[0]` is longer than 64 characters",
    ),
    ("memory_list", {"filter": {"workspace": " "}}, "`filter.workspace` must not be blank"),
    (
        "memory_list",
        {"filter": {"observed_after": "yesterday"}},
        "`filter.observed_after` `yesterday` is not an RFC 3339 timestamp (e.g. 2024-05-08T13:56:00Z)",
    ),
    (
        "memory_list",
        {"filter": {"observed_after": "2024-05-09T00:00:00Z", "observed_before": "2024-05-08T00:00:00Z"}},
        "`filter.observed_before` must be later than `observed_after`",
    ),
    ("memory_list", {"filter": []}, "`filter` must be an object, got array"),
    (
        "memory_list",
        {"filter": {"kind": ["memo"]}},
        f"`filter.kind` is not a known argument (known: {FILTER_KEYS})",
    ),
    ("memory_list", {"limit": 0}, "`limit` must be between 1 and 50, got 0"),
    ("memory_list", {"limit": 51}, "`limit` must be between 1 and 50, got 51"),
    ("memory_list", {"limit": "5"}, "`limit` must be an integer, got string"),
    ("memory_list", {"limit": 2.5}, "`limit` must be an integer, got number"),
    ("memory_list", {"cursor": "x" * 4097}, "`cursor` is longer than 4096 characters"),
    ("memory_list", {"cursor": ""}, "`cursor` must not be blank"),
    ("memory_recall", {}, "`question` is required"),
    ("memory_recall", {"question": "q" * 10001}, "`question` is longer than 10000 characters"),
    ("memory_recall", {"question": "q", "instructions": 3}, "`instructions` must be a string, got number"),
    ("memory_recall", {"question": "q", "refers_to": {"to": "2024-01-01"}}, "`refers_to.from` is required"),
    (
        "memory_recall",
        {"question": "q", "refers_to": {"from": "2024-1-01"}},
        "`refers_to.from` `2024-1-01` is not a date (YYYY-MM-DD)",
    ),
    (
        "memory_recall",
        {"question": "q", "refers_to": {"from": "2024-02-30"}},
        "`refers_to.from` `2024-02-30` is not a date (YYYY-MM-DD)",
    ),
    (
        "memory_recall",
        {"question": "q", "refers_to": {"from": "2024-02-03", "to": "2024-02-01"}},
        "`refers_to.to` is before `refers_to.from`",
    ),
    (
        "memory_recall",
        {"question": "q", "refers_to": {"from": "9999-12-31"}},
        "`refers_to` is out of the supported date range",
    ),
    (
        "memory_recall",
        {"question": "q", "refers_to": "2024-02-03"},
        "`refers_to` must be an object, got string",
    ),
    (
        "memory_fetch",
        {"query": "q", "mode": "fuzzy"},
        "`mode` `fuzzy` is not a fetch mode served here (one of: lexical)",
    ),
    (
        "memory_fetch",
        {"query": "q", "mode": 3},
        "`mode` `3` is not a fetch mode served here (one of: lexical)",
    ),
    ("memory_fetch", {"mode": "lexical"}, "`query` is required"),
    ("memory_get", {}, "`ids` is required"),
    ("memory_get", {"ids": "m_1"}, "`ids` must be an array of ids, got string"),
    ("memory_get", {"ids": []}, "`ids` must list between 1 and 200 ids, got 0"),
    ("memory_get", {"ids": ["m"] * 201}, "`ids` must list between 1 and 200 ids, got 201"),
    ("memory_get", {"ids": [" "]}, "`ids[0]` must be a non-empty id string"),
    ("memory_get", {"ids": ["x" * 257]}, "`ids[0]` must be a non-empty id string"),
    ("memory_get", {"ids": ["\ud800"]}, "`ids[0]` is not valid unicode (it holds a lone surrogate)"),
    (
        "memory_explore",
        {},
        f"`facet` is required (one of: {FACETS})",
    ),
    (
        "memory_explore",
        {"facet": "namespace"},
        f"`facet` `namespace` is not a facet (one of: {FACETS})",
    ),
    ("memory_explore", {"facet": "kind", "limit": 99}, "`limit` must be between 1 and 50, got 99"),
    ("memory_store", {}, "give exactly one of `learning`, `document` or `conversation` (got none)"),
    (
        "memory_store",
        {"learning": {"text": "a"}, "document": {"text": "b"}},
        "give exactly one of `learning`, `document` or `conversation` (got `learning`, `document`)",
    ),
    (
        "memory_store",
        {"learning": {"text": 3}, "document": {"text": "b"}},
        "give exactly one of `learning`, `document` or `conversation` (got `learning`, `document`)",
    ),
    (
        "memory_store",
        {"tags": "x", "learning": {"text": "a"}},
        "`tags` must be an array of strings, got string",
    ),
    ("memory_store", {"tags": [1], "learning": {"text": 3}}, "`tags[0]` must be a string, got number"),
    ("memory_store", {"learning": "x"}, "`learning` must be an object, got string"),
    ("memory_store", {"learning": {}}, "`learning.text` is required"),
    (
        "memory_store",
        {"learning": {"text": "a", "learning_kind": "rumour"}},
        f"`learning.learning_kind` `rumour` is not a learning kind (one of: {KINDS})",
    ),
    (
        "memory_store",
        {"learning": {"text": "a", "confidence": 2}},
        "`learning.confidence` must be between 0 and 1, got 2",
    ),
    (
        "memory_store",
        {"learning": {"text": "a", "confidence": True}},
        "`learning.confidence` must be a number, got boolean",
    ),
    (
        "memory_store",
        {"learning": {"text": "a", "evidence": ["e"] * 65}},
        "`learning.evidence` has more than 64 items",
    ),
    (
        "memory_store",
        {"learning": {"text": "a", "why": 1}},
        "`learning.why` is not a known argument (known: text, learning_kind, confidence, evidence)",
    ),
    ("memory_store", {"document": {"title": " ", "text": "t"}}, "`document.title` must not be blank"),
    ("memory_store", {"document": {"title": "t"}}, "`document.text` is required"),
    ("memory_store", {"conversation": {}}, "`conversation.turns` is required"),
    (
        "memory_store",
        {"conversation": {"turns": {}}},
        "`conversation.turns` must be an array of {role, text} objects",
    ),
    (
        "memory_store",
        {"conversation": {"turns": []}},
        "`conversation.turns` must hold between 1 and 1000 turns, got 0",
    ),
    (
        "memory_store",
        {"conversation": {"turns": [{"role": "u"}] * 1001}},
        "`conversation.turns` must hold between 1 and 1000 turns, got 1001",
    ),
    (
        "memory_store",
        {"conversation": {"turns": ["hi"]}},
        "`conversation.turns[0]` must be an object, got string",
    ),
    (
        "memory_store",
        {"conversation": {"turns": [{"role": "x" * 65, "text": "t"}]}},
        "`conversation.turns[0].role` is longer than 64 characters",
    ),
    (
        "memory_store",
        {"conversation": {"turns": [{"role": "u", "text": "t", "at": 1}]}},
        "`conversation.turns[0].at` is not a known argument (known: role, text)",
    ),
    (
        "memory_store",
        {
            "conversation": {
                "turns": [{"role": "u", "text": "t" * 600000}, {"role": "u", "text": "t" * 600000}]
            }
        },
        "`conversation.turns` are longer than 1000000 characters together",
    ),
    (
        "memory_store",
        {"conversation": {"turns": [{"role": "u", "text": "t", "namespace": "x"}]}},
        "`conversation.turns[0].namespace` is fixed by the host: tools never take a namespace or a reach",
    ),
    ("memory_forget", {}, "give `ids` or a non-empty `filter`"),
    (
        "memory_forget",
        {"filter": {}},
        "`filter` must set at least one field (an empty filter would forget everything in reach)",
    ),
    (
        "memory_forget",
        {"ids": ["m_1"], "filter": {"kinds": ["memo"]}},
        "give either `ids` or `filter`, not both",
    ),
    (
        "memory_forget",
        {"ids": [], "filter": {"kinds": ["memo"]}},
        "`ids` must list between 1 and 200 ids, got 0",
    ),
    ("memory_forget", {"filter": {"kinds": ["memo"]}}, "`filter.kinds` `memo` is not an item kind"),
    ("memory_forget", {"ids": "m_1"}, "`ids` must be an array of ids, got string"),
    (
        "memory_list",
        {"filter": {"reach": "all"}},
        "`filter.reach` is fixed by the host: tools never take a namespace or a reach",
    ),
]


@pytest.mark.parametrize(("tool", "arguments", "message"), CASES)
async def test_bad_call_message(
    tools: MemoryTools, tool: str, arguments: dict[str, Any], message: str
) -> None:
    with pytest.raises(InvalidRequest) as err:
        await tools.call(tool, arguments)
    assert str(err.value) == f"{tool}: {message}"
