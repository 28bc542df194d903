"""`tinymemory db upgrade|status|index`: a store's schema, brought up to date or shown; a SQLite file's
HNSW graph, built ahead.

Engines migrate on open, so `upgrade` exists for deployments whose service role may not change the
schema (several replicas over one PostgreSQL database: the owner runs it once, before a new version
starts) and for operators who want to see the step happen. `status` only reads: it never migrates,
and counts the items only when the schema is current. `index` builds (or brings up to date) the graph
that semantic reads over a large SQLite file walk, in the foreground, so the file is ready before it
is served; otherwise the first large read builds it in the background and reads scan every row
until it is done.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sqlite3
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tinymemory.api import (
    ExploreRequest,
    Facet,
    InvalidRequest,
    MemoryEngine,
    MetaFilter,
    NotFound,
    TinyMemoryError,
    Unsupported,
)
from tinymemory.cli.common import add_db_flag, db_target, emit

TRUTHY = frozenset({"1", "true", "yes", "on"})


@dataclass(frozen=True, slots=True)
class Upgrade:
    store: str
    engine: str
    before: int
    after: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "store": self.store,
            "engine": self.engine,
            "schema_before": self.before,
            "schema_after": self.after,
            "summary": f"schema {self.before} -> {self.after}",
        }


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    parser = subparsers.add_parser(
        "db", help="upgrade a store's schema, show its engine and schema, or build its vector graph"
    )
    sub = parser.add_subparsers(dest="db_command", metavar="ACTION", required=True)
    for action, help_text in (
        ("upgrade", "apply the schema migrations this tinymemory knows (safe to run again)"),
        ("status", "the store's engine, schema version and item count (reads only; never migrates)"),
        (
            "index",
            "build or bring up to date a SQLite file's HNSW graph for the default embedder, before "
            "serving it (a second run adds only new rows)",
        ),
    ):
        p = sub.add_parser(action, help=help_text)
        add_db_flag(p)
        if action == "upgrade":
            p.add_argument(
                "--no-embedder",
                action="store_true",
                default=os.environ.get("TINYMEMORY_NO_EMBEDDER", "").strip().lower() in TRUTHY,
                help="skip the embedder's vector index (PostgreSQL); give it when the service runs "
                "with --no-embedder",
            )
        if action == "index":
            p.add_argument("--force", action="store_true", help="rebuild the graph from scratch")
        p.set_defaults(func=run, action=action)


def run(args: argparse.Namespace) -> int:
    from tinymemory.engines import is_postgres_url, open_engine, redact

    if args.action == "index":
        return _index(args)
    target = db_target(args)
    if is_postgres_url(target):
        # PostgreSQL's upgrade also builds the embedder's vector index, which the service's role may
        # not be allowed to create: the same embedder as the service, unless told there is none.
        wanted = args.action == "upgrade" and not args.no_embedder
        engine = open_engine(target, embedder="default" if wanted else None, migrate=False)
    else:
        # the schema of a file is the same whatever the embedder, and loading one takes time
        engine = open_engine(target, embedder=None)
    op = f"db {args.action}"
    store = redact(_sqlite_path(engine) or target)

    async def go() -> dict[str, Any]:
        try:
            if args.action == "upgrade":
                done = await _upgrade(op, engine, store)
                sys.stderr.write(f"tinymemory {op}: {done.to_dict()['summary']}\n")
                return done.to_dict()
            return await _status(op, engine, store)
        finally:
            await engine.close()

    return emit(asyncio.run(go()))


# -- SQLite: the schema version is the file's user_version --------------------------------------------


def _sqlite_path(engine: MemoryEngine) -> str | None:
    path = getattr(engine, "path", None) if engine.descriptor.name == "sqlite" else None
    return path if isinstance(path, str) else None


def _sqlite_version(op: str, path: str) -> int | None:
    """The file's schema version, None when there is no file; reading it writes nothing."""
    from tinymemory.engines.sqlite import db

    if path == ":memory:" or not Path(path).is_file():
        return None
    try:
        conn = sqlite3.connect(path)
        try:
            return int(conn.execute("PRAGMA user_version").fetchone()[0])
        finally:
            conn.close()
    except db.ERRORS as exc:
        raise db.database_error(op, exc) from None


def _sqlite_upgrade(op: str, path: str) -> tuple[int, int]:
    """Open the file as the engine does (which migrates it); the version before and after."""
    from tinymemory.engines.sqlite import db
    from tinymemory.engines.sqlite.schema import user_version

    before = _sqlite_version(op, path) or 0
    try:
        conn = db.connect(path)
        try:
            return before, user_version(conn)
        finally:
            conn.close()
    except db.ERRORS as exc:
        raise db.database_error(op, exc) from None


def _code_version(engine: MemoryEngine) -> int | None:
    """The schema version this tinymemory writes for the engine (from its descriptor's version)."""
    _, _, tail = engine.descriptor.version.partition("+schema.")
    return int(tail) if tail.isdigit() else None


# -- the two commands ---------------------------------------------------------------------------------


async def _upgrade(op: str, engine: MemoryEngine, store: str) -> Upgrade:
    name = engine.descriptor.name
    path = _sqlite_path(engine)
    if path is not None:
        before, after = await asyncio.to_thread(_sqlite_upgrade, op, path)
        return Upgrade(store, name, before, after)
    upgrade = getattr(engine, "upgrade", None)
    if upgrade is None:
        raise Unsupported(f"{op}: the {name} engine has no schema migrations to apply")
    before, after = await upgrade()
    return Upgrade(store, name, int(before), int(after))


