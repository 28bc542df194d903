"""De-identification for the shared-write gate: what a published fact may carry, and what is never shared.

Two jobs, both rules (regular expressions, checksums and small word lists), because no well-kept library
does them offline here (bench/gate_match.py records what was tried):

- `is_personal` / `personal_reason`: a fact about one person is never published, however many users
  share it. Personal means: an identifier of a person or an account (a private e-mail address, a phone
  number not presented as an organisation's line, a payment card, an IBAN, an account, customer, order
  or id number, a home address, a credential), a first-person statement ("I", "my", "me"), or a
  sensitive detail (health, money, family, identity, beliefs) about a particular person ("the user",
  "she", "his"). A rule about people in general ("customers must give their account number to
  support", "pregnant employees get 14 weeks of leave") is shareable.
- `deidentify` / `contains_identifier`: the copy that is published carries no e-mail address, phone
  number, card, IBAN, account-like number, street address or identifier of the sharers (their ids and
  names, passed as `subjects`). By default every address and number is replaced; with
  `keep_organisational=True` an organisation's role address ("help@", "support@", ...) and a phone
  number presented as a hotline or office line stay, since they are the fact itself.

Organisational e-mail rule: an address is an organisation's when its local part is a role word (help,
support, info, sales, billing, ...), optionally with a suffix ("support-de", "help.desk"); any other
address ("jane.doe@...") is a person's, whatever the sentence says.
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

# ------------------------------------------------------------------------------------------ identifiers

_EMAIL = re.compile(r"(?<![\w.+-])([\w.+-]+)@([a-z0-9-]+(?:\.[a-z0-9-]+)+)", re.I)
_ROLE_LOCAL = re.compile(
    r"^(?:help|helpdesk|support|info|information|contact|contacts|hello|hi|sales|billing|invoices?|"
    r"accounts|accounting|finance|service|services|customerservice|care|office|admin|team|noreply|no-reply|"
    r"donotreply|press|media|hr|jobs|careers|recruiting|privacy|security|abuse|webmaster|postmaster|orders?|"
    r"returns|refunds|shop|store|booking|bookings|reservations|events|feedback|legal|compliance|it|ops|"
    r"facilities|reception|frontdesk|newsletter|marketing|partners|dpo|gdpr)"
    r"(?:[._-][a-z0-9]+)*$",
    re.I,
)
_IBAN = re.compile(r"\b([A-Za-z]{2}[0-9]{2}(?:[ ]?[A-Za-z0-9]{4}){2,7}(?:[ ]?[A-Za-z0-9]{1,4})?)\b")
_CARD = re.compile(r"(?<![0-9-])([0-9](?:[ -]?[0-9]){12,18})(?![0-9-])")
_NOT_PHONE = re.compile(
    r"\b[0-9]{4}-[0-9]{2}-[0-9]{2}\b|\b[0-9]{1,2}[./][0-9]{1,2}[./][0-9]{2,4}\b|\b(?:19|20)[0-9]{2}\s*[-/]\s*(?:19|20)?[0-9]{2}\b"
)
_PHONE = re.compile(r"(?<![\w+])(\+?\(?[0-9]{1,4}\)?(?:[ ./-]?\(?[0-9]{1,5}\)?){2,6})(?!\w)")
_KEYWORD_NUMBER = re.compile(
    r"\b(?P<kind>account|acct|customer|client|member(?:ship)?|contract|policy|order|invoice|ticket|case|"
    r"reference|ref|booking|reservation|confirmation|tracking|routing|sort code|social security|ssn|"
    r"passport|licen[cs]e|driver'?s licen[cs]e|national id|id|tax id|tax|vat|insurance|patient|"
    r"employee|badge|serial|pin|password|passcode|user(?:name)?|login)"
    r"(?P<marker>\s+(?:number|no\.?|nr\.?|id|code|key|#))?\s*(?:is|was|:|=|#)?\s*(?:is\s+)?"
    r"(?P<value>#?[A-Za-z0-9][A-Za-z0-9/-]*[0-9][A-Za-z0-9/-]*)",
    re.I,
)
_KEYWORD_LABEL = {
    "pin": "credential", "password": "credential", "passcode": "credential", "passport": "id number",
    "social": "id number", "ssn": "id number", "national": "id number", "tax": "id number",
    "licence": "id number", "license": "id number", "driver": "id number",
}  # fmt: skip
_SSN = re.compile(r"\b[0-9]{3}-[0-9]{2}-[0-9]{4}\b")
_STREET_SUFFIX = (
    r"street|st\.?|avenue|ave\.?|road|rd\.?|boulevard|blvd\.?|lane|ln\.?|drive|dr\.?|way|court|ct\.?|"
    r"place|pl\.?|square|sq\.?|terrace|crescent|parkway|highway|hwy\.?"
)
_ADDRESS_EN = re.compile(
    rf"\b[0-9]{{1,5}}[a-z]?\s+(?:[A-Z][\w'-]*\s+){{1,3}}(?i:{_STREET_SUFFIX})(?!\w)(?:,?\s*(?i:apt|apartment|"
    rf"flat|unit|suite)\.?\s*\w+)?"
)
_ADDRESS_DE = re.compile(
    r"\b[A-ZÄÖÜ][\wäöüß-]*(?:stra(?:ß|ss)e|str\.|weg|gasse|allee|platz|ring|damm|ufer)\s+[0-9]{1,4}(?:\s?[a-z]\b)?",
)
_PO_BOX = re.compile(r"\b(?:p\.?\s?o\.?\s?box|postfach)\s+[0-9]+\b", re.I)
_CREDENTIAL = re.compile(
    r"\b(?:password|passcode|pin|passphrase|api key|secret|token)\s*(?:is|was|:|=)\s*\S+", re.I
)
_ORG_PHONE_CONTEXT = re.compile(
    r"\b(?:support|hotline|helpline|help ?desk|service|office|reception|front desk|store|shop|branch|"
    r"line|cent(?:er|re)|team|department|desk|sales|billing|switchboard|toll[- ]free|emergency|"
    r"call us|reach us|contact us|headquarters|hq|clinic|warehouse)\b",
    re.I,
)
_ORG_ADDRESS_CONTEXT = re.compile(
    r"\b(?:office|store|shop|branch|warehouse|headquarters|hq|campus|site|factory|showroom|clinic|"
    r"returns?|send|ship(?:ped)?|located|location|moved to|reception|depot|outlet)\b",
    re.I,
)
_RESIDENCE = re.compile(
    r"\b(?:live|lives|living|lived|home|reside|resides|residence|house|flat|apartment)\b", re.I
)


_SENTENCE_BREAK = re.compile(r"[.!?](?:\s+|$)")
_SEPARATED_DIGITS = re.compile(r"[0-9][ ./-][0-9]")


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


def _luhn(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def _iban_ok(raw: str) -> bool:
    s = raw.replace(" ", "").upper()
    if not 15 <= len(s) <= 34:
        return False
    moved = s[4:] + s[:4]
    try:
        number = int("".join(str(int(c, 36)) for c in moved))
    except ValueError:
        return False
    return number % 97 == 1


def _digits(s: str) -> str:
    return "".join(c for c in s if c.isascii() and c.isdigit())


class _Sentences:
    """The sentences of one text, each tested once for the context words that decide whether a phone
    number or an address is an organisation's (a dot inside an address or a number ends no sentence)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = [0, *(m.end() for m in _SENTENCE_BREAK.finditer(text))]
        self._flags: dict[tuple[int, str], bool] = {}

    def _has(self, index: int, name: str, pattern: re.Pattern[str]) -> bool:
        key = (index, name)
        if key not in self._flags:
            end = self.starts[index + 1] if index + 1 < len(self.starts) else len(self.text)
            self._flags[key] = pattern.search(self.text, self.starts[index], end) is not None
        return self._flags[key]

    def organisational_phone(self, pos: int) -> bool:
        k = bisect.bisect_right(self.starts, pos) - 1
        return self._has(k, "phone", _ORG_PHONE_CONTEXT) and not self._has(k, "first", _FIRST_PERSON)

    def organisational_address(self, pos: int) -> bool:
        k = bisect.bisect_right(self.starts, pos) - 1
        return (
            self._has(k, "address", _ORG_ADDRESS_CONTEXT)
            and not self._has(k, "home", _RESIDENCE)
            and not self._has(k, "first", _FIRST_PERSON)
        )


