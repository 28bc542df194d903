"""`tinymemory mcp`: the seven memory tools (or, with `--tools policy`, one user's memory__ tools) over MCP
stdio, for desktop MCP clients.

The scope (where writes land, what reads see, whether writes are offered; or the workspace, user and
agent of the memory__ tools) comes from flags or the environment, set by whoever configures the client,
never by the model.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from tinymemory.api import InvalidRequest, Namespace
from tinymemory.cli.common import (
    NO_EMBEDDER_HELP,
    add_db_flag,
    add_env_option,
    add_env_switch,
    open_store,
    scope_reach,
)
from tinymemory.cli.edge import run_guarded

if TYPE_CHECKING:  # the policy layer (and pydantic) load only when `--tools policy` is served
    from tinymemory.adapters import ToolSet
    from tinymemory.api import MemoryEngine
    from tinymemory.policy import Identity, MemoryPolicy


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_db_flag(parser)
    add_env_option(
        parser,
        "--place",
        "TINYMEMORY_PLACE",
        "namespace every write lands at, e.g. team:acme/agent:writer (default: $TINYMEMORY_PLACE, "
        "else the root)",
        "",
    )
    add_env_option(
        parser,
        "--reach",
        "TINYMEMORY_REACH",
        "what reads and forgets may touch, e.g. 'subtree(team:acme)' or 'all' (default: "
        "$TINYMEMORY_REACH, else the place and its ancestors; everything when no place is set)",
    )
    add_env_switch(
        parser, "--read-only", "TINYMEMORY_READ_ONLY", "offer no write tools (default: $TINYMEMORY_READ_ONLY)"
    )
    add_env_option(
        parser,
        "--zone",
        "TINYMEMORY_ZONE",
        "IANA zone refers_to dates are read in, e.g. Europe/Paris (default: this machine's zone)",
    )
    add_env_switch(parser, "--no-embedder", "TINYMEMORY_NO_EMBEDDER", NO_EMBEDDER_HELP)
    add_policy_arguments(parser)


TOOL_SETS = ("memory", "policy")


def add_policy_arguments(parser: argparse.ArgumentParser) -> None:
    """`--tools policy` serves the memory__ set to one user; the user running the client is that user."""
    add_env_option(
        parser,
        "--tools",
        "TINYMEMORY_TOOLS",
        "which tool set: memory (the seven memory_ tools, scoped by --place/--reach) or policy "
        "(memory__remember, __recall, __open, __list, __forget for --workspace/--user/--agent) "
        "(default: $TINYMEMORY_TOOLS, else memory)",
        "memory",
        choices=TOOL_SETS,
    )
    add_env_option(
        parser,
        "--workspace",
        "TINYMEMORY_WORKSPACE",
        "with --tools policy: the workspace (required; default: $TINYMEMORY_WORKSPACE)",
    )
    add_env_option(
        parser,
        "--user",
        "TINYMEMORY_USER",
        "with --tools policy: the user the memories belong to (required; default: $TINYMEMORY_USER)",
    )
    add_env_option(
        parser,
        "--agent",
        "TINYMEMORY_AGENT",
        "with --tools policy: the agent, so memories land in the user's tier for that agent and "
        "the agent's shared memories are read (default: $TINYMEMORY_AGENT, else none)",
    )
    add_env_option(
        parser,
        "--policy",
        "TINYMEMORY_POLICY",
        "with --tools policy: a MemoryPolicy file, YAML or JSON (default: $TINYMEMORY_POLICY, else "
        "the built-in policy)",
    )


def policy_identity(args: argparse.Namespace) -> tuple[Identity, MemoryPolicy | None]:
    """The identity the flags name and its policy, checked before the store is opened. The person who
    configures the desktop client is the user, so the identity counts as verified."""
    from tinymemory.policy import Identity, MemoryPolicy

    for flag in ("workspace", "user"):
        if not getattr(args, flag):
            raise InvalidRequest(f"mcp: `--{flag}` is required with `--tools policy`")
    identity = Identity(args.workspace, args.user, args.agent or None, verified=True)
    return identity, MemoryPolicy.load(args.policy) if args.policy else None


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    parser = subparsers.add_parser(
        "mcp",
        help="serve the memory tools over MCP stdio",
        description="Serve the seven memory tools to an MCP client over stdio, in one fixed scope; or, "
        "with --tools policy, the memory__ tools of one user (--workspace, --user, --agent, --policy).",
    )
    add_arguments(parser)
    parser.set_defaults(func=run)


def warm_up(engine: MemoryEngine) -> threading.Thread | None:
    """Load the engine's embedder on a background thread, so that it is ready by the first call instead
    of being loaded by it. A failure is left for that call to report."""
    load = getattr(getattr(engine, "embedder", None), "load", None)
    if not callable(load):
        return None

    def work() -> None:
        with contextlib.suppress(Exception):  # the first embed raises it again, as a tool error
            load()

    thread = threading.Thread(target=work, name="tinymemory-warm-up", daemon=True)
    thread.start()
    return thread


def run(args: argparse.Namespace) -> int:
    from tinymemory.tools import MemoryTools, ToolScope

    place = Namespace.parse(args.place or "", field="--place")
    scope = ToolScope(place, scope_reach(place, args.reach), writes=not args.read_only)
    served = policy_identity(args) if args.tools == "policy" else None
    engine = open_store(args, embedder=None if args.no_embedder else "default", long_lived=True)
    warming = warm_up(engine)
    # The MCP SDK is the largest import of this process (about half a second); the embedder loads meanwhile.
    from tinymemory.adapters.mcp import INSTRUCTIONS, POLICY_INSTRUCTIONS, serve_stdio

    tools: ToolSet
    instructions = INSTRUCTIONS
    if served is not None:
        from tinymemory.policy import PolicyTools

        tools = PolicyTools.for_identity(engine, *served)
        instructions = POLICY_INSTRUCTIONS
    else:
        tools = MemoryTools.with_scope(engine, scope)
        if args.zone:
            tools = tools.in_zone(args.zone)

    async def serve() -> None:
        try:
            await serve_stdio(tools, instructions=instructions)
        finally:
            await engine.close()

    asyncio.run(serve())
    if warming is not None:
        # a client that leaves at once must not leave the load running into interpreter exit, where a
        # daemon thread inside native code is torn down (see engines/sqlite/ann_reads.py)
        warming.join()
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Stand-alone entry (`python -m tinymemory.cli.mcp_cmd`), the same as `tinymemory mcp`."""
    parser = argparse.ArgumentParser(prog="tinymemory mcp")
    add_arguments(parser)
    return run_guarded(parser, parser.parse_args(argv), run)


if __name__ == "__main__":
    sys.exit(main())
