"""MetaFilter and Reach compiled to a Postgres condition over `items AS i`, with %s parameters.

The same conditions as the SQLite engine's where.py, term for term, so both engines read the same rows.
`ns` and `id` are stored with the "C" collation, so the subtree range below compares bytes as SQLite does.
"""

from __future__ import annotations

from typing import Any

from tinymemory.api.filters import EQUALITY_FIELDS, MetaFilter
from tinymemory.api.namespace import Namespace, Reach
from tinymemory.engines.sqlite.rows import to_us

Params = list[Any]

# The active version of a memory, unqualified (for statements over `items` without the `i` alias).
ACTIVE = "valid_to IS NULL AND forgotten_at IS NULL"


def _in(column: str, values: tuple[str, ...] | list[str], params: Params) -> str:
    params.append(list(values))
    return f"{column} = ANY(%s::text[])"


def reach_sql(reach: Reach | None, params: Params, column: str = "i.ns") -> str | None:
    """Exact nodes as `= ANY(...)`; a subtree root `r` as `ns = r OR r/ <= ns < r0` ('0' follows '/').

    A subtree of the root is everything, so the reach then adds no condition.
    """
    if reach is None:
        return None
    roots = reach.subtree_roots()
    if Namespace.root() in roots:
        return None
    parts: list[str] = []
    exact = sorted(str(n) for n in reach.exact_nodes())
    if exact:
        parts.append(_in(column, exact, params))
    for root in sorted(str(r) for r in roots):
        parts.append(f"{column} = %s OR ({column} >= %s AND {column} < %s)")
        params.extend((root, root + "/", root + "0"))
    if not parts:
        return "false"
    return "(" + " OR ".join(f"({p})" for p in parts) + ")"


def state_sql(flt: MetaFilter, params: Params) -> str:
    """Active only by default; with as_of, the versions active then. Forgotten memory never."""
    if flt.as_of is None:
        return "i.valid_to IS NULL AND i.forgotten_at IS NULL"
    t = to_us(flt.as_of)
    params.extend((t, t))
    return "i.forgotten_at IS NULL AND i.valid_from <= %s AND (i.valid_to IS NULL OR i.valid_to > %s)"


def filter_sql(flt: MetaFilter, params: Params, *, include_state: bool = True) -> str:
    """The whole filter as one condition (always valid SQL, `true` when unconstrained)."""
    conds: list[str] = []
    if include_state:
        conds.append(state_sql(flt, params))
    if flt.namespace is not None:
        conds.append("i.ns = %s")
        params.append(str(flt.namespace))
    reach = reach_sql(flt.reach, params)
    if reach is not None:
        conds.append(reach)
    if flt.kinds:
        conds.append(_in("i.kind", tuple(k.value for k in flt.kinds), params))
    if flt.sources:
        conds.append(_in("i.source_kind", flt.sources, params))
    if flt.source_ids:
        conds.append(_in("i.source_id", flt.source_ids, params))
    if flt.learning_kinds:
        conds.append(_in("i.learning_kind", flt.learning_kinds, params))
    if flt.categories:
        conds.append(_in("i.category", flt.categories, params))
    if flt.tags_any:
        conds.append(
            "i.rowid IN (SELECT t.item_rowid FROM item_tags t WHERE "
            + _in("t.tag", flt.tags_any, params)
            + ")"
        )
    for name in EQUALITY_FIELDS:
        value = getattr(flt, name)
        if value is not None:
            conds.append(f"i.{name} = %s")
            params.append(value)
    if flt.observed_after is not None:
        conds.append("i.observed_at >= %s")
        params.append(to_us(flt.observed_after))
    if flt.observed_before is not None:
        conds.append("i.observed_at < %s")
        params.append(to_us(flt.observed_before))
    if flt.min_confidence is not None:
        conds.append("i.confidence >= %s")
        params.append(float(flt.min_confidence))
    if flt.about is not None:
        conds.append("i.about_kind = %s AND i.about_key = %s")
        params.extend((flt.about.kind, flt.about.key))
    return " AND ".join(conds) if conds else "true"


def is_selective(flt: MetaFilter) -> bool:
    """Whether anything beyond the default state narrows the filter (worth a filter-first plan)."""
    return any(name != "as_of" for name in flt.set_fields()) and not (
        flt.set_fields() == ("reach",) and reach_sql(flt.reach, []) is None
    )
