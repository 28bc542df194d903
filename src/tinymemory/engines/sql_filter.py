"""MetaFilter and Reach compiled to one SQL condition over `items AS i`, for every SQL engine.

The filter's meaning lives in api/filters.py; this is its one translation to SQL, so the SQLite and
Postgres engines read exactly the same rows. A `Dialect` says how each engine spells a parameter, a list
membership and the two truth values; everything else (the state rule, the subtree range, every field) is
written once here. Times are integer microseconds since the epoch in both engines' columns.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from tinymemory.api.filters import EQUALITY_FIELDS, MetaFilter
from tinymemory.api.namespace import Namespace, Reach
from tinymemory.engines.micros import to_us

Params = list[Any]

# The active version of a memory, unqualified (for statements over `items` without the `i` alias).
ACTIVE = "valid_to IS NULL AND forgotten_at IS NULL"


@dataclass(frozen=True, slots=True)
class Dialect:
    """How one engine writes a bound parameter (`mark`), `column IN <values>` and true/false."""

    mark: str
    in_list: Callable[[str, Sequence[str], Params], str]
    true: str
    false: str


def _sqlite_in(column: str, values: Sequence[str], params: Params) -> str:
    params.extend(values)
    return f"{column} IN ({','.join('?' * len(values))})"


def _postgres_in(column: str, values: Sequence[str], params: Params) -> str:
    params.append(list(values))
    return f"{column} = ANY(%s::text[])"


SQLITE = Dialect("?", _sqlite_in, "1", "0")
POSTGRES = Dialect("%s", _postgres_in, "true", "false")


# Compiled conditions kept by what they were compiled from (frozen, compared by value): a fetch compiles
# its filter and reach for each statement it runs (a user's recall about nine times), and a service
# compiles the same user's again on every request.
COMPILED = 1024


def _bound(params: Params, bound: tuple[Any, ...]) -> None:
    """A compiled condition's parameters added to `params` (a list parameter, Postgres's arrays, copied:
    a statement's parameters are its own)."""
    params.extend(list(v) if isinstance(v, list) else v for v in bound)


def reach_sql(reach: Reach | None, params: Params, dialect: Dialect, column: str = "i.ns") -> str | None:
    """`compile_reach`, kept (COMPILED)."""
    if reach is None:
        return None
    try:
        sql, bound = _reach_compiled(reach, dialect, column)
    except TypeError:  # a value that does not hash (a caller's list): compiled each time
        return compile_reach(reach, params, dialect, column)
    _bound(params, bound)
    return sql


@lru_cache(maxsize=COMPILED)
def _reach_compiled(reach: Reach, dialect: Dialect, column: str) -> tuple[str | None, tuple[Any, ...]]:
    params: Params = []
    return compile_reach(reach, params, dialect, column), tuple(params)


def compile_reach(reach: Reach | None, params: Params, dialect: Dialect, column: str = "i.ns") -> str | None:
    """Exact nodes as a list membership; a subtree root `r` as `r <= ns < r0 AND (ns = r OR ns >= r/)`.

    The range form ('0' is the character after '/') is what LIKE 'r/%' means, without wildcard escaping
    and with index use (Postgres stores `ns` with the "C" collation, so it compares bytes as SQLite
    does). One range with the node itself inside it, rather than `ns = r OR r/ <= ns < r0`: SQLite
    plans that OR as two index searches whose rows it then reads from the table one by one, where one
    range over the namespace index answers from the index alone (a team's 5,000 rows at 100,000
    items: 9 ms against 1.6 ms). A subtree of the root is everything, so the reach then adds no
    condition.
    """
    if reach is None:
        return None
    roots = reach.subtree_roots()
    if Namespace.root() in roots:
        return None
    m = dialect.mark
    parts: list[str] = []
    exact = sorted(str(n) for n in reach.exact_nodes())
    if exact:
        parts.append(dialect.in_list(column, exact, params))
    for root in sorted(str(r) for r in roots):
        parts.append(f"{column} >= {m} AND {column} < {m} AND ({column} = {m} OR {column} >= {m})")
        params.extend((root, root + "0", root, root + "/"))
    if not parts:
        return dialect.false
    return "(" + " OR ".join(f"({p})" for p in parts) + ")"


def state_sql(flt: MetaFilter, params: Params, dialect: Dialect) -> str:
    """Active only by default; with as_of, the versions active then. Forgotten memory never."""
    if flt.as_of is None:
        return "i.valid_to IS NULL AND i.forgotten_at IS NULL"
    t = to_us(flt.as_of)
    params.extend((t, t))
    m = dialect.mark
    return f"i.forgotten_at IS NULL AND i.valid_from <= {m} AND (i.valid_to IS NULL OR i.valid_to > {m})"


def filter_sql(flt: MetaFilter, params: Params, dialect: Dialect, *, include_state: bool = True) -> str:
    """`compile_filter`, kept (COMPILED)."""
    try:
        sql, bound = _filter_compiled(flt, dialect, include_state)
    except TypeError:  # a value that does not hash (a caller's list): compiled each time
        return compile_filter(flt, params, dialect, include_state=include_state)
    _bound(params, bound)
    return sql


