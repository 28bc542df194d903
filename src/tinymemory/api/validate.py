"""Request validation shared by every engine, so bad input fails the same way everywhere.

Each check raises InvalidRequest with "op: `field` ..." and runs before anything is written. Every
string is also checked to encode as UTF-8 and to hold no NUL: a lone surrogate is a valid Python `str`
that SQLite, hashing and JSON cannot take, and Postgres text cannot hold a NUL; both must fail here,
naming their field, rather than deep in an engine.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, TypeVar

from tinymemory.api.echo import echo
from tinymemory.api.errors import InvalidRequest
from tinymemory.api.filters import EQUALITY_FIELDS, Facet, FetchMode, MetaFilter, TimeHint
from tinymemory.api.items import SCALAR_META_FIELDS, About, ItemKind, ItemMeta, NewItem, Ref, Source
from tinymemory.api.namespace import Namespace, Reach
from tinymemory.api.relations import (
    MAX_ENTITY_CHARS,
    MAX_HOPS,
    MAX_RELATIONS,
    ExpandRequest,
    Relation,
    entity_key,
    is_relation_type,
)
from tinymemory.api.requests import (
    MAX_IDS,
    MAX_LIMIT,
    ExploreRequest,
    FetchRequest,
    ForgetRequest,
    GetRequest,
    ListRequest,
    RecallRequest,
)
from tinymemory.api.timeutil import OUT_OF_RANGE

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

MAX_TEXT_CHARS = 1_000_000
MAX_QUERY_CHARS = 10_000
MAX_TAGS = 64
MAX_TAG_CHARS = 64
MAX_FIELD_CHARS = 2_048
MAX_ID_CHARS = 256
MAX_CURSOR_CHARS = 4096

R = TypeVar("R")
D = TypeVar("D", bound="DataclassInstance")


def replace(obj: D, /, **changes: Any) -> D:
    """`dataclasses.replace`, or the request itself when the checks changed none of its fields (a valid
    request, the usual case, is then not copied)."""
    if all(getattr(obj, name) is value for name, value in changes.items()):
        return obj
    return dataclasses.replace(obj, **changes)


TypeName = Callable[[object], str]
"""How a message names a wrong value's type: `python_type` for Python arguments, `json_type` for JSON."""


def fail(op: str, field: str, problem: str) -> InvalidRequest:
    return InvalidRequest(f"{op}: `{field}` {problem}")


def unknown_argument(op: str, field: str, known: Iterable[str]) -> InvalidRequest:
    """An argument the call does not take, listing the ones it does."""
    return fail(op, field, f"is not a known argument (known: {', '.join(known) or 'none'})")


def python_type(value: object) -> str:
    """The type a Python argument has, as Python names it, for messages."""
    return type(value).__name__


def json_type(value: object) -> str:
    """The JSON type a value has, for messages about a JSON argument (a tool call's)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, str):
        return "string"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, Mapping):
        return "object"
    if isinstance(value, list | tuple):
        return "array"
    return type(value).__name__


def check_int(
    op: str, field: str, value: object, *, low: int, high: int, typed: TypeName = python_type
) -> int:
    """An integer in [low, high]; a bool is not one, though Python counts it as an int."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise fail(op, field, f"must be an integer, got {typed(value)}")
    if not low <= value <= high:
        raise fail(op, field, f"must be between {low} and {high}, got {echo(value)}")
    return value


