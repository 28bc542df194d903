"""Databases as older releases left them, for the upgrade tests (no tests here).

`fixtures/schema_v1.sql` is the DDL of schema version 1 as released (commit db2224c), and
`fixtures/data_v1.sql` the rows that code wrote through its API; `build_v1` lays both into an empty
database, so an engine that opens it finds what a deployment of that release would hand it.
"""

from __future__ import annotations

from pathlib import Path

from tinymemory.engines.postgres import schema

from .server import admin_dsn

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def v1_statements() -> list[str]:
    """The statements of schema_v1.sql, in order (its opening comment left out)."""
    text = (FIXTURES / "schema_v1.sql").read_text()
    return schema._statements("\n".join(x for x in text.splitlines() if not x.startswith("--")))


def build_v1(dsn: str, *, rows: bool) -> None:
    """Schema version 1 in the empty database at `dsn`, created by its role (the owner, as a migration
    would), and with `rows` the fixture's rows, loaded by the superuser (row-level security binds
    the owner)."""
    import psycopg

    with psycopg.connect(dsn, autocommit=True) as conn, conn.transaction():
        for statement in schema._statements(schema._BASE + ";") + v1_statements():
            conn.execute(statement)  # type: ignore[arg-type]
        conn.execute("INSERT INTO schema_version (one, version) VALUES (true, 1)")
    if rows:
        with psycopg.connect(admin_dsn(dsn), autocommit=True) as conn:
            conn.execute((FIXTURES / "data_v1.sql").read_text())  # type: ignore[arg-type]