def find_identifiers(text: str) -> list[Span]:
    """Every identifier in `text` (already NFKC), earliest first, overlaps resolved to the longest."""
    spans: list[Span] = []
    for m in _EMAIL.finditer(text):
        spans.append(Span(m.start(), m.end(), "email", bool(_ROLE_LOCAL.match(m.group(1)))))
    for m in _IBAN.finditer(text):
        if _iban_ok(m.group(1)):
            spans.append(Span(m.start(1), m.end(1), "iban"))
    for m in _CARD.finditer(text):
        digits = _digits(m.group(1))
        if 13 <= len(digits) <= 19 and _luhn(digits):
            spans.append(Span(m.start(1), m.end(1), "card number"))
    for m in _SSN.finditer(text):
        spans.append(Span(m.start(), m.end(), "id number"))
    for m in _CREDENTIAL.finditer(text):
        spans.append(Span(m.start(), m.end(), "credential"))
    for m in _KEYWORD_NUMBER.finditer(text):
        kind, value = m.group("kind").casefold(), m.group("value")
        count = len(_digits(value))
        if (
            m.group("marker")
            or value.startswith("#")
            or (count >= 5 and len(value) >= 5)
            or (count >= 3 and any(c.isalpha() for c in value))
        ):
            label = _KEYWORD_LABEL.get(kind.split()[0].rstrip("'s"), "account number")
            spans.append(Span(m.start("value"), m.end("value"), label))
    sentences = _Sentences(text)
    dates = {m.start() for m in _NOT_PHONE.finditer(text)}
    for m in _PHONE.finditer(text):
        raw = m.group(1)
        digits = _digits(raw)
        separated = _SEPARATED_DIGITS.search(raw) is not None
        plausible = 7 <= len(digits) <= 15 and (raw.startswith("+") or len(digits) >= 8 or separated)
        if plausible and m.start(1) not in dates:
            spans.append(Span(m.start(1), m.end(1), "phone", sentences.organisational_phone(m.start(1))))
    for pattern in (_ADDRESS_EN, _ADDRESS_DE, _PO_BOX):
        for m in pattern.finditer(text):
            spans.append(Span(m.start(), m.end(), "address", sentences.organisational_address(m.start())))
    return _resolve(spans)


