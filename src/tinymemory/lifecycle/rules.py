"""The rule-based learning extractor: what belief builds use when no LLM is configured.

It reads the user's own sentences and recognises the common first-person patterns: names and other
"my X is Y" facts, preferences (prefer, like, love, hate, favourite), "remember that ...", standing
instructions ("always ...", "never ...", "from now on ..."), and dated events: a sentence naming one
day, read by the project's date reader (retrieval/dates.py) against when the turn was said.
Corrections work because a pattern always yields the same `About` subject for the same thing, so the
newer statement supersedes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from tinymemory.api import About
from tinymemory.retrieval import dates

_SENTENCES = re.compile(r"(?<=[.!?])\s+|\n+")
_LEAD = re.compile(
    r"^(?:(?:oh|ok|okay|so|well|also|and|but|hey|hi|hello|actually|correction|update|by the way|btw|"
    r"fyi|just so you know|please|pls|no)\b[,:;!]?\s*)+",
    re.I,
)
_TRAIL = re.compile(
    r"\s*(?:,?\s*(?:now|anymore|any more|these days|nowadays|instead|please|thanks))+\s*$", re.I
)

_NAME = re.compile(
    r"^(?i:my name is|my name's|call me|i am called|i'm called)\s+([A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)?)"
)
_REMEMBER = re.compile(r"^(?:remember|don't forget|do not forget|note)\s+(?:that\s+)?(.+)$", re.I)
_ALWAYS = re.compile(r"^(?:from now on,?\s+|going forward,?\s+)?(always|never)\s+(.+)$", re.I)
_FROM_NOW = re.compile(r"^(?:from now on|going forward),?\s+(.+)$", re.I)
_FAVOURITE = re.compile(r"^my (?:favou?rite|preferred)\s+([\w\s-]{1,40}?)\s+(?:is|are)\s+(.+)$", re.I)
_PREFER = re.compile(r"^i\s+(?:now\s+|really\s+|much\s+)?prefer\s+(.+?)(?:\s+(?:to|over)\s+(.+?))?$", re.I)
_LIKE = re.compile(
    r"^i\s+(?:really\s+|do\s+)?(like|love|enjoy|dislike|hate|don't like|do not like|can't stand)\s+(.+)$",
    re.I,
)
_MY_IS = re.compile(r"^my\s+([\w\s'-]{1,40}?)\s+(?:is|are)\s+(.+)$", re.I)
_I_FACT = re.compile(
    r"^i\s+(live in|work at|work for|work as|am from|'m from|am based in|'m based in)\s+(.+)$", re.I
)

_DAY = timedelta(days=1)
_FIRST_PERSON = re.compile(r"\b(i|i'm|i've|i'll|we|we're|my|our|me)\b", re.I)

# Bare "I prefer X" needs a subject so a later "I prefer Y" replaces it; a few common ones are known.
_CATEGORIES = {
    "drink": {
        "tea",
        "coffee",
        "espresso",
        "water",
        "juice",
        "beer",
        "wine",
        "milk",
        "soda",
        "cocoa",
        "latte",
    },
    "editor": {"vim", "neovim", "emacs", "vscode", "vs code", "nano", "sublime", "intellij", "pycharm"},
    "theme": {"dark mode", "light mode", "dark theme", "light theme"},
    "indentation": {"tabs", "spaces"},
    "contact": {"email", "phone", "slack", "text", "sms", "a call"},
}


@dataclass(frozen=True, slots=True)
class RuleLearning:
    """A learning read from one sentence of one turn."""

    text: str
    kind: str
    about: About | None
    confidence: float
    event_from: datetime | None = None
    event_to: datetime | None = None


def extract(text: str, said_at: datetime) -> list[RuleLearning]:
    """Learnings in one user turn, in sentence order."""
    out: list[RuleLearning] = []
    for raw in _SENTENCES.split(text):
        sentence = _clean(raw)
        if sentence:
            found = _sentence(sentence, said_at)
            if found is not None:
                out.append(found)
    return out


def _clean(raw: str) -> str:
    s = raw.strip().rstrip(".!?").strip()
    s = _LEAD.sub("", s).strip()
    return s


def _sentence(s: str, said_at: datetime) -> RuleLearning | None:
    if m := _NAME.match(s):
        return RuleLearning(f"The user's name is {m.group(1)}.", "fact", About("profile", "name"), 0.9)
    if m := _REMEMBER.match(s):
        inner = _clean(m.group(1))
        nested = _sentence(inner, said_at) if inner else None
        if nested is not None:
            return nested
        return RuleLearning(_sentence_case(third_person(inner)) + ".", "fact", None, 0.85) if inner else None
    if m := _ALWAYS.match(s):
        word, rest = m.group(1).lower(), _TRAIL.sub("", m.group(2)).strip()
        key = _key(rest)
        return RuleLearning(
            f"{word.capitalize()} {third_person(rest)}.", "instruction", About("instruction", key), 0.9
        )
    if m := _FROM_NOW.match(s):
        rest = _TRAIL.sub("", m.group(1)).strip()
        return RuleLearning(
            f"From now on, {third_person(rest)}.", "instruction", About("instruction", _key(rest)), 0.85
        )
    if m := _FAVOURITE.match(s):
        what, value = _key(m.group(1)), _TRAIL.sub("", m.group(2)).strip()
        return RuleLearning(
            f"The user's favourite {what} is {value}.", "preference", About("preference", what), 0.9
        )
    if m := _PREFER.match(s):
        choice = _TRAIL.sub("", m.group(1)).strip()
        other = _TRAIL.sub("", m.group(2)).strip() if m.group(2) else None
        key = _preference_key(choice, other)
        text = f"The user prefers {third_person(choice)}" + (
            f" over {third_person(other)}." if other else "."
        )
        return RuleLearning(text, "preference", About("preference", key), 0.85)
    if m := _LIKE.match(s):
        verb, obj = m.group(1).lower(), _TRAIL.sub("", m.group(2)).strip()
        phrase = {
            "don't like": "does not like",
            "do not like": "does not like",
            "can't stand": "cannot stand",
        }
        said = phrase.get(verb, verb + "s")
        return RuleLearning(
            f"The user {said} {third_person(obj)}.", "preference", About("preference", _key(obj)), 0.8
        )
    if m := _I_FACT.match(s):
        rel = m.group(1).lower().replace("'m", "am")
        value = _TRAIL.sub("", m.group(2)).strip()
        label = {"live in": "home", "am from": "origin", "am based in": "home", "work as": "role"}.get(
            rel, "employer"
        )
        verb = {
            "live in": "lives in",
            "work at": "works at",
            "work for": "works for",
            "work as": "works as",
            "am from": "is from",
            "am based in": "is based in",
        }[rel]
        return RuleLearning(f"The user {verb} {value}.", "fact", About("profile", label), 0.85)
    if m := _MY_IS.match(s):
        what, value = _key(m.group(1)), _TRAIL.sub("", m.group(2)).strip()
        if what and value and not _dated(s, said_at):
            return RuleLearning(
                f"The user's {what} is {third_person(value)}.", "fact", About("profile", what), 0.8
            )
    dated = _dated(s, said_at)
    if dated is not None and _FIRST_PERSON.search(s):
        start, end = dated
        return RuleLearning(
            f"{_sentence_case(third_person(s))} ({start.date().isoformat()}).",
            "event",
            None,
            0.75,
            start,
            end,
        )
    return None


def third_person(text: str) -> str:
    """First person to third: "my" -> "the user's", "I am" -> "the user is", "me" -> "the user"."""
    swaps = [
        (r"\bI am\b|\bI'm\b", "the user is"),
        (r"\bI've\b|\bI have\b", "the user has"),
        (r"\bI'll\b|\bI will\b", "the user will"),
        (r"\bI\b", "the user"),
        (r"\bmy\b", "the user's"),
        (r"\bme\b", "the user"),
        (r"\bmine\b", "the user's"),
        (r"\bmyself\b", "the user"),
    ]
    out = text
    for pattern, repl in swaps:
        out = re.sub(pattern, repl, out, flags=re.I)
    return out


def _sentence_case(text: str) -> str:
    return text[:1].upper() + text[1:] if text else text


def _key(text: str) -> str:
    words = re.findall(r"[a-z0-9]+", text.lower())
    return " ".join(w for w in words if w not in {"the", "a", "an", "to", "my", "your"})[:80] or "general"


def _preference_key(choice: str, other: str | None) -> str:
    low = choice.lower()
    for category, members in _CATEGORIES.items():
        if low in members or (other and other.lower() in members):
            return category
    if other:
        return " vs ".join(sorted([_key(choice), _key(other)]))
    m = re.search(r"\bfor\s+(.+)$", low)
    return _key(m.group(1)) if m else _key(choice)


def _dated(s: str, said_at: datetime) -> tuple[datetime, datetime] | None:
    """The day a sentence is about, as a UTC [start, end) range: the first expression the date reader
    (retrieval/dates.py) resolves to a single day, against when the sentence was said."""
    for span in dates.resolve(s, said_at.astimezone(UTC)):
        if span.end - span.start == _DAY:
            return span.start, span.end
    return None
