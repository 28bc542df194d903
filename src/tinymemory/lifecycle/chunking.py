"""Chunking along headings and paragraphs, with overlap inside a section.

A chunk never spans two sections, so its heading path (its `title`) is exact. Paragraphs are packed up
to `max_chars`; an over-long paragraph is split at sentence, then word, boundaries; each chunk after
the first in a section starts with the tail of the previous one: its last whole sentences that fit in
`overlap` characters (none when its last sentence alone is longer), so no chunk starts mid-sentence.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
_SENTENCE = re.compile(r"(?<=[.!?])\s+")
# Where a sentence may start inside a chunk: after a sentence's end, or at a paragraph's start.
_SENTENCE_START = re.compile(r"(?<=[.!?])\s+(?=\S)|\n\s*\n\s*(?=\S)")


@dataclass(frozen=True, slots=True)
class Chunk:
    index: int
    title: str  # heading path, "Guide > Install > Linux"; the document title when there is no heading
    text: str


def sections(text: str, doc_title: str) -> list[tuple[str, list[str]]]:
    """(heading path, paragraphs) in document order; text before the first heading is the title's."""
    path: list[tuple[int, str]] = []
    out: list[tuple[str, list[str]]] = [(doc_title, [])]
    para: list[str] = []
    in_fence = False

    def flush() -> None:
        if para:
            out[-1][1].append("\n".join(para).strip())
            para.clear()

    for line in text.splitlines():
        if line.strip().startswith("```"):
            in_fence = not in_fence
        m = None if in_fence else _HEADING.match(line)
        if m:
            flush()
            level, name = len(m.group(1)), m.group(2).strip()
            path = [(lv, n) for lv, n in path if lv < level] + [(level, name)]
            names = [n for _, n in path]
            if names and names[0] != doc_title:
                names = [doc_title, *names]
            out.append((" > ".join(dict.fromkeys(names)), []))
        elif not line.strip() and not in_fence:
            flush()
        else:
            para.append(line)
    flush()
    return [(title, [p for p in paras if p]) for title, paras in out if any(paras)]


def chunk(text: str, doc_title: str, *, max_chars: int = 1_200, overlap: int = 150) -> list[Chunk]:
    out: list[Chunk] = []
    for title, paras in sections(text, doc_title):
        pieces = [piece for p in paras for piece in _split_long(p, max_chars)]
        current = ""
        carried = False  # whether `current` is only the overlap tail of the previous chunk
        for piece in pieces:
            joined = f"{current}\n\n{piece}" if current else piece
            if current and not carried and len(joined) > max_chars:
                out.append(Chunk(len(out), title, current))
                tail = _tail(current, overlap)
                current = f"{tail}\n\n{piece}" if tail and len(tail) + len(piece) + 2 <= max_chars else piece
                carried = False
            else:
                current = joined
                carried = False
        if current:
            out.append(Chunk(len(out), title, current))
    return out


def _split_long(paragraph: str, max_chars: int) -> list[str]:
    if len(paragraph) <= max_chars:
        return [paragraph]
    parts: list[str] = []
    current = ""
    for unit in _SENTENCE.split(paragraph):
        for word_run in _by_words(unit, max_chars):
            candidate = f"{current} {word_run}" if current else word_run
            if len(candidate) > max_chars and current:
                parts.append(current)
                current = word_run
            else:
                current = candidate
    if current:
        parts.append(current)
    return parts


def _by_words(text: str, max_chars: int) -> list[str]:
    if len(text) <= max_chars:
        return [text]
    runs: list[str] = []
    current = ""
    for word in text.split():
        while len(word) > max_chars:  # a monster token: hard split
            if current:
                runs.append(current)
                current = ""
            runs.append(word[:max_chars])
            word = word[max_chars:]
        candidate = f"{current} {word}" if current else word
        if len(candidate) > max_chars:
            runs.append(current)
            current = word
        else:
            current = candidate
    if current:
        runs.append(current)
    return runs


def _tail(text: str, overlap: int) -> str:
    """The last whole sentences of `text` within `overlap` characters ("" when none fits)."""
    if overlap <= 0 or len(text) <= overlap:
        return "" if overlap <= 0 else text
    floor = len(text) - overlap
    for m in _SENTENCE_START.finditer(text):
        if m.end() >= floor:
            return text[m.end() :].strip()
    return ""
