"""Replacing a file whole: write a temporary file beside it, then rename it over the old one.

Readers see the old file or the new one, never half of either. It uses the standard library alone and
sits in api, the layer every other may import, so that a command, a table build and an engine's index
all save through it.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path


@contextlib.contextmanager
def replacing(
    target: Path, *, prefix: str, suffix: str, mode: int | None = None, sync_dir: bool = False
) -> Iterator[Path]:
    """A new empty file beside `target` (owner-only, named `prefix`...`suffix`) for the block to write.

    When the block ends, the file is given `mode` (when set) and renamed over `target`, and with
    `sync_dir` the folder is flushed so the rename survives a crash; when the block raises, the file
    is removed and `target` is untouched. Flushing the file's own bytes is the writer's part.
    """
    folder = target.parent if str(target.parent) else Path(".")
    fd, name = tempfile.mkstemp(prefix=prefix, suffix=suffix, dir=folder)
    os.close(fd)
    tmp = Path(name)
    try:
        yield tmp
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, target)
        if sync_dir:
            fsync_dir(folder)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def fsync_dir(directory: Path) -> None:
    """Flush a folder's entries (a rename in it) to disk, where the platform can open a folder."""
    with contextlib.suppress(OSError):  # not every platform can open a directory
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
