"""The `tinymemory` command: one sub-command module per job, all printing JSON on stdout."""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Sequence

from tinymemory import __version__
from tinymemory.cli.edge import run_guarded

# Each module exposes register(subparsers) and sets `func` on its parsers.
COMMAND_MODULES = (
    "tinymemory.cli.memory_cmds",
    "tinymemory.cli.demo_cmd",
    "tinymemory.cli.mcp_cmd",
    "tinymemory.cli.ingest_cmd",
    "tinymemory.cli.embedder_cmd",
    "tinymemory.cli.serve_cmd",
    "tinymemory.cli.token_cmd",
    "tinymemory.cli.agents_cmd",
    "tinymemory.cli.gate_cmd",
    "tinymemory.cli.export_cmd",
    "tinymemory.cli.import_cmd",
    "tinymemory.cli.db_cmd",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tinymemory",
        description="Memory for LLM agents: store, search and recall scoped memories (JSON out).",
    )
    parser.add_argument("--version", action="version", version=f"tinymemory {__version__}")
    sub = parser.add_subparsers(
        dest="command",
        metavar="COMMAND",
        required=True,
        help="one of these (`tinymemory COMMAND --help` shows its flags)",
    )
    for name in COMMAND_MODULES:
        module = importlib.import_module(name)
        module.register(sub)
    _describe_from_summaries(parser)
    return parser


def _describe_from_summaries(parser: argparse.ArgumentParser) -> None:
    """A sub-command without a description gets its one-line summary, so its --help says what it does."""
    for action in parser._actions:
        if not isinstance(action, argparse._SubParsersAction):
            continue
        summaries = {a.dest: a.help for a in action._choices_actions}
        for name, sub in action.choices.items():
            summary = summaries.get(name)
            if not sub.description and summary:
                sub.description = summary[0].upper() + summary[1:] + "."
            _describe_from_summaries(sub)


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    return run_guarded(parser, args, args.func)
