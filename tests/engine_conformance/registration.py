"""Registers memo_engine under the `memo://` scheme the way an installed package does: a dist-info folder
on sys.path whose entry_points.txt names it in the `tinymemory.engines` group, found by importlib.metadata."""

from __future__ import annotations

import importlib
import sys
import tempfile
from pathlib import Path

from tinymemory.engines.targets import ENTRY_POINT_GROUP

_SITE: list[Path] = []


def register_memo() -> None:
    """Install the registration once per process (a temporary folder that lives as long as it does)."""
    if _SITE:
        return
    site = Path(tempfile.mkdtemp(prefix="memo-engine-"))
    info = site / "memo_engine_plugin-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: memo-engine-plugin\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(
        f"[{ENTRY_POINT_GROUP}]\nmemo = engine_conformance.memo_engine:open_memo\n"
    )
    sys.path.append(str(site))
    importlib.invalidate_caches()
    _SITE.append(site)
