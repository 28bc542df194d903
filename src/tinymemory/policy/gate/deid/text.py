"""The forms of a text the detectors read, the Span they report, and the per-sentence context that
decides whether a number or an address is an organisation's.

Two forms. `normalise` is what the public functions work on and publish: NFKC (full-width digits, the
"＠" sign and the odd spaces become plain ones) without invisible format characters (a zero-width space
inside a card number would otherwise split it). `view` is the same text, character for character, with
every decimal digit as an ASCII one, every space as " " and every dash as "-", so the patterns stay
small and a span found in the view is the span in the text.
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from dataclasses import dataclass


@dataclass(frozen=True)
class Span:
    """One identifier found in a text: where, what kind, and the placeholder that replaces it."""

    start: int
    end: int
    kind: str
    organisational: bool = False

    @property
    def placeholder(self) -> str:
        return f"[{self.kind}]"


def normalise(text: object) -> str:
    """NFKC without format characters (zero-width spaces and joiners, soft hyphens, direction marks)."""
    s = unicodedata.normalize("NFKC", str(text))
    if s.isascii():
        return s
    return "".join(ch for ch in s if ch.isascii() or unicodedata.category(ch) != "Cf")


class _ViewTable(dict[int, int]):
    """str.translate's table for `view`, filled on first sight of each character (bounded)."""

    def __missing__(self, code: int) -> int:
        ch = chr(code)
        category = unicodedata.category(ch)
        if category == "Nd":
            mapped = ord(str(unicodedata.decimal(ch)))
        elif category == "Zs" or ch == "\t":
            mapped = 0x20
        elif category == "Pd" or ch == "\u2212":
            mapped = 0x2D
        else:
            mapped = code
        if len(self) < 4096:
            self[code] = mapped
        return mapped


_VIEW = _ViewTable()


def view(text: str) -> str:
    """`text` with ASCII digits, spaces and dashes, the same length (see the module docstring)."""
    return text if text.isascii() and "\t" not in text else text.translate(_VIEW)


def digits(s: str) -> str:
    return "".join(c for c in s if "0" <= c <= "9")


# "I" alone (not "i.e.", not a list marker "i."), and the other first-person singular forms.
FIRST_PERSON = re.compile(r"(?<![\w.'-])i(?![\w.-])|\b(?:me|my|mine|myself)\b", re.I)

_SENTENCE_BREAK = re.compile(r"[.!?;](?:\s+|$)")
_ORG_PHONE_CONTEXT = re.compile(
    r"\b(?:support|hotline|helpline|help ?desk|service|office|reception|front desk|store|shop|branch|"
    r"line|cent(?:er|re)|team|department|desk|sales|billing|switchboard|toll[- ]free|emergency (?:line|"
    r"number|services?)|"
    r"call us|reach us|contact us|headquarters|hq|clinic|warehouse|fax)\b",
    re.I,
)
# A sentence that says the number is somebody's own, whatever else it names ("emergency contact").
_OWN_PHONE = re.compile(
    r"\b(?:emergency contact|private|personal|home (?:phone|number)|mobile of|cell of)\b", re.I
)
_ORG_ADDRESS_CONTEXT = re.compile(
    r"\b(?:office|offices|store|shop|branch|warehouse|headquarters|hq|campus|site|factory|showroom|clinic|"
    r"returns|return address|located|location|reception|depot|outlet|our|company|premises|studio|lab|"
    r"plant)\b",
    re.I,
)
_RESIDENCE = re.compile(
    r"\b(?:live|lives|living|lived|home|reside|resides|residence|house|flat|apartment|spare key|"
    r"neighbou?rs?|parents?|landlord)\b",
    re.I,
)


class Sentences:
    """The sentences of one text, each tested once for the context words that decide whether a phone
    number or an address is an organisation's (a dot inside an address or a number ends no sentence)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = [0, *(m.end() for m in _SENTENCE_BREAK.finditer(text))]
        self._flags: dict[tuple[int, str], bool] = {}

    def _has(self, index: int, pattern: re.Pattern[str]) -> bool:
        key = (index, pattern.pattern)
        if key not in self._flags:
            end = self.starts[index + 1] if index + 1 < len(self.starts) else len(self.text)
            self._flags[key] = pattern.search(self.text, self.starts[index], end) is not None
        return self._flags[key]

    def index(self, pos: int) -> int:
        return bisect.bisect_right(self.starts, pos) - 1

    def organisational_phone(self, pos: int) -> bool:
        k = self.index(pos)
        return (
            self._has(k, _ORG_PHONE_CONTEXT)
            and not self._has(k, FIRST_PERSON)
            and not self._has(k, _OWN_PHONE)
        )

    def organisational_address(self, pos: int) -> bool:
        k = self.index(pos)
        return (
            self._has(k, _ORG_ADDRESS_CONTEXT)
            and not self._has(k, _RESIDENCE)
            and not self._has(k, FIRST_PERSON)
        )
