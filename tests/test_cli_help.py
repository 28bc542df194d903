"""`tinymemory --help` documents everything: every sub-command has a description and every argument a help."""

from __future__ import annotations

import argparse
from collections.abc import Iterator

from tinymemory.cli import build_parser


def walk(parser: argparse.ArgumentParser, path: str) -> Iterator[tuple[str, argparse.ArgumentParser]]:
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from walk(sub, f"{path} {name}")


def test_every_command_has_a_summary_and_a_description() -> None:
    missing = []
    for path, parser in walk(build_parser(), "tinymemory"):
        if not (parser.description or "").strip():
            missing.append(f"{path}: description")
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                summaries = {a.dest: a.help for a in action._choices_actions}
                missing += [f"{path} {n}: summary" for n in action.choices if not (summaries.get(n) or "")]
    assert missing == []


def test_every_argument_has_help() -> None:
    missing = [
        f"{path}: {'/'.join(action.option_strings) or action.dest}"
        for path, parser in walk(build_parser(), "tinymemory")
        for action in parser._actions
        if not isinstance(action, argparse._SubParsersAction)
        and (not (action.help or "").strip() or action.help == argparse.SUPPRESS)
    ]
    assert missing == []
