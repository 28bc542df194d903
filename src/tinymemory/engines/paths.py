"""Where the embedded engine keeps its file when the host names none."""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

HOME_ENV = "TINYMEMORY_HOME"
DB_FILE = "memory.db"


def default_db_path() -> Path:
    """`$TINYMEMORY_HOME/memory.db`, else the user data dir's `tinymemory/memory.db`; creates the folder."""
    home = os.environ.get(HOME_ENV)
    folder = Path(home).expanduser() if home else Path(platformdirs.user_data_dir("tinymemory"))
    folder.mkdir(parents=True, exist_ok=True)
    return folder / DB_FILE
