"""`tinymemory retention run|status`: the retention job over a store.

`run` forgets and purges every memory kept past its policy's retention (per category and tier), with
what was derived from it (see policy/erasure.py); `--dry-run` lists what would go, counted per tier and
category, and changes nothing. `status` prints a workspace's retention rules and those counts. The job is
idempotent, so a cron entry and the service's own periodic run may overlap. Policies come from --policy
(a file for every workspace, or a folder of <workspace>.yaml files), as for `tinymemory serve`.
"""

from __future__ import annotations

import argparse
import asyncio
import os
from pathlib import Path
from typing import Any

from tinymemory.cli.common import add_db_flag, emit, open_store, require_store


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    parser = subparsers.add_parser("retention", help="forget and purge memories kept past their retention")
    sub = parser.add_subparsers(dest="retention_command", metavar="ACTION", required=True)
    for action, help_text in (
        ("run", "forget and purge what is past its retention, with what was derived from it"),
        ("status", "a workspace's retention rules and how many memories are past them"),
    ):
        p = sub.add_parser(action, help=help_text)
        add_db_flag(p)
        p.add_argument(
            "--workspace",
            required=action == "status",
            help="one workspace" + (" (default: every workspace)" if action == "run" else ""),
        )
        p.add_argument(
            "--policy",
            default=os.environ.get("TINYMEMORY_POLICY"),
            help="a MemoryPolicy file, or a folder of <workspace>.yaml files (default: $TINYMEMORY_POLICY, "
            "else the built-in policy, which keeps memories until they are forgotten)",
        )
        if action == "run":
            p.add_argument(
                "--dry-run",
                action="store_true",
                help="only count what would go, per tier and category; change nothing",
            )
        p.set_defaults(func=run, action=action)


def _rules(book: Any, workspace: str) -> Any:
    """The workspace's retention rules, durations in the policy's own syntax (`30d`, `12h`)."""
    from datetime import timedelta

    from tinymemory.policy.policy import duration_text

    def shown(value: Any) -> Any:
        if isinstance(value, timedelta):
            return duration_text(value)
        if isinstance(value, dict):
            return {str(k): shown(v) for k, v in value.items()}
        return value

    return shown(book.effective(workspace).retention.model_dump(by_alias=True))


def run(args: argparse.Namespace) -> int:
    from tinymemory.api import InvalidRequest
    from tinymemory.policy import Identity, RetentionJob
    from tinymemory.service.policies import PolicyBook

    op = f"retention {args.action}"
    if args.workspace is not None:
        try:
            Identity(args.workspace)  # the name follows the namespace grammar
        except InvalidRequest as exc:  # said of the flag the user typed, by this command
            raise InvalidRequest(f"{op}: `--workspace` " + exc.message.split("`workspace` ", 1)[-1]) from None
    try:
        book = PolicyBook.load(Path(args.policy) if args.policy else None)
    except InvalidRequest as exc:  # the book speaks as `serve`, its first reader
        raise InvalidRequest(f"{op}: {exc.message.removeprefix('serve: ')}") from None
    require_store(op, args)  # a store that does not exist holds nothing to expire

    async def go() -> Any:
        engine = open_store(args)
        try:
            job = RetentionJob(engine, book.effective, policies=book.every_policy())
            if args.action == "status":
                report = await job.run(args.workspace, dry_run=True)
                return {
                    "workspace": args.workspace,
                    "rules": _rules(book, args.workspace),
                    **report.to_dict(),
                }
            return (await job.run(args.workspace, dry_run=args.dry_run)).to_dict()
        finally:
            await engine.close()

    return emit(asyncio.run(go()))
