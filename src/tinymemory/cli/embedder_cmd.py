"""`tinymemory embedder`: which embedder the engines use, and building the static table ahead of time."""

from __future__ import annotations

import argparse
import os

from tinymemory.cli.common import emit


def _info(args: argparse.Namespace) -> int:
    from tinymemory.retrieval.embedders import (
        ENV_EMBEDDER,
        embedder_choice,
        minilm_available,
        static_minilm_path,
    )

    table = static_minilm_path()
    return emit(
        {
            "selected": embedder_choice(os.environ.get(ENV_EMBEDDER)),
            "minilm_weights_installed": minilm_available(),
            "static_table": str(table),
            "static_table_built": table.is_file(),
        }
    )


def _build(args: argparse.Namespace) -> int:
    from tinymemory.retrieval.embedders import build_static_minilm, static_minilm_path

    target = static_minilm_path(args.dim)
    if target.is_file() and not args.force:
        return emit({"static_table": str(target), "built": False, "reason": "already built (use --force)"})
    path = build_static_minilm(target, dim=args.dim)
    return emit({"static_table": str(path), "built": True})


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("embedder", help="show the embedder in use; build the static table ahead of time")
    actions = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    info = actions.add_parser("info", help="which embedder is selected and whether its files are present")
    info.set_defaults(func=_info)
    build = actions.add_parser("build", help="distil the static-minilm table now (otherwise: on first use)")
    build.add_argument("--dim", type=int, default=256, help="dimensions kept (default 256)")
    build.add_argument("--force", action="store_true", help="rebuild even when the table exists")
    build.set_defaults(func=_build)
