"""`tinymemory ingest PATH --source NAME`: a file or a folder into the brain (replay-safe)."""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path

from tinymemory.cli.common import add_store_flags, emit, namespace_of, open_store
from tinymemory.lifecycle import Brain, IngestReport, MemoryLayout


def _run(args: argparse.Namespace) -> int:
    layout = MemoryLayout(namespace_of(args))
    layout.brain(args.source)  # refuses a bad source name before anything is opened

    async def main() -> IngestReport:
        embedder = None if args.no_embedder else "default"
        engine = open_store(args, embedder=embedder)
        try:
            brain = Brain(engine, layout)
            return await brain.ingest(
                Path(args.path),
                source=args.source,
                progress=not args.quiet,
                follow_symlinks=args.follow_symlinks,
            )
        finally:
            await engine.close()

    report = asyncio.run(main())
    emit(
        {
            "namespace": str(layout.brain(args.source)),
            "stored": report.stored,
            "replaced": report.replaced,
            "unchanged": report.unchanged,
            "failed": [{"path": p, "message": m} for p, m in report.failed],
            "chunks": report.chunks,
            "unsupported": report.unsupported,
        }
    )
    return 1 if report.failed and not (report.stored or report.replaced or report.unchanged) else 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "ingest",
        help="ingest documents (markdown, text, html; pdf with the pdf extra) into the brain",
        description="Unchanged documents are skipped; changed ones replace their chunks. A symbolic "
        "link inside the folder that leads outside it (or to nothing) is skipped and listed under "
        '"failed", unless --follow-symlinks; so is an image or attachment a document links outside '
        "the folder (the document is stored, the file is not read). Files of other types are not read "
        'and are listed under "unsupported" (and on stderr). PATH itself may be a link.',
    )
    p.add_argument(
        "path",
        help="a file or a folder (walked recursively, hidden files skipped, links that leave it refused)",
    )
    p.add_argument(
        "--follow-symlinks",
        action="store_true",
        help="also follow symbolic links that lead outside the folder (only for a folder you trust)",
    )
    p.add_argument("--source", required=True, help="the brain source name, e.g. handbook")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    add_store_flags(p)
    p.set_defaults(func=_run)
