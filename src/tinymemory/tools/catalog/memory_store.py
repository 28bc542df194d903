"""memory_store: remember a learning, a document or a conversation. The tool, not the model, builds
the stored metadata (invariant 1: the item lands at the scope's place, from the agent, observed now)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from pydantic import Field

from tinymemory.api import (
    DEFAULT_CONFIDENCE,
    DEFAULT_LEARNING_KIND,
    LEARNING_KINDS,
    ItemKind,
    ItemMeta,
    NewItem,
    StoreResult,
    utcnow,
)
from tinymemory.api.validate import MAX_TAG_CHARS, MAX_TAGS, MAX_TEXT_CHARS, fail
from tinymemory.tools.answers import Answer
from tinymemory.tools.declaration import Tool, always
from tinymemory.tools.fields import (
    Number,
    Object,
    ObjectList,
    OneOf,
    Shape,
    Text,
    TextList,
    Token,
    Values,
    keep,
)
from tinymemory.tools.scope import MemoryTool, Session
from tinymemory.tools.strict import Obj

MAX_EVIDENCE = 64
MAX_TURNS = 1000
MAX_ROLE_CHARS = 64

LEARNING_TEXT = Text(
    name="text",
    description="The learning, one self-contained statement.",
    required=True,
    max_chars=MAX_TEXT_CHARS,
)
LEARNING_KIND = Token(
    name="learning_kind",
    description="What sort of learning it is (default fact).",
    what="a learning kind",
    choices=LEARNING_KINDS,
)
CONFIDENCE = Number(name="confidence", description="How sure you are, 0 to 1 (default 0.8).", low=0, high=1)
EVIDENCE = TextList(
    name="evidence", description="Ids of memories (or short quotes) that support it.", max_items=MAX_EVIDENCE
)
LEARNING = Object(
    name="learning",
    description="A distilled fact, preference, instruction, event, decision or procedure.",
    fields=(LEARNING_TEXT, LEARNING_KIND, CONFIDENCE, EVIDENCE),
    build=keep,
)
TITLE = Text(name="title", description="The document's title.")
DOCUMENT_TEXT = Text(name="text", description="The document's text.", required=True, max_chars=MAX_TEXT_CHARS)
DOCUMENT = Object(name="document", description="A whole document.", fields=(TITLE, DOCUMENT_TEXT), build=keep)
ROLE = Text(
    name="role", description="Who spoke (user, assistant, ...).", required=True, max_chars=MAX_ROLE_CHARS
)
TURN_TEXT = Text(name="text", description="What was said.", required=True, max_chars=MAX_TEXT_CHARS)
TURNS = ObjectList(
    name="turns",
    description="The turns, in order.",
    required=True,
    fields=(ROLE, TURN_TEXT),
    min_items=1,
    max_items=MAX_TURNS,
    what="{role, text} objects",
    unit="turns",
)
CONVERSATION = Object(name="conversation", description="A conversation excerpt.", fields=(TURNS,), build=keep)
TAGS = TextList(
    name="tags", description="Short labels to find it by later.", max_items=MAX_TAGS, max_chars=MAX_TAG_CHARS
)
SHAPES = OneOf((LEARNING, DOCUMENT, CONVERSATION))
ARGUMENTS = Shape((LEARNING, DOCUMENT, CONVERSATION, TAGS))


class Stored(Answer):
    id: str
    replayed: bool = Field(description="true when the same item was already stored (same id)")


async def store(session: Session, shape: Shape, raw: Obj) -> dict[str, Any]:
    tool = session.tool
    obj = shape.closed(tool, raw)  # field by field: which shape is given is decided first
    given = SHAPES.which(tool, obj)
    meta = ItemMeta(
        namespace=session.scope.place,
        source=session.scope.source,
        tags=TAGS.read(tool, obj) or (),
        observed_at=utcnow(),
    )
    if given is LEARNING:
        item = _learning(_read(LEARNING, tool, obj), meta)
    elif given is DOCUMENT:
        item = _document(_read(DOCUMENT, tool, obj), meta)
    else:
        item = _conversation(tool, _read(CONVERSATION, tool, obj), meta)
    return rendered(await session.engine.store(item))


def rendered(result: StoreResult) -> dict[str, Any]:
    return {"id": result.id, "replayed": result.replayed}


def _read(field: Object[Values], tool: str, obj: Obj) -> Values:
    values = field.read(tool, obj)
    assert values is not None  # SHAPES.which found it
    return values


def _learning(got: Values, meta: ItemMeta) -> NewItem:
    confidence = got[CONFIDENCE]
    return NewItem(
        kind=ItemKind.LEARNING,
        text=got.must(LEARNING_TEXT),
        meta=replace(
            meta,
            learning_kind=got[LEARNING_KIND] or DEFAULT_LEARNING_KIND,
            evidence=got[EVIDENCE] or (),
        ),
        confidence=DEFAULT_CONFIDENCE if confidence is None else confidence,
    )


def _document(got: Values, meta: ItemMeta) -> NewItem:
    return NewItem(kind=ItemKind.DOCUMENT, text=got.must(DOCUMENT_TEXT), meta=replace(meta, title=got[TITLE]))


def _conversation(tool: str, got: Values, meta: ItemMeta) -> NewItem:
    """Turns are stored as one conversation item whose text is `role: text` lines."""
    lines = [f"{t.must(ROLE).strip()}: {t.must(TURN_TEXT).strip()}" for t in got.must(TURNS)]
    text = "\n".join(lines)
    if len(text) > MAX_TEXT_CHARS:
        raise fail(tool, "conversation.turns", f"are longer than {MAX_TEXT_CHARS} characters together")
    return NewItem(kind=ItemKind.CONVERSATION, text=text, meta=meta)


TOOL: MemoryTool = Tool(
    name="memory_store",
    description="Remember something. Give exactly one of learning, document or conversation. "
    "Storing the same memory again is a replay, not a duplicate.",
    arguments=always(ARGUMENTS),
    handler=store,
    result=Stored,
    answers="The item's id (replayed: true when it was already stored).",
    writes=True,
    replay_safe=True,
    route="/store",
)
