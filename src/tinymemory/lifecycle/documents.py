"""Reading documents into one markdown-like text, a title and the media they link.

Markdown and plain text are read as they are; HTML is turned into headings and paragraphs with the
standard library's parser; PDF is read with pypdf when it is installed (the `pdf` extra).

A document's local links (images, attachments) are hashed so a memory can say which file it saw. A
link is only read when it resolves, symbolic links followed, inside the folder being ingested: a
document from someone else may link `../../.ssh/id_rsa` or `/etc/passwd`, and hashing that file would
store proof that it exists and what it holds. Such a link is kept as `unavailable` and reported, the
rule the folder walk applies to symbolic links (lifecycle.folders), and `follow_symlinks` lifts both.
Only regular files are read, opened without blocking, so a link to a FIFO or a device cannot hang the
ingest or read forever.
"""

from __future__ import annotations

import hashlib
import importlib
import mimetypes
import os
import re
import stat
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path, PurePosixPath
from typing import Any

from tinymemory.api import InvalidRequest, Ref, Unsupported

MEDIA_TYPES = {
    ".md": "text/markdown",
    ".markdown": "text/markdown",
    ".txt": "text/plain",
    ".text": "text/plain",
    ".html": "text/html",
    ".htm": "text/html",
    ".pdf": "application/pdf",
}
ATTACHMENT_SUFFIXES = frozenset(
    {".pdf", ".zip", ".gz", ".tar", ".csv", ".xlsx", ".xls", ".docx", ".doc", ".pptx", ".ppt", ".json"}
    | {".mp3", ".mp4", ".wav", ".mov", ".txt"}
)
_MD_IMAGE = re.compile(r"!\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_MD_LINK = re.compile(r"(?<!!)\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_MD_H1 = re.compile(r"^#\s+(.+?)\s*#*\s*$", re.M)
_HASH_BLOCK = 1 << 20
# how a refusal (a link out of the folder: lifecycle.folders, and links in documents here) says the way out
FOLLOW_HINT = "follow_symlinks=True (`--follow-symlinks`) follows it"


@dataclass(frozen=True, slots=True)
class Parsed:
    title: str
    text: str  # markdown-like: `#` headings, blank lines between paragraphs
    links: tuple[tuple[str, str], ...]  # (kind, ref as written): images and attachments
    media_type: str


def media_type_of(path: Path) -> str | None:
    return MEDIA_TYPES.get(path.suffix.lower())


def parse(raw: str, media_type: str, fallback_title: str) -> Parsed:
    if media_type == "text/html":
        return _parse_html(raw, fallback_title)
    if media_type == "text/markdown":
        m = _MD_H1.search(raw)
        links = [("image", u) for u in _MD_IMAGE.findall(raw)]
        links += [("attachment", u) for u in _MD_LINK.findall(raw) if _is_attachment(u)]
        return Parsed(m.group(1).strip() if m else fallback_title, raw, _dedupe(links), media_type)
    if media_type == "text/plain":
        return Parsed(fallback_title, raw, (), media_type)
    raise Unsupported(f"brain ingest: `media_type` `{media_type}` is not a document type brain reads")


def read_file(path: Path) -> Parsed:
    media = media_type_of(path)
    if media is None:
        raise Unsupported(f"brain ingest: `path` `{path.name}` has no document type brain reads")
    title = path.stem.replace("_", " ").replace("-", " ").strip() or path.name
    if media == "application/pdf":
        return _read_pdf(path, title)
    try:
        raw = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise InvalidRequest(f"brain ingest: `path` `{path.name}` is not utf-8 text") from None
    return parse(raw, media, title)


def _read_pdf(path: Path, title: str) -> Parsed:
    try:
        pypdf: Any = importlib.import_module("pypdf")  # optional: pip install 'tinymemory[pdf]'
    except ImportError:
        raise Unsupported(
            f"brain ingest: `path` `{path.name}` is a pdf; install the `pdf` extra (pypdf) to read it"
        ) from None
    try:
        reader = pypdf.PdfReader(str(path))
        pages = [(page.extract_text() or "").strip() for page in reader.pages]
        meta_title = reader.metadata.title if reader.metadata and reader.metadata.title else None
    except Exception as exc:  # pypdf raises many kinds on damaged files
        raise InvalidRequest(f"brain ingest: `path` `{path.name}` is not a readable pdf ({exc})") from None
    text = "\n\n".join(f"## Page {i + 1}\n\n{p}" for i, p in enumerate(pages) if p)
    return Parsed(str(meta_title or title), text, (), "application/pdf")


@dataclass(slots=True)
class ResolvedRefs:
    """A document's refs, and the local links that were not read because they lead outside the root."""

    refs: tuple[Ref, ...] = ()
    refused: list[tuple[str, str]] = field(default_factory=list)  # (ref as written, why)


def resolve_refs(
    links: tuple[tuple[str, str], ...],
    base: Path | None,
    *,
    root: Path | None = None,
    follow_symlinks: bool = False,
) -> ResolvedRefs:
    """Refs with sha256 and media type for local files; remote ones keep their url; missing ones, and
    anything but a regular file, are `unavailable` (their text is still ingested).

    Local links resolve against `base` (the document's folder). With `root`, a link that resolves
    outside it, symbolic links followed, is not read: it is `unavailable` and listed in `refused`,
    unless `follow_symlinks`. Without `root`, `base` is the root."""
    out = ResolvedRefs()
    refs: list[Ref] = []
    inside = (root if root is not None else base).resolve() if base is not None else None
    for kind, ref in links:
        guessed = mimetypes.guess_type(ref.split("?")[0])[0]
        if kind == "attachment" and guessed and guessed.startswith("image/"):
            kind = "image"
        if re.match(r"^[a-z][a-z0-9+.-]*://", ref, re.I):
            refs.append(Ref(kind, ref, guessed, None, "available", ref))
            continue
        local = _local(base, ref)
        if (
            local is not None
            and inside is not None
            and not follow_symlinks
            and not local.is_relative_to(inside)
        ):
            out.refused.append((ref, f"leads outside the folder (`{local}`); it was not read; {FOLLOW_HINT}"))
            local = None
        digest = None if local is None else _regular_file_sha256(local)
        if digest is None:
            refs.append(Ref(kind, ref, guessed, None, "unavailable"))
        else:
            refs.append(Ref(kind, ref, guessed, digest, "available"))
    out.refs = tuple(refs)
    return out


def _local(base: Path | None, ref: str) -> Path | None:
    """Where a local link leads, symbolic links resolved (it may not exist); None for no file link."""
    if base is None or ref.startswith(("data:", "#", "mailto:")):
        return None
    path = ref.split("#")[0].split("?")[0]
    if not path:
        return None
    try:
        return (base / PurePosixPath(path)).resolve()
    except (OSError, RuntimeError):  # a loop of links (RuntimeError before Python 3.13)
        return None


def _regular_file_sha256(path: Path) -> str | None:
    """The file's sha256, or None when it is missing, unreadable or not a regular file. Opened without
    blocking and checked on the open descriptor, so a FIFO (which would wait for a writer) or a device
    such as /dev/zero (which never ends) is refused, even if it replaced a file since it was found."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        digest = hashlib.sha256()
        while block := os.read(fd, _HASH_BLOCK):
            digest.update(block)
    except OSError:
        return None
    finally:
        os.close(fd)
    return digest.hexdigest()


def _is_attachment(url: str) -> bool:
    path = url.split("#")[0].split("?")[0]
    guessed = mimetypes.guess_type(path)[0] or ""
    return PurePosixPath(path).suffix.lower() in ATTACHMENT_SUFFIXES or guessed.startswith("image/")


def _dedupe(links: list[tuple[str, str]]) -> tuple[tuple[str, str], ...]:
    return tuple(dict.fromkeys(links))


class _HtmlToText(HTMLParser):
    _BLOCK = frozenset(
        [
            "p",
            "div",
            "section",
            "article",
            "li",
            "tr",
            "table",
            "ul",
            "ol",
            "blockquote",
            "pre",
            "br",
            "hr",
            "header",
            "footer",
        ]
    )
    _SKIP = frozenset({"script", "style", "noscript", "template"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        self.title = ""
        self.links: list[tuple[str, str]] = []
        self._skip = 0
        self._in_title = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag in self._SKIP:
            self._skip += 1
        elif tag == "title":
            self._in_title = True
        elif re.fullmatch(r"h[1-6]", tag):
            self.out.append("\n\n" + "#" * int(tag[1]) + " ")
        elif tag in self._BLOCK:
            self.out.append("\n\n")
        if tag == "img" and a.get("src"):
            self.links.append(("image", str(a["src"])))
        elif tag == "a" and a.get("href") and _is_attachment(str(a["href"])):
            self.links.append(("attachment", str(a["href"])))

    def handle_endtag(self, tag: str) -> None:
        if tag in self._SKIP:
            self._skip = max(0, self._skip - 1)
        elif tag == "title":
            self._in_title = False
        elif re.fullmatch(r"h[1-6]", tag) or tag in self._BLOCK:
            self.out.append("\n\n")

    def handle_data(self, data: str) -> None:
        if self._skip:
            return
        if self._in_title:
            self.title += data
            return
        core = " ".join(data.split())
        if not core:
            self.out.append(" " if data else "")
            return
        lead = " " if data[:1].isspace() else ""
        self.out.append(lead + core + (" " if data[-1:].isspace() else ""))


def _parse_html(raw: str, fallback_title: str) -> Parsed:
    parser = _HtmlToText()
    parser.feed(raw)
    parser.close()
    text = re.sub(r"[ \t]+", " ", "".join(parser.out))
    text = re.sub(r" *\n *", "\n", text)
    text = re.sub(r"\n{3,}", "\n\n", text).strip() + "\n"
    h1 = _MD_H1.search(text)
    title = " ".join(parser.title.split()) or (h1.group(1).strip() if h1 else fallback_title)
    return Parsed(title, text, _dedupe(parser.links), "text/html")
