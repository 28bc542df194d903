"""bench/tenancy_pg.py end to end at a toy size, against the tests' own server: a benchmark that crashes
is a defect, so its build, its interleaved reads and its report must run through to the table."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from .server import NoServer, server, skip_or_fail

BENCH = Path(__file__).resolve().parents[2] / "bench"


def test_the_postgres_tenancy_bench_runs_and_reports(tmp_path: Path) -> None:
    try:
        admin = server().dsn("postgres", "postgres")
    except NoServer as exc:
        skip_or_fail(str(exc))
        return
    if not _locomo_present():
        pytest.skip("the LoCoMo file the bench asks its questions from is not here")
    done = subprocess.run(
        [
            sys.executable,
            "tenancy_pg.py",
            "--sizes",
            "520,1040",
            "--queries",
            "3",
            "--pg",
            admin,
            "--no-write",
        ],
        cwd=BENCH,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Traceback" not in done.stderr
    assert "| hybrid" in done.stdout or "hybrid fetch" in done.stdout
    assert "1,040" in done.stdout and "520" in done.stdout


def _locomo_present() -> bool:
    sys.path.insert(0, str(BENCH))
    try:
        from scale import LOCOMO
    finally:
        sys.path.remove(str(BENCH))
    return bool(LOCOMO.exists())
