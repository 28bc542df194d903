"""`tinymemory export`: a whole store (or one namespace subtree) as JSON lines, to move it to another engine.

The format is api.records' (docs/architecture/export.md). A file is written under a temporary name and
renamed when complete, so a killed export never leaves a file that looks whole; the closing line tells
`tinymemory import` the same about a stream cut short.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from pathlib import Path
from typing import IO, Any

from tinymemory.api import Namespace, Unsupported
from tinymemory.api.atomic import replacing
from tinymemory.api.records import (
    FORMAT_VERSION,
    PortableEngine,
    encode_header,
    encode_record,
    encode_trailer,
)
from tinymemory.cli.common import add_db_flag, db_target, emit, require_store

PROGRESS_EVERY = 5_000  # records between two progress lines on stderr
_OP = "export"


async def _write(target: str | None, out: IO[bytes], vectors: bool, subtree: Namespace | None) -> int:
    # open_engine: the one rule (SQLite path or postgresql:// URL) every entry point shares
    from tinymemory.engines import open_engine

    engine = open_engine(target, embedder=None)
    try:
        if not isinstance(engine, PortableEngine):
            raise Unsupported(f"{_OP}: the {engine.descriptor.name} engine cannot export yet")
        out.write(encode_header().encode("utf-8") + b"\n")
        count = 0
        async for record in engine.export_records(vectors=vectors):
            if subtree is not None and not record.item.meta.namespace.is_within(subtree):
                continue
            out.write(encode_record(record).encode("utf-8") + b"\n")
            count += 1
            if count % PROGRESS_EVERY == 0:
                print(f"{_OP}: {count} records", file=sys.stderr, flush=True)
        out.write(encode_trailer(count).encode("utf-8") + b"\n")
        return count
    finally:
        await engine.close()


def _to_file(path: Path, write: Any) -> int:
    """Write beside `path` under a temporary name (owner-only, as the store's copy it is) and rename."""
    with replacing(path, prefix=f".{path.name}.", suffix=".partial") as tmp, open(tmp, "wb") as fh:
        count: int = write(fh)
        fh.flush()
        os.fsync(fh.fileno())
    return count


def _export(args: argparse.Namespace) -> int:
    subtree = None if args.namespace is None else Namespace.parse(args.namespace, field="--namespace")
    target = db_target(args)
    require_store(_OP, args)

    def write(out: IO[bytes]) -> int:
        return asyncio.run(_write(target, out, args.vectors, subtree))

    to_stdout = args.path == "-"
    count = write(sys.stdout.buffer) if to_stdout else _to_file(Path(args.path), write)
    summary = {
        "exported": count,
        "format_version": FORMAT_VERSION,
        "vectors": args.vectors,
        "namespace": None if subtree is None else str(subtree),
        "output": os.fsencode(args.path).decode("utf-8", "replace"),
    }
    if to_stdout:  # stdout holds the records: the summary goes to stderr, as one line
        sys.stdout.flush()
        print(f"{_OP}: {count} records (format version {FORMAT_VERSION})", file=sys.stderr)
        return 0
    return emit(summary)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "export",
        help="write a store as JSON lines for `tinymemory import` (forgotten versions as tombstones)",
    )
    add_db_flag(p)
    p.add_argument(
        "--vectors", action="store_true", help="include each version's vector (embedder name, size, floats)"
    )
    p.add_argument(
        "--namespace",
        default=None,
        help="only this namespace and everything below it, e.g. team:acme (default: the whole store)",
    )
    p.add_argument(
        "-o",
        "--output",
        dest="path",  # a file name: any bytes the OS allows (cli.edge)
        default="-",
        metavar="FILE",
        help="where to write (default: - for stdout, the summary then going to stderr)",
    )
    p.set_defaults(func=_export)
