"""`tinymemory import`: read a `tinymemory export` file into a store, in batches of one transaction each.

Every line is checked before anything is written (a bad line, a file of another format version or one
cut short writes nothing). Then the records go in `BATCH` at a time, each batch all or nothing, so an
interrupted import keeps whole batches only; running it again skips every id already present.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO

from tinymemory.api import InvalidRequest, TinyMemoryError, Unsupported
from tinymemory.api.records import (
    FORMAT_VERSION,
    ImportResult,
    PortableEngine,
    StoredRecord,
    decode_header,
    decode_line,
)
from tinymemory.cli.common import add_db_flag, db_target, emit

BATCH = 500  # records per transaction
PROGRESS_EVERY = 5_000  # records between two progress lines on stderr
_OP = "import"


@contextmanager
def _source(path: str) -> Iterator[IO[bytes]]:
    """The file, or stdin copied to an unnamed temporary file (it is read twice: checked, then loaded)."""
    if path != "-":
        try:
            fh = open(path, "rb")  # noqa: SIM115 - closed below
        except OSError as exc:
            raise InvalidRequest(f"{_OP}: `FILE` cannot be read ({exc.strerror})") from None
        with fh:
            yield fh
        return
    with tempfile.TemporaryFile() as spool:
        shutil.copyfileobj(sys.stdin.buffer, spool)
        spool.seek(0)
        yield spool


def check_file(fh: IO[bytes]) -> int:
    """Check every line (header, records, closing line); return the number of records."""
    records, closed = 0, False
    number = 0
    for number, line in enumerate(fh, 1):
        if number == 1:
            decode_header(line, op=_OP)
            continue
        if closed:
            raise InvalidRequest(f"{_OP}: line {number}: follows the closing line of the export")
        found = decode_line(line, number, op=_OP)
        if isinstance(found, StoredRecord):
            records += 1
            continue
        if found != records:
            raise InvalidRequest(
                f"{_OP}: line {number}: `records` is {found} but the file holds {records} records"
            )
        closed = True
    if number == 0:
        raise InvalidRequest(f"{_OP}: the file is empty (expected a `tinymemory export` file)")
    if not closed:
        raise InvalidRequest(
            f"{_OP}: the file ends at line {number} without its closing line: it was cut short; export again"
        )
    return records


def _batches(fh: IO[bytes]) -> Iterator[tuple[int, list[StoredRecord]]]:
    """(first line number, records) of `BATCH` records at a time, in file order."""
    batch: list[StoredRecord] = []
    first = 2
    for number, line in enumerate(fh, 1):
        found = None if number == 1 else decode_line(line, number, op=_OP)
        if not isinstance(found, StoredRecord):  # the header, or the closing line
            continue
        if not batch:
            first = number
        batch.append(found)
        if len(batch) == BATCH:
            yield first, batch
            batch = []
    if batch:
        yield first, batch


async def _finish(engine: PortableEngine, batch: list[StoredRecord]) -> tuple[ImportResult, bool]:
    """Import one batch; an interrupt (Ctrl-C) waits for it to end, committed whole or rolled back, so
    the count said afterwards is exact. True when interrupted: the caller stops after counting it."""
    task = asyncio.ensure_future(engine.import_records(batch))
    try:
        return await asyncio.shield(task), False
    except asyncio.CancelledError:
        return await task, True


async def _load(target: str | None, fh: IO[bytes], total: int) -> ImportResult:
    # open_engine: the one rule (SQLite path or postgresql:// URL) every entry point shares
    from tinymemory.engines import open_engine

    engine = open_engine(target, embedder="default")
    imported = skipped = 0
    try:
        if not isinstance(engine, PortableEngine):
            raise Unsupported(f"{_OP}: the {engine.descriptor.name} engine cannot import yet")
        for first, batch in _batches(fh):
            interrupted = False
            try:
                done, interrupted = await _finish(engine, batch)
            except TinyMemoryError as exc:
                raise type(exc)(
                    f"{exc.message} (lines {first}-{first + len(batch) - 1}; the {imported + skipped}"
                    " records before them are in the store, and running the import again skips them)"
                ) from None
            before = imported + skipped
            imported, skipped = imported + done.imported, skipped + done.skipped
            if interrupted:
                raise asyncio.CancelledError
            if (imported + skipped) // PROGRESS_EVERY > before // PROGRESS_EVERY:
                done_so_far = imported + skipped
                print(
                    f"{_OP}: {done_so_far} of {total} records ({imported} imported, {skipped} skipped)",
                    file=sys.stderr,
                    flush=True,
                )
    except asyncio.CancelledError:
        print(
            f"{_OP}: interrupted; {imported + skipped} records are in the store (whole batches only),"
            " and running the import again skips them",
            file=sys.stderr,
            flush=True,
        )
        raise
    finally:
        await engine.close()
    return ImportResult(imported, skipped)


def _import(args: argparse.Namespace) -> int:
    with _source(args.path) as fh:
        total = check_file(fh)
        fh.seek(0)
        result = asyncio.run(_load(db_target(args), fh, total))
    print(
        f"{_OP}: {total} records: {result.imported} imported, {result.skipped} skipped (already present)",
        file=sys.stderr,
    )
    return emit(
        {
            "records": total,
            "imported": result.imported,
            "skipped": result.skipped,
            "format_version": FORMAT_VERSION,
        }
    )


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "import",
        help="read a `tinymemory export` file into a store (ids already present are skipped)",
    )
    add_db_flag(p)
    p.add_argument(
        "path",  # a file name: any bytes the OS allows (cli.edge)
        metavar="FILE",
        help="the export file, or - for stdin",
    )
    p.set_defaults(func=_import)
