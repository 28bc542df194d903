"""Where the embedded engine keeps its file when the host names none."""

from __future__ import annotations

import os
from pathlib import Path

HOME_ENV = "TINYMEMORY_HOME"
DB_FILE = "memory.db"


def in_memory(db_path: str) -> bool:
    """Whether a SQLite target has no file behind it (`:memory:`, `file::memory:...`), so nothing can be
    kept beside it."""
    return db_path == ":memory:" or db_path.startswith("file::memory:")


def default_db_path(*, create: bool = True) -> Path:
    """`$TINYMEMORY_HOME/memory.db`, else the user data dir's `tinymemory/memory.db`; creates the folder
    unless `create` is false (a command that only reads names the file without making its folder)."""
    home = os.environ.get(HOME_ENV)
    if home:
        folder = Path(home).expanduser()
    else:
        import platformdirs  # here, not at import: most processes are given their file

        folder = Path(platformdirs.user_data_dir("tinymemory"))
    if create:
        folder.mkdir(parents=True, exist_ok=True)
    return folder / DB_FILE
