"""The facades and bridges read the arguments they share with one set of readers
(tinymemory/async_memory/arguments.py), so the same slip gets the same words whichever entry point a
script came through: `tinymemory.Memory`, the mem0-compatible `Memory`, or the LangGraph store.

Real engines only (SQLite in tmp_path, PostgreSQL under TINYMEMORY_TEST_ENGINE=postgres).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from engines import make_engine
from tinymemory import InvalidRequest, Memory
from tinymemory.compat.mem0 import InvalidInput
from tinymemory.compat.mem0 import Memory as Mem0Memory
from tinymemory.integrations.langgraph import TinyMemoryStore

Call = Callable[[Path], Any]


def native(path: Path, call: Callable[[Memory], Any]) -> Any:
    with Memory(engine=make_engine(path, embedder=None), namespace="team:acme") as mem:
        return call(mem)


def mem0(path: Path, call: Callable[[Mem0Memory], Any]) -> Any:
    with Mem0Memory(engine=make_engine(path, embedder=None)) as mem:
        return call(mem)


def langgraph(path: Path, call: Callable[[TinyMemoryStore], Any], **options: Any) -> Any:
    with TinyMemoryStore(make_engine(path, embedder=None), **options) as store:
        return call(store)


BOOLEANS: list[tuple[Call, str]] = [
    (lambda p: native(p, lambda m: m.tools(read_only="yes")), "tools: `read_only`"),
    (lambda p: mem0(p, lambda m: m.add("x", user_id="u", infer="yes")), "add: `infer`"),
    (
        lambda p: langgraph(p, lambda s: None, ttl={"refresh_on_read": "yes"}),
        "store: `ttl.refresh_on_read`",
    ),
]
COUNTS: list[tuple[Call, str]] = [
    (lambda p: mem0(p, lambda m: m.search("q", filters={"user_id": "u"}, top_k=-1)), "search: `top_k`"),
    (lambda p: mem0(p, lambda m: m.get_all(filters={"user_id": "u"}, top_k="5")), "get_all: `top_k`"),
    (lambda p: langgraph(p, lambda s: s.search(("a",), limit=-1)), "search: `limit`"),
    (lambda p: langgraph(p, lambda s: s.list_namespaces(offset=True)), "list_namespaces: `offset`"),
]


@pytest.mark.parametrize(("call", "field"), BOOLEANS, ids=[f for _, f in BOOLEANS])
def test_a_flag_that_is_not_a_bool_is_refused_in_one_wording(tmp_path: Path, call: Call, field: str) -> None:
    with pytest.raises(InvalidRequest) as caught:
        call(tmp_path / "mem.db")
    assert str(caught.value) == f"{field} must be true or false, got str"


@pytest.mark.parametrize(("call", "field"), COUNTS, ids=[f for _, f in COUNTS])
def test_a_count_that_is_not_a_whole_number_is_refused_in_one_wording(
    tmp_path: Path, call: Call, field: str
) -> None:
    with pytest.raises(InvalidRequest) as caught:
        call(tmp_path / "mem.db")
    assert str(caught.value).startswith(f"{field} must be a whole number >= 0, got "), str(caught.value)


def test_the_mem0_query_is_read_as_the_engine_reads_one(tmp_path: Path) -> None:
    """A blank, overlong or NUL-holding query is refused before the read, as InvalidInput (mem0's
    ValueError) naming `search` and `query`."""
    for bad, problem in (("  ", "must not be empty"), ("q" * 10_001, "is longer than"), ("a\x00b", "nul")):
        with pytest.raises(InvalidInput, match=rf"^search: `query` .*{problem}"):
            mem0(tmp_path / "mem.db", lambda m, q=bad: m.search(q, filters={"user_id": "u"}))
