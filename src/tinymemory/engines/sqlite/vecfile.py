"""A saved copy of the vector matrix beside the database: float32 unit rows and their rowids, laid out as
the matrix holds them, so a new process maps one file instead of decoding every blob of the table.

Why: at 100,000 vectors a process that opens the file and scans reads 100,000 float16 blobs from SQLite,
widens and normalises them (about 0.7 s on the measuring machine, against 20 ms for a warm scan); the
same rows mapped from this file are scanned at once (bench/oneshot.py). A matrix that loaded at least
`vectors.SAVE_MIN_ROWS` rows from the table writes one (vectors.py); the next process maps it and reads
only the rows stored since from the table (the tail), as the HNSW graph does.

The file is `<db>.vectors-<embedder>-<dim>-e<epoch>`: a 4,096-byte header (magic, JSON settings, their
checksum), the rows, then the rowids. It is written to a temporary file, flushed to disk and renamed, so
it is whole or absent. It is named by the file's vectors epoch, which a re-embed and a purge move, so a
copy of vectors that were rewritten or purged is never read; a purge deletes every copy at once
(`ann_reads.GraphHolder.drop`) and a save deletes the copies of older epochs. Before a mapped copy is
used, a sample of its rows is compared with the table's (`matches`): a file left beside a database that
was replaced by another is refused. Like the graph, a copy is deleted, never zeroed in place, since
another process may have it mapped.
"""

from __future__ import annotations

import contextlib
import glob
import json
import mmap
import os
import re
import sqlite3
import zlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from tinymemory.api.atomic import replacing
from tinymemory.engines.paths import in_memory
from tinymemory.engines.versions import Floats

MAGIC = b"TMVECS01"
FORMAT = 1
HEADER = 4096
SAMPLE = 16  # rows compared with the table before a mapped copy is used
Ints = np.ndarray[Any, np.dtype[np.int64]]


def db_file(conn: sqlite3.Connection) -> str | None:
    """The main database's file of a connection, or None in memory (nothing to keep beside it)."""
    for row in conn.execute("PRAGMA database_list").fetchall():
        if row[1] == "main":
            name = str(row[2] or "")
            return None if not name or in_memory(name) else name
    return None  # pragma: no cover - every connection has a main database


def path_for(db_path: str, embedder: str, dim: int, epoch: int) -> Path:
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", embedder)
    return Path(f"{db_path}.vectors-{safe}-{dim}-e{epoch}")


def files(db_path: str) -> list[Path]:
    """Every saved copy of this database, of any embedder and epoch, temporary files included."""
    base = Path(db_path)
    if not base.parent.exists():
        return []
    return sorted(base.parent.glob(f"{glob.escape(base.name)}.vectors-*"))


def drop_all(db_path: str) -> None:
    """Delete every copy (a purge: they hold the purged vectors)."""
    for path in files(db_path):
        path.unlink(missing_ok=True)


@dataclass(frozen=True, slots=True)
class Mapped:
    """A copy mapped read-only: `rows[i]` is the unit vector of `rowids[i]`, rowids increasing."""

    rows: Floats
    rowids: Ints
    epoch: int


def save(path: Path, parts: Iterable[tuple[Ints, Floats]], embedder: str, dim: int, epoch: int) -> int:
    """Write the (rowids, rows) blocks of `parts`, in order and rowids increasing, atomically; return
    the rows written. The blocks are written as they come (a copy read from the table is never held
    whole), the header last, so a temporary file is whole only once it is renamed."""
    drop_orphans(path)
    name = f"{path.name}.{os.getpid()}."
    ids: list[Ints] = []
    with replacing(path, prefix=name, suffix=".tmp", sync_dir=True) as tmp, open(tmp, "wb") as fh:
        fh.write(bytes(HEADER))
        for rowids, block in parts:
            if len(rowids) != len(block):
                raise ValueError("vecfile: a block's rows and rowids differ in number")
            fh.write(np.ascontiguousarray(block, dtype="<f4").data)
            ids.append(np.asarray(rowids, dtype=np.int64))
        every = np.concatenate(ids) if ids else np.empty(0, dtype=np.int64)
        fh.write(np.ascontiguousarray(every, dtype="<i8").data)
        n = len(every)
        meta = {"format": FORMAT, "embedder": embedder, "dim": dim, "epoch": epoch, "rows": n}
        meta["last_rowid"] = int(every[-1]) if n else 0
        body = json.dumps(meta, sort_keys=True).encode()
        head = MAGIC + len(body).to_bytes(4, "little") + zlib.crc32(body).to_bytes(4, "little") + body
        if len(head) > HEADER:  # pragma: no cover - an embedder name of kilobytes
            raise ValueError("vecfile: header too long")
        fh.seek(0)
        fh.write(head.ljust(HEADER, b"\0"))
        fh.flush()
        os.fsync(fh.fileno())
    return n


