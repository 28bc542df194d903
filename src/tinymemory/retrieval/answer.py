"""Answer synthesis for recall: an Answerer protocol and the default extractive answerer.

The extractive answerer needs no model: it quotes the sentences of the top hits that share the most
terms with the question, so recall works offline and its output is reproducible.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, time, timedelta
from typing import Protocol, runtime_checkable

from tinymemory.api.errors import TinyMemoryError, Unavailable
from tinymemory.api.items import ItemKind
from tinymemory.api.requests import Citation, Hit, RecallResult
from tinymemory.retrieval.temporal import time_question
from tinymemory.retrieval.text import Analyzer, default_analyzer, term_set

DEFAULT_BUDGET_CHARS = 600
MIN_RELATIVE_OVERLAP = 0.5  # a quoted sentence shares at least half as many terms as the best one
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")
# A quote ending like this closes itself; any other gets a period before the next one, so quotes
# from memories written without final punctuation do not run together.
_CLOSED = re.compile(r"[.!?…:;。！？][\"'”’)\]]*$")
SEPARATOR_CHARS = 2  # ". " at most between two quotes
# A document line that starts a block of its own (a heading, a list item, a table row, a quote, a
# fence): it is not the wrapped continuation of the line before it.
_BLOCK_LINE = re.compile(r"^\s*(?:#{1,6}\s|[-*+•]\s|\d+[.)]\s|\||>|```|~~~)")
_OWN_LINE = re.compile(r"^\s*(?:#{1,6}\s|\||```|~~~)")  # ... and one nothing may be joined onto
MONTH_NAMES = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)


@runtime_checkable
class Answerer(Protocol):
    async def answer(self, question: str, hits: Sequence[Hit], instructions: str | None) -> str:
        """Answer `question` from `hits` (best first); return "" when they hold nothing useful."""
        ...


@dataclass(frozen=True, slots=True)
class Extract:
    answer: str
    used: tuple[str, ...]  # ids of the hits quoted, best first


def split_sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE_END.split(text) if s and s.strip()]


def passage_sentences(text: str) -> list[str]:
    """The sentences of a document's text (an ingested document or one of its chunks): the lines a
    paragraph is wrapped over are one line (a line break inside a paragraph ends no sentence), while a
    heading, a list item, a table row and a fenced line stay their own."""
    lines: list[str] = []
    in_fence = False
    for line in text.split("\n"):
        stripped = line.strip()
        fence = stripped.startswith(("```", "~~~"))
        joinable = (
            not (in_fence or fence)
            and stripped
            and lines
            and lines[-1]
            and not _BLOCK_LINE.match(line)
            and not _OWN_LINE.match(lines[-1])
        )
        if joinable:
            lines[-1] = f"{lines[-1]} {stripped}"
        else:
            lines.append(stripped)
        if fence:
            in_fence = not in_fence
    return split_sentences("\n".join(lines))


def _document_of(hit: Hit) -> str | None:
    """The document a hit quotes from (a chunk's parent, a document itself), else None."""
    item = hit.item
    if item.kind == ItemKind.CHUNK:
        return item.meta.parent
    return item.id if item.kind == ItemKind.DOCUMENT else None


def _sentences_of(hit: Hit) -> list[str]:
    return (
        passage_sentences(hit.item.text)
        if _document_of(hit) is not None
        else split_sentences(quoted_text(hit))
    )


def _repeats(sentence: str, document: str | None, chosen: Sequence[tuple[str | None, str]]) -> bool:
    """Whether a sentence of a document is already quoted from it, whole or as a piece of a longer one
    (chunks overlap, and a chunk written before overlaps kept whole sentences may start mid-sentence)."""
    if document is None:
        return False
    words = f" {' '.join(sentence.split())} "
    return any(d == document and (words in other or other in words) for d, other in chosen)


def join_quotes(sentences: Sequence[str]) -> str:
    """Quotes joined by a space, with a period added after any that lacks final punctuation."""
    out: list[str] = []
    for i, sentence in enumerate(sentences):
        last = i == len(sentences) - 1
        out.append(sentence if last or _CLOSED.search(sentence) else sentence + ".")
    return " ".join(out)


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: max(0, limit - 1)].rstrip() + "…"


def asks_when(question: str) -> bool:
    """Whether the question asks about time ("when ...", "what year ...", "how long ago ...", "did she go
    before ..."): its quotes then start with the date they are about. temporal.time_question decides."""
    return time_question(question) is not None


def span_label(start: datetime, end: datetime) -> str:
    """A closed [start, end] span in words: a day, a whole month or year, or the days it runs over."""

    def day(t: datetime) -> str:
        return f"{t.day} {MONTH_NAMES[t.month - 1]} {t.year}"

    after = end + timedelta(microseconds=1)
    midnight = start == start.replace(hour=0, minute=0, second=0, microsecond=0)
    if start.date() == end.date():
        return day(start)
    if midnight and start.day == 1 and after.day == 1 and after.time() == time():
        if start.month == 1 and after.month == 1 and after.year == start.year + 1:
            return str(start.year)
        if (after.year * 12 + after.month) - (start.year * 12 + start.month) == 1:
            return f"{MONTH_NAMES[start.month - 1]} {start.year}"
    if (start.year, start.month) == (end.year, end.month):
        return f"{start.day}-{end.day} {MONTH_NAMES[start.month - 1]} {start.year}"
    return f"{day(start)} to {day(end)}"


