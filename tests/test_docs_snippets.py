"""The Python examples in the documentation site's user pages run as written, like the README's: each
```python block of docs/index.md, quickstart.md, concepts.md and integrations/*.md runs as a script in a
fresh folder with TINYMEMORY_HOME pointing there (offline, no key). A block that is a fragment on
purpose (it needs a running host or a key) is fenced as ```text, or ```py to show it without running it."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from test_readme import clean_env

DOCS = Path(__file__).resolve().parent.parent / "docs"
PAGES = [
    DOCS / "index.md",
    DOCS / "quickstart.md",
    DOCS / "concepts.md",
    *sorted((DOCS / "integrations").glob("*.md")),
]
FENCE = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


def snippets() -> list[object]:
    found = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for m in FENCE.finditer(text):
            line = text[: m.start()].count("\n") + 1
            found.append(pytest.param(m.group(1), id=f"{page.relative_to(DOCS)}:{line}"))
    return found


SNIPPETS = snippets()


def test_the_user_pages_have_examples() -> None:
    assert len(SNIPPETS) >= 10


@pytest.mark.parametrize("code", SNIPPETS)
def test_a_docs_example_runs_as_a_script(tmp_path: Path, code: str) -> None:
    (tmp_path / "example.py").write_text(code, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "example.py"],
        cwd=tmp_path,
        env=clean_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