def publish(
    db_path: str,
    parts: Iterable[tuple[Ints, Floats]],
    embedder: str,
    dim: int,
    epoch: int,
    epoch_now: Callable[[], int],
) -> Path | None:
    """`save` the copy of `epoch`, then make sure no purge or re-embed moved the file's epoch meanwhile
    (`epoch_now`, read outside any snapshot): if one did, the copy may hold vectors that are gone and is
    deleted (None). Otherwise the copies it supersedes are deleted (`remove_stale`) and its path given.
    A purge that runs at any point of this deletes the copy itself (`drop_all`), or moves the epoch
    before the check here."""
    path = path_for(db_path, embedder, dim, epoch)
    save(path, parts, embedder, dim, epoch)
    if epoch_now() != epoch:
        path.unlink(missing_ok=True)
        return None
    remove_stale(db_path, path, embedder, dim, epoch)
    return path


def load(path: Path, embedder: str, dim: int, epoch: int, *, populate: bool = False) -> Mapped | None:
    """The copy mapped read-only, or None when it is missing, torn, foreign or of other settings.

    `populate` maps every page at once (Linux's MAP_POPULATE) for a caller about to scan every row: the
    first scan of a lazily mapped 100,000-row copy took its page faults (13 ms against 8 ms for the next
    scan, in a fresh process), and a one-shot process's first read maps the copy on its reader thread
    while the helper thread is still loading the query's embedder, so the pages are mapped there, off
    the read's path. Without it (the graph's re-scoring reads a few hundred rows) pages are mapped as
    they are touched."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(HEADER)
            meta = _header(head)
            if meta is None or meta.get("format") != FORMAT:
                return None
            if (meta.get("embedder"), meta.get("dim"), meta.get("epoch")) != (embedder, dim, epoch):
                return None
            n = int(meta["rows"])
            if n <= 0 or os.fstat(fh.fileno()).st_size != HEADER + n * (4 * dim + 8):
                return None
            mapping = _map(fh.fileno(), populate)
    except (OSError, ValueError, KeyError, TypeError):
        return None
    with contextlib.suppress(AttributeError, OSError):  # the first scan reads every page: fetch them now
        mapping.madvise(mmap.MADV_WILLNEED)
    rows: Floats = np.frombuffer(mapping, dtype="<f4", count=n * dim, offset=HEADER).reshape(n, dim)
    rowids: Ints = np.frombuffer(mapping, dtype="<i8", count=n, offset=HEADER + n * dim * 4)
    if int(rowids[-1]) != int(meta["last_rowid"]) or (n > 1 and not bool(np.all(np.diff(rowids) > 0))):
        return None
    return Mapped(rows, rowids, epoch)


def _map(fileno: int, populate: bool) -> mmap.mmap:
    """The whole file mapped read-only; with `populate`, every page mapped now where the platform can."""
    flag = getattr(mmap, "MAP_POPULATE", 0) if populate else 0
    if flag:
        return mmap.mmap(fileno, 0, flags=mmap.MAP_SHARED | flag, prot=mmap.PROT_READ)
    return mmap.mmap(fileno, 0, access=mmap.ACCESS_READ)


def extent(path: Path) -> tuple[int, int]:
    """(rows, last rowid) a copy's header gives, (0, 0) when it is missing or unreadable: a cheap look
    (no mapping, nothing checked against the table) that says how far a copy reaches."""
    try:
        with open(path, "rb") as fh:
            meta = _header(fh.read(HEADER))
    except (OSError, ValueError):
        return 0, 0
    if meta is None or meta.get("format") != FORMAT:
        return 0, 0
    rows, last = meta.get("rows"), meta.get("last_rowid")
    return (rows, last) if isinstance(rows, int) and isinstance(last, int) else (0, 0)


def _header(head: bytes) -> dict[str, Any] | None:
    if len(head) < HEADER or head[:8] != MAGIC:
        return None
    length = int.from_bytes(head[8:12], "little")
    body = head[16 : 16 + length]
    if 16 + length > HEADER or zlib.crc32(body) != int.from_bytes(head[12:16], "little"):
        return None
    meta = json.loads(body)
    return meta if isinstance(meta, dict) else None


def sample(n: int) -> list[int]:
    """Positions of the rows `matches` compares: spread over the copy, first and last included."""
    if n <= SAMPLE:
        return list(range(n))
    return sorted({int(i) for i in np.linspace(0, n - 1, SAMPLE)})


def remove_stale(db_path: str, keep: Path, embedder: str, dim: int, epoch: int) -> None:
    """Delete this embedder's other copies, and any embedder's copy of an older epoch (a re-embed or a
    purge moved it); copies of other embedders at this epoch may serve other engines."""
    mine = path_for(db_path, embedder, dim, epoch).name.rsplit("-e", 1)[0]
    for other in files(db_path):
        if other == keep or other.name.endswith(".tmp"):
            continue
        if other.name.startswith(mine + "-e") or not other.name.endswith(f"-e{epoch}"):
            other.unlink(missing_ok=True)


def drop_orphans(path: Path) -> None:
    """Remove temporary files beside `path` left by a process that died while saving one (`replacing`
    with the pid in the name: the graph's and the matrix copy's)."""
    for tmp in path.parent.glob(f"{path.name}.*.tmp"):
        parts = tmp.name[len(path.name) + 1 :].split(".")
        if not parts[0].isdigit() or int(parts[0]) == os.getpid():
            continue
        try:
            os.kill(int(parts[0]), 0)
        except ProcessLookupError:
            tmp.unlink(missing_ok=True)
        except OSError:
            continue
