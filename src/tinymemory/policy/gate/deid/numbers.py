"""Identifiers that are numbers: payment cards, IBANs, phone numbers, national ids, numbers named as an
account, a customer, an order..., and credentials.

Every pattern reads `text.view` (ASCII digits, spaces and dashes) and is bounded, so it runs in time
linear in the text, whatever an attacker types. The rules a number must pass after its pattern matched
(a checksum, a grouping, a word before it) are plain Python, where they are easy to read.

Cards. A run of digit groups of four or more digits (separated by spaces, dashes, dots or slashes, with
or without spaces around them) is a card when it is grouped the way a card is printed (4-4-4-4, 4-6-5,
4-6-4, 4-4-4-4-3), whatever its check digit; or when it is 13 to 19 digits that pass the Luhn check;
or when it follows a card word ("card", "visa", "debit", ...). A typo'd card is still somebody's card.
Any other run of 13 or more digits is an account number: no shared fact needs one.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from tinymemory.policy.gate.deid.text import Sentences, Span, digits

_SEP = r"(?:[ ]{1,3}|[ ]?[-./][ ]?)"  # between digit groups: "4111 1111", "4111-1111", "4111 - 1111"

# ------------------------------------------------------------------------------------------------ cards

_DIGIT_RUN = re.compile(rf"(?<![0-9])[0-9]++(?:{_SEP}[0-9]++)*+")
_GROUP = re.compile(r"[0-9]+")
_CARD_GROUPINGS = {(4, 4, 4, 4), (4, 6, 5), (4, 6, 4), (4, 4, 4, 4, 3)}
_CARD_WORD = re.compile(
    r"\b(?:card|cards|visa|mastercard|master card|amex|american express|credit|debit|cc|maestro|"
    r"discover|diners|jcb|unionpay|kreditkarte|karte|carte|tarjeta|carta)\b[^0-9]{0,24}$",
    re.I,
)
_INTERNATIONAL = re.compile(r"(?:\+|\b00)[ ]?$")


def luhn(number: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(number)):
        d = int(ch)
        if i % 2:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def _is_card(groups: list[str], after_card_word: bool) -> bool:
    number = "".join(groups)
    if not 13 <= len(number) <= 19:
        return False
    return tuple(map(len, groups)) in _CARD_GROUPINGS or luhn(number) or after_card_word


def _card_spans(v: str) -> Iterator[Span]:
    for run in _DIGIT_RUN.finditer(v):
        groups = list(_GROUP.finditer(v, run.start(), run.end()))
        # Stretches of groups of four or more digits: "12 4111 1111 1111 1111" holds one card.
        stretch: list[re.Match[str]] = []
        for g in [*groups, None]:
            if g is not None and len(g.group()) >= 4:
                stretch.append(g)
                continue
            if stretch:
                yield from _stretch_span(v, stretch)
            stretch = []


def _stretch_span(v: str, stretch: list[re.Match[str]]) -> Iterator[Span]:
    start, end = stretch[0].start(), stretch[-1].end()
    if sum(len(g.group()) for g in stretch) < 13:
        return
    before = v[max(0, start - 40) : start]
    if _INTERNATIONAL.search(before) or stretch[0].group().startswith("00"):
        return  # "+49 1512 3456 7890": the phone pattern's
    card_word = _CARD_WORD.search(before) is not None
    parts = [g.group() for g in stretch]
    found = len(parts) <= 12 and any(
        _is_card(parts[i:j], card_word)
        for i in range(len(parts))
        for j in range(i + 1, min(len(parts), i + 5) + 1)
    )
    yield Span(start, end, "card number" if found else "account number")


# ------------------------------------------------------------------------------------------------ IBANs

_IBAN = re.compile(
    r"(?<![A-Za-z0-9])([A-Za-z]{2}[ ]?[0-9]{2}(?:(?:[ ]{1,2}|[ ]?[-.][ ]?)?[A-Za-z0-9]{1,4}){3,9}+)", re.A
)
_IBAN_WORD = re.compile(r"\biban\b[^A-Za-z0-9]{0,12}$", re.I)
# The length of each country's IBAN (the IBAN registry); a country not in it has no IBAN.
_IBAN_LENGTH = {
    "AD": 24, "AE": 23, "AL": 28, "AT": 20, "AZ": 28, "BA": 20, "BE": 16, "BG": 22, "BH": 22, "BI": 27,
    "BR": 29, "BY": 28, "CH": 21, "CR": 22, "CY": 28, "CZ": 24, "DE": 22, "DJ": 27, "DK": 18, "DO": 28,
    "EE": 20, "EG": 29, "ES": 24, "FI": 18, "FK": 18, "FO": 18, "FR": 27, "GB": 22, "GE": 22, "GI": 23,
    "GL": 18, "GR": 27, "GT": 28, "HN": 28, "HR": 21, "HU": 28, "IE": 22, "IL": 23, "IQ": 23, "IS": 26,
    "IT": 27, "JO": 30, "KW": 30, "KZ": 20, "LB": 28, "LC": 32, "LI": 21, "LT": 20, "LU": 20, "LV": 21,
    "LY": 25, "MC": 27, "MD": 24, "ME": 22, "MK": 19, "MN": 20, "MR": 27, "MT": 31, "MU": 30, "NI": 28,
    "NL": 18, "NO": 15, "OM": 23, "PK": 24, "PL": 28, "PS": 29, "PT": 25, "QA": 29, "RO": 24, "RS": 22,
    "RU": 33, "SA": 24, "SC": 31, "SD": 18, "SE": 24, "SI": 19, "SK": 24, "SM": 27, "SO": 23, "ST": 25,
    "SV": 28, "TL": 23, "TN": 24, "TR": 26, "UA": 29, "VA": 22, "VG": 24, "XK": 20,
}  # fmt: skip


def iban_ok(compact: str) -> bool:
    s = compact.upper()
    if not 15 <= len(s) <= 34 or not s.isalnum():
        return False
    moved = s[4:] + s[:4]
    return int("".join(str(int(c, 36)) for c in moved)) % 97 == 1


def _iban_spans(v: str) -> Iterator[Span]:
    """An IBAN is its country's length of letters and digits, checksum-valid, or after the word "IBAN"
    (a mistyped IBAN is still somebody's account)."""
    for m in _IBAN.finditer(v):
        raw = m.group(1)
        n = _IBAN_LENGTH.get(raw[:2].upper())
        ends = [i + 1 for i, c in enumerate(raw) if c.isalnum()]  # raw offset after the k-th character
        if n is None or len(ends) < n:
            continue
        end = ends[n - 1]
        if end < len(raw) and raw[end].isalnum():
            continue  # the country's length ends inside a group: not this country's IBAN
        compact = "".join(c for c in raw[:end] if c.isalnum())
        if iban_ok(compact) or _IBAN_WORD.search(v, max(0, m.start() - 20), m.start()):
            yield Span(m.start(1), m.start(1) + end, "iban")


# ----------------------------------------------------------------------------------------- phone numbers

_PHONE = re.compile(
    r"(?<![\w+])((?:\+[ ]?)?\(?[0-9]{1,5}\)?(?:(?:[ ]{1,2}|[ ]?[-./][ ]?)?\(?[0-9]{1,5}\)?){1,7}+)"
    r"(?![0-9])"
)
_NOT_PHONE = re.compile(  # dates and year ranges, unless the groups go on ("05.12.65.60.45" is a phone)
    r"(?:\b[0-9]{4}-[0-9]{2}-[0-9]{2}|\b[0-9]{1,2}[./][0-9]{1,2}[./][0-9]{2,4}|"
    r"\b(?:19|20)[0-9]{2}[ ]?[-/][ ]?(?:19|20)?[0-9]{2})\b(?![./-][0-9])"
)
_SEPARATED_DIGITS = re.compile(r"[0-9][ ./-]{1,3}[0-9]")
_PHONE_GROUPS = re.compile(r"[0-9]+|[^0-9]+")
_THOUSANDS = re.compile(r"[1-9][0-9]{0,2}(?:([ .])[0-9]{3})(?:\1[0-9]{3})*")
_UNIT_AFTER = re.compile(
    r"[ ]?(?:euros?|eur|€|\$|usd|dollars?|pounds?|gbp|£|chf|francs?|yen|kr|sek|nok|dkk|pln|km|miles?|kg|"
    r"tons?|tonnes?|people|persons|users|employees|customers|visitors|units|copies|items|words|bytes|"
    r"kb|mb|gb|tb|%|percent|inhabitants|residents|downloads|members)\b",
    re.I,
)
_UNIT_BEFORE = re.compile(r"(?:€|\$|£|\b(?:eur|usd|gbp|chf))[ ]?$", re.I)
_IPV4 = re.compile(r"[0-9]{1,3}(?:\.[0-9]{1,3}){3}")


def _phone_plausible(v: str, start: int, end: int) -> bool:
    raw = v[start:end]
    count = len(digits(raw))
    international = raw.startswith(("+", "00"))
    if not 7 <= count <= 15:
        return False
    if not (international or raw.startswith("(") or count >= 8 or _SEPARATED_DIGITS.search(raw)):
        return False
    if _IPV4.fullmatch(raw):
        return False
    groups = [g for g in _PHONE_GROUPS.findall(raw) if g[0].isdigit()]
    if len(groups) == 2 and not international and groups[0][0] != "0" and groups[1][0] != "0":
        a, b = groups
        if len(a) == len(b) and int(b) > int(a):
            return False  # a range: "1000 - 2000", "101-105"
    amount = _UNIT_AFTER.match(v, end) or _UNIT_BEFORE.search(v, max(0, start - 8), start)
    return not (_THOUSANDS.fullmatch(raw) and amount)  # an amount: "1 500 000 euros", "EUR 1.250.000"


def _phone_spans(v: str, sentences: Sentences) -> Iterator[Span]:
    dates = {m.start() for m in _NOT_PHONE.finditer(v)}
    for m in _PHONE.finditer(v):
        start, end = m.start(1), m.end(1)
        while end > start and not v[end - 1].isdigit() and v[end - 1] != ")":
            end -= 1
        if start not in dates and _phone_plausible(v, start, end):
            yield Span(start, end, "phone", sentences.organisational_phone(start))


# ---------------------------------------------------------------------------------------- national ids

_SSN = re.compile(r"(?<![0-9])([0-9]{3})([- .])([0-9]{2})\2([0-9]{4})(?![0-9])")
_NI = re.compile(r"(?<![A-Za-z0-9])[A-Za-z]{2}(?:[ .-]?[0-9]{2}){3}[ .-]?[A-Da-d](?![A-Za-z0-9])")
_NI_WORD = re.compile(r"\b(?:ni|nino|national insurance)\b", re.I)
_AHV = re.compile(r"(?<![0-9])756[ .]?[0-9]{4}[ .]?[0-9]{4}[ .]?[0-9]{2}(?![0-9])")
_STEUER_ID = re.compile(r"(?<![0-9+])[1-9][0-9](?:[ ]?[0-9]{3}){3}(?![0-9])")


def _ssn_valid(area: str, group: str, serial: str) -> bool:
    return area not in ("000", "666") and area[0] != "9" and group != "00" and serial != "0000"


def steuer_id_ok(number: str) -> bool:
    """ISO 7064 MOD 11,10, the check digit of a German tax id."""
    product = 10
    for ch in number[:10]:
        total = (int(ch) + product) % 10 or 10
        product = (total * 2) % 11
    return (11 - product) % 10 == int(number[10])


def _national_id_spans(v: str) -> Iterator[Span]:
    for m in _SSN.finditer(v):
        if m.group(2) == "-" or _ssn_valid(m.group(1), m.group(3), m.group(4)):
            yield Span(m.start(), m.end(), "id number")
    for m in _NI.finditer(v):
        raw = m.group()
        compact = raw.isalnum()
        upper = raw.upper() == raw
        if upper or compact or _NI_WORD.search(v, max(0, m.start() - 40), m.start()):
            yield Span(m.start(), m.end(), "id number")
    for m in _AHV.finditer(v):
        yield Span(m.start(), m.end(), "id number")
    for m in _STEUER_ID.finditer(v):
        if steuer_id_ok(digits(m.group())):
            yield Span(m.start(), m.end(), "id number")


# ------------------------------------------------------------------------------ named numbers, secrets

_KEYWORD_NUMBER = re.compile(
    r"\b(?P<kind>account|acct|customer|client|member(?:ship)?|contract|policy|order|invoice|ticket|case|"
    r"reference|ref|booking|reservation|confirmation|tracking|routing|sort code|social security|ssn|"
    r"passport|licen[cs]e|driver'?s licen[cs]e|national id|id|tax id|tax|vat|insurance|patient|"
    r"employee|badge|serial|pin|password|passcode|user(?:name)?|login|"
    r"steuer-?id|steuer-?identifikationsnummer|steuernummer|identifikationsnummer|idnr|"
    r"sozialversicherungsnummer|svnr|ahv|nino|ni|national insurance|bsn|personnummer|dni|nie|nif|"
    r"codice fiscale|personalausweis(?:nummer)?|ausweisnummer)"
    r"(?P<marker>\s{1,3}(?:number|no\.?|nr\.?|id|code|key|#))?\s{0,3}(?:is|was|:|=|#)?\s{0,3}(?:is\s{1,3})?"
    r"(?P<value>#?[A-Za-z0-9][A-Za-z0-9/-]{0,40}(?:(?<=[0-9])[ .][0-9]{2,4}(?![0-9])){0,6})",
    re.I,
)
_ID_KINDS = {
    "social", "ssn", "national", "tax", "passport", "licence", "license", "driver", "steuer-id", "steuerid",
    "steuer-identifikationsnummer", "steueridentifikationsnummer", "steuernummer", "identifikationsnummer",
    "idnr", "sozialversicherungsnummer", "svnr", "ahv", "nino", "ni", "bsn", "personnummer", "dni", "nie",
    "nif", "codice", "personalausweis", "personalausweisnummer", "ausweisnummer",
}  # fmt: skip
_CREDENTIAL_KINDS = {"pin", "password", "passcode"}
_CREDENTIAL = re.compile(
    r"\b(?:password|passcode|pin|passphrase|api key|secret|token|(?:door|wifi|wi-fi|access|alarm|entry|"
    r"gate|safe|lock|locker|security) code)\s{0,3}(?:is|was|:|=)\s{0,3}\S{1,200}",
    re.I,
)


def _keyword_spans(v: str) -> Iterator[Span]:
    for m in _KEYWORD_NUMBER.finditer(v):
        kind, value = m.group("kind").casefold(), m.group("value")
        count = len(digits(value))
        if count == 0:
            continue
        if (
            m.group("marker")
            or value.startswith("#")
            or (count >= 5 and len(value) >= 5)
            or (count >= 3 and any(c.isalpha() for c in value))
        ):
            first = kind.split()[0].rstrip("'s")
            label = (
                "credential"
                if first in _CREDENTIAL_KINDS
                else "id number"
                if first in _ID_KINDS
                else "account number"
            )
            yield Span(m.start("value"), m.end("value"), label)
    for m in _CREDENTIAL.finditer(v):
        yield Span(m.start(), m.end(), "credential")


def number_spans(v: str, sentences: Sentences) -> Iterator[Span]:
    """Every number-like identifier of the view `v` (overlaps are resolved by the caller)."""
    yield from _iban_spans(v)
    yield from _card_spans(v)
    yield from _national_id_spans(v)
    yield from _keyword_spans(v)
    yield from _phone_spans(v, sentences)
