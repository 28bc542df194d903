"""Flags and helpers every CLI command shares: where the store is, where writes land, what reads see.

The person at the command line owns the file, so reads see every namespace in it unless `--namespace` or
`--reach` narrows them (a namespace reads its lineage and the documents ingested along it, as `Memory`
does); `tinymemory mcp` applies the same rule to its `--place`.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

from tinymemory.api import MemoryEngine, Namespace, Reach, parse_rfc3339, to_jsonable

ALL_REACH = "all"
EVERYTHING = Reach.subtree(Namespace.root())  # the root and every node below it
TRUTHY = frozenset({"1", "true", "yes", "on"})  # what a TINYMEMORY_* switch variable says yes with
NO_EMBEDDER_HELP = "lexical only: do not load the embedding model"


def env_flag(variable: str) -> bool:
    """Whether the environment variable says yes (one of TRUTHY, in any case and spacing)."""
    return os.environ.get(variable, "").strip().lower() in TRUTHY


def add_env_option(
    parser: argparse.ArgumentParser,
    flag: str,
    variable: str,
    help: str,
    default: str | None = None,
    **more: Any,
) -> None:
    """A flag whose default is the environment variable's value (else `default`)."""
    parser.add_argument(flag, default=os.environ.get(variable, default), help=help, **more)


def add_env_switch(parser: argparse.ArgumentParser, flag: str, variable: str, help: str) -> None:
    """A yes/no flag, on by default when the environment variable says yes (see `env_flag`)."""
    parser.add_argument(flag, action="store_true", default=env_flag(variable), help=help)


def add_db_flag(parser: argparse.ArgumentParser) -> None:
    add_env_option(
        parser,
        "--db",
        "TINYMEMORY_DB",
        "the store: a SQLite file, or a postgresql:// URL (keep its password in $PGPASSWORD or "
        "~/.pgpass) (default: $TINYMEMORY_DB, else $TINYMEMORY_HOME/memory.db, else the user data dir)",
        metavar="TARGET",
    )


def db_target(args: argparse.Namespace) -> str | None:
    """`--db` as `open_engine` reads it; an empty value (an empty $TINYMEMORY_DB) means the default."""
    value = getattr(args, "db", None)
    return value or None


def require_store(op: str, args: argparse.Namespace) -> None:
    """A command that only reads (or removes) refuses a SQLite file that does not exist, naming it and
    creating nothing (opening it would make an empty store, folders included); writes create it."""
    from tinymemory.api import NotFound
    from tinymemory.engines import sqlite_file
    from tinymemory.engines.paths import in_memory

    target = db_target(args)
    path = sqlite_file(target)
    if path is None or (target is not None and in_memory(target)):
        return
    if not path.is_file():
        raise NotFound(f"{op}: no store at `{path}` (any command that writes creates it)")


def open_store(
    args: argparse.Namespace, embedder: Any = "default", *, long_lived: bool = False
) -> MemoryEngine:
    """The engine `--db` names (SQLite file or postgresql:// URL), through the one rule every entry
    point shares.

    A command answers and exits, so a SQLite file opened for it never starts building its HNSW graph in
    the background (the build of a large file takes minutes and would be stopped at exit): it reads a
    saved graph or scans. `long_lived` (the MCP server) lets it build, as the library does."""
    from tinymemory.engines import is_postgres_url, open_engine

    target = db_target(args)
    if long_lived or is_postgres_url(target):
        return open_engine(target, embedder=embedder)
    return open_engine(target, embedder=embedder, background_index=False)


def add_hs256_flags(parser: argparse.ArgumentParser) -> None:
    """The HS256 secret and the claims a service demands: `serve` verifies with them, `token issue`
    signs with them, so both read the same flags and variables."""
    add_env_option(
        parser,
        "--jwt-secret-file",
        "TINYMEMORY_JWT_SECRET_FILE",
        "file holding the HS256 secret (or set $TINYMEMORY_JWT_SECRET)",
    )
    add_env_option(parser, "--jwt-issuer", "TINYMEMORY_JWT_ISSUER", "the `iss` claim")
    add_env_option(parser, "--jwt-audience", "TINYMEMORY_JWT_AUDIENCE", "the `aud` claim")


def add_store_flags(parser: argparse.ArgumentParser) -> None:
    add_db_flag(parser)
    add_env_option(
        parser,
        "--namespace",
        "TINYMEMORY_NAMESPACE",
        "where writes land, e.g. team:acme/agent:writer (default: $TINYMEMORY_NAMESPACE, else the "
        "root); when set, reads see that node and its ancestors, as an agent placed there would",
        "",
    )
    parser.add_argument(
        "--reach",
        default=None,
        help="what reads, forgets and purges may touch: 'all', or terms such as 'subtree(team:acme)', "
        "'exact(team:acme)', 'inherit(team:acme/agent:writer)' joined by + (default: everything in the "
        "file, or the --namespace node and its ancestors when --namespace is set)",
    )
    parser.add_argument("--no-embedder", action="store_true", help=NO_EMBEDDER_HELP)


def namespace_of(args: argparse.Namespace) -> Namespace:
    return Namespace.parse(args.namespace, field="--namespace")


def scope_reach(place: Namespace, reach: str | None) -> Reach | None:
    """An explicit reach wins (`all` is every namespace); without one, a place reads what a `Memory` placed
    there reads (its lineage and the documents ingested at any node of it) and the root reads everything
    (None)."""
    if reach is not None and reach.strip():
        return None if reach.strip() == ALL_REACH else Reach.parse(reach, field="--reach")
    if place.is_root:
        return None
    from tinymemory.async_memory.scope import default_reach

    return default_reach(place)


def reach_of(args: argparse.Namespace) -> Reach:
    """What this command's reads see; `EVERYTHING` when nothing narrows them."""
    reach = scope_reach(namespace_of(args), args.reach)
    return EVERYTHING if reach is None else reach


def reach_label(reach: Reach) -> str:
    return ALL_REACH if reach == EVERYTHING else str(reach)


def time_arg(value: str | None, flag: str, command: str | None = None) -> Any:
    """An RFC 3339 flag; a bad one is an error naming the command and the flag."""
    return None if value is None else parse_rfc3339(value, field=flag, op=command)


def emit(value: Any) -> int:
    json.dump(to_jsonable(value), sys.stdout, ensure_ascii=False, indent=2)
    sys.stdout.write("\n")
    sys.stdout.flush()  # a closed pipe fails here, inside the command, not at interpreter exit
    return 0