def _resolve(spans: list[Span]) -> list[Span]:
    """Keep the longest of overlapping spans (a card number is not also a phone number)."""
    starts: list[int] = []
    chosen: list[Span] = []  # sorted by start, pairwise disjoint
    for span in sorted(spans, key=lambda s: (-(s.end - s.start), s.start)):
        k = bisect.bisect_left(starts, span.start)
        if (k > 0 and chosen[k - 1].end > span.start) or (k < len(chosen) and chosen[k].start < span.end):
            continue
        starts.insert(k, span.start)
        chosen.insert(k, span)
    return chosen


# ------------------------------------------------------------------------------------------------ subjects

_SUBJECT_STOP = {
    "the", "and", "for", "user", "users", "agent", "team", "admin", "email", "phone", "person", "address",
    "number", "card", "iban", "account", "credential", "id",
}  # fmt: skip


def _subject_patterns(subjects: Sequence[str]) -> list[re.Pattern[str]]:
    """Each subject whole, and each word of a multi-word one (a name's parts) of three characters or
    more, matched case-insensitively and not inside a longer word."""
    terms: set[str] = set()
    for subject in subjects:
        s = unicodedata.normalize("NFKC", str(subject)).strip()
        if not s:
            continue
        terms.add(s)
        parts = re.split(r"[\s,]+", s)
        if len(parts) > 1:
            terms.update(p for p in parts if len(p) >= 3 and p.casefold() not in _SUBJECT_STOP)
    ordered = sorted(terms, key=len, reverse=True)
    # Not inside a longer word, nor inside a placeholder this module wrote ("[person]").
    return [re.compile(rf"(?<![\w\[]){re.escape(t)}(?![\w\]])", re.I) for t in ordered]


