"""Portable records: one stored version of a memory, engine-neutral, and its JSON line.

`tinymemory export` writes a store as JSON lines and `tinymemory import` reads them into any engine, so a
store moves between SQLite and Postgres without loss: every version with its valid times and
supersession links, ids, content keys and generations, forgotten flags, and optionally vectors.

The encoding is deterministic (fixed key order, compact separators, UTF-8 kept as is, vector floats as
the shortest text that reads back to the same float32), so exporting an imported file again gives the
same bytes. A forgotten version leaves as a tombstone (`tombstone`): forget means forgotten, and an
export is a copy that leaves the machine. See docs/architecture/export.md.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any, Protocol, runtime_checkable

from tinymemory.api.echo import echo
from tinymemory.api.errors import Conflict, InvalidRequest, Unsupported
from tinymemory.api.ids import item_id
from tinymemory.api.items import (
    SCALAR_META_FIELDS,
    About,
    ItemKind,
    ItemMeta,
    MemoryItem,
    Ref,
    Relation,
    Source,
)
from tinymemory.api.namespace import Namespace
from tinymemory.api.timeutil import format_rfc3339, parse_rfc3339
from tinymemory.api.validate import check_unicode

FORMAT = "tinymemory-export"
FORMAT_VERSION = 1

_ID = re.compile(r"m_[0-9a-f]{24}")
_CKEY = re.compile(r"[0-9a-f]{64}")
_REF_FIELDS = ("kind", "ref", "media_type", "sha256", "status", "url")
# A record's keys, in the order they are written: identity, content, metadata, then time.
RECORD_FIELDS: tuple[str, ...] = (
    "id",
    "ckey",
    "generation",
    "kind",
    "namespace",
    "text",
    "confidence",
    "source",
    *SCALAR_META_FIELDS,
    "about",
    "tags",
    "evidence",
    "refs",
    "extra",
    "relations",
    "observed_at",
    "event_from",
    "event_to",
    "valid_from",
    "valid_to",
    "forgotten_at",
    "superseded_by",
    "supersedes",
    "vector",
)


@dataclass(frozen=True, slots=True)
class StoredVector:
    """A version's embedding: which embedder made it, its size and its float32 values."""

    embedder: str
    dim: int
    values: tuple[float, ...]


@dataclass(frozen=True, slots=True)
class StoredRecord:
    """One stored version exactly as an engine keeps it: the item with its bitemporal state, plus the
    identity an engine derives (content key and generation) and, when asked for, its vector."""

    item: MemoryItem
    content_key: str
    generation: int
    vector: StoredVector | None = None

    @property
    def id(self) -> str:
        """The stored version's id (that of its item)."""
        return self.item.id


@dataclass(frozen=True, slots=True)
class ImportResult:
    """Versions written, and versions skipped because their id was already in the store."""

    imported: int
    skipped: int


@runtime_checkable
class PortableEngine(Protocol):
    """An engine whose store can be exported and imported (`tinymemory export` / `import`)."""

    def export_records(self, *, vectors: bool) -> AsyncIterator[StoredRecord]:
        """Every version, forgotten ones as tombstones, in the order they were written (so an import
        keeps it), from one consistent snapshot; with `vectors`, each carries its vector if it has one."""
        ...

    async def import_records(self, records: Sequence[StoredRecord]) -> ImportResult:
        """Write the versions exactly (ids, generations, valid times, forgotten flags) and rebuild what
        derives from them, all or nothing; a version whose id is present is skipped."""
        ...


def tombstone(record: StoredRecord) -> StoredRecord:
    """A forgotten version without its content: text, title, summary, relations, refs and vector go;
    ids, times and the rest of the metadata stay. Other versions are returned unchanged."""
    item = record.item
    if item.forgotten_at is None:
        return record
    meta = replace(item.meta, title=None, summary=None, relations=(), refs=())
    return replace(record, item=replace(item, text="", meta=meta), vector=None)


def check_record(op: str, record: object, field: str = "record") -> StoredRecord:
    """A record handed to an engine directly: its type, and an id that its content key and generation
    make (`item_id`); records read from a file were checked field by field by `decode_record`."""
    if not isinstance(record, StoredRecord) or not isinstance(record.item, MemoryItem):
        raise InvalidRequest(f"{op}: `{field}` must be a StoredRecord")
    key, gen = record.content_key, record.generation
    if not (isinstance(key, str) and _CKEY.fullmatch(key)):
        raise InvalidRequest(f"{op}: `{field}.content_key` must be 64 lowercase hex digits")
    if isinstance(gen, bool) or not isinstance(gen, int) or gen < 0:
        raise InvalidRequest(f"{op}: `{field}.generation` must be an integer of at least 0")
    if record.item.id != item_id(key, gen):
        raise InvalidRequest(f"{op}: `{field}.id` does not derive from its content key and generation")
    if record.item.meta.observed_at is None:
        raise InvalidRequest(f"{op}: `{field}.meta.observed_at` is missing")
    return record


