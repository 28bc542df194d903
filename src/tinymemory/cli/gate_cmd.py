"""`tinymemory gate run|status`: the shared-write gate over a store file.

`run` weighs every queued share (or one workspace's) and publishes, merges, holds or rejects; it is
idempotent, so a cron entry, a crashed run's rerun and the service's own background run may overlap.
`status` shows what the gate holds for a workspace. Workspaces' policies come from --policy (a file for
every workspace, or a folder of <workspace>.yaml files), as for `tinymemory serve`.
"""

from __future__ import annotations

import argparse
import asyncio
import os
from pathlib import Path
from typing import Any

from tinymemory.cli.common import add_db_flag, emit, open_store, require_store


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    parser = subparsers.add_parser("gate", help="run the shared-write gate, or show what it holds")
    sub = parser.add_subparsers(dest="gate_command", metavar="ACTION", required=True)
    for action, help_text in (
        ("run", "publish the shares enough distinct users corroborated; reject the expired ones"),
        ("status", "the candidates a workspace's gate holds, and its recent decisions"),
    ):
        p = sub.add_parser(action, help=help_text)
        add_db_flag(p)
        p.add_argument(
            "--workspace",
            required=action == "status",
            help="one workspace"
            + (" (default: every workspace with queued shares)" if action == "run" else ""),
        )
        p.add_argument(
            "--policy",
            default=os.environ.get("TINYMEMORY_POLICY"),
            help="a MemoryPolicy file, or a folder of <workspace>.yaml files (default: $TINYMEMORY_POLICY, "
            "else the built-in policy, whose gate is off)",
        )
        p.set_defaults(func=run, action=action)


def run(args: argparse.Namespace) -> int:
    from tinymemory.policy import Identity
    from tinymemory.policy.gate import GateJob, gate_matcher, gate_status
    from tinymemory.service.policies import PolicyBook

    if args.workspace is not None:
        Identity(args.workspace)  # the name follows the namespace grammar
    book = PolicyBook.load(Path(args.policy) if args.policy else None)
    require_store(f"gate {args.action}", args)  # a gate of a store that does not exist holds nothing

    async def go() -> Any:
        # The store's own embedder, so a published copy is searchable by meaning like any memory.
        engine = open_store(args)
        try:
            matcher = gate_matcher()
            if args.action == "status":
                return await gate_status(engine, args.workspace, book.effective(args.workspace), matcher)
            report = await GateJob(engine, book.effective, matcher).run(args.workspace)
            return report.to_dict()
        finally:
            await engine.close()

    return emit(asyncio.run(go()))