def _subject_spans(text: str, subjects: Sequence[str]) -> Iterator[tuple[int, int]]:
    for pattern in _subject_patterns(subjects):
        for m in pattern.finditer(text):
            if m.end() > m.start():
                yield m.start(), m.end()


# ---------------------------------------------------------------------------------------- deidentify


def deidentify(text: str, subjects: Sequence[str] = (), *, keep_organisational: bool = False) -> str:
    """`text` with every identifier replaced by a neutral placeholder ("[email]", "[phone]", "[card
    number]", "[iban]", "[account number]", "[id number]", "[credential]", "[address]") and each of
    `subjects` (the sharers' ids and names) by "[person]". With `keep_organisational`, an organisation's
    role e-mail address, phone line and office address stay. Idempotent; never raises."""
    s = unicodedata.normalize("NFKC", str(text))
    for _ in range(3):  # a replacement can expose a subject's word again only through adjacency; settle
        out = _replace_once(s, subjects, keep_organisational)
        if out == s:
            break
        s = out
    return s


def _replace_once(s: str, subjects: Sequence[str], keep_organisational: bool) -> str:
    edits: list[tuple[int, int, str]] = [
        (span.start, span.end, span.placeholder)
        for span in find_identifiers(s)
        if not (keep_organisational and span.organisational)
    ]
    for start, end in _subject_spans(s, subjects):
        if all(end <= a or start >= b for a, b, _ in edits):
            edits.append((start, end, "[person]"))
    for start, end, repl in sorted(edits, reverse=True):
        s = s[:start] + repl + s[end:]
    return re.sub(r"[ \t]{2,}", " ", s)


def contains_identifier(
    text: str, subjects: Sequence[str] = (), *, keep_organisational: bool = False
) -> bool:
    """Whether `text` still carries an identifier `deidentify` would replace, or any of `subjects`:
    the check a published copy must pass."""
    s = unicodedata.normalize("NFKC", str(text))
    if any(not (keep_organisational and span.organisational) for span in find_identifiers(s)):
        return True
    return any(True for _ in _subject_spans(s, subjects))


# ------------------------------------------------------------------------------------------ is_personal