# -- encoding -------------------------------------------------------------------------------------------


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def encode_header() -> str:
    """The first line of a file: what it is and which version of the format."""
    return _dumps({"format": FORMAT, "version": FORMAT_VERSION})


def encode_trailer(records: int) -> str:
    """The last line: its presence proves the file is whole; `records` counts the lines between."""
    return _dumps({"end": FORMAT, "records": records})


def _time(value: datetime | None) -> str | None:
    return None if value is None else format_rfc3339(value)


def _float32_text(values: tuple[float, ...], what: str) -> str:
    """Each value as the shortest decimal that reads back to the same float32 (numpy's float32 str)."""
    import numpy as np  # here, not at the top: the contract's import stays light

    block = np.asarray(values, dtype=np.float32)
    if not np.isfinite(block).all():
        raise InvalidRequest(f"export: the vector of {what} holds a value that is not finite")
    return ",".join(map(str, block))


def encode_record(record: StoredRecord) -> str:
    """One JSON line (no newline): the record's fields in `RECORD_FIELDS` order, every key present.

    A forgotten version is written as its tombstone, whatever the caller passed.
    """
    record = tombstone(record)
    item, meta = record.item, record.item.meta
    doc: dict[str, Any] = {
        "id": item.id,
        "ckey": record.content_key,
        "generation": record.generation,
        "kind": item.kind.value,
        "namespace": str(meta.namespace),
        "text": item.text,
        "confidence": item.confidence,
        "source": None if meta.source is None else {"kind": meta.source.kind, "id": meta.source.id},
    }
    for name in SCALAR_META_FIELDS:
        doc[name] = getattr(meta, name)
    doc["about"] = None if meta.about is None else {"kind": meta.about.kind, "key": meta.about.key}
    doc["tags"] = list(meta.tags)
    doc["evidence"] = list(meta.evidence)
    doc["refs"] = [{name: getattr(r, name) for name in _REF_FIELDS} for r in meta.refs]
    doc["extra"] = [[k, v] for k, v in meta.extra]
    doc["relations"] = [{"subject": r.subject, "type": r.type, "object": r.object} for r in meta.relations]
    doc["observed_at"] = _time(meta.observed_at)
    doc["event_from"] = _time(meta.event_from)
    doc["event_to"] = _time(meta.event_to)
    doc["valid_from"] = _time(item.valid_from)
    doc["valid_to"] = _time(item.valid_to)
    doc["forgotten_at"] = _time(item.forgotten_at)
    doc["superseded_by"] = item.superseded_by
    doc["supersedes"] = item.supersedes
    vec = record.vector
    if vec is None:
        doc["vector"] = None
        return _dumps(doc)
    # the floats are written by hand (json would write each float32 as its longer float64 repr)
    head = _dumps({"embedder": vec.embedder, "dim": vec.dim})
    return f'{_dumps(doc)[:-1]},"vector":{head[:-1]},"values":[{_float32_text(vec.values, item.id)}]}}}}'


# -- decoding -------------------------------------------------------------------------------------------


class _Line:
    """Checks of one decoded line; every error names the operation, the line number and the field."""

    def __init__(self, op: str, number: int) -> None:
        self.where = f"{op}: line {number}:"

    def fail(self, field: str, problem: str) -> InvalidRequest:
        return InvalidRequest(f"{self.where} `{field}` {problem}")

    def text(self, field: str, value: object) -> str:
        if not isinstance(value, str):
            raise self.fail(field, f"must be a string, got {_json_type(value)}")
        try:
            return check_unicode("", field, value)
        except InvalidRequest as exc:  # "`field` <problem>": keep the problem, name the line
            problem = str(exc).split("` ", 1)[-1]
            raise self.fail(field, problem) from None

    def opt_text(self, field: str, value: object) -> str | None:
        return None if value is None else self.text(field, value)

    def integer(self, field: str, value: object, minimum: int) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
            raise self.fail(field, f"must be an integer of at least {minimum}, got {echo(value)}")
        return value

    def id(self, field: str, value: object) -> str:
        text = self.text(field, value)
        if not _ID.fullmatch(text):
            raise self.fail(field, f"`{echo(text)}` is not a memory id (m_ and 24 hex digits)")
        return text

    def opt_id(self, field: str, value: object) -> str | None:
        return None if value is None else self.id(field, value)

    def time(self, field: str, value: object) -> datetime:
        return parse_rfc3339(value, field=field, op=self.where[:-1])

    def opt_time(self, field: str, value: object) -> datetime | None:
        return None if value is None else self.time(field, value)

    def obj(self, field: str, value: object, keys: tuple[str, ...]) -> dict[str, Any]:
        """A JSON object with exactly `keys`."""
        if not isinstance(value, dict):
            raise self.fail(field, f"must be an object, got {_json_type(value)}")
        for key in keys:
            if key not in value:
                raise self.fail(f"{field}.{key}" if field else key, "is missing")
        for key in value:
            if key not in keys:
                name = f"{field}.{key}" if field else key
                raise self.fail(echo(name), f"is not a field of format version {FORMAT_VERSION}")
        return value

    def array(self, field: str, value: object) -> list[Any]:
        if not isinstance(value, list):
            raise self.fail(field, f"must be an array, got {_json_type(value)}")
        return value

    def texts(self, field: str, value: object) -> tuple[str, ...]:
        return tuple(self.text(f"{field}[{i}]", v) for i, v in enumerate(self.array(field, value)))


