"""The documentation site works offline and from the file system: `mkdocs build --strict` passes, no
page asks for anything from another host (web fonts, scripts, styles, images), search runs from an
index inlined as a script, and pages link each other as files (`page.html`, not `page/`)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# What a page requests by itself: a stylesheet, a script, an image, a preconnect or a preload.
_REQUEST = re.compile(
    r"<(?:link|script|img|source|iframe)\b[^>]*\b(?:href|src)=[\"']?((?:https?:)?//[^\"' >]+)", re.I
)
_CSS_URL = re.compile(r"(?:@import\s+|url\()\s*[\"']?((?:https?:)?//[^\"')]+)", re.I)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("mkdocs", reason="the docs extra (make docs) is not installed")
    pytest.importorskip("material", reason="the docs extra (make docs) is not installed")
    out = tmp_path_factory.mktemp("site")
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return out


def test_no_page_requests_another_host(site: Path) -> None:
    patterns = {".html": _REQUEST, ".css": _CSS_URL}
    outside = {
        f"{page.relative_to(site)}: {url}"
        for page in site.rglob("*")
        if page.suffix in patterns and page.is_file()
        for url in patterns[page.suffix].findall(page.read_text(encoding="utf-8", errors="replace"))
    }
    assert outside == set(), sorted(outside)[:10]


def test_search_and_links_work_from_the_file_system(site: Path) -> None:
    index = site / "search" / "search_index.js"
    assert index.is_file() and index.read_text(encoding="utf-8").startswith("var __index = ")
    home = (site / "index.html").read_text(encoding="utf-8")
    assert 'href="quickstart.html"' in home  # a file, which a browser opens from disk
    assert (site / "quickstart.html").is_file()
    assert "iframe-worker" in home and "unpkg" not in home  # the worker shim is the site's own file
