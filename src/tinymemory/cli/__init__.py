"""The `tinymemory` command: one sub-command module per job, all printing JSON on stdout."""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from collections.abc import Sequence

from tinymemory import __version__
from tinymemory.api import TinyMemoryError

# Each module exposes register(subparsers) and sets `func` on its parsers.
COMMAND_MODULES = (
    "tinymemory.cli.memory_cmds",
    "tinymemory.cli.demo_cmd",
    "tinymemory.cli.mcp_cmd",
    "tinymemory.cli.ingest_cmd",
    "tinymemory.cli.embedder_cmd",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tinymemory",
        description="Memory for LLM agents: store, search and recall scoped memories (JSON out).",
    )
    parser.add_argument("--version", action="version", version=f"tinymemory {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMAND_MODULES:
        module = importlib.import_module(name)
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        code: int = args.func(args)
    except TinyMemoryError as exc:
        print(json.dumps({"error": exc.kind, "message": exc.message}), file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    return code