def _json_type(value: object) -> str:
    names: dict[type, str] = {dict: "an object", list: "an array", str: "a string", bool: "a boolean"}
    if value is None:
        return "null"
    if isinstance(value, int | float) and not isinstance(value, bool):
        return "a number"
    return names.get(type(value), type(value).__name__)


def _parse(op: str, number: int, line: str | bytes) -> object:
    check = _Line(op, number)
    if isinstance(line, bytes):
        try:
            line = line.decode("utf-8")
        except UnicodeDecodeError:
            raise InvalidRequest(f"{check.where} is not valid UTF-8") from None
    if not line.strip():
        raise InvalidRequest(f"{check.where} is empty (every line holds one JSON object)")
    try:
        return json.loads(line)
    except json.JSONDecodeError as exc:
        problem = f"{exc.msg[:1].lower()}{exc.msg[1:]} at column {exc.colno}"
        raise InvalidRequest(f"{check.where} is not valid JSON ({echo(problem, 120)})") from None
    except (ValueError, RecursionError) as exc:
        raise InvalidRequest(f"{check.where} is not valid JSON ({echo(str(exc), 120)})") from None


def decode_header(line: str | bytes, *, op: str = "import") -> int:
    """Check the first line; return the format version. A version this code cannot read is Unsupported."""
    check = _Line(op, 1)
    doc = _parse(op, 1, line)
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise InvalidRequest(
            f"{check.where} `format` is not {FORMAT} (the first line of an export names its format)"
        )
    version = doc.get("version")
    if version != FORMAT_VERSION or isinstance(version, bool):
        raise Unsupported(
            f"{op}: line 1: format version {echo(version)} is not supported (this tinymemory reads version "
            f"{FORMAT_VERSION}; export again with a matching tinymemory)"
        )
    check.obj("", doc, ("format", "version"))
    return FORMAT_VERSION


def is_trailer(doc: object) -> bool:
    return isinstance(doc, dict) and "end" in doc


def decode_line(line: str | bytes, number: int, *, op: str = "import") -> StoredRecord | int:
    """A record, or the trailer's record count (the trailer must be the last line; the caller checks)."""
    doc = _parse(op, number, line)
    check = _Line(op, number)
    if is_trailer(doc):
        assert isinstance(doc, dict)
        check.obj("", doc, ("end", "records"))
        if doc["end"] != FORMAT:
            raise check.fail("end", f"is not {FORMAT}")
        return check.integer("records", doc["records"], 0)
    return _decode_record(check, doc)


def decode_record(line: str | bytes, number: int, *, op: str = "import") -> StoredRecord:
    """One record line, checked field by field (InvalidRequest naming the line and the field)."""
    found = decode_line(line, number, op=op)
    if not isinstance(found, StoredRecord):
        raise InvalidRequest(f"{op}: line {number}: is the closing line, expected a record")
    return found


def _decode_record(check: _Line, value: object) -> StoredRecord:
    doc = check.obj("", value, RECORD_FIELDS)
    item_id_ = check.id("id", doc["id"])
    ckey = check.text("ckey", doc["ckey"])
    if not _CKEY.fullmatch(ckey):
        raise check.fail("ckey", "must be 64 lowercase hex digits")
    generation = check.integer("generation", doc["generation"], 0)
    if item_id(ckey, generation) != item_id_:
        raise check.fail("id", "does not derive from `ckey` and `generation` (the line was altered)")
    kind = check.text("kind", doc["kind"])
    if kind not in ItemKind.values():
        raise check.fail("kind", f"`{echo(kind)}` is not one of {', '.join(ItemKind.values())}")
    namespace = Namespace.parse(check.text("namespace", doc["namespace"]), field=f"{check.where} `namespace`")
    confidence = doc["confidence"]
    if confidence is not None and (
        isinstance(confidence, bool) or not isinstance(confidence, int | float) or not 0 <= confidence <= 1
    ):
        raise check.fail("confidence", f"must be null or a number between 0 and 1, got {echo(confidence)}")
    forgotten_at = check.opt_time("forgotten_at", doc["forgotten_at"])
    text = check.text("text", doc["text"])
    meta = _decode_meta(check, doc, namespace)
    item = MemoryItem(
        id=item_id_,
        kind=ItemKind(kind),
        text=text,
        meta=meta,
        confidence=None if confidence is None else float(confidence),
        valid_from=check.time("valid_from", doc["valid_from"]),
        valid_to=check.opt_time("valid_to", doc["valid_to"]),
        forgotten_at=forgotten_at,
        superseded_by=check.opt_id("superseded_by", doc["superseded_by"]),
        supersedes=check.opt_id("supersedes", doc["supersedes"]),
    )
    vector = None if doc["vector"] is None else _decode_vector(check, doc["vector"])
    return StoredRecord(item, ckey, generation, vector)


