"""`tinymemory agents list|put|delete`: a workspace's agent registry, read and written in the store file
(the person at the command line owns it; the service's /api/v1/agents routes do the same over HTTP)."""

from __future__ import annotations

import argparse
import asyncio
from typing import Any

from tinymemory.cli.common import add_db_flag, emit, open_store, require_store


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    parser = subparsers.add_parser("agents", help="list, add, change or remove a workspace's agents")
    sub = parser.add_subparsers(dest="agents_command", metavar="ACTION", required=True)
    for action, help_text in (
        ("list", "the workspace's agents"),
        ("put", "create or replace an agent (its id is kept across updates)"),
        ("delete", "remove an agent from the registry"),
    ):
        p = sub.add_parser(action, help=help_text)
        add_db_flag(p)
        p.add_argument("--workspace", required=True, help="the workspace whose registry this is")
        if action != "list":
            p.add_argument("name", help="the agent's name")
        if action == "put":
            p.add_argument("--notes", help="tool notes shown to this agent's model")
            p.add_argument("--no-tools", action="store_true", help="offer this agent's users no memory tools")
            p.add_argument("--no-retrieval", action="store_true", help="switch ambient retrieval off")
        p.set_defaults(func=run, action=action)


def run(args: argparse.Namespace) -> int:
    from tinymemory.policy import Identity
    from tinymemory.service.registry import AgentRegistry

    Identity(args.workspace)  # the name follows the namespace grammar
    if args.action != "put":  # list and delete read an existing registry; put may create the store
        require_store(f"agents {args.action}", args)

    async def go() -> Any:
        engine = open_store(args, embedder=None)
        try:
            registry = AgentRegistry(engine)
            if args.action == "list":
                return {"agents": [r.to_dict() for r in await registry.list(args.workspace)]}
            if args.action == "put":
                record, created = await registry.put(
                    args.workspace,
                    args.name,
                    notes=args.notes,
                    tools=not args.no_tools,
                    retrieval=not args.no_retrieval,
                )
                return {"created": created, "agent": record.to_dict()}
            return {"deleted": (await registry.delete(args.workspace, args.name)).to_dict()}
        finally:
            await engine.close()

    return emit(asyncio.run(go()))