# "I" alone (not "i.e.", not a list marker "i."), and the other first-person singular forms.
_FIRST_PERSON = re.compile(r"(?<![\w.'-])i(?![\w.-])|\b(?:me|my|mine|myself)\b", re.I)
_PARTICULAR = re.compile(
    r"\b(?:he|she|him|her|his|hers|himself|herself|the user|this user|user's|the customer|this customer|"
    r"customer's|the client|this client|the member|the patient|the caller|the employee|this employee)\b",
    re.I,
)
_POSSESSIVE = r"(?:my|our|his|her|their|the user's|user's|the customer's)"
_FAMILY = re.compile(
    rf"\b{_POSSESSIVE}\s+(?:\w+\s+)?(?:wife|husband|partner|spouse|son|daughter|kids?|children|child|baby|"
    rf"mother|father|mom|mum|dad|parents?|brother|sister|sibling|girlfriend|boyfriend|fianc[eé]e?|"
    rf"grandmother|grandfather|grandparents?|family|ex)\b",
    re.I,
)
_CATEGORIES: list[tuple[str, re.Pattern[str]]] = [
    (
        "health",
        re.compile(
            r"\b(?:diagnos\w*|illness|ill|sick|disease|disorder|pregnan\w*|medication|medicine|prescri\w*|"
            r"therapy|therapist|allerg\w*|surgery|depress\w*|anxiety|cancer|diabet\w*|asthma|hiv|"
            r"disabilit\w*|disabled|adhd|autis\w*|injur\w*|hospital\w*|symptom\w*|blood pressure|migraine|"
            r"epilep\w*|chemo\w*|rehab|addict\w*|mental health|bipolar|insulin|"
            r"(?:heart|medical|chronic|health|skin|lung) (?:condition|problem|disease)s?)\b",
            re.I,
        ),
    ),
    (
        "finances",
        re.compile(
            r"\b(?:earn|earns|earning|salary|income|wage|wages|paid \d|debt|debts|loan|mortgage|bankrupt\w*|"
            r"credit score|savings|overdrawn|owe|owes|net worth|bonus was|inheritance)\b",
            re.I,
        ),
    ),
    (
        "identity",
        re.compile(
            r"\b(?:my name is|named|born (?:on|in)|birthday|date of birth|years old|\d+ yo|nationality|"
            r"citizen(?:ship)?|passport|social security|gender|pronouns)\b",
            re.I,
        ),
    ),
    (
        "beliefs",
        re.compile(
            r"\b(?:religio\w*|christian|muslim|jewish|hindu|buddhist|atheist|vote[ds]?|voting for|"
            r"political|party member|gay|lesbian|bisexual|transgender|sexual orientation|union member)\b",
            re.I,
        ),
    ),
    (
        "home",
        re.compile(
            r"\b(?:lives? (?:in|at|on|near)|living in|home address|moved to|address is|reside\w*)\b", re.I
        ),
    ),
    (
        "account",
        re.compile(
            r"\b(?:account|subscription|order|orders|booking|contract|invoice|password|login|username|"
            r"profile|plan|card|balance|ticket|claim|parcel|package|delivery)\b",
            re.I,
        ),
    ),
    (
        "work",
        re.compile(r"\b(?:boss|manager|coworker|colleague|work(?:s|ed)? (?:at|for)|job|fired|hired)\b", re.I),
    ),
]
_APOSTROPHES = str.maketrans("’‘", "''")
_REASONS = {
    "email": "e-mail address of a person",
    "phone": "phone number of a person",
    "card number": "payment card number",
    "iban": "bank account number (IBAN)",
    "account number": "account number",
    "id number": "government id number",
    "credential": "credential",
    "address": "street address of a person",
}


def personal_reason(text: str) -> str | None:
    """Why `text` is a personal fact that must never be published, or None for a shareable one."""
    s = unicodedata.normalize("NFKC", str(text)).translate(_APOSTROPHES)
    for span in find_identifiers(s):
        if not span.organisational:
            return _REASONS[span.kind]
    if _FIRST_PERSON.search(s):
        return _detail("first-person", s) or "first-person statement"
    family = _FAMILY.search(s)
    if family and not family.group(0).casefold().startswith("their"):
        return "family detail of a person"
    if _PARTICULAR.search(s):
        detail = _detail("", s, skip=("account", "work"))
        if detail:
            return detail.strip()
    return None


def _detail(who: str, s: str, skip: Sequence[str] = ()) -> str | None:
    if _FAMILY.search(s):
        return f"{who} family detail".strip()
    for name, pattern in _CATEGORIES:
        if name not in skip and pattern.search(s):
            return f"{who} {name} detail" if who else f"{name} detail of a person"
    return None


def is_personal(text: str) -> bool:
    """Whether `text` is about one person (see `personal_reason`): such a fact is never published."""
    return personal_reason(text) is not None
