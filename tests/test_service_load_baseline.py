"""bench/service_load.py's baseline: `--baseline-name` names it in the section and in the prefilled
file each baseline builds for itself, whatever modules the baseline is kept from importing."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
import service_load as bench

SRC = Path(__file__).resolve().parent.parent / "src"


def test_the_baseline_name_reaches_the_store_file_and_the_section(tmp_path: Path) -> None:
    baseline = bench.Baseline.of(SRC, ("httptools", "uvloop"), tmp_path, "main")
    assert baseline.revision() == "main"
    assert baseline.describe() == "main, without httptools, uvloop"
    assert bench.store_path(5_000, baseline).name == "tinymemory-5000-by-main.db"
    assert sorted(p.name for p in (tmp_path / "blocked").iterdir()) == ["httptools.py", "uvloop.py"]


def test_each_baseline_has_its_own_store_file(tmp_path: Path) -> None:
    one = bench.Baseline.of(SRC, ("uvloop",), tmp_path, "fe8c083 (before links)")
    other = bench.Baseline.of(SRC, ("uvloop",), tmp_path, "main")
    assert bench.store_path(5_000, one).name == "tinymemory-5000-by-fe8c083-before-links.db"
    assert bench.store_path(5_000, one) != bench.store_path(5_000, other)
    assert bench.store_path(5_000, one) != bench.store_path(5_000)
