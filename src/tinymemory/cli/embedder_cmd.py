"""`tinymemory embedder`: which embedder the engines use, building a static table, and re-embedding a file
after a switch of embedder."""

from __future__ import annotations

import argparse
import asyncio
import os
from typing import Any

from tinymemory.cli.common import add_db_flag, emit, open_store


def _weights_match(manifest_weights: str) -> bool | None:
    """Whether the installed MiniLM weights are the ones the shipped table came from (None: not installed)."""
    from tinymemory.retrieval.embedders import find_minilm_dir
    from tinymemory.retrieval.embedders.tables import sha256_file

    model_dir = find_minilm_dir()
    if model_dir is None:
        return None
    return sha256_file(model_dir / "model.safetensors") == manifest_weights


def _info(args: argparse.Namespace) -> int:
    from tinymemory.retrieval.embedders import (
        ENV_EMBEDDER,
        StaticMiniLMEmbedder,
        embedder_choice,
        lexical_only_reason,
        minilm_available,
        shipped_table,
    )
    from tinymemory.retrieval.embedders.tables import manifest_path, read_manifest

    static = StaticMiniLMEmbedder(dim=args.dim)
    table = static.path
    shipped = shipped_table(args.dim)
    manifest = read_manifest(table) if table.is_file() else None
    out: dict[str, Any] = {
        "selected": embedder_choice(os.environ.get(ENV_EMBEDDER)),
        "lexical_only_reason": lexical_only_reason(),
        "minilm_weights_installed": minilm_available(),
        "static_table": str(table),
        "static_table_source": "shipped" if table == shipped else ("built" if table.is_file() else "missing"),
        "static_table_manifest": str(manifest_path(table)) if manifest is not None else None,
    }
    if manifest is not None:
        out["distilled_from_weights_sha256"] = manifest.weights_sha256
        out["installed_weights_match"] = _weights_match(manifest.weights_sha256)
    return emit(out)


def _build(args: argparse.Namespace) -> int:
    from tinymemory.retrieval.embedders import build_static_minilm, shipped_table, static_minilm_path
    from tinymemory.retrieval.embedders.tables import read_manifest

    target = static_minilm_path(args.dim)
    shipped = shipped_table(args.dim)
    if not args.force and (shipped is not None or target.is_file()):
        reason = (
            "the package ships this table; --force rebuilds it from the weights into the data directory"
            if shipped is not None
            else "already built (--force rebuilds it)"
        )
        return emit({"static_table": str(shipped or target), "built": False, "reason": reason})
    path = build_static_minilm(target, dim=args.dim)
    out: dict[str, Any] = {"static_table": str(path), "built": True}
    built = read_manifest(path)
    if shipped is not None and built is not None:
        ship = read_manifest(shipped)
        out["same_as_shipped"] = ship is not None and ship.table_sha256 == built.table_sha256
        out["in_use"] = str(shipped)  # the shipped table stays the one engines read
    return emit(out)


def _reembed(args: argparse.Namespace) -> int:
    from tinymemory.api import Unsupported
    from tinymemory.retrieval.embedders.progress import progress_bar

    async def run() -> Any:
        engine = open_store(args, embedder="default")
        try:
            # Not part of the engine contract: an engine offers it or says so.
            reembed = getattr(engine, "reembed", None)
            if reembed is None:
                raise Unsupported(f"embedder reembed: the {engine.descriptor.name} engine cannot re-embed")
            name = engine.descriptor.embedder or "no embedder"
            with progress_bar(True) as bar:
                task = bar.add_task(f"tinymemory: re-embedding with {name}", total=None)

                def report(done: int, total: int) -> None:
                    bar.update(task, completed=done, total=total)

                return await reembed(batch=args.batch, progress=report)
        finally:
            await engine.close()

    return emit(asyncio.run(run()))


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "embedder", help="show the embedder in use; build a static table; re-embed a store after a switch"
    )
    actions = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    info = actions.add_parser("info", help="which embedder is selected and whether its files are present")
    info.add_argument("--dim", type=int, default=256, help="static table dimensions (default 256)")
    info.set_defaults(func=_info)
    build = actions.add_parser(
        "build", help="distil a static-minilm table from the minilm weights into the data directory"
    )
    build.add_argument("--dim", type=int, default=256, help="dimensions kept (default 256, which ships)")
    build.add_argument("--force", action="store_true", help="rebuild even when the table exists or ships")
    build.set_defaults(func=_build)
    reembed = actions.add_parser(
        "reembed",
        help="give every item a vector from the current embedder (resumable; a second run does nothing)",
    )
    add_db_flag(reembed)
    reembed.add_argument("--batch", type=int, default=256, help="items per transaction (default 256)")
    reembed.set_defaults(func=_reembed)