async def _schema_version(op: str, engine: MemoryEngine) -> int:
    path = _sqlite_path(engine)
    if path is not None:
        found = await asyncio.to_thread(_sqlite_version, op, path)
        if found is None:
            raise NotFound(f"{op}: no store at `{path}` (any command that writes creates it)")
        return found
    read = getattr(engine, "schema_version", None)
    if read is not None:
        return int(await read())
    dsn = getattr(engine, "dsn", None)
    if engine.descriptor.name == "postgres" and isinstance(dsn, str):
        return await _postgres_version(op, dsn)
    raise Unsupported(f"{op}: the {engine.descriptor.name} engine does not report its schema version")


async def _postgres_version(op: str, dsn: str) -> int:
    """The database's schema version, read on a connection of its own (the engine, opened without
    migrations, refuses to serve a database that is not current)."""
    import psycopg

    from tinymemory.engines.postgres import db, schema

    conn = await db.connect(op, dsn)
    try:
        return await schema.schema_version(conn)
    except psycopg.Error as exc:
        raise db.database_error(op, exc) from None
    finally:
        await conn.close()


def _state(version: int, current: int | None) -> str:
    """`behind`: `db upgrade` brings it up; `ahead`: written by a newer tinymemory, which this one
    refuses to open; `unknown` when the engine does not say which version it writes."""
    if current is None:
        return "unknown"
    return "current" if version == current else ("behind" if version < current else "ahead")


async def _status(op: str, engine: MemoryEngine, store: str) -> dict[str, Any]:
    version = await _schema_version(op, engine)
    current = _code_version(engine)
    out: dict[str, Any] = {
        "store": store,
        "engine": engine.descriptor.name,
        "engine_version": engine.descriptor.version,
        "schema_version": version,
        "schema_current": current,
        "schema_state": _state(version, current),
        "items": None,
    }
    if current is None or version == current:
        # Every active item, from one facet count; an engine that cannot answer leaves it null.
        try:
            counted = await engine.explore(ExploreRequest(Facet.KIND, MetaFilter(), limit=1))
        except TinyMemoryError as exc:
            out["items_error"] = exc.message
        else:
            out["items"] = counted.total
            out["items_capped"] = counted.truncated
    return out


# -- index: the SQLite engine's HNSW graph, built in the foreground -----------------------------------

INDEX_OP = "db index"


def _index(args: argparse.Namespace) -> int:
    from tinymemory.engines import is_postgres_url, open_engine, redact
    from tinymemory.engines.paths import in_memory
    from tinymemory.engines.sqlite import SqliteEngine, ann
    from tinymemory.retrieval.embedders.progress import progress_bar

    op = INDEX_OP
    target = db_target(args)
    if is_postgres_url(target):
        raise Unsupported(
            f"{op}: a PostgreSQL store keeps its own pgvector index, created by `tinymemory db upgrade`;"
            " there is no graph file to build"
        )
    if target is not None and in_memory(target):
        raise InvalidRequest(f"{op}: `--db {target}` has no file to keep a graph in; give a SQLite file")
    engine = open_engine(target, embedder="default")
    assert isinstance(engine, SqliteEngine)

    async def go() -> dict[str, Any]:
        try:
            if engine.embedder is None:
                raise Unsupported(f"{op}: {_lexical_only()}")
            if not Path(engine.path).is_file():
                raise NotFound(f"{op}: no store at `{engine.path}` (any command that writes creates it)")
            with progress_bar(True) as bar:
                task = bar.add_task(f"tinymemory {op}: adding {engine.embedder.name} vectors", total=None)

                def report(done: int, total: int) -> None:
                    bar.update(task, completed=done, total=total)

                built = await engine.build_index(force=args.force, progress=report)
        finally:
            await engine.close()
        threshold = ann.ANN_MIN_ROWS
        out: dict[str, Any] = {
            "store": redact(engine.path),
            "engine": "sqlite",
            "embedder": engine.embedder.name,
            "file": None if built.path is None else str(built.path),
            "rows": built.rows,
            "added": built.added,
            "rebuilt": built.fresh,
            "seconds": round(built.seconds, 3),
            "threshold": threshold,
            "used_by_reads": built.path is not None and built.rows >= threshold,
            "summary": _index_summary(built.path, built.rows, built.added, built.fresh, built.seconds),
        }
        sys.stderr.write(f"tinymemory {op}: {out['summary']}\n")
        if built.path is not None and built.rows < threshold:
            out["note"] = (
                f"reads will not use the graph until the store holds {threshold:,} vectors of this "
                f"embedder (it holds {built.rows:,}); until then they score every row exactly"
            )
            sys.stderr.write(f"tinymemory {op}: {out['note']}\n")
        return out

    return emit(asyncio.run(go()))


def _lexical_only() -> str:
    """Why there is nothing to index, with the embedders' own fix when they have one."""
    from tinymemory.retrieval.embedders import lexical_only_reason

    reason = lexical_only_reason()
    base = "the store is searched lexical-only (no embedder), so there are no vectors to index"
    return f"{base} ({reason})" if reason else f"{base}; choose an embedder with $TINYMEMORY_EMBEDDER"


def _index_summary(path: Path | None, rows: int, added: int, fresh: bool, seconds: float) -> str:
    if path is None:
        return "nothing to index: the store holds no vectors of this embedder"
    if fresh:
        how = "built"
    elif added:
        how = f"extended by {added:,} rows"
    else:
        how = "up to date"
    return f"{how}: {rows:,} rows in {path} ({seconds:.1f} s)"
