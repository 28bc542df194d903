"""Flags and helpers every CLI command shares: where the store is and which namespace acts."""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

from tinymemory.api import Namespace, Reach, parse_rfc3339, to_jsonable


def add_store_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--db",
        default=os.environ.get("TINYMEMORY_DB"),
        help="SQLite file (default: $TINYMEMORY_DB, else $TINYMEMORY_HOME/memory.db, else the user data dir)",
    )
    parser.add_argument(
        "--namespace",
        default=os.environ.get("TINYMEMORY_NAMESPACE", ""),
        help="where writes land and reads start, e.g. team:acme/agent:writer (default: the root)",
    )
    parser.add_argument(
        "--reach",
        default=None,
        help="override what reads see, e.g. 'subtree(team:acme)' (default: the namespace and its ancestors)",
    )
    parser.add_argument(
        "--no-embedder", action="store_true", help="lexical only: do not load the embedding model"
    )


def namespace_of(args: argparse.Namespace) -> Namespace:
    return Namespace.parse(args.namespace, field="--namespace")


def reach_of(args: argparse.Namespace) -> Reach:
    if args.reach:
        return Reach.parse(args.reach, field="--reach")
    return Reach.of(namespace_of(args))


def time_arg(value: str | None, flag: str) -> Any:
    return None if value is None else parse_rfc3339(value, field=flag)


def emit(value: Any) -> int:
    json.dump(to_jsonable(value), sys.stdout, ensure_ascii=False, indent=2)
    sys.stdout.write("\n")
    return 0
