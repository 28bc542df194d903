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
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

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
from tinymemory.cli.common import add_db_flag, db_target, emit, require_store

if TYPE_CHECKING:
    from tinymemory.engines.core import StorageEngine

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
        if action == "status":
            p.add_argument(
                "--no-check",
                action="store_true",
                help="skip the integrity check, which reads the whole file (about a second per GB)",
            )
        if action == "index":
            p.add_argument("--force", action="store_true", help="rebuild the graph from scratch")
        p.set_defaults(func=run, action=action)


def run(args: argparse.Namespace) -> int:
    from tinymemory.engines import is_postgres_url, open_engine, redact

    if args.action == "index":
        return _index(args)
    target = db_target(args)
    if args.action == "status":
        require_store("db status", args)  # reads only: opening a missing file would create it
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
            return await _status(op, engine, store, check=not args.no_check)
        finally:
            await engine.close()

    return emit(asyncio.run(go()))


# -- the engines' maintenance API (tinymemory.engines.core.StorageEngine) ---------------------------


def _maintained(op: str, engine: MemoryEngine) -> StorageEngine:
    """The engine as the maintenance API serves it; an engine of another make has none to offer."""
    from tinymemory.engines.core import StorageEngine

    if not isinstance(engine, StorageEngine):
        raise Unsupported(f"{op}: the {engine.descriptor.name} engine offers no maintenance commands")
    return engine


def _sqlite_path(engine: MemoryEngine) -> str | None:
    path = getattr(engine, "path", None) if engine.descriptor.name == "sqlite" else None
    return path if isinstance(path, str) else None


# -- the two commands ---------------------------------------------------------------------------------


async def _upgrade(op: str, engine: MemoryEngine, store: str) -> Upgrade:
    before, after = await _maintained(op, engine).upgrade(op=op)
    return Upgrade(store, engine.descriptor.name, int(before), int(after))


async def _schema_version(op: str, engine: MemoryEngine, store: str) -> int:
    found = await _maintained(op, engine).stored_schema(op=op)
    if found is None:
        raise NotFound(f"{op}: no store at `{store}` (any command that writes creates it)")
    return found


def _state(version: int, current: int | None) -> str:
    """`behind`: `db upgrade` brings it up; `ahead`: written by a newer tinymemory, which this one
    refuses to open; `unknown` when the engine does not say which version it writes."""
    if current is None:
        return "unknown"
    return "current" if version == current else ("behind" if version < current else "ahead")


async def _status(op: str, engine: MemoryEngine, store: str, *, check: bool) -> dict[str, Any]:
    version = await _schema_version(op, engine, store)
    maintained = _maintained(op, engine)
    current = maintained.schema
    checked = check and await maintained.check_integrity(op=op)  # damage raises, naming the command
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
    out["integrity"] = "ok" if checked else "not checked"
    return out


# -- index: the SQLite engine's HNSW graph, built in the foreground -----------------------------------

INDEX_OP = "db index"


def _index(args: argparse.Namespace) -> int:
    from tinymemory.engines import is_postgres_url, open_engine, redact
    from tinymemory.engines.paths import in_memory
    from tinymemory.retrieval.embedders.progress import progress_bar

    op = INDEX_OP
    target = db_target(args)
    server = is_postgres_url(target)  # keeps its own index: refused without loading an embedder
    if not server and target is not None and in_memory(target):
        raise InvalidRequest(f"{op}: `--db {target}` has no file to keep a graph in; give a SQLite file")
    engine = _maintained(op, open_engine(target, embedder=None if server else "default"))
    store = redact(_sqlite_path(engine) or target)

    async def go() -> dict[str, Any]:
        try:
            embedder = engine.embedder
            if embedder is None and not server:
                raise Unsupported(f"{op}: {_lexical_only()}")
            with progress_bar(True) as bar:
                name = embedder.name if embedder is not None else "no"
                task = bar.add_task(f"tinymemory {op}: adding {name} vectors", total=None)

                def report(done: int, total: int) -> None:
                    bar.update(task, completed=done, total=total)

                built = await engine.build_index(force=args.force, progress=report, op=op)
        finally:
            await engine.close()
        threshold = built.threshold
        assert embedder is not None  # a storage without vectors refuses before it builds
        out: dict[str, Any] = {
            "store": store,
            "engine": engine.descriptor.name,
            "embedder": embedder.name,
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
