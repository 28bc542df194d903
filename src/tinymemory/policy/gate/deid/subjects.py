"""The sharers' own identifiers: each user id as written, and the name in it however the text spells it.

A user id is split on `. _ - @ + ,`, whitespace and case changes ("dana.lee", "dana_lee", "Dana-Lee",
"DanaLee" all give "dana" and "lee"); of an e-mail-like id only the local part is a name ("Dana.Lee@acme":
"acme" is the organisation, not a person). The terms matched in a text are the id itself, its local
part, the name parts of three or more letters that are not ordinary words of an id ("user", "team"),
and the parts written together with any separator or none ("Dana Lee", "dana.lee", "DanaLee"); an id
that cannot be split ("danalee") also matches its letters with a separator between any of them ("Dana
Lee"). Matching ignores case and accents ("Jose" is "José"), and never inside a longer word.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator, Sequence
from functools import lru_cache

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
    for pattern in sorted(patterns, key=lambda p: (-len(p.pattern), p.pattern)):
        for m in pattern.finditer(folded):
            if m.end() > m.start():
                yield m.start(), m.end()
