"""The sharers' own identifiers: each user id as written, and the name in it however the text spells it.

A user id is split on `. _ - @ + ,`, whitespace and case changes ("dana.lee", "dana_lee", "Dana-Lee",
"DanaLee" all give "dana" and "lee"); of an e-mail-like id only the local part is a name ("Dana.Lee@acme":
"acme" is the organisation, not a person). The terms matched in a text are the id itself, its local
part, the name parts of three or more letters that are not ordinary words of an id ("user", "team"),
and the parts written together with any separator or none ("Dana Lee", "dana.lee", "DanaLee"); an id
that cannot be split ("danalee") also matches its letters with a separator between any of them ("Dana
Lee"), and a capitalised name in the text that the id is written from: initial and surname ("jsmith":
"John Smith", "J. Smith", "Smith"), first name and initial ("karlaw": "Karla", "Karla W."), or both
("karlaweiss": "Karla"). Matching ignores case and accents ("Jose" is "José"), and never inside a longer
word.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator, Sequence
from functools import lru_cache

from tinymemory.policy.gate.deid.people import NOT_NAMES
from tinymemory.policy.gate.deid.text import normalise

_SUBJECT_STOP = {
    "the", "and", "for", "user", "users", "usr", "agent", "team", "admin", "email", "mail", "phone",
    "person", "address", "number", "card", "iban", "account", "credential", "id", "info", "contact",
    "test", "guest", "anon", "anonymous", "bot", "service", "system", "root", "dev", "ext", "external",
    "internal", "staff", "member", "support", "help", "office", "customer", "client",
}  # fmt: skip
_ID_SEPARATORS = re.compile(r"[\s._\-@+,]+")
_JOIN = r"[\s._-]*"
_LOOSE = r"[\s._-]?"


def _case_parts(word: str) -> list[str]:
    """'DanaLee' -> ['Dana', 'Lee'], 'JSmith' -> ['J', 'Smith'], 'dana2' -> ['dana', '2']."""
    parts: list[str] = []
    current = ""
    for i, ch in enumerate(word):
        if current:
            prev = word[i - 1]
            nxt = word[i + 1] if i + 1 < len(word) else ""
            if (
                (prev.islower() and ch.isupper())
                or (prev.isdigit() != ch.isdigit())
                or (prev.isupper() and ch.isupper() and nxt.islower())
            ):
                parts.append(current)
                current = ""
        current += ch
    if current:
        parts.append(current)
    return parts


def name_parts(subject: str) -> list[str]:
    """The pieces of a user id (of its local part, for an e-mail-like id), in order."""
    s = normalise(subject).strip()
    local = s.rsplit("@", 1)[0] if "@" in s[1:] else s
    return [p for chunk in _ID_SEPARATORS.split(local) if chunk for p in _case_parts(chunk)]


@lru_cache(maxsize=4096)
def _base(ch: str) -> str:
    decomposed = unicodedata.normalize("NFD", ch)
    return decomposed[0] if decomposed else ch


def fold(text: str) -> str:
    """`text` without accents, character for character ("José" -> "Jose")."""
    return text if text.isascii() else "".join(_base(ch) for ch in text)


def _bounded(body: str) -> str:
    # Not inside a longer word, nor inside a placeholder this module wrote ("[person]").
    return rf"(?<![\w\[]){body}(?![\w\]])"


@lru_cache(maxsize=256)
def _patterns(subject: str) -> tuple[re.Pattern[str], ...]:
    s = fold(normalise(subject).strip())
    if not s:
        return ()
    bodies: list[str] = [re.escape(s)]
    if "@" in s[1:]:
        bodies.append(re.escape(s.rsplit("@", 1)[0]))
    parts = [fold(p) for p in name_parts(subject)]
    alpha = [p for p in parts if not p.isdigit()]
    names = [p for p in alpha if len(p) >= 3 and p.casefold() not in _SUBJECT_STOP]
    if len(alpha) >= 2:  # "Dana Lee", "dana.lee", "DanaLee"; and "Lee Dana" for "lee.dana"
        bodies.append(_JOIN.join(re.escape(p) for p in alpha))
        bodies.append(_JOIN.join(re.escape(p) for p in reversed(alpha)))
    for p in names:
        bodies.append(re.escape(p))
        if len(alpha) == 1 and len(p) >= 6:  # "danalee" may be written "Dana Lee"
            bodies.append(_LOOSE.join(re.escape(c) for c in p))
    ordered = sorted(set(bodies), key=len, reverse=True)
    return tuple(re.compile(_bounded(b), re.I) for b in ordered)


def subject_spans(text: str, subjects: Sequence[str]) -> Iterator[tuple[int, int]]:
    """Where `text` names one of `subjects`, longest terms first (a caller keeps the first of overlaps)."""
    patterns = {p for subject in subjects for p in _patterns(str(subject))}
    if not patterns:
        return
    folded = fold(text)
    unsplit = {u for subject in subjects if (u := _unsplittable(str(subject)))}
    if unsplit:
        yield from sorted(_joined_name_spans(folded, unsplit), key=lambda span: span[0] - span[1])
    for pattern in sorted(patterns, key=lambda p: (-len(p.pattern), p.pattern)):
        for m in pattern.finditer(folded):
            if m.end() > m.start():
                yield m.start(), m.end()


# ------------------------------------------------------------------------------ ids with no separator


def _unsplittable(subject: str) -> str | None:
    """The letters of an id that names a person but cannot be split ("jsmith", "danal"), or None."""
    alpha = [fold(p).casefold() for p in name_parts(subject) if not p.isdigit()]
    if len(alpha) != 1 or len(alpha[0]) < 4 or not alpha[0].isalpha():
        return None
    return alpha[0] if alpha[0] not in _SUBJECT_STOP else None


_NAME_WORD = re.compile(r"(?<![\w\[])[A-Z][\w'-]*\.?")
_NAME_GAP = re.compile(r"[ ]+(?:(?:van|von|der|den|de|del|da|di|du|dos|le|la|bin|al|ter)[ ]+){0,3}")


def _letters(word: str) -> str:
    return "".join(c for c in word.casefold() if c.isalpha())


def _joined_name_spans(folded: str, ids: set[str]) -> Iterator[tuple[int, int]]:
    """Capitalised names in `folded` that one of `ids` is written from: "John Smith" or "J. Smith" for
    "jsmith", "Siobhan O'Brien" or "Siobhan" for "siobhano", "Ewa" or "Ewa Quinn" for "ewaquinn"; the
    first name or the surname alone when the id holds it whole and the rest of the id is the other's
    initial or the other name. Up to five words from each capitalised word: linear in the text."""
    words = _NAME_WORD.finditer(folded)
    for first in words:
        head = _letters(first.group())
        if not head:
            continue
        joined, end = head, first.end()
        for uid in ids:
            if (
                len(head) >= 3
                and head not in NOT_NAMES
                and head not in _SUBJECT_STOP
                and (uid[:-1] == head or uid[1:] == head or (uid.startswith(head) or uid.endswith(head)))
            ):
                yield first.start(), first.end() - first.group().endswith(".")
        # the next words of the same name: "Smith", "O'Brien", "van der Berg"
        at = first.end()
        for _ in range(4):
            gap = _NAME_GAP.match(folded, at)
            if not gap:
                break
            nxt = _NAME_WORD.match(folded, gap.end())
            if not nxt:
                break
            particles = _letters(gap.group())
            joined += particles + _letters(nxt.group())
            at = end = nxt.end()
            rest = joined[len(head) :]
            if any(uid in (joined, head[0] + rest, head + rest[:1]) for uid in ids):
                initial = len(_letters(nxt.group())) == 1  # "Sven S." loses its dot too
                yield first.start(), end - (nxt.group().endswith(".") and not initial)
