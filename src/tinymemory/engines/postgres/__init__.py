"""The Postgres engine: a shared server database (pgvector), row-level security per tenant."""

from tinymemory.engines.postgres.engine import PostgresEngine

__all__ = ["PostgresEngine"]
