"""Property tests of content-derived ids: same content, same id; identity changes, new id."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

from hypothesis import assume, given
from hypothesis import strategies as st

from test_api_strategies import namespaces
from tinymemory.api import About, ItemKind, ItemMeta, Namespace, NewItem, content_key, item_id

texts = st.text(min_size=1, max_size=60).filter(lambda t: t.strip() != "")
item_kinds = st.sampled_from(list(ItemKind))


def _norm(text: str) -> str:
    return " ".join(text.split())


@given(namespaces, item_kinds, texts)
def test_same_content_gives_the_same_id(ns: Namespace, kind: ItemKind, text: str) -> None:
    a = NewItem(kind, text, ItemMeta(namespace=ns))
    b = NewItem(kind, text, ItemMeta(namespace=Namespace.parse(str(ns))))
    assert item_id(content_key(a)) == item_id(content_key(b))
    assert item_id(content_key(a)).startswith("m_")
    assert len(item_id(content_key(a))) == 26


@given(namespaces, item_kinds, texts, st.lists(st.text(max_size=5), max_size=3), st.floats(0, 1))
def test_tags_confidence_and_observed_at_are_not_identity(
    ns: Namespace, kind: ItemKind, text: str, tags: list[str], confidence: float
) -> None:
    plain = NewItem(kind, text, ItemMeta(namespace=ns))
    dressed = NewItem(
        kind,
        f"  {text}\n",
        ItemMeta(namespace=ns, tags=tuple(tags), observed_at=datetime(2024, 1, 1, tzinfo=UTC)),
        confidence=confidence,
    )
    assert content_key(plain) == content_key(dressed)


@given(namespaces, namespaces, item_kinds, texts)
def test_another_namespace_gives_another_id(a: Namespace, b: Namespace, kind: ItemKind, text: str) -> None:
    assume(a != b)
    assert content_key(NewItem(kind, text, ItemMeta(namespace=a))) != content_key(
        NewItem(kind, text, ItemMeta(namespace=b))
    )


@given(item_kinds, item_kinds, texts)
def test_another_kind_gives_another_id(k1: ItemKind, k2: ItemKind, text: str) -> None:
    assume(k1 != k2)
    assert content_key(NewItem(k1, text)) != content_key(NewItem(k2, text))


@given(item_kinds, texts, texts)
def test_another_text_gives_another_id(kind: ItemKind, t1: str, t2: str) -> None:
    assume(_norm(t1) != _norm(t2))
    assert content_key(NewItem(kind, t1)) != content_key(NewItem(kind, t2))


@given(texts, st.sampled_from(["parent", "thread_id", "file_path", "url", "about", "identity"]))
def test_distinguishing_fields_are_identity(text: str, field: str) -> None:
    base = NewItem(ItemKind.CHUNK, text)
    if field == "about":
        other = replace(base, meta=ItemMeta(about=About("user", "city")))
    elif field == "identity":
        other = replace(base, identity="turn-3")
    else:
        value: dict[str, Any] = {field: "v"}
        other = replace(base, meta=ItemMeta(**value))
    assert content_key(base) != content_key(other)


@given(texts, st.integers(min_value=1, max_value=50))
def test_generations_give_distinct_ids(text: str, generation: int) -> None:
    key = content_key(NewItem(ItemKind.LEARNING, text))
    first = item_id(key)
    later = item_id(key, generation)
    assert later != first
    assert later == item_id(key, generation)
    assert later.startswith("m_") and len(later) == 26
