"""Where the engine keeps its file when the host names none."""

from __future__ import annotations

from pathlib import Path

import pytest

from test_sqlite_support import note
from tinymemory.engines.paths import HOME_ENV, default_db_path
from tinymemory.engines.sqlite import SqliteEngine


async def test_tinymemory_home_decides_the_default_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "not" / "yet"
    monkeypatch.setenv(HOME_ENV, str(home))
    assert default_db_path() == home / "memory.db" and home.is_dir()
    async with SqliteEngine(None, embedder=None) as engine:
        assert engine.path == str(home / "memory.db")
        await engine.store(note("kept in the home folder"))
    assert (home / "memory.db").stat().st_size > 0


def test_without_the_variable_the_user_data_folder_is_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(HOME_ENV, raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    path = default_db_path()
    assert path.name == "memory.db" and path.parent.name == "tinymemory" and path.parent.is_dir()
    assert tmp_path in path.parents
