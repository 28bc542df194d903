"""Files a document links (images, attachments) are read only inside the folder being ingested.

Ingest hashes a linked local file and records it as available: for a file outside the folder, that
would store proof that it exists and its sha256. So a link that resolves outside (an absolute path, a
`../` escape, a symbolic link inside the folder pointing out) is kept as unavailable and reported,
unless `follow_symlinks`; links inside work as before; a folder, a FIFO or a device is never read (no
hang). Real files under tmp_path throughout."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tinymemory import Memory
from tinymemory.api import Ref
from tinymemory.lifecycle import Brain

SECRET = b"quokka private key 91\n"
PNG = b"\x89PNG\r\n\x1a\n fake image bytes"
SOURCE = "handbook"


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """docs/ whose guide links files inside, outside, through links, and special files."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret").write_bytes(SECRET)
    (outside / "secret.pdf").write_bytes(SECRET)
    docs = tmp_path / "docs"
    (docs / "img").mkdir(parents=True)
    (docs / "img" / "ok.png").write_bytes(PNG)
    (docs / "folder.pdf").mkdir()  # a folder with an attachment's name
    os.mkfifo(docs / "pipe.csv")  # reading it would wait for a writer forever
    (docs / "zero.pdf").symlink_to("/dev/zero")  # a device that never ends
    (docs / "img" / "out.png").symlink_to(outside / "secret")  # inside the folder, pointing out
    (docs / "img" / "alias.png").symlink_to("ok.png")  # a link that stays inside
    (docs / "guide.md").write_text(
        "# Guide\n\n"
        "Inside: ![ok](img/ok.png) and ![alias](img/alias.png).\n\n"
        "Escapes: ![up](../outside/secret) and ![deep](../../../../outside/secret) and "
        f"[abs]({outside / 'secret.pdf'}) and ![through](img/out.png).\n\n"
        "Nowhere: ![ghost](../outside/ghost.png).\n\n"
        "Special: [dir](folder.pdf) and [fifo](pipe.csv) and [zero](zero.pdf).\n"
    )
    (docs / "page.html").write_text(
        f'<html><body><h1>Page</h1><p>A picture <img src="../outside/secret"> and <img src="img/ok.png">'
        f'</p><p><a href="{outside / "secret.pdf"}">the pdf</a></p></body></html>'
    )
    return docs


OUTSIDE = {"../outside/secret", "img/out.png", "../outside/ghost.png"}  # plus the absolute one


def refs_of(mem: Memory, name: str) -> dict[str, Ref]:
    docs = [i for i in mem.list(limit=50, kinds=["document"]).items if i.meta.file_path == name]
    assert len(docs) == 1
    return {r.ref: r for r in docs[0].meta.refs}


def stored_hashes(mem: Memory) -> set[str]:
    return {r.sha256 for i in mem.list(limit=200).items for r in i.meta.refs if r.sha256}


def test_links_out_of_the_folder_are_not_read_and_are_reported(tree: Path, tmp_path: Path) -> None:
    outside_pdf = str(tmp_path / "outside" / "secret.pdf")
    with Memory(tmp_path / "m.db", embedder=None) as mem:
        report = mem.ingest(tree, source=SOURCE)
        assert sorted(report.stored) == ["guide.md", "page.html"]  # the documents themselves are stored
        refs = refs_of(mem, "guide.md")
        for ref in [*OUTSIDE, "../../../../outside/secret", outside_pdf]:
            assert refs[ref].status == "unavailable" and refs[ref].sha256 is None, ref
        # links inside work as before, through a link that stays inside too
        assert refs["img/ok.png"].status == "available"
        assert refs["img/ok.png"].sha256 == hashlib.sha256(PNG).hexdigest()
        assert refs["img/alias.png"].sha256 == hashlib.sha256(PNG).hexdigest()
        # a folder, a FIFO and a device are never read (the ingest would hang on the last two)
        for ref in ("folder.pdf", "pipe.csv", "zero.pdf"):
            assert refs[ref].status == "unavailable" and refs[ref].sha256 is None, ref
        html = refs_of(mem, "page.html")
        assert html["../outside/secret"].sha256 is None and html[outside_pdf].sha256 is None
        assert html["img/ok.png"].status == "available"
        assert hashlib.sha256(SECRET).hexdigest() not in stored_hashes(mem)
        # reported, per document and link, with the way out; a missing file outside is refused the
        # same way as an existing one, so the report does not tell them apart either
        failed = [(name, message) for name, message in report.failed]
        # the walk itself refuses the link named like a document (zero.pdf -> /dev/zero)
        assert [n for n, _ in failed if n not in ("guide.md", "page.html")] == ["zero.pdf"]
        guide = [m for name, m in failed if name == "guide.md"]
        refused = {m.split("links `")[1].split("`")[0] for m in guide}
        assert refused == {*OUTSIDE, "../../../../outside/secret", outside_pdf, "zero.pdf"}
        for message in guide:
            assert message.startswith("brain ingest: `path` `guide.md` links `"), message
            assert "leads outside the folder" in message and "follow_symlinks=True" in message
        assert {m.split("links `")[1].split("`")[0] for n, m in failed if n == "page.html"} == {
            "../outside/secret",
            outside_pdf,
        }


def test_follow_symlinks_reads_links_out_but_never_special_files(tree: Path, tmp_path: Path) -> None:
    with Memory(tmp_path / "m.db", embedder=None) as mem:
        report = mem.ingest(tree, source=SOURCE, follow_symlinks=True)
        assert report.failed == []
        refs = refs_of(mem, "guide.md")
        for ref in ("../outside/secret", "img/out.png", str(tmp_path / "outside" / "secret.pdf")):
            assert refs[ref].status == "available" and refs[ref].sha256 == hashlib.sha256(SECRET).hexdigest()
        for ref in ("../outside/ghost.png", "folder.pdf", "pipe.csv", "zero.pdf"):
            assert refs[ref].status == "unavailable", ref


def test_one_file_reads_links_inside_its_own_folder_only(tree: Path, tmp_path: Path) -> None:
    with Memory(tmp_path / "m.db", embedder=None) as mem:
        report = mem.ingest(tree / "guide.md", source=SOURCE)
        assert report.stored == ["guide.md"]
        refs = refs_of(mem, "guide.md")
        assert refs["img/ok.png"].status == "available" and refs["../outside/secret"].sha256 is None
        assert any("`../outside/secret`" in m for _, m in report.failed)


async def test_ingest_text_reads_links_inside_its_base_only(tree: Path, tmp_path: Path) -> None:
    from tinymemory.engines.sqlite import SqliteEngine

    async with SqliteEngine(tmp_path / "m.db", embedder=None) as engine:
        text = "# Note\n\n![a](img/ok.png) ![b](../outside/secret)\n"
        report = await Brain(engine).ingest_text(text, source=SOURCE, name="note.md", base=tree)
        assert report.stored == ["note.md"] and [n for n, _ in report.failed] == ["note.md"]


def test_the_cli_reports_the_refused_links(tree: Path, tmp_path: Path) -> None:
    args = [
        "ingest",
        str(tree),
        "--source",
        SOURCE,
        "--no-embedder",
        "--quiet",
        "--db",
        str(tmp_path / "m.db"),
    ]
    proc = subprocess.run(
        [sys.executable, "-m", "tinymemory", *args],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert sorted(out["stored"]) == ["guide.md", "page.html"]
    messages = [f["message"] for f in out["failed"] if f["path"] == "guide.md"]
    assert any("`../outside/secret`" in m and "outside the folder" in m for m in messages)
    assert "Traceback" not in proc.stderr
