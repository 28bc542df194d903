"""The two write tools. The tools, not the model, build the stored metadata and confine every forget."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from tinymemory.api import (
    DEFAULT_CONFIDENCE,
    DEFAULT_LEARNING_KIND,
    ForgetRequest,
    GetRequest,
    InvalidRequest,
    ItemKind,
    ItemMeta,
    MetaFilter,
    NewItem,
    utcnow,
)
from tinymemory.api.validate import MAX_TEXT_CHARS
from tinymemory.tools import args as arguments
from tinymemory.tools import render
from tinymemory.tools.args import Obj, fail
from tinymemory.tools.fields import Values
from tinymemory.tools.scope import Session


async def store(session: Session, args: Obj) -> dict[str, Any]:
    """Invariant 1: the item lands at the scope's place, from the agent, observed now."""
    tool = session.tool
    obj = arguments.STORE.closed(tool, args)  # field by field: which shape is given is decided first
    shape = arguments.STORE_SHAPE.which(tool, obj)
    meta = ItemMeta(
        namespace=session.scope.place,
        source=session.scope.source,
        tags=arguments.TAGS.read(tool, obj) or (),
        observed_at=utcnow(),
    )
    if shape is arguments.LEARNING:
        item = _learning(_given(arguments.LEARNING.read(tool, obj)), meta)
    elif shape is arguments.DOCUMENT:
        item = _document(_given(arguments.DOCUMENT.read(tool, obj)), meta)
    else:
        item = _conversation(tool, _given(arguments.CONVERSATION.read(tool, obj)), meta)
    return render.store(await session.engine.store(item))


def _given(values: Values | None) -> Values:
    assert values is not None  # STORE_SHAPE.which found it
    return values


def _learning(got: Values, meta: ItemMeta) -> NewItem:
    confidence = got[arguments.CONFIDENCE]
    return NewItem(
        kind=ItemKind.LEARNING,
        text=got.must(arguments.LEARNING_TEXT),
        meta=replace(
            meta,
            learning_kind=got[arguments.LEARNING_KIND] or DEFAULT_LEARNING_KIND,
            evidence=got[arguments.EVIDENCE] or (),
        ),
        confidence=DEFAULT_CONFIDENCE if confidence is None else confidence,
    )


def _document(got: Values, meta: ItemMeta) -> NewItem:
    text = got.must(arguments.DOCUMENT_TEXT)
    return NewItem(kind=ItemKind.DOCUMENT, text=text, meta=replace(meta, title=got[arguments.TITLE]))


def _conversation(tool: str, got: Values, meta: ItemMeta) -> NewItem:
    """Turns are stored as one conversation item whose text is `role: text` lines."""
    turns = got.must(arguments.TURNS)
    lines = [f"{t.must(arguments.ROLE).strip()}: {t.must(arguments.TURN_TEXT).strip()}" for t in turns]
    text = "\n".join(lines)
    if len(text) > MAX_TEXT_CHARS:
        raise fail(tool, "conversation.turns", f"are longer than {MAX_TEXT_CHARS} characters together")
    return NewItem(kind=ItemKind.CONVERSATION, text=text, meta=meta)


async def forget(session: Session, args: Obj) -> dict[str, Any]:
    """Invariant 3: ids are read back under the reach first; a filter must say something and is confined."""
    tool = session.tool
    obj = arguments.FORGET.closed(tool, args)  # field by field: the either-or rule sits between them
    ids = arguments.FORGET_IDS.read(tool, obj)
    has_filter = obj.get(arguments.FILTER.name) is not None
    if ids is not None and has_filter:
        raise InvalidRequest(f"{tool}: give either `ids` or `filter`, not both")
    reach = session.scope.forgets
    if ids is not None:
        found = await session.engine.get(GetRequest(ids=ids, reach=reach))
        visible = {it.id for it in found.items}
        skipped = [i for i in ids if i not in visible]
        keep = tuple(i for i in ids if i in visible)
        if not keep:
            return render.forget(0, skipped)
        result = await session.engine.forget(ForgetRequest(ids=keep, reach=reach))
        return render.forget_result(result, skipped)
    if not has_filter:
        raise InvalidRequest(f"{tool}: give `ids` or a non-empty `filter`")
    flt = arguments.FILTER.read(tool, obj) or MetaFilter()
    if flt.is_empty():
        raise fail(
            tool, "filter", "must set at least one field (an empty filter would forget everything in reach)"
        )
    result = await session.engine.forget(
        ForgetRequest(filter=replace(flt, namespace=None, reach=reach), reach=reach)
    )
    return render.forget_result(result, [])
