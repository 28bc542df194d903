"""MetaFilter and Reach as a Postgres condition over `items AS i`: the shared compiler
(engines/sql_filter.py) with %s parameters, so both engines read the same rows. `ns` and `id` are stored
with the "C" collation, so the subtree range compares bytes as SQLite does."""

from __future__ import annotations

from tinymemory.api.filters import MetaFilter
from tinymemory.api.namespace import Reach
from tinymemory.engines import sql_filter
from tinymemory.engines.sql_filter import ACTIVE, Params, is_selective

__all__ = ["ACTIVE", "Params", "filter_sql", "is_selective", "reach_sql", "state_sql"]


def reach_sql(reach: Reach | None, params: Params, column: str = "i.ns") -> str | None:
    return sql_filter.reach_sql(reach, params, sql_filter.POSTGRES, column)


def state_sql(flt: MetaFilter, params: Params) -> str:
    return sql_filter.state_sql(flt, params, sql_filter.POSTGRES)


def filter_sql(flt: MetaFilter, params: Params, *, include_state: bool = True) -> str:
    return sql_filter.filter_sql(flt, params, sql_filter.POSTGRES, include_state=include_state)