@lru_cache(maxsize=COMPILED)
def _filter_compiled(flt: MetaFilter, dialect: Dialect, include_state: bool) -> tuple[str, tuple[Any, ...]]:
    params: Params = []
    return compile_filter(flt, params, dialect, include_state=include_state), tuple(params)


def compile_filter(flt: MetaFilter, params: Params, dialect: Dialect, *, include_state: bool = True) -> str:
    """The whole filter as one condition (always valid SQL, the dialect's true when unconstrained)."""
    m, in_list = dialect.mark, dialect.in_list
    conds: list[str] = []
    if include_state:
        conds.append(state_sql(flt, params, dialect))
    if flt.namespace is not None:
        conds.append(f"i.ns = {m}")
        params.append(str(flt.namespace))
    reach = reach_sql(flt.reach, params, dialect)
    if reach is not None:
        conds.append(reach)
    for column, values in (
        ("i.kind", tuple(k.value for k in flt.kinds)),
        ("i.source_kind", flt.sources),
        ("i.source_id", flt.source_ids),
        ("i.learning_kind", flt.learning_kinds),
        ("i.category", flt.categories),
    ):
        if values:
            conds.append(in_list(column, values, params))
    if flt.tags_any:
        conds.append(
            "i.rowid IN (SELECT t.item_rowid FROM item_tags t WHERE "
            + in_list("t.tag", flt.tags_any, params)
            + ")"
        )
    for name in EQUALITY_FIELDS:
        value = getattr(flt, name)
        if value is not None:
            conds.append(f"i.{name} = {m}")
            params.append(value)
    if flt.observed_after is not None:
        conds.append(f"i.observed_at >= {m}")
        params.append(to_us(flt.observed_after))
    if flt.observed_before is not None:
        conds.append(f"i.observed_at < {m}")
        params.append(to_us(flt.observed_before))
    if flt.min_confidence is not None:
        conds.append(f"i.confidence >= {m}")
        params.append(float(flt.min_confidence))
    if flt.about is not None:
        conds.append(f"i.about_kind = {m} AND i.about_key = {m}")
        params.extend((flt.about.kind, flt.about.key))
    return " AND ".join(conds) if conds else dialect.true


def is_selective(flt: MetaFilter) -> bool:
    """Whether anything beyond the default state narrows the filter (worth a filter-first plan)."""
    return any(name != "as_of" for name in flt.set_fields()) and not (
        flt.set_fields() == ("reach",) and reach_sql(flt.reach, [], SQLITE) is None
    )


@dataclass(frozen=True, slots=True)
class Compiler:
    """The compiler bound to one engine's dialect (each engine's where.py holds one), with the few
    statements both SQL engines run alike, so only their execution differs."""

    dialect: Dialect

    def reach_sql(self, reach: Reach | None, params: Params, column: str = "i.ns") -> str | None:
        return reach_sql(reach, params, self.dialect, column)

    def state_sql(self, flt: MetaFilter, params: Params) -> str:
        return state_sql(flt, params, self.dialect)

    def filter_sql(self, flt: MetaFilter, params: Params, *, include_state: bool = True) -> str:
        return filter_sql(flt, params, self.dialect, include_state=include_state)

    def list_page(
        self, select: str, flt: MetaFilter, limit: int, after: tuple[int, str] | None
    ) -> tuple[str, Params]:
        """A list page: newest first by (observed_at, id), keyset paging after `after` (observed
        microseconds, id), one row more than `limit` to tell whether more follow."""
        m = self.dialect.mark
        params: Params = []
        where = self.filter_sql(flt, params)
        if after is not None:
            where += f" AND (i.observed_at < {m} OR (i.observed_at = {m} AND i.id < {m}))"
            params.extend((after[0], after[0], after[1]))
        params.append(limit + 1)
        sql = f"SELECT {select} FROM items i WHERE {where} ORDER BY i.observed_at DESC, i.id DESC LIMIT {m}"
        return sql, params

    def forgettable(self, flt: MetaFilter, reach: Reach | None) -> tuple[str, Params]:
        """(rowid, id) of what a forget by filter takes, confined to `reach` too, newest first."""
        params: Params = []
        where = self.filter_sql(flt, params)
        extra = self.reach_sql(reach, params)
        if extra is not None:
            where += f" AND {extra}"
        return (
            f"SELECT i.rowid, i.id FROM items i WHERE {where} ORDER BY i.observed_at DESC, i.id DESC",
            params,
        )

    def purgeable(self, reach: Reach | None, forgotten_before: int | None) -> tuple[str, Params]:
        """The rowids a purge deletes: forgotten rows under `reach`, forgotten before the instant if given."""
        params: Params = []
        conds = ["i.forgotten_at IS NOT NULL"]
        extra = self.reach_sql(reach, params)
        if extra is not None:
            conds.append(extra)
        if forgotten_before is not None:
            conds.append(f"i.forgotten_at < {self.dialect.mark}")
            params.append(forgotten_before)
        return f"SELECT i.rowid FROM items i WHERE {' AND '.join(conds)}", params
