"""The `tinymemory` command: one sub-command module per job, all printing JSON on stdout."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from tinymemory._version import __version__
from tinymemory.cli.edge import ArgumentsRefused, JsonErrorParser, refuse_arguments, run_guarded

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
    "tinymemory.cli.retention_cmd",
    "tinymemory.cli.export_cmd",
    "tinymemory.cli.import_cmd",
    "tinymemory.cli.db_cmd",
)


_MEMORY = "tinymemory.cli.memory_cmds"
# Which module registers each command, so that `tinymemory fetch` imports what fetch needs and not the
# service, the MCP server or the brain (tests/test_cli_lazy.py checks this against the modules).
COMMANDS = {
    **dict.fromkeys(
        ("store", "fetch", "recall", "list", "get", "explore", "forget", "purge", "info"), _MEMORY
    ),
    "demo": "tinymemory.cli.demo_cmd",
    "mcp": "tinymemory.cli.mcp_cmd",
    "ingest": "tinymemory.cli.ingest_cmd",
    "embedder": "tinymemory.cli.embedder_cmd",
    "serve": "tinymemory.cli.serve_cmd",
    "token": "tinymemory.cli.token_cmd",
    "agents": "tinymemory.cli.agents_cmd",
    "gate": "tinymemory.cli.gate_cmd",
    "retention": "tinymemory.cli.retention_cmd",
    "export": "tinymemory.cli.export_cmd",
    "import": "tinymemory.cli.import_cmd",
    "db": "tinymemory.cli.db_cmd",
}


def modules_for(argv: Sequence[str]) -> tuple[str, ...]:
    """The command modules a command line needs: the one that registers its command; none for a bare
    `--version`; every one otherwise (top-level help, an unknown command: their messages list all)."""
    command = next((a for a in argv if not a.startswith("-")), None)
    if command in COMMANDS:
        return (COMMANDS[command],)
    if command is None and "--version" in argv and not {"-h", "--help"} & set(argv):
        return ()
    return COMMAND_MODULES


def build_parser(modules: Sequence[str] = COMMAND_MODULES) -> argparse.ArgumentParser:
    parser = JsonErrorParser(
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
    for name in modules:
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
    args_in = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(modules_for(args_in))
    try:
        args = parser.parse_args(args_in)
    except ArgumentsRefused as refused:
        return refuse_arguments(refused)
    return run_guarded(parser, args, args.func)
