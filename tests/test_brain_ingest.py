"""Brain: folders ingested twice store nothing new, edits replace chunks, parents/titles/refs are right."""

from __future__ import annotations

import hashlib
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tinymemory.api import GetRequest, ItemKind, ListRequest, MemoryItem, MetaFilter, Reach
from tinymemory.engines.sqlite import SqliteEngine
from tinymemory.lifecycle import Brain, MemoryLayout

LAYOUT = MemoryLayout.at("team:acme")
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 32

GUIDE = """# Install Guide

Intro paragraph about the guide.

## Linux

Use the package manager. ![diagram](img/arch.png)

### Debian

Run apt-get install tinymemory. See [the sheet](files/sheet.pdf).

## Windows

Use the installer. ![gone](img/missing.png)
"""

PAGE = """<html><head><title>Team Handbook</title><style>p {color: red}</style></head>
<body><h1>Handbook</h1><p>Welcome to the team.</p><h2>Holidays</h2><p>Ask your lead.</p>
<img src="img/arch.png"><script>var x = 1;</script></body></html>"""


@pytest.fixture
async def engine(tmp_path: Path) -> AsyncIterator[SqliteEngine]:
    eng = SqliteEngine(tmp_path / "m.db", embedder=None)
    yield eng
    await eng.close()


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    root = tmp_path / "docs"
    (root / "img").mkdir(parents=True)
    (root / "files").mkdir()
    (root / "notes").mkdir()
    (root / ".hidden").mkdir()
    (root / "img" / "arch.png").write_bytes(PNG)
    (root / "files" / "sheet.pdf").write_bytes(b"%PDF-1.4 not really")
    (root / "guide.md").write_text(GUIDE)
    (root / "handbook.html").write_text(PAGE)
    (root / "notes" / "plain.txt").write_text("First paragraph.\n\nSecond paragraph of plain text.\n")
    (root / ".hidden" / "secret.md").write_text("# Secret\n\nnot ingested\n")
    (root / "notes" / "binary.md").write_bytes(b"\xff\xfe\x00bad")
    return root


async def items(engine: SqliteEngine, kind: ItemKind, path: str | None = None) -> list[MemoryItem]:
    flt = MetaFilter(reach=Reach.subtree(LAYOUT.brain_root), kinds=(kind,), file_path=path)
    return list((await engine.list(ListRequest(filter=flt, limit=1000))).items)


async def test_ingest_folder_twice_stores_nothing_new(engine: SqliteEngine, folder: Path) -> None:
    brain = Brain(engine, LAYOUT, chunk_chars=200, overlap_chars=40)
    first = await brain.ingest_folder(folder, source="docs")
    assert sorted(first.stored) == ["guide.md", "handbook.html", "notes/plain.txt"]
    # A fake pdf fails (no parser, or not a readable pdf) and a non-utf-8 file fails; neither stops the rest.
    assert [p for p, _ in first.failed] == ["files/sheet.pdf", "notes/binary.md"]
    assert "pdf" in first.failed[0][1] and "utf-8" in first.failed[1][1]
    docs, chunks = await items(engine, ItemKind.DOCUMENT), await items(engine, ItemKind.CHUNK)
    assert len(docs) == 3 and len(chunks) == first.chunks > 3
    second = await brain.ingest_folder(folder, source="docs")
    assert second.stored == [] and second.replaced == [] and second.chunks == 0
    assert sorted(second.unchanged) == ["guide.md", "handbook.html", "notes/plain.txt"]
    assert {i.id for i in await items(engine, ItemKind.CHUNK)} == {c.id for c in chunks}
    assert {i.id for i in await items(engine, ItemKind.DOCUMENT)} == {d.id for d in docs}


async def test_editing_one_file_replaces_its_chunks(engine: SqliteEngine, folder: Path) -> None:
    brain = Brain(engine, LAYOUT, chunk_chars=200, overlap_chars=40)
    await brain.ingest_folder(folder, source="docs")
    old_doc = (await items(engine, ItemKind.DOCUMENT, "guide.md"))[0]
    old_chunks = await items(engine, ItemKind.CHUNK, "guide.md")
    untouched = {c.id for c in await items(engine, ItemKind.CHUNK, "handbook.html")}
    (folder / "guide.md").write_text(GUIDE.replace("apt-get install tinymemory", "pip install tinymemory"))
    report = await brain.ingest_folder(folder, source="docs")
    assert report.replaced == ["guide.md"]
    assert sorted(report.unchanged) == ["handbook.html", "notes/plain.txt"]
    new_doc = (await items(engine, ItemKind.DOCUMENT, "guide.md"))[0]
    new_chunks = await items(engine, ItemKind.CHUNK, "guide.md")
    assert new_doc.id != old_doc.id
    assert all(c.meta.parent == new_doc.id for c in new_chunks)
    assert any("pip install" in c.text for c in new_chunks)
    assert not any("apt-get" in c.text for c in new_chunks)
    assert len(await items(engine, ItemKind.DOCUMENT)) == 3
    assert {c.id for c in await items(engine, ItemKind.CHUNK, "handbook.html")} == untouched
    # The previous document version is history (readable by id); its chunks are gone from reads.
    got = await engine.get(GetRequest(ids=(old_doc.id, *(c.id for c in old_chunks))))
    assert [i.id for i in got.items] == [old_doc.id]
    assert got.items[0].superseded_by == new_doc.id or got.items[0].valid_to is not None


