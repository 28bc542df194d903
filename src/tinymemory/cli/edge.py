"""The command line's edge: text that is not UTF-8 is refused on the way in, and every failure leaves as one
JSON line on stderr, never a Python traceback.

Python decodes argv with `surrogateescape`, so bytes that are not UTF-8 arrive as lone surrogates that
would only blow up deep inside a write. They are refused here, naming the command and the argument.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import traceback
from collections.abc import Callable, Iterator, Sequence
from typing import NoReturn

# tinymemory.api is imported where a command runs, not here: `tinymemory --version` never loads it.

DEBUG_ENV = "TINYMEMORY_DEBUG"
# File names are bytes on POSIX: these arguments may hold any of them (the OS, not us, reads them).
PATH_ARGUMENTS = frozenset({"db", "path"})
INVALID_EXIT = 2  # the request was refused (a TinyMemoryError)
INTERNAL_EXIT = 1  # anything else: a defect or the environment


def command_name(parser: argparse.ArgumentParser, args: argparse.Namespace) -> str:
    """`store`, `embedder build`: the sub-commands chosen on this command line."""
    return " ".join(name for name, _ in _chosen(parser, args))


def _chosen(
    parser: argparse.ArgumentParser, args: argparse.Namespace
) -> Iterator[tuple[str, argparse.ArgumentParser]]:
    current = parser
    while True:
        subs = [a for a in current._actions if isinstance(a, argparse._SubParsersAction)]
        name = getattr(args, subs[0].dest, None) if subs else None
        if not subs or name is None:
            return
        current = subs[0].choices[name]
        yield name, current


def _has_surrogate(value: object) -> bool:
    if isinstance(value, str):
        try:
            value.encode("utf-8")  # strict: a lone surrogate is the only str that cannot encode
        except UnicodeEncodeError:
            return True
        return False
    if isinstance(value, list | tuple):
        return any(_has_surrogate(v) for v in value)
    return False


def reject_undecodable(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Refuse any argument (or environment default) whose bytes were not UTF-8; paths excepted."""
    from tinymemory.api import InvalidRequest

    command = command_name(parser, args) or parser.prog
    parsers = [parser, *(p for _, p in _chosen(parser, args))]
    for p in parsers:
        for action in p._actions:
            if action.dest in PATH_ARGUMENTS or isinstance(action, argparse._SubParsersAction):
                continue
            if _has_surrogate(getattr(args, action.dest, None)):
                shown = max(action.option_strings, key=len) if action.option_strings else action.dest
                raise InvalidRequest(f"{command}: argument `{shown}` is not valid UTF-8")


def read_stdin(command: str, argument: str) -> str:
    """All of stdin, decoded strictly (the locale's decoder may smuggle bytes in as surrogates)."""
    from tinymemory.api import InvalidRequest

    data = sys.stdin.buffer.read()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise InvalidRequest(
            f"{command}: argument `{argument}` (read from stdin) is not valid UTF-8"
        ) from None


class ArgumentsRefused(Exception):
    """A command line argparse could not read; `main` prints it as the JSON refusal."""

    def __init__(self, command: str, message: str, prog: str) -> None:
        super().__init__(f"{command}: {message} (`{prog} --help` lists what it takes)")


class JsonErrorParser(argparse.ArgumentParser):
    """An ArgumentParser (its sub-command parsers too) whose errors are the project's refusal, not a
    usage text: a missing or unknown argument, a bad type or choice leaves as one JSON line, exit 2.
    `--help` and `--version` stay human."""

    def error(self, message: str) -> NoReturn:
        command = self.prog.removeprefix("tinymemory ") if " " in self.prog else self.prog
        raise ArgumentsRefused(command, message, self.prog)

    def parse_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> argparse.Namespace:
        """As argparse's, but arguments left over are refused by the sub-command they were given to."""
        parsed, extras = self.parse_known_args(args, namespace)
        if extras:
            command = command_name(self, parsed) or self.prog
            prog = f"{self.prog} {command}" if command != self.prog else self.prog
            raise ArgumentsRefused(command, f"unrecognized arguments: {' '.join(extras)}", prog)
        return parsed


def refuse_arguments(refused: ArgumentsRefused) -> int:
    """Print the refusal as every other refusal is printed, and give the refusal's exit code."""
    from tinymemory.api import InvalidRequest

    _print_error(InvalidRequest.kind, str(refused))
    return INVALID_EXIT


def _print_error(kind: str, message: str) -> None:
    print(json.dumps({"error": kind, "message": message}), file=sys.stderr)


def run_guarded(
    parser: argparse.ArgumentParser, args: argparse.Namespace, func: Callable[[argparse.Namespace], int]
) -> int:
    """Run one command; a refusal exits 2 and anything unexpected exits 1, each as a JSON error."""
    from tinymemory.api import TinyMemoryError

    command = command_name(parser, args) or parser.prog
    try:
        reject_undecodable(parser, args)
        return func(args)
    except TinyMemoryError as exc:
        _print_error(exc.kind, exc.message)
        return INVALID_EXIT
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # the reader went away (`| head`): say nothing more, and keep the exit-time flush quiet
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return INTERNAL_EXIT
    except Exception as exc:
        if os.environ.get(DEBUG_ENV, "").strip() not in ("", "0"):
            traceback.print_exc()
        _print_error(
            "internal",
            f"{command}: {type(exc).__name__}: {exc} "
            f"(not a tinymemory error; rerun with {DEBUG_ENV}=1 to see the traceback)",
        )
        return INTERNAL_EXIT
