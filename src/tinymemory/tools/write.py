"""The two write tools. The tools, not the model, build the stored metadata and confine every forget."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from tinymemory.api import (
    DEFAULT_CONFIDENCE,
    DEFAULT_LEARNING_KIND,
    LEARNING_KINDS,
    ForgetRequest,
    GetRequest,
    InvalidRequest,
    ItemKind,
    ItemMeta,
    MetaFilter,
    NewItem,
    utcnow,
)
from tinymemory.api.validate import MAX_TAG_CHARS, MAX_TAGS, MAX_TEXT_CHARS
from tinymemory.tools import args as arguments
from tinymemory.tools import render
from tinymemory.tools.args import (
    Obj,
    closed,
    fail,
    read_enum,
    read_number,
    read_str,
    read_str_list,
)
from tinymemory.tools.read import scoped
from tinymemory.tools.scope import Session

SHAPES: tuple[str, ...] = ("learning", "document", "conversation")
MAX_EVIDENCE = 64
MAX_TURNS = 1000
MAX_ROLE_CHARS = 64


async def store(session: Session, args: Obj) -> dict[str, Any]:
    """Invariant 1: the item lands at the scope's place, from the agent, observed now."""
    tool = session.tool
    closed(tool, args, (*SHAPES, "tags"), "")
    given = [shape for shape in SHAPES if args.get(shape) is not None]
    if len(given) != 1:
        got = "none" if not given else ", ".join(f"`{g}`" for g in given)
        raise InvalidRequest(
            f"{tool}: give exactly one of `learning`, `document` or `conversation` (got {got})"
        )
    tags = read_str_list(tool, args, "tags", "", max_items=MAX_TAGS, max_chars=MAX_TAG_CHARS) or ()
    meta = ItemMeta(
        namespace=session.scope.place,
        source=session.scope.source,
        tags=tags,
        observed_at=utcnow(),
    )
    shape = given[0]
    if shape == "learning":
        item = _learning(tool, args, meta)
    elif shape == "document":
        item = _document(tool, args, meta)
    else:
        item = _conversation(tool, args, meta)
    return render.store(await session.engine.store(item))


def _text(tool: str, obj: Obj, where: str) -> str:
    text = read_str(tool, obj, "text", where, required=True, max_chars=MAX_TEXT_CHARS)
    assert text is not None
    return text


def _learning(tool: str, args: Obj, meta: ItemMeta) -> NewItem:
    obj = closed(tool, args["learning"], ("text", "learning_kind", "confidence", "evidence"), "learning")
    text = _text(tool, obj, "learning")
    kind = read_enum(tool, obj, "learning_kind", "learning", LEARNING_KINDS, "a learning kind")
    confidence = read_number(tool, obj, "confidence", "learning", low=0.0, high=1.0)
    evidence = read_str_list(tool, obj, "evidence", "learning", max_items=MAX_EVIDENCE) or ()
    return NewItem(
        kind=ItemKind.LEARNING,
        text=text,
        meta=replace(meta, learning_kind=kind or DEFAULT_LEARNING_KIND, evidence=evidence),
        confidence=DEFAULT_CONFIDENCE if confidence is None else confidence,
    )


def _document(tool: str, args: Obj, meta: ItemMeta) -> NewItem:
    obj = closed(tool, args["document"], ("title", "text"), "document")
    title = read_str(tool, obj, "title", "document")
    text = _text(tool, obj, "document")
    return NewItem(kind=ItemKind.DOCUMENT, text=text, meta=replace(meta, title=title))


def _conversation(tool: str, args: Obj, meta: ItemMeta) -> NewItem:
    """Turns are stored as one conversation item whose text is `role: text` lines."""
    obj = closed(tool, args["conversation"], ("turns",), "conversation")
    turns = obj.get("turns")
    if turns is None:
        raise fail(tool, "conversation.turns", "is required")
    if not isinstance(turns, list | tuple):
        raise fail(tool, "conversation.turns", "must be an array of {role, text} objects")
    if not 1 <= len(turns) <= MAX_TURNS:
        raise fail(tool, "conversation.turns", f"must hold between 1 and {MAX_TURNS} turns, got {len(turns)}")
    lines: list[str] = []
    for i, raw in enumerate(turns):
        where = f"conversation.turns[{i}]"
        turn = closed(tool, raw, ("role", "text"), where)
        role = read_str(tool, turn, "role", where, required=True, max_chars=MAX_ROLE_CHARS)
        text = _text(tool, turn, where)
        lines.append(f"{(role or '').strip()}: {text.strip()}")
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
    reach = session.scope.reach
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
    result = await session.engine.forget(ForgetRequest(filter=scoped(session, flt), reach=reach))
    return render.forget_result(result, [])
