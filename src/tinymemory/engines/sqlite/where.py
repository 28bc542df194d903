"""MetaFilter and Reach as a SQLite condition over `items AS i`: the shared compiler (engines/sql_filter.py)
with `?` parameters. Every read of this engine builds its WHERE clause here."""

from __future__ import annotations

from tinymemory.engines.sql_filter import ACTIVE, SQLITE, Compiler, Params, is_selective

__all__ = ["ACTIVE", "WHERE", "Params", "filter_sql", "is_selective", "reach_sql", "state_sql"]

WHERE = Compiler(SQLITE)
reach_sql = WHERE.reach_sql
state_sql = WHERE.state_sql
filter_sql = WHERE.filter_sql
