"""The running service's view of its token file: read at start-up, read again when it changes, and
closed to every opaque token while the file cannot be used.

A caller only learns that opaque tokens cannot be checked right now (503); what is wrong (the path,
where the parser stopped) is logged once for the operator. The last good set is not kept: the edit
that broke the file may have been a revocation.
"""

from __future__ import annotations

import hashlib
import logging
import os
import threading
import time
from pathlib import Path

from tinymemory.api import InvalidRequest, Unavailable
from tinymemory.service.token_file import (
    TokenEntry,
    TokenFileProblem,
    for_operator,
    parse_token_file,
    read_bytes,
    token_sha256,
)

# A change this soon after the modification time a read saw may share that time (coarse file-system
# clocks) and keep the size: such a read is checked again, by content, until the file is older.
RACY_NS = 2_000_000_000
UNUSABLE = "this service cannot check opaque tokens right now (its log says why); try again later"

log = logging.getLogger(__name__)

# Which version of the file: a replace changes the inode, an edit the size or the times.
Stamp = tuple[int, int, int, int, int]


def _stamp(st: os.stat_result) -> Stamp:
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def _racy(read_at_ns: int, stamp: Stamp) -> bool:
    return read_at_ns - stamp[3] < RACY_NS


class CachedTokenFile:
    """The entries of one token file, read again when it changes. Safe to share between threads."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._stamp: Stamp | str | None = None
        self._settled = False  # False: the stamp alone cannot prove the file unchanged (RACY_NS)
        self._digest: bytes | None = None
        self._by_digest: dict[str, TokenEntry] = {}
        self._problem: str | None = None
        self._logged: str | None = None

    def load(self, op: str) -> None:
        """Read the file now; a file that cannot be used is refused with what is wrong with it, for
        whoever configured it (`serve` does this before it listens)."""
        with self._lock:
            try:
                self._reload(None)
            except TokenFileProblem as exc:
                raise InvalidRequest(for_operator(op, self.path, exc)) from None

    def lookup(self, token: str) -> TokenEntry | None:
        """The entry of `token`, or None. While the file cannot be used, Unavailable, which names
        nothing of it; the cause is logged once."""
        with self._lock:
            try:
                self._refresh()
            except TokenFileProblem as exc:
                self._report(str(exc))
            if self._problem is not None:
                raise Unavailable(UNUSABLE)
            # The key is a hash of a secret, so a dict lookup's timing tells an attacker nothing useful.
            return self._by_digest.get(token_sha256(token))

    def _refresh(self) -> None:
        try:
            stamp: Stamp | str = _stamp(os.stat(self.path))
        except OSError as exc:
            stamp = f"os.stat failed: {exc.errno}"
        if stamp == self._stamp and self._settled:
            return
        self._reload(stamp)

    def _reload(self, stamp: Stamp | str | None) -> None:
        """Read the file again. Its bytes are parsed only when they differ from the last read's, so
        checking a file whose stamp cannot be trusted (RACY_NS) costs a read and a hash."""
        started = time.time_ns()
        try:
            st, data = read_bytes(self.path)
        except TokenFileProblem as exc:
            self._settle(stamp, started, None, str(exc), {})
            raise
        digest = hashlib.sha256(data).digest()
        if digest != self._digest:
            try:
                entries = parse_token_file(data).entries
            except TokenFileProblem as exc:
                self._settle(_stamp(st), started, digest, str(exc), {})
                raise
            self._settle(_stamp(st), started, digest, None, {e.sha256: e for e in entries})
        else:
            self._settle(_stamp(st), started, digest, self._problem, self._by_digest)
        if self._problem is not None:
            raise TokenFileProblem(self._problem)
        if self._logged is not None:
            shown = os.path.abspath(self.path)
            log.info("token file %s is usable again (%d tokens)", shown, len(self._by_digest))
            self._logged = None

    def _settle(
        self,
        stamp: Stamp | str | None,
        read_at_ns: int,
        digest: bytes | None,
        problem: str | None,
        by_digest: dict[str, TokenEntry],
    ) -> None:
        self._stamp = stamp
        self._settled = not (isinstance(stamp, tuple) and _racy(read_at_ns, stamp))
        self._digest, self._problem, self._by_digest = digest, problem, by_digest

    def _report(self, problem: str) -> None:
        if problem != self._logged:
            log.error(
                "token file %s: %s; every opaque token gets 503 until it is fixed",
                os.path.abspath(self.path),
                problem,
            )
            self._logged = problem