def _decode_meta(check: _Line, doc: dict[str, Any], namespace: Namespace) -> ItemMeta:
    source = None
    if doc["source"] is not None:
        src = check.obj("source", doc["source"], ("kind", "id"))
        source = Source(check.text("source.kind", src["kind"]), check.opt_text("source.id", src["id"]))
    about = None
    if doc["about"] is not None:
        ab = check.obj("about", doc["about"], ("kind", "key"))
        about = About(check.text("about.kind", ab["kind"]), check.text("about.key", ab["key"]))
    refs: list[Ref] = []
    for i, raw in enumerate(check.array("refs", doc["refs"])):
        ref = check.obj(f"refs[{i}]", raw, _REF_FIELDS)
        fields = {name: check.opt_text(f"refs[{i}].{name}", ref[name]) for name in _REF_FIELDS}
        for name in ("kind", "ref", "status"):
            if fields[name] is None:
                raise check.fail(f"refs[{i}].{name}", "must be a string, got null")
        refs.append(Ref(**fields))  # type: ignore[arg-type]
    extra: list[tuple[str, str]] = []
    for i, raw in enumerate(check.array("extra", doc["extra"])):
        pair = check.texts(f"extra[{i}]", raw)
        if len(pair) != 2:
            raise check.fail(f"extra[{i}]", "must be a [key, value] pair of strings")
        extra.append((pair[0], pair[1]))
    relations: list[Relation] = []
    for i, raw in enumerate(check.array("relations", doc["relations"])):
        rel = check.obj(f"relations[{i}]", raw, ("subject", "type", "object"))
        relations.append(
            Relation(*(check.text(f"relations[{i}].{n}", rel[n]) for n in ("subject", "type", "object")))
        )
    scalars = {name: check.opt_text(name, doc[name]) for name in SCALAR_META_FIELDS}
    return ItemMeta(
        namespace=namespace,
        source=source,
        tags=check.texts("tags", doc["tags"]),
        evidence=check.texts("evidence", doc["evidence"]),
        about=about,
        refs=tuple(refs),
        extra=tuple(extra),
        relations=tuple(relations),
        observed_at=check.time("observed_at", doc["observed_at"]),
        event_from=check.opt_time("event_from", doc["event_from"]),
        event_to=check.opt_time("event_to", doc["event_to"]),
        **scalars,
    )


def _decode_vector(check: _Line, value: object) -> StoredVector:
    vec = check.obj("vector", value, ("embedder", "dim", "values"))
    embedder = check.text("vector.embedder", vec["embedder"])
    dim = check.integer("vector.dim", vec["dim"], 1)
    raw = check.array("vector.values", vec["values"])
    if len(raw) != dim:
        raise check.fail("vector.values", f"holds {len(raw)} numbers, expected `dim` ({dim})")
    for i, v in enumerate(raw):
        if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v):
            raise check.fail(f"vector.values[{i}]", f"must be a finite number, got {echo(v)}")
    import numpy as np

    block = np.asarray(raw, dtype=np.float64).astype(np.float32)
    if not np.isfinite(block).all():
        raise check.fail("vector.values", "holds a number outside the float32 range")
    return StoredVector(embedder, dim, tuple(block.tolist()))


__all__ = [
    "FORMAT",
    "FORMAT_VERSION",
    "RECORD_FIELDS",
    "ImportResult",
    "PortableEngine",
    "StoredRecord",
    "StoredVector",
    "check_record",
    "decode_header",
    "decode_line",
    "decode_record",
    "encode_header",
    "encode_record",
    "encode_trailer",
    "is_trailer",
    "tombstone",
]


def second_active(item_id: str, other_id: str) -> Conflict:
    """The refusal of an import whose active version would sit beside another active version of the same
    content (a replay could then pick either); every engine words it alike."""
    return Conflict(
        f"import: `{item_id}` is an active version of content whose active version here is"
        f" `{other_id}`; import into an empty store, or forget `{other_id}` first"
    )
