"""MetaFilter and Reach as a SQLite condition over `items AS i`: the shared compiler (engines/sql_filter.py)
with `?` parameters. Every read of this engine builds its WHERE clause here."""

from __future__ import annotations

from tinymemory.api.filters import MetaFilter
from tinymemory.api.namespace import Reach
from tinymemory.engines import sql_filter
from tinymemory.engines.sql_filter import ACTIVE, Params, is_selective

__all__ = ["ACTIVE", "Params", "filter_sql", "is_selective", "reach_sql", "state_sql"]


def reach_sql(reach: Reach | None, params: Params, column: str = "i.ns") -> str | None:
    return sql_filter.reach_sql(reach, params, sql_filter.SQLITE, column)


def state_sql(flt: MetaFilter, params: Params) -> str:
    return sql_filter.state_sql(flt, params, sql_filter.SQLITE)


def filter_sql(flt: MetaFilter, params: Params, *, include_state: bool = True) -> str:
    return sql_filter.filter_sql(flt, params, sql_filter.SQLITE, include_state=include_state)
