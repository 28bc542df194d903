"""What the worker processes of one `tinymemory serve --workers N` share beyond the store.

The supervisor makes a `Fleet` once, before it starts any worker, and hands each worker (and each
replacement of a worker that died) the same one:

- a folder of its own, holding the gate's lock file and the agent registry's change counter;
- the key the inspector signs its forms with, so a form shown by one worker is accepted by another.

The gate's lock is an `flock` on a file: the worker that holds it runs the periodic gate job, the others
skip their ticks, and when the holder dies the kernel drops the lock, so the next tick of another worker
(or of the replacement) takes it. The change counter is eight bytes mapped into every worker: a worker
that writes the registry adds one, and every worker drops its copy of the registry when the counter
differs from the value it last saw, so a change made through one worker counts in all of them at once.
"""

from __future__ import annotations

import contextlib
import fcntl
import mmap
import os
import secrets
import shutil
import struct
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

GATE_LOCK = "gate.lock"
REGISTRY_CHANGES = "registry.changes"
_COUNTER = struct.Struct("<Q")


@dataclass(frozen=True, slots=True)
class Fleet:
    folder: Path
    csrf_key: bytes = field(repr=False)

    @classmethod
    def create(cls) -> Fleet:
        """A fresh owner-only folder and key (the supervisor calls this once)."""
        folder = Path(tempfile.mkdtemp(prefix="tinymemory-serve-"))
        (folder / REGISTRY_CHANGES).write_bytes(_COUNTER.pack(0))
        return cls(folder, secrets.token_bytes(32))

    def gate_lock(self) -> GateLock:
        return GateLock(self.folder / GATE_LOCK)

    def registry_changes(self) -> ChangeCounter:
        return ChangeCounter(self.folder / REGISTRY_CHANGES)

    def remove(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)


class GateLock:
    """An exclusive `flock` that this process takes when it can and keeps until it exits."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None

    def held(self) -> bool:
        """Whether this process holds the lock, taking it now if nobody does (never waits)."""
        if self._fd is not None:
            return True
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:  # another worker holds it
            os.close(fd)
            return False
        self._fd = fd
        return True

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing the only descriptor drops the lock
            self._fd = None


class ChangeCounter:
    """A counter in a file every worker maps: `read` is a memory read, `bump` adds one under a lock."""

    def __init__(self, path: Path) -> None:
        self._fd = os.open(path, os.O_RDWR)
        self._map = mmap.mmap(self._fd, _COUNTER.size)

    def read(self) -> int:
        value: int = _COUNTER.unpack_from(self._map)[0]
        return value

    def bump(self) -> None:
        fcntl.flock(self._fd, fcntl.LOCK_EX)
        try:
            _COUNTER.pack_into(self._map, 0, self.read() + 1)
        finally:
            fcntl.flock(self._fd, fcntl.LOCK_UN)

    def close(self) -> None:
        with contextlib.suppress(BufferError, ValueError):
            self._map.close()
        with contextlib.suppress(OSError):
            os.close(self._fd)