async def test_chunk_parents_titles_and_refs(engine: SqliteEngine, folder: Path) -> None:
    brain = Brain(engine, LAYOUT, chunk_chars=200, overlap_chars=40)
    await brain.ingest_folder(folder, source="docs")
    doc = (await items(engine, ItemKind.DOCUMENT, "guide.md"))[0]
    assert doc.meta.title == "Install Guide"
    assert doc.namespace == LAYOUT.brain("docs")
    assert doc.meta.source is not None and (doc.meta.source.kind, doc.meta.source.id) == ("brain", "docs")
    refs = {r.ref: r for r in doc.meta.refs}
    assert set(refs) == {"img/arch.png", "files/sheet.pdf", "img/missing.png"}
    arch = refs["img/arch.png"]
    assert (arch.kind, arch.media_type, arch.status) == ("image", "image/png", "available")
    assert arch.sha256 == hashlib.sha256(PNG).hexdigest()
    assert refs["files/sheet.pdf"].kind == "attachment"
    assert refs["files/sheet.pdf"].media_type == "application/pdf"
    assert refs["img/missing.png"].status == "unavailable" and refs["img/missing.png"].sha256 is None
    chunks = await items(engine, ItemKind.CHUNK, "guide.md")
    titles = {c.meta.title for c in chunks}
    assert titles == {
        "Install Guide",
        "Install Guide > Linux",
        "Install Guide > Linux > Debian",
        "Install Guide > Windows",
    }
    for c in chunks:
        assert c.meta.parent == doc.id and c.meta.parent_title == "Install Guide"
        assert c.meta.file_path == "guide.md"
    debian = next(c for c in chunks if c.meta.title == "Install Guide > Linux > Debian")
    assert [r.ref for r in debian.meta.refs] == ["files/sheet.pdf"]
    html = (await items(engine, ItemKind.DOCUMENT, "handbook.html"))[0]
    assert html.meta.title == "Team Handbook"
    assert "var x" not in html.text and "color: red" not in html.text
    html_titles = {c.meta.title for c in await items(engine, ItemKind.CHUNK, "handbook.html")}
    assert "Team Handbook > Handbook > Holidays" in html_titles


async def test_ingest_text_and_replay(engine: SqliteEngine) -> None:
    brain = Brain(engine, LAYOUT)
    first = await brain.ingest_text("# Notes\n\nOne.\n\nTwo.\n", source="inbox", name="notes.md")
    again = await brain.ingest_text("# Notes\n\nOne.\n\nTwo.\n", source="inbox", name="notes.md")
    assert first.stored == ["notes.md"] and again.unchanged == ["notes.md"]
    empty = await brain.ingest_text("   \n", source="inbox", name="empty.md")
    assert empty.failed and not empty.stored


def _tiny_pdf(text: str) -> bytes:
    """A one-page PDF with one line of Helvetica text, written by hand (no PDF writer needed)."""
    stream = b"BT /F1 12 Tf 20 100 Td (" + text.encode() + b") Tj ET"
    objs = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 144] /Contents 4 0 R"
        b" /Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length " + str(len(stream)).encode() + b" >>\nstream\n" + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = b"%PDF-1.4\n"
    offsets = []
    for i, body in enumerate(objs, 1):
        offsets.append(len(out))
        out += f"{i} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objs) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{off:010d} 00000 n \n".encode() for off in offsets)
    out += f"trailer\n<< /Size {len(objs) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return out


async def test_pdf_documents_are_read_when_pypdf_is_installed(engine: SqliteEngine, tmp_path: Path) -> None:
    pytest.importorskip("pypdf")
    pdf = tmp_path / "quarterly-report.pdf"
    pdf.write_bytes(_tiny_pdf("Revenue grew in the third quarter"))
    report = await Brain(engine, LAYOUT).ingest(pdf, source="reports")
    assert report.stored == ["quarterly-report.pdf"]
    (chunk,) = await items(engine, ItemKind.CHUNK, "quarterly-report.pdf")
    assert "Revenue grew in the third quarter" in chunk.text
    assert chunk.meta.parent_title == "quarterly report" and chunk.meta.title == "quarterly report > Page 1"
