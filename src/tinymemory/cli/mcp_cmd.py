"""`tinymemory mcp`: the seven memory tools over MCP stdio, for desktop MCP clients.

The scope (where writes land, what reads see, whether writes are offered) comes from flags or the
environment, set by whoever configures the client, never by the model.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from collections.abc import Sequence
from typing import Any

from tinymemory.api import Namespace
from tinymemory.cli.common import scope_reach
from tinymemory.cli.edge import run_guarded

TRUTHY = frozenset({"1", "true", "yes", "on"})


def _env_flag(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() in TRUTHY


def add_arguments(parser: argparse.ArgumentParser) -> None:
    env = os.environ.get
    parser.add_argument(
        "--db",
        default=env("TINYMEMORY_DB"),
        help="SQLite file (default: $TINYMEMORY_DB, else $TINYMEMORY_HOME/memory.db, else the user data dir)",
    )
    parser.add_argument(
        "--place",
        default=env("TINYMEMORY_PLACE", ""),
        help="namespace every write lands at, e.g. team:acme/agent:writer (default: $TINYMEMORY_PLACE, "
        "else the root)",
    )
    parser.add_argument(
        "--reach",
        default=env("TINYMEMORY_REACH"),
        help="what reads and forgets may touch, e.g. 'subtree(team:acme)' or 'all' (default: "
        "$TINYMEMORY_REACH, else the place and its ancestors; everything when no place is set)",
    )
    parser.add_argument(
        "--read-only",
        action="store_true",
        default=_env_flag("TINYMEMORY_READ_ONLY"),
        help="offer no write tools (default: $TINYMEMORY_READ_ONLY)",
    )
    parser.add_argument(
        "--zone",
        default=env("TINYMEMORY_ZONE"),
        help="IANA zone refers_to dates are read in, e.g. Europe/Paris (default: this machine's zone)",
    )
    parser.add_argument(
        "--no-embedder",
        action="store_true",
        default=_env_flag("TINYMEMORY_NO_EMBEDDER"),
        help="lexical only: do not load the embedding model",
    )


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    parser = subparsers.add_parser(
        "mcp",
        help="serve the memory tools over MCP stdio",
        description="Serve the seven memory tools to an MCP client over stdio, in one fixed scope.",
    )
    add_arguments(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from tinymemory.adapters.mcp import serve_stdio
    from tinymemory.engines.paths import default_db_path
    from tinymemory.engines.sqlite import SqliteEngine
    from tinymemory.tools import MemoryTools, ToolScope

    place = Namespace.parse(args.place or "", field="--place")
    scope = ToolScope(place, scope_reach(place, args.reach), writes=not args.read_only)
    db = args.db or str(default_db_path())
    engine = SqliteEngine(db, embedder=None if args.no_embedder else "default")
    tools = MemoryTools.with_scope(engine, scope)
    if args.zone:
        tools = tools.in_zone(args.zone)

    async def serve() -> None:
        try:
            await serve_stdio(tools)
        finally:
            await engine.close()

    asyncio.run(serve())
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Stand-alone entry (`python -m tinymemory.cli.mcp_cmd`), the same as `tinymemory mcp`."""
    parser = argparse.ArgumentParser(prog="tinymemory mcp")
    add_arguments(parser)
    return run_guarded(parser, parser.parse_args(argv), run)


if __name__ == "__main__":
    sys.exit(main())
