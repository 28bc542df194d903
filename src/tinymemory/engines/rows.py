"""Mapping between contract values and the rows of a SQL engine (times as integer microseconds, UTC).

Both SQL engines share this layout: one `items` row per version, scalar meta in same-named columns,
the repeated fields in one JSON column.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from datetime import datetime
from functools import lru_cache
from typing import Any, Protocol

from tinymemory.api.errors import TinyMemoryError
from tinymemory.api.filters import FACET_META_FIELDS, Facet
from tinymemory.api.items import (
    SCALAR_META_FIELDS,
    About,
    ItemKind,
    ItemMeta,
    MemoryItem,
    NewItem,
    Ref,
    Source,
)
from tinymemory.api.namespace import Namespace, Reach
from tinymemory.api.records import StoredRecord, StoredVector
from tinymemory.api.requests import Bucket, ExploreResult
from tinymemory.engines.micros import from_us as from_us
from tinymemory.engines.micros import opt_from_us as opt_from_us
from tinymemory.engines.micros import opt_to_us as opt_to_us
from tinymemory.engines.micros import to_us as to_us
from tinymemory.engines.versions import relations_of

# Scalar meta fields stored in same-named columns.
META_COLUMNS = SCALAR_META_FIELDS

# The tables a purged row leaves, with the column naming it; the row itself goes last.
PURGED_TABLES = (
    ("vectors", "item_rowid"),
    ("item_tags", "item_rowid"),
    ("item_evidence", "item_rowid"),
    ("relations", "item_rowid"),
    ("items", "rowid"),
)

# The column each explore facet buckets by.
FACET_COLUMNS: dict[Facet, str] = {
    Facet.KIND: "kind",
    Facet.SOURCE: "source_kind",
    Facet.SOURCE_ID: "source_id",
    **FACET_META_FIELDS,  # each meta field's column has its name
}

ITEM_SELECT = (
    "i.rowid, i.id, i.kind, i.text, i.confidence, i.ns, i.source_kind, i.source_id, "
    + ", ".join(f"i.{c}" for c in META_COLUMNS)
    + ", i.about_kind, i.about_key, i.observed_at, i.event_from, i.event_to, i.valid_from, i.valid_to,"
    " i.forgotten_at, i.superseded_by, i.supersedes, i.extra"
)


def encode_extra(meta: ItemMeta) -> str:
    """Repeated and rarely-filtered fields travel as one JSON column (tags also get a side table)."""
    doc: dict[str, Any] = {}
    if meta.tags:
        doc["tags"] = list(meta.tags)
    if meta.evidence:
        doc["evidence"] = list(meta.evidence)
    if meta.refs:
        doc["refs"] = [
            {
                k: v
                for k, v in (
                    ("kind", r.kind),
                    ("ref", r.ref),
                    ("media_type", r.media_type),
                    ("sha256", r.sha256),
                    ("status", r.status),
                    ("url", r.url),
                )
                if v is not None
            }
            for r in meta.refs
        ]
    if meta.extra:
        doc["extra"] = [list(p) for p in meta.extra]
    if meta.relations:
        doc["relations"] = [[r.subject, r.type, r.object] for r in meta.relations]
    if not doc:  # most items: what json.dumps writes for an empty object
        return "{}"
    return json.dumps(doc, ensure_ascii=False, separators=(",", ":"))


def item_values(
    item: NewItem, *, item_id: str, ckey: str, generation: int, observed_at: datetime
) -> dict[str, Any]:
    """Column values for a new row."""
    meta = item.meta
    values: dict[str, Any] = {
        "id": item_id,
        "ckey": ckey,
        "generation": generation,
        "kind": item.kind.value,
        "text": item.text,
        "confidence": item.confidence,
        "ns": str(meta.namespace),
        "source_kind": meta.source.kind if meta.source else None,
        "source_id": meta.source.id if meta.source else None,
        "about_kind": meta.about.kind if meta.about else None,
        "about_key": meta.about.key if meta.about else None,
        "observed_at": to_us(observed_at),
        "event_from": opt_to_us(meta.event_from),
        "event_to": opt_to_us(meta.event_to),
        # the version is valid from when it was observed, so as_of follows the conversation's timeline
        "valid_from": to_us(observed_at),
        "extra": encode_extra(meta),
    }
    for col in META_COLUMNS:
        values[col] = getattr(meta, col)
    return values


class NamedRow(Protocol):
    """A row whose columns read by name (sqlite3.Row, psycopg's dict rows)."""

    def __getitem__(self, key: str, /) -> Any: ...


class UndecodableRow(ValueError):
    """A row tinymemory did not write that way (damaged storage); each engine reports it as damage of
    its own storage, not as a defect of the library."""


def decode_item(row: NamedRow) -> MemoryItem:
    """The item a row (`ITEM_SELECT`'s columns, by name) holds; raises UndecodableRow if it cannot."""
    try:
        return _decode_item(row)
    except (ValueError, TypeError, KeyError, OverflowError, TinyMemoryError) as exc:
        raise UndecodableRow(f"a stored item does not decode: {type(exc).__name__}") from exc


# The columns of `ITEM_SELECT`, in order: a storage that reads plain tuples names them with these.
ITEM_COLUMNS = tuple(c.strip().removeprefix("i.") for c in ITEM_SELECT.split(","))


@lru_cache(maxsize=4096)
def stored_namespace(text: str) -> Namespace:
    """A stored row's namespace (parsed once per distinct text: a read's rows share a few)."""
    return Namespace.parse(text)


def _decode_item(row: NamedRow) -> MemoryItem:
    raw = row["extra"]
    extra = {} if raw == "{}" else json.loads(raw)  # most rows have none of the repeated fields
    source = Source(row["source_kind"], row["source_id"]) if row["source_kind"] is not None else None
    about = About(row["about_kind"], row["about_key"]) if row["about_kind"] is not None else None
    meta = ItemMeta(
        namespace=stored_namespace(row["ns"]),
        source=source,
        tags=tuple(extra.get("tags", ())),
        evidence=tuple(extra.get("evidence", ())),
        refs=tuple(Ref(**r) for r in extra.get("refs", ())),
        extra=tuple((str(k), str(v)) for k, v in extra.get("extra", ())),
        relations=relations_of(extra),
        observed_at=from_us(row["observed_at"]),
        event_from=opt_from_us(row["event_from"]),
        event_to=opt_from_us(row["event_to"]),
        about=about,
        # the columns a row leaves empty keep their defaults (None): fewer arguments, the same meta
        **{col: value for col in META_COLUMNS if (value := row[col]) is not None},
    )
    return MemoryItem(
        id=row["id"],
        kind=ItemKind(row["kind"]),
        text=row["text"],
        meta=meta,
        confidence=row["confidence"],
        valid_from=from_us(row["valid_from"]),
        valid_to=opt_from_us(row["valid_to"]),
        forgotten_at=opt_from_us(row["forgotten_at"]),
        superseded_by=row["superseded_by"],
        supersedes=row["supersedes"],
    )


def record_values(record: StoredRecord) -> dict[str, Any]:
    """An imported version's columns, exactly as the record has them (both SQL engines share the layout)."""
    item, meta = record.item, record.item.meta
    assert meta.observed_at is not None  # check_record
    values = item_values(
        NewItem(item.kind, item.text, meta, item.confidence),
        item_id=item.id,
        ckey=record.content_key,
        generation=record.generation,
        observed_at=meta.observed_at,
    )
    values["valid_from"] = to_us(item.valid_from)
    values["valid_to"] = opt_to_us(item.valid_to)
    values["forgotten_at"] = opt_to_us(item.forgotten_at)
    values["superseded_by"] = item.superseded_by
    values["supersedes"] = item.supersedes
    return values


def vector_fits(vector: StoredVector, space: tuple[str, int] | None) -> bool:
    """Whether an imported vector belongs to the engine's embedder (name and size); others are dropped
    on import, and re-embedding fills them."""
    return space is not None and (vector.embedder, vector.dim) == space and len(vector.values) == vector.dim


def explore_result(
    facet: Facet, groups: Iterable[tuple[Any, int]], total: int, missing: int, truncated: bool, limit: int
) -> ExploreResult:
    """Counted facet values as explore's answer: the largest `limit` buckets (ties by value); rows
    without a value are counted in `missing`, not as a bucket."""
    ordered = sorted(((str(v), int(c)) for v, c in groups if v is not None), key=lambda vc: (-vc[1], vc[0]))
    return ExploreResult(
        facet=facet,
        buckets=tuple(Bucket(v, c) for v, c in ordered[:limit]),
        total=total,
        missing=missing,
        more_buckets=len(ordered) > limit,
        truncated=truncated,
    )


def inside_reach(rows: Iterable[MemoryItem], reach: Reach | None) -> dict[str, MemoryItem]:
    """get's found items by id, keeping only those inside `reach` (the read's first privacy rule)."""
    return {item.id: item for item in rows if reach is None or reach.contains(item.namespace)}
