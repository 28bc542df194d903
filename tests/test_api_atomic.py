"""api.atomic: a file is replaced whole or not at all, and no temporary file is left behind."""

from __future__ import annotations

from pathlib import Path

import pytest

from tinymemory.api.atomic import replacing


def test_the_new_file_replaces_the_old_with_the_mode_asked(tmp_path: Path) -> None:
    target = tmp_path / "table.bin"
    target.write_bytes(b"old")
    with replacing(target, prefix=".table-", suffix=".bin", mode=0o644) as tmp:
        assert tmp.parent == tmp_path and tmp.name.startswith(".table-") and tmp.name.endswith(".bin")
        assert oct(tmp.stat().st_mode & 0o777) == "0o600"  # private while it is written
        tmp.write_bytes(b"new")
        assert target.read_bytes() == b"old"  # nothing is renamed before the block ends
    assert target.read_bytes() == b"new"
    assert oct(target.stat().st_mode & 0o777) == "0o644"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["table.bin"]


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "export.jsonl"
    target.write_bytes(b"old")
    with (
        pytest.raises(RuntimeError, match="disk full"),
        replacing(target, prefix=".export.jsonl.", suffix=".partial", sync_dir=True) as tmp,
    ):
        tmp.write_bytes(b"half")
        raise RuntimeError("disk full")
    assert target.read_bytes() == b"old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["export.jsonl"]


def test_a_new_file_keeps_the_private_mode_unless_asked(tmp_path: Path) -> None:
    target = tmp_path / "export.jsonl"
    with replacing(target, prefix=".x.", suffix=".partial", sync_dir=True) as tmp:
        tmp.write_bytes(b"rows")
    assert target.read_bytes() == b"rows"
    assert oct(target.stat().st_mode & 0o777) == "0o600"
