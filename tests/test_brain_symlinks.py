"""Ingest of a folder holding symbolic links: a link that leads outside the folder (a file, a folder, a
relative `../` path) or to nothing is skipped and reported, never read; links inside are followed; a
cycle ends; `follow_symlinks` follows them all; and the path the caller names may itself be a link."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tinymemory import Memory
from tinymemory.api import InvalidRequest

SECRET = "quokkapassword91"  # in the file outside the folder: it must never be stored
LEAK = "wombatleak42"  # in a folder outside the folder
SOURCE = "handbook"


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """docs/ with real documents and every kind of link, beside an outside/ it must not read."""
    outside = tmp_path / "outside"
    (outside / "private").mkdir(parents=True)
    (outside / "passwd.md").write_text(f"root:x:0:0 {SECRET}\n")
    (outside / "private" / "leak.md").write_text(f"# Leak\n\nThe code is {LEAK}.\n")
    docs = tmp_path / "docs"
    (docs / "guide").mkdir(parents=True)
    (docs / ".drafts").mkdir()
    (docs / "a.md").write_text("# Alpha\n\nThe alpha document.\n")
    (docs / "guide" / "b.md").write_text("# Beta\n\nThe beta chapter.\n")
    (docs / ".drafts" / "c.md").write_text("# Gamma\n\nA draft reached through a link.\n")
    (docs / "passwd.md").symlink_to(outside / "passwd.md")  # absolute, to a file outside
    (docs / "shared").symlink_to(outside / "private")  # a folder outside
    (docs / "guide" / "up.md").symlink_to(Path("..") / ".." / "outside" / "passwd.md")  # relative
    (docs / "alias.md").symlink_to(Path("guide") / "b.md")  # a file inside
    (docs / "drafts").symlink_to(".drafts")  # a folder inside, reached only through the link
    (docs / "loop").symlink_to(".")  # a cycle to the folder itself
    (docs / "guide" / "back").symlink_to("..")  # a cycle to its parent
    (docs / "gone.md").symlink_to("missing.md")  # to nothing
    (docs / "ring1.md").symlink_to("ring2.md")  # a loop of links
    (docs / "ring2.md").symlink_to("ring1.md")
    return docs


INSIDE = ["a.md", "alias.md", "drafts/c.md", "guide/b.md"]
REFUSED = {
    "passwd.md": "file outside the folder",
    "shared": "folder outside the folder",
    "guide/up.md": "file outside the folder",
    "gone.md": "to nothing",
    "ring1.md": "a loop of links",
    "ring2.md": "a loop of links",
}


def stored_texts(mem: Memory) -> str:
    return "\n".join(i.text for i in mem.list(limit=200, kinds=["document", "chunk"]).items)


def test_links_that_leave_the_folder_are_skipped_and_reported(tree: Path, tmp_path: Path) -> None:
    with Memory(tmp_path / "m.db", embedder=None) as mem:
        report = mem.ingest(tree, source=SOURCE)
        assert sorted(report.stored) == INSIDE
        failed = dict(report.failed)
        assert sorted(failed) == sorted(REFUSED)
        for name, why in REFUSED.items():
            assert failed[name].startswith(f"brain ingest: `path` `{name}` is a symbolic link"), failed[name]
            assert why in failed[name], failed[name]
        assert "follow_symlinks=True" in failed["passwd.md"]
        assert str((tmp_path / "outside" / "passwd.md").resolve()) in failed["passwd.md"]  # where it led
        texts = stored_texts(mem)
        assert SECRET not in texts and LEAK not in texts
        assert "A draft reached through a link" in texts
        assert mem.ingest(tree, source=SOURCE).unchanged == INSIDE  # a second walk finds the same


def test_follow_symlinks_reads_them_and_still_ends_a_cycle(tree: Path, tmp_path: Path) -> None:
    with Memory(tmp_path / "m.db", embedder=None) as mem:
        report = mem.ingest(tree, source=SOURCE, follow_symlinks=True)
        assert sorted(report.stored) == sorted([*INSIDE, "guide/up.md", "passwd.md", "shared/leak.md"])
        assert sorted(dict(report.failed)) == ["gone.md", "ring1.md", "ring2.md"]
        texts = stored_texts(mem)
        assert SECRET in texts and LEAK in texts


def test_the_path_named_by_the_caller_may_itself_be_a_link(tree: Path, tmp_path: Path) -> None:
    folder_link = tmp_path / "docs-link"
    folder_link.symlink_to(tree)
    file_link = tmp_path / "note.md"
    file_link.symlink_to(tmp_path / "outside" / "passwd.md")
    with Memory(tmp_path / "m.db", embedder=None) as mem:
        through = mem.ingest(folder_link, source=SOURCE)
        assert sorted(through.stored) == INSIDE and sorted(dict(through.failed)) == sorted(REFUSED)
        assert mem.ingest(file_link, source="notes").stored == ["note.md"]  # named: the caller's choice
        assert SECRET in stored_texts(mem)


def test_follow_symlinks_must_be_a_bool(tree: Path, tmp_path: Path) -> None:
    with Memory(tmp_path / "m.db", embedder=None) as mem, pytest.raises(InvalidRequest) as caught:
        mem.ingest(tree, source=SOURCE, follow_symlinks="yes")  # type: ignore[arg-type]
    assert caught.value.message == "ingest: `follow_symlinks` must be true or false, got str"


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tinymemory", *args], capture_output=True, text=True, timeout=120
    )


def test_the_cli_lists_skipped_links_and_follows_them_when_asked(tree: Path, tmp_path: Path) -> None:
    args = ["ingest", str(tree), "--source", SOURCE, "--no-embedder", "--quiet"]
    proc = cli(*args, "--db", str(tmp_path / "a.db"))
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert sorted(out["stored"]) == INSIDE
    assert sorted(f["path"] for f in out["failed"]) == sorted(REFUSED)
    assert "Traceback" not in proc.stderr
    followed = cli(*args, "--db", str(tmp_path / "b.db"), "--follow-symlinks")
    assert followed.returncode == 0, followed.stderr
    assert "passwd.md" in json.loads(followed.stdout)["stored"]
    helped = cli("ingest", "--help")
    assert "--follow-symlinks" in helped.stdout and "symbolic" in helped.stdout


def test_a_folder_of_only_escaping_links_stores_nothing(tmp_path: Path) -> None:
    outside = tmp_path / "outside.md"
    outside.write_text(f"{SECRET}\n")
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "x.md").symlink_to(outside)
    os.symlink(tmp_path, docs / "everything")  # the folder's own parent: outside, and a cycle
    with Memory(tmp_path / "m.db", embedder=None) as mem:
        report = mem.ingest(docs, source=SOURCE)
        assert report.stored == [] and sorted(dict(report.failed)) == ["everything", "x.md"]
        assert SECRET not in stored_texts(mem)
