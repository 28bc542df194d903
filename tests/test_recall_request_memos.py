"""What a recall request reads again and again is made once and kept, with the same result as before:
a filter's part of a cursor's fingerprint, a conversation's read reach, a tool's argument shape, and the
encoders that measure and send an answer."""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import pytest
from starlette.responses import JSONResponse

from tinymemory.api import FetchRequest, ItemKind, ItemMeta, MetaFilter, Namespace, NewItem
from tinymemory.engines import cursors, open_engine
from tinymemory.engines.cursors import fingerprint
from tinymemory.policy import Identity, MemoryPolicy, PolicyContext, render
from tinymemory.policy import arguments as arguments_module
from tinymemory.policy.catalog.memory__recall import RECALLED_KINDS, RecallArgs
from tinymemory.service.models import Answer
from tinymemory.tools.preview import json_size


def digest_of_repr(*parts: object) -> str:
    """The fingerprint as it was first defined: the digest of the parts' repr."""
    return hashlib.sha256(repr(parts).encode("utf-8", "backslashreplace")).hexdigest()[:16]


def a_filter(user: str) -> MetaFilter:
    reach = Identity("acme", user, "helper", verified=True).tiers.read_reach
    return MetaFilter(reach=reach, kinds=RECALLED_KINDS, learning_kinds=())


def test_a_fingerprint_is_the_digest_of_its_parts_repr() -> None:
    flt = a_filter("ana")
    when = datetime(2024, 5, 8, 13, 56, tzinfo=UTC)
    for parts in (
        ("fetch", "what did 'ana' say?\n", "hybrid", flt, None),
        ("fetch", "é \udc80", "lexical", flt, when),
        ("list", flt),
        ("list",),
        (),
    ):
        assert fingerprint(*parts) == digest_of_repr(*parts)
        assert fingerprint(*parts) == digest_of_repr(*parts)  # again, from the kept repr


def test_each_filter_keeps_its_own_fingerprint() -> None:
    ana, bob = a_filter("ana"), a_filter("bob")
    assert fingerprint("fetch", "q", "hybrid", ana, None) != fingerprint("fetch", "q", "hybrid", bob, None)
    assert fingerprint("fetch", "q", "hybrid", bob, None) == digest_of_repr("fetch", "q", "hybrid", bob, None)
    for i in range(cursors.MAX_FILTER_REPRS + 5):
        fingerprint("list", a_filter(f"u{i}"))
    assert len(cursors._FILTER_REPRS) <= cursors.MAX_FILTER_REPRS
    assert fingerprint("list", ana) == digest_of_repr("list", ana)


def test_a_read_reach_is_made_once_and_equal_to_a_new_one() -> None:
    tiers = Identity("acme", "ana", "helper", verified=True).tiers
    first = tiers.read_reach
    assert tiers.read_reach is first
    fresh = Identity("acme", "ana", "helper", verified=True).tiers
    assert fresh == tiers and hash(fresh) == hash(tiers)
    assert fresh.read_reach == first
    assert "_read_reach" not in repr(tiers)
    assert Identity("acme", "bob", "helper", verified=True).tiers.read_reach != first


def test_a_declarations_shape_is_made_once() -> None:
    context = PolicyContext(MemoryPolicy.default())
    declared = RecallArgs.declare(context)
    shape = declared.shape()
    assert declared.shape() is shape
    other = RecallArgs.declare(context)
    assert other.shape() == shape and other.shape() is not shape
    for _ in range(arguments_module.MAX_SHAPES + 5):
        RecallArgs.declare(context).shape()
    assert len(arguments_module._SHAPES) <= arguments_module.MAX_SHAPES
    assert declared.shape() == shape


ANSWERS = [
    {"memories": [{"id": "m_1", "content": 'é 漢字 \u2028 \x01 "q" \\', "metadata": {"score": 1e-05}}]},
    {"n": [1, 2.5, -0.0, 10**20, True, None], "nested": {"a": {"b": []}}},
    "just text",
    [],
]


@pytest.mark.parametrize("content", ANSWERS)
def test_an_answer_is_sent_as_jsonresponse_sends_it(content: object) -> None:
    assert Answer(content).body == JSONResponse(content).body
    assert json_size(content) == len(json.dumps(content, ensure_ascii=False, separators=(",", ":")).encode())


def test_an_answer_refuses_what_jsonresponse_refuses() -> None:
    for bad in ({"x": math.nan}, {"x": math.inf}):
        with pytest.raises(ValueError):
            JSONResponse(bad)
        with pytest.raises(ValueError):
            Answer(bad)


async def test_each_rendered_memory_carries_its_own_tier(tmp_path: Path) -> None:
    """Rows of several tiers, some sharing a namespace object and some holding an equal copy: each
    row's metadata is what it is rendered alone."""
    async with open_engine(str(tmp_path / "t.db"), embedder=None) as engine:
        for namespace, text in (
            ("workspace:acme", "The orchid cluster hosts staging."),
            ("workspace:acme/agent:helper", "The orchid cluster restarts nightly."),
            ("workspace:acme/user:dana/agent:helper", "Dana owns the orchid cluster."),
            ("workspace:acme/user:dana", "Dana moved the orchid cluster."),
            ("workspace:acme/user:dana", "Dana renamed the orchid cluster."),
        ):
            item = NewItem(
                ItemKind.LEARNING, text, ItemMeta(Namespace.parse(namespace), learning_kind="fact")
            )
            await engine.store(item)
        tiers = Identity("acme", "dana", "helper", verified=True).tiers
        found = await engine.fetch(
            FetchRequest(query="orchid cluster", filter=MetaFilter(reach=tiers.read_reach))
        )
        rows = [render.Row(h.item, h.score) for h in found.hits]
        copy = replace(
            rows[0].item,
            meta=replace(rows[0].item.meta, namespace=Namespace.parse("workspace:acme/user:dana")),
        )
        rows.append(render.Row(copy, 0.1))
        metas = render.metadatas(rows, tiers)
        assert metas == [render.metadata(r, tiers) for r in rows]
        assert sorted(m["tier"] for m in metas[:-1]) == [
            "agent",
            "institutional",
            "user",
            "user",
            "user_for_agent",
        ]
        assert metas[-1]["tier"] == "user"