def dated(hits: Sequence[Hit]) -> dict[int, str]:
    """Per hit rank, the label a quote from it starts with when the question asks when: the days the
    memory is about (its event range, resolved from words like "yesterday" when stored), else the day it
    was recorded. The memory's own words ("last week") only make sense against that date."""
    out: dict[int, str] = {}
    for rank, hit in enumerate(hits):
        meta = hit.item.meta
        start = meta.event_from or meta.event_to or meta.observed_at
        end = meta.event_to or meta.event_from or meta.observed_at
        if start is not None and end is not None and start <= end:
            out[rank] = span_label(start, end) + ": "
    return out


def quoted_text(hit: Hit) -> str:
    """The hit's text without a leading `<speaker>: ` label naming its own source (a transcript line):
    the citation already says who spoke, and the label is not part of what was said."""
    text = hit.item.text
    source = hit.item.meta.source
    speaker = source.id if source is not None else None
    if speaker and text.startswith(speaker + ":"):
        return text[len(speaker) + 1 :].lstrip()
    return text


def extract(
    question: str,
    hits: Sequence[Hit],
    *,
    budget: int = DEFAULT_BUDGET_CHARS,
    max_hits: int = 5,
    analyzer: Analyzer | None = None,
) -> Extract:
    """Pick the best-overlapping sentences of the top hits within `budget` characters.

    Sentences are scored by the share of question terms they contain (ties: better hit, earlier
    sentence); those far below the best are left out; the rest print in hit order, so the answer
    reads like the memories it quotes, each quote closed by its own punctuation or a period. A
    transcript line's own speaker label is left out; when the question asks when, each memory's
    first quote starts with the date it is about.
    """
    if not hits:
        return Extract("", ())
    an = analyzer or default_analyzer()
    wanted = set(an.query_terms(question))
    split = [
        (h_rank, s_pos, sentence, term_set(an, sentence))
        for h_rank, hit in enumerate(hits[:max_hits])
        for s_pos, sentence in enumerate(_sentences_of(hit))
    ]
    candidates: list[tuple[float, int, int, str]] = []
    for h_rank, s_pos, sentence, terms in split:
        overlap = len(wanted & terms) / len(wanted) if wanted else 0.0
        if overlap > 0:
            candidates.append((overlap, h_rank, s_pos, sentence))
    if not candidates:
        text = quoted_text(hits[0])
        first = _sentences_of(hits[0]) or [text.strip()]
        return Extract(_clip(first[0], budget), (hits[0].item.id,))
    candidates.sort(key=lambda c: (-c[0], c[1], c[2]))
    floor = candidates[0][0] * MIN_RELATIVE_OVERLAP
    candidates = [c for c in candidates if c[0] >= floor]
    labels = dated(hits[:max_hits]) if asks_when(question) else {}
    chosen: list[tuple[int, int, str]] = []
    quoted: list[tuple[str | None, str]] = []  # (document, " words ") of each chosen sentence
    with_label: set[int] = set()
    used_chars = 0
    for _, h_rank, s_pos, sentence in candidates:
        room = budget - used_chars - (SEPARATOR_CHARS if chosen else 0)
        if room <= 0:
            break
        document = _document_of(hits[h_rank])
        if _repeats(sentence, document, quoted):
            continue
        label = "" if h_rank in with_label else labels.get(h_rank, "")
        if len(label) + len(sentence) > room:
            if chosen:
                continue
            label = label if len(label) < room else ""
            sentence = _clip(sentence, room - len(label))
        chosen.append((h_rank, s_pos, sentence))
        quoted.append((document, f" {' '.join(sentence.split())} "))
        if label:
            with_label.add(h_rank)
        used_chars += len(label) + len(sentence) + (SEPARATOR_CHARS if len(chosen) > 1 else 0)
    chosen.sort()
    quotes: list[str] = []
    for i, (h_rank, _, sentence) in enumerate(chosen):
        first_of_hit = i == 0 or chosen[i - 1][0] != h_rank
        quotes.append(labels[h_rank] + sentence if first_of_hit and h_rank in with_label else sentence)
    used = tuple(dict.fromkeys(hits[h].item.id for h, _, _ in chosen))
    return Extract(join_quotes(quotes), used)


class ExtractiveAnswerer:
    """The default Answerer: deterministic quotes from the hits (instructions are not interpreted)."""

    def __init__(self, budget: int = DEFAULT_BUDGET_CHARS, max_hits: int = 5) -> None:
        self.budget = budget
        self.max_hits = max_hits

    def extract(self, question: str, hits: Sequence[Hit]) -> Extract:
        return extract(question, hits, budget=self.budget, max_hits=self.max_hits)

    async def answer(self, question: str, hits: Sequence[Hit], instructions: str | None) -> str:
        return self.extract(question, hits).answer


async def answer_recall(
    answerer: Answerer, question: str, hits: Sequence[Hit], instructions: str | None
) -> RecallResult:
    """Recall's answer over a fetch's hits, the same for every engine: the extractive answerer cites the
    hits it quoted; any other answerer cites every hit it was given. An answerer's own failure is
    Unavailable (a TinyMemoryError it raises passes through)."""
    if isinstance(answerer, ExtractiveAnswerer):
        ext = answerer.extract(question, hits)
        used = set(ext.used)
        cited = [h for h in hits if h.item.id in used]
        return RecallResult(ext.answer, tuple(Citation(h.item.id, h.score, h.item) for h in cited))
    try:
        answer = await answerer.answer(question, hits, instructions)
    except TinyMemoryError:
        raise
    except Exception as exc:
        raise Unavailable(f"recall: the answerer failed ({exc})") from exc
    return RecallResult(answer, tuple(Citation(h.item.id, h.score, h.item) for h in hits))
