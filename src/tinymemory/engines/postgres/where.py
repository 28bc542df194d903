"""MetaFilter and Reach as a Postgres condition over `items AS i`: the shared compiler
(engines/sql_filter.py) with %s parameters, so both engines read the same rows. `ns` and `id` are stored
with the "C" collation, so the subtree range compares bytes as SQLite does."""

from __future__ import annotations

from tinymemory.engines.sql_filter import ACTIVE, POSTGRES, Compiler, Params, is_selective

__all__ = ["ACTIVE", "WHERE", "Params", "filter_sql", "is_selective", "reach_sql", "state_sql"]

WHERE = Compiler(POSTGRES)
reach_sql = WHERE.reach_sql
state_sql = WHERE.state_sql
filter_sql = WHERE.filter_sql