def check_number(
    op: str, field: str, value: object, *, low: float, high: float, typed: TypeName = python_type
) -> float:
    """A number in [low, high]; compared before any float conversion, so a huge int or NaN cannot escape."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise fail(op, field, f"must be a number, got {typed(value)}")
    if not low <= value <= high:  # False for NaN; exact for ints of any size
        raise fail(op, field, f"must be between {low:g} and {high:g}, got {echo(value)}")
    return float(value)


def check_bool(op: str, field: str, value: object, *, typed: TypeName = python_type) -> bool:
    """True or False, and nothing that merely looks like one."""
    if not isinstance(value, bool):
        raise fail(op, field, f"must be true or false, got {typed(value)}")
    return value


def check_limit(op: str, limit: object, *, field: str = "limit", maximum: int = MAX_LIMIT) -> int:
    return check_int(op, field, limit, low=1, high=maximum)


def check_unicode(op: str, field: str, value: str) -> str:
    """`value` must encode as UTF-8 (no lone surrogates) and hold no NUL: Postgres text cannot store one,
    and an engine that could would hand back what another refuses to import."""
    if "\x00" in value:
        raise fail(op, field, "holds a nul character (`\\x00`), which memory text may not contain")
    if not value.isascii():
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise fail(op, field, "is not valid unicode (it holds a lone surrogate)") from None
    return value


def check_fraction(op: str, field: str, value: object) -> float:
    """A number in [0, 1]."""
    return check_number(op, field, value, low=0, high=1)


def check_text(
    op: str, field: str, value: object, *, max_chars: int = MAX_FIELD_CHARS, typed: TypeName = python_type
) -> str:
    """A non-blank, bounded, encodable string."""
    if not isinstance(value, str):
        raise fail(op, field, f"must be a string, got {typed(value)}")
    if not value.strip():
        raise fail(op, field, "must not be blank")
    if len(value) > max_chars:
        raise fail(op, field, f"is longer than {max_chars} characters")
    return check_unicode(op, field, value)


def _check_str(op: str, field: str, value: object, *, max_chars: int = MAX_FIELD_CHARS) -> None:
    """check_text where None means "not given"."""
    if value is not None:
        check_text(op, field, value, max_chars=max_chars)


def _check_given_str(op: str, field: str, value: object, *, max_chars: int = MAX_FIELD_CHARS) -> None:
    """check_text of a string a request must hold (None included: it is not one)."""
    if value is None:
        raise fail(op, field, "must be a string")
    check_text(op, field, value, max_chars=max_chars)


def _check_str_tuple(op: str, field: str, values: object, *, max_chars: int = MAX_FIELD_CHARS) -> None:
    if not isinstance(values, tuple):
        raise fail(op, field, "must be a tuple of strings")
    for i, v in enumerate(values):
        _check_given_str(op, f"{field}[{i}]", v, max_chars=max_chars)


def _check_time(op: str, field: str, value: object) -> datetime | None:
    """Aware and representable in UTC (an offset can push year 1 or 9999 out of datetime's range)."""
    if value is None:
        return None
    if not isinstance(value, datetime):
        raise fail(op, field, "must be a datetime")
    try:
        naive = value.tzinfo is None or value.utcoffset() is None
    except ValueError:
        raise fail(op, field, "has an invalid utc offset") from None
    if naive:
        raise fail(op, field, "must be timezone-aware")
    try:
        return value.astimezone(UTC)
    except OverflowError:
        raise fail(op, field, OUT_OF_RANGE) from None


def _instance(op: str, field: str, value: object, kind: type[R]) -> R:
    """`value` as the type the request holds there; anything else is refused, naming the type."""
    if not isinstance(value, kind):
        article = "an" if kind.__name__[0] in "AEIOU" else "a"
        raise fail(op, field, f"must be {article} {kind.__name__}")
    return value


def check_namespace(op: str, field: str, value: object) -> None:
    if value is not None and not isinstance(value, Namespace):
        raise fail(op, field, "must be a Namespace (parse strings with Namespace.parse)")


def check_reach(op: str, field: str, value: object) -> None:
    if value is not None:
        _instance(op, field, value, Reach)


def check_tags(op: str, field: str, tags: object) -> tuple[str, ...]:
    _check_str_tuple(op, field, tags, max_chars=MAX_TAG_CHARS)
    assert isinstance(tags, tuple)
    if len(tags) > MAX_TAGS:
        raise fail(op, field, f"has more than {MAX_TAGS} tags")
    return tuple(dict.fromkeys(t.strip() for t in tags))


def check_new_item(op: str, item: object, *, field: str = "item") -> NewItem:
    """Validate and normalise (tags stripped and de-duplicated, times in UTC)."""
    item = _instance(op, field, item, NewItem)
    prefix = "" if field == "item" else f"{field}."
    if not isinstance(item.kind, ItemKind):
        raise fail(op, f"{prefix}kind", f"`{echo(item.kind)}` is not an item kind")
    check_query(op, f"{prefix}text", item.text, max_chars=MAX_TEXT_CHARS)
    confidence = (
        None if item.confidence is None else check_fraction(op, f"{prefix}confidence", item.confidence)
    )
    if item.identity is not None:
        _check_str(op, f"{prefix}identity", item.identity)
    if not isinstance(item.supersede, bool):
        raise fail(op, f"{prefix}supersede", "must be true or false")
    meta = _instance(op, f"{prefix}meta", item.meta, ItemMeta)
    mp = f"{prefix}meta."
    check_namespace(op, f"{mp}namespace", meta.namespace)
    for name in SCALAR_META_FIELDS:  # most are unset: a field's name is spelled out only for one given
        value = getattr(meta, name)
        if value is not None:
            limit = MAX_QUERY_CHARS if name == "summary" else MAX_FIELD_CHARS
            check_text(op, f"{mp}{name}", value, max_chars=limit)
    if meta.source is not None:
        _instance(op, f"{mp}source", meta.source, Source)
        _check_given_str(op, f"{mp}source.kind", meta.source.kind)
        _check_str(op, f"{mp}source.id", meta.source.id)
    if meta.about is not None:
        check_about(op, f"{mp}about", meta.about)
    _check_str_tuple(op, f"{mp}evidence", meta.evidence)
    tags = check_tags(op, f"{mp}tags", meta.tags)
    observed = _check_time(op, f"{mp}observed_at", meta.observed_at)
    ev_from = _check_time(op, f"{mp}event_from", meta.event_from)
    ev_to = _check_time(op, f"{mp}event_to", meta.event_to)
    if ev_from and ev_to and ev_to < ev_from:
        raise fail(op, f"{mp}event_to", "is before `event_from`")
    if not isinstance(meta.refs, tuple):
        raise fail(op, f"{mp}refs", "must be a tuple of Ref")
    for i, ref in enumerate(meta.refs):
        _instance(op, f"{mp}refs[{i}]", ref, Ref)
        for name in ("kind", "ref", "status"):
            _check_given_str(op, f"{mp}refs[{i}].{name}", getattr(ref, name))
        for name in ("media_type", "sha256", "url"):
            _check_str(op, f"{mp}refs[{i}].{name}", getattr(ref, name))
    relations = check_relations(op, f"{mp}relations", meta.relations)
    if not isinstance(meta.extra, tuple):
        raise fail(op, f"{mp}extra", "must be a tuple of (key, value) pairs")
    for i, pair in enumerate(meta.extra):
        if not (isinstance(pair, tuple) and len(pair) == 2 and all(isinstance(p, str) for p in pair)):
            raise fail(op, f"{mp}extra[{i}]", "must be a (key, value) pair of strings")
        for part in pair:
            if len(part) > MAX_FIELD_CHARS:
                raise fail(op, f"{mp}extra[{i}]", f"is longer than {MAX_FIELD_CHARS} characters")
            check_unicode(op, f"{mp}extra[{i}]", part)
    return replace(
        item,
        confidence=confidence,
        meta=replace(
            meta,
            tags=tags,
            observed_at=observed,
            event_from=ev_from,
            event_to=ev_to,
            relations=relations,
        ),
    )


def check_relation_type(op: str, field: str, value: object) -> str:
    if not isinstance(value, str):
        raise fail(op, field, f"must be a string, got {type(value).__name__}")
    if not is_relation_type(value):
        raise fail(
            op, field, f"`{echo(value)}` is not a relation type (a lowercase identifier such as works_on)"
        )
    return value


def check_entity(op: str, field: str, value: object) -> str:
    """An entity name: a non-blank string of at most MAX_ENTITY_CHARS, kept as written (stripped)."""
    return check_text(op, field, value, max_chars=MAX_ENTITY_CHARS).strip()


def check_relations(op: str, field: str, relations: object) -> tuple[Relation, ...]:
    """Each edge checked field by field; names stripped, repeats (same keys and type) dropped."""
    if not isinstance(relations, tuple):
        raise fail(op, field, "must be a tuple of Relation")
    if len(relations) > MAX_RELATIONS:
        raise fail(op, field, f"has more than {MAX_RELATIONS} relations")
    out: dict[tuple[str, str, str], Relation] = {}
    for i, rel in enumerate(relations):
        if not isinstance(rel, Relation):
            raise fail(op, f"{field}[{i}]", "must be a Relation (subject, type, object)")
        subject = check_entity(op, f"{field}[{i}].subject", rel.subject)
        kind = check_relation_type(op, f"{field}[{i}].type", rel.type)
        obj = check_entity(op, f"{field}[{i}].object", rel.object)
        out.setdefault((entity_key(subject), kind, entity_key(obj)), Relation(subject, kind, obj))
    return tuple(out.values())


def check_about(op: str, field: str, about: object) -> None:
    if not isinstance(about, About):
        raise fail(op, field, "must be an About (kind, key)")
    for name in ("kind", "key"):
        _check_given_str(op, f"{field}.{name}", getattr(about, name))


def check_new_items(op: str, items: Sequence[object]) -> list[NewItem]:
    if isinstance(items, str | bytes) or not isinstance(items, Sequence):
        raise fail(op, "items", "must be a sequence of NewItem")
    return [check_new_item(op, it, field=f"items[{i}]") for i, it in enumerate(items)]


def check_filter(op: str, flt: object, *, field: str = "filter") -> MetaFilter:
    flt = _instance(op, field, flt, MetaFilter)
    f = field
    check_namespace(op, f"{f}.namespace", flt.namespace)
    check_reach(op, f"{f}.reach", flt.reach)
    if not isinstance(flt.kinds, tuple):
        raise fail(op, f"{f}.kinds", "must be a tuple of item kinds")
    for k in flt.kinds:
        if not isinstance(k, ItemKind):
            raise fail(op, f"{f}.kinds", f"`{echo(k)}` is not an item kind")
    for name in ("sources", "source_ids", "learning_kinds", "categories"):
        _check_str_tuple(op, f"{f}.{name}", getattr(flt, name))
    check_tags(op, f"{f}.tags_any", flt.tags_any)
    for name in EQUALITY_FIELDS:
        _check_str(op, f"{f}.{name}", getattr(flt, name))
    after = _check_time(op, f"{f}.observed_after", flt.observed_after)
    before = _check_time(op, f"{f}.observed_before", flt.observed_before)
    if after and before and before <= after:
        raise fail(op, f"{f}.observed_before", "must be later than `observed_after`")
    as_of = _check_time(op, f"{f}.as_of", flt.as_of)
    min_confidence = None
    if flt.min_confidence is not None:
        min_confidence = check_fraction(op, f"{f}.min_confidence", flt.min_confidence)
    if flt.about is not None:
        check_about(op, f"{f}.about", flt.about)
    return replace(
        flt, observed_after=after, observed_before=before, as_of=as_of, min_confidence=min_confidence
    )


def check_time_hint(op: str, hint: object) -> TimeHint | None:
    if hint is None:
        return None
    hint = _instance(op, "time_hint", hint, TimeHint)
    start = _check_time(op, "time_hint.start", hint.start)
    end = _check_time(op, "time_hint.end", hint.end)
    if start is None or end is None:
        raise fail(op, "time_hint", "must set both `start` and `end`")
    if end <= start:
        raise fail(op, "time_hint.end", "must be later than `start`")
    return TimeHint(start, end)


def check_query(op: str, field: str, query: object, *, max_chars: int = MAX_QUERY_CHARS) -> str:
    """A query, or an item's text (`max_chars` MAX_TEXT_CHARS): a string that is not empty."""
    if not isinstance(query, str):
        raise fail(op, field, "must be a string")
    if not query.strip():
        raise fail(op, field, "must not be empty")
    if len(query) > max_chars:
        raise fail(op, field, f"is longer than {max_chars} characters")
    return check_unicode(op, field, query)


def check_cursor(op: str, cursor: object) -> str | None:
    if cursor is None:
        return None
    if not isinstance(cursor, str) or not cursor or len(cursor) > MAX_CURSOR_CHARS or not cursor.isascii():
        raise fail(op, "cursor", "is not valid (pass back a `next_cursor` exactly as it was returned)")
    return cursor


def check_ids(op: str, ids: object, *, field: str = "ids", maximum: int = MAX_IDS) -> tuple[str, ...]:
    if isinstance(ids, str) or not isinstance(ids, tuple | list):
        raise fail(op, field, "must be a list of ids")
    if not 1 <= len(ids) <= maximum:
        raise fail(op, field, f"must list between 1 and {maximum} ids, got {len(ids)}")
    for i, v in enumerate(ids):
        if not isinstance(v, str) or not v.strip() or len(v) > MAX_ID_CHARS:
            raise fail(op, f"{field}[{i}]", "must be a non-empty id string")
        check_unicode(op, f"{field}[{i}]", v)
    return tuple(dict.fromkeys(ids))


def check_mode(op: str, mode: object, served: Sequence[FetchMode]) -> FetchMode | None:
    if mode is None:
        return None
    if not isinstance(mode, FetchMode):
        raise fail(op, "mode", f"`{echo(mode)}` is not a fetch mode")
    if mode not in served:
        names = ", ".join(m.value for m in served) or "none"
        raise fail(op, "mode", f"`{mode.value}` is not served by this engine (serves: {names})")
    return mode


def check_fetch(req: object, served: Sequence[FetchMode], op: str = "fetch") -> FetchRequest:
    req = _instance(op, "request", req, FetchRequest)
    return replace(
        req,
        query=check_query(op, "query", req.query),
        mode=check_mode(op, req.mode, served),
        filter=check_filter(op, req.filter),
        limit=check_limit(op, req.limit),
        cursor=check_cursor(op, req.cursor),
        time_hint=check_time_hint(op, req.time_hint),
        explain=check_bool(op, "explain", req.explain),
    )


def check_recall(req: object, served: Sequence[FetchMode], op: str = "recall") -> RecallRequest:
    req = _instance(op, "request", req, RecallRequest)
    if req.instructions is not None:
        _check_str(op, "instructions", req.instructions, max_chars=MAX_QUERY_CHARS)
    return replace(
        req,
        question=check_query(op, "question", req.question),
        mode=check_mode(op, req.mode, served),
        filter=check_filter(op, req.filter),
        limit=check_limit(op, req.limit),
        time_hint=check_time_hint(op, req.time_hint),
    )


def check_list(req: object, op: str = "list") -> ListRequest:
    req = _instance(op, "request", req, ListRequest)
    return replace(
        req,
        filter=check_filter(op, req.filter),
        limit=check_limit(op, req.limit),
        cursor=check_cursor(op, req.cursor),
    )


def check_get(req: object, op: str = "get") -> GetRequest:
    req = _instance(op, "request", req, GetRequest)
    check_reach(op, "reach", req.reach)
    return replace(req, ids=check_ids(op, req.ids))


def check_explore(req: object, op: str = "explore") -> ExploreRequest:
    req = _instance(op, "request", req, ExploreRequest)
    if not isinstance(req.facet, Facet):
        raise fail(op, "facet", f"`{echo(req.facet)}` is not a facet")
    return replace(req, filter=check_filter(op, req.filter), limit=check_limit(op, req.limit))


def check_forget(req: object, op: str = "forget") -> ForgetRequest:
    req = _instance(op, "request", req, ForgetRequest)
    check_reach(op, "reach", req.reach)
    if (req.ids is None) == (req.filter is None):
        raise fail(op, "ids", "give either ids or a filter, not both and not neither")
    if req.ids is not None:
        return replace(req, ids=check_ids(op, req.ids))
    flt = check_filter(op, req.filter)
    if flt.is_empty():
        raise fail(op, "filter", "must set at least one field (an empty filter would match everything)")
    return replace(req, filter=flt)


def check_expand(req: object, op: str = "expand") -> ExpandRequest:
    """seed_name a name, relation_types identifiers (de-duplicated), max_hops 1..MAX_HOPS."""
    req = _instance(op, "request", req, ExpandRequest)
    seed = check_entity(op, "seed_name", req.seed_name)
    types = req.relation_types
    if not isinstance(types, tuple):
        raise fail(op, "relation_types", "must be a tuple of relation types")
    if len(types) > MAX_RELATIONS:
        raise fail(op, "relation_types", f"lists more than {MAX_RELATIONS} types")
    for i, t in enumerate(types):
        check_relation_type(op, f"relation_types[{i}]", t)
    check_limit(op, req.max_hops, field="max_hops", maximum=MAX_HOPS)
    return replace(
        req,
        seed_name=seed,
        relation_types=tuple(dict.fromkeys(types)),
        filter=check_filter(op, req.filter),
        limit=check_limit(op, req.limit),
    )
