""" "The same fact": when two users' shared memories state one fact and may corroborate each other.

A false merge is the costly error here: it counts one user's fact as evidence for a different one and can
publish a wrong fact to every user of the agent. A miss only delays publication until users phrase it
alike. So the rule is similarity *and* guards:

1. the normalised texts are equal (`normalise`), or
2. similarity reaches the threshold (cosine of embeddings of the normalised content words; without an
   embedder, Jaccard overlap of the normalised, lightly stemmed content words), and no guard objects:
   - the quantities (numbers, times, amounts, each with the unit that follows it) are the same;
   - both are negated or neither is;
   - no contrast class differs: an enumeration (weekdays, months, business vs calendar days) must name
     the same members, and a polarity pair (open/close, before/after, free/paid, ...) must not name
     disjoint sides;
   - every capitalised name (a place, a product) in one text appears in the other.

Thresholds are measured on the labelled set in tests/fixtures/gate/same_fact.jsonl by bench/gate_match.py
and reported in docs/benchmarks.md. Embedding similarity alone cannot do this job: "the office closes at
6 pm" and "the office opens at 6 pm" are closer than most true paraphrases; the guards carry the meaning.
"""

from __future__ import annotations

import difflib
import functools
import itertools
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from tinymemory.retrieval.embedders.base import Embedder

# Measured on the labelled set by bench/gate_match.py: the lowest threshold (on a 0.05 grid) at least 0.05
# above the most similar pair of different facts that no guard stops; none of the set's pairs merges falsely.
DEFAULT_THRESHOLD = 0.85  # cosine, for the shipped static-minilm table (the default embedder)
LEXICAL_THRESHOLD = 0.40  # Jaccard on normalised content words, when no embedder is installed
MEASURED_THRESHOLDS: dict[str, float] = {
    "static-minilm-l6-v2-256": DEFAULT_THRESHOLD,
    "all-MiniLM-L6-v2": 0.75,
}
SAFETY_MARGIN = 0.05


def threshold_for(embedder: Embedder | None) -> float:
    """The measured cosine threshold for this embedder; DEFAULT_THRESHOLD for one never measured."""
    if embedder is None:
        return LEXICAL_THRESHOLD
    return MEASURED_THRESHOLDS.get(embedder.name, DEFAULT_THRESHOLD)


# ---------------------------------------------------------------------------------------------- normalise

_SMALL = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
    "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19,
}  # fmt: skip
_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80,
         "ninety": 90}  # fmt: skip
_NUMBER_WORD = "|".join(sorted([*_SMALL, *_TENS, "hundred", "thousand"], key=len, reverse=True))
_NUMBER_RUN = re.compile(rf"\b(?:{_NUMBER_WORD})(?:(?:[\s-]+|\s+and\s+)(?:{_NUMBER_WORD}))*\b")

_QUOTES_DASHES = str.maketrans("’‘`´–—−", "''''---")
_CONTRACTIONS = [
    (re.compile(r"\bcan'?t\b|\bcannot\b"), "can not"),
    (re.compile(r"\bwon'?t\b"), "will not"),
    (re.compile(r"\bshan't\b"), "shall not"),
    (re.compile(r"\b(ain)'t\b"), "is not"),
    (re.compile(r"n't\b"), " not"),
    (re.compile(r"\b(it|that|there|what|here|who)'s\b"), r"\1 is"),
    (re.compile(r"'re\b"), " are"),
    (re.compile(r"'ll\b"), " will"),
    (re.compile(r"'ve\b"), " have"),
    (re.compile(r"\bi'm\b"), "i am"),
    (re.compile(r"'d\b"), " would"),
    (re.compile(r"(\w)'s\b"), r"\1"),  # a possessive: "the office's hours" -> "the office hours"
    (re.compile(r"(\w)s'(?=\s|$)"), r"\1s"),
]
_CURRENCY_SIGN = {"€": "eur", "$": "usd", "£": "gbp", "¥": "jpy"}
_CURRENCY_BEFORE = re.compile(r"([€$£¥])\s*(\d+(?:\.\d+)?)")
_CODE_BEFORE = re.compile(r"(?<![0-9] )\b(eur|usd|gbp|chf)\s*(\d+(?:\.\d+)?)\b")
_CURRENCY_AFTER = re.compile(r"(?<![\d.])(\d+(?:\.\d+)?)\s*([€$£¥])")
_THOUSANDS = re.compile(r"\b\d{1,3}(?:,\d{3})+\b")
_CENTS = re.compile(r"\b(\d+)\.00\b")
_TIME_12H = re.compile(r"\b(\d{1,2})(?:[:.](\d{2}))?\s*(a\.?\s?m\b\.?|p\.?\s?m\b\.?)")
_TIME_24H = re.compile(r"\b(\d{1,2})[:h](\d{2})\b")
_OCLOCK = re.compile(r"\b(\d{1,2})\s*o'?\s?clock\b")
_NUM_UNIT_GLUED = re.compile(
    r"\b(\d+)\s*-?\s*(hrs?|h|mins?|days?|weeks?|wks?|months?|yrs?|years?|kg|km|kb|mb|gb|tb)\b"
)
_RANGE_DASH = re.compile(r"(?<=\d)\s*-\s*(?=\d)")
_ORDINAL = re.compile(r"\b(\d+)(?:st|nd|rd|th)\b")
_ORDINAL_WORDS = {
    "third": "3", "fourth": "4", "fifth": "5", "sixth": "6", "seventh": "7", "eighth": "8", "ninth": "9",
    "tenth": "10", "eleventh": "11", "twelfth": "12", "fifteenth": "15", "twentieth": "20",
    "thirtieth": "30",
}  # fmt: skip
_AROUND_THE_CLOCK = re.compile(
    r"\b(?:24 ?hours? (?:a|per|each) day(?:,? 7 days (?:a|per|each) week)?|24 ?/ ?7|24x7|a?round the clock)"
    r"(?![\w/])"
)
_UNIT_WINDOW = re.compile(
    r"\b(\d+(?:\s*-\s*|\s+)(?:hour|day|week|month|year)s?)\s+(?:window|period|time ?frame)\b"
)
_OPEN_UNTIL = re.compile(r"\b(?:is|are|stays|stay|remains|remain) open until\b")
_PER_UNIT = re.compile(r"\b(?:a|an|per|each|every)\s+(hour|day|week|month|year)s?\b")
_FREE_PHRASE = re.compile(
    r"\b(?:free of charge|(?:at|for) no (?:extra |additional )?(?:cost|charge)|without (?:any )?charge|"
    r"for free)\b"
)
_EMAIL_OR_DOMAIN = re.compile(
    r"(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)+|\b[\w-]+(?:\.[\w-]+)*\.(?:com|org|net|de|io|eu|co|uk)\b"
)
_NON_WORD = re.compile(r"[^\w\s:.@\x00]|_")
_STRAY_DOT_COLON = re.compile(r"(?<!\d)[:.]|[:.](?!\d)")
_LEAD_FILLER = re.compile(
    r"^(?:(?:please\s+)?(?:note|remember|keep in mind|be aware)(?:\s+that)?|fyi|by the way|btw|"
    r"just so you know|for your information|it is worth noting that|heads up)\b[\s,:-]*"
)

# One spelling for words people write several ways; applied per token after punctuation is gone.
_WORD_MAP = {
    "e-mail": "email", "emails": "email", "mails": "email", "hrs": "hour", "hr": "hour",
    "h": "hour", "mins": "minute", "wk": "week", "wks": "week", "yr": "year", "yrs": "year",
    "euro": "eur", "euros": "eur", "dollar": "usd", "dollars": "usd", "usd": "usd", "pounds": "gbp",
    "percentage": "percent", "pct": "percent", "%": "percent", "till": "until", "til": "until",
    "thru": "until", "through": "until", "noon": "12:00", "midday": "12:00", "midnight": "00:00",
    "mon": "monday", "tue": "tuesday", "tues": "tuesday", "wed": "wednesday", "thu": "thursday",
    "thur": "thursday", "thurs": "thursday", "fri": "friday", "jan": "january", "feb": "february",
    "mar": "march", "apr": "april", "jun": "june", "jul": "july", "aug": "august", "sep": "september",
    "sept": "september", "oct": "october", "nov": "november", "dec": "december", "max": "maximum",
    "okay": "ok", "shuts": "closes", "shut": "close", "colour": "color", "cancelled": "canceled",
    "cancelling": "canceling", "centre": "center", "organisation": "organization", "hours": "hour",
    "minutes": "minute", "seconds": "second", "days": "day", "weeks": "week", "months": "month",
    "years": "year", "working": "working", "annually": "per year", "yearly": "per year",
    "monthly": "per month", "weekly": "per week", "daily": "per day", "hourly": "per hour",
    "quarterly": "per quarter",
    "weekday": "weekdays", "weekend": "weekends", "mondays": "monday", "tuesdays": "tuesday",
    "wednesdays": "wednesday", "thursdays": "thursday", "fridays": "friday", "saturdays": "saturday",
    "sundays": "sunday", "programme": "program", "licence": "license",
}  # fmt: skip
_DROP = {"a", "an", "the", "our", "please", "just", "actually", "basically", "really", "simply", "kindly"}
_WEEKEND_ABBR = {"sat": "saturday", "sun": "sunday"}
_WEEKDAY_NAMES = {"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"}
_NUMBER_TOKEN = re.compile(r"^\d+(?:[.:]\d+)?(?:st|nd|rd|th)?$")
_UNPREFIXED = {
    "unavailable": "available", "unable": "able", "unpaid": "paid", "unsupported": "supported",
    "unauthorized": "authorized", "unauthorised": "authorized", "unacceptable": "acceptable",
    "unrefundable": "refundable", "nonrefundable": "refundable", "untransferable": "transferable",
    "nontransferable": "transferable", "unlimited": "limited", "uncovered": "covered",
}  # fmt: skip


def _number_run_value(run: str) -> str:
    """'twenty-four' -> '24', 'one hundred and five' -> '105'; a run that is not one number (a list such
    as 'two three') keeps its words."""
    words = [w for w in re.split(r"[\s-]+", run) if w and w != "and"]
    total, current = 0, 0
    last = ""
    for w in words:
        if w in _SMALL:
            if last in _SMALL or (last in _TENS and _SMALL[w] >= 10) or (last in _TENS and _SMALL[w] == 0):
                return run  # "two three", "twenty ten": a list, not one number
            current += _SMALL[w]
        elif w in _TENS:
            if last in _SMALL or last in _TENS:
                return run
            current += _TENS[w]
        elif w == "hundred":
            current = max(current, 1) * 100
        else:  # thousand
            total += max(current, 1) * 1000
            current = 0
        last = w
    return str(total + current)


def _time(hour: int, minute: int, half: str | None) -> str | None:
    if half is not None:
        if not 1 <= hour <= 12:
            return None
        hour = hour % 12 + (12 if half == "p" else 0)
    if hour > 24 or minute > 59:
        return None
    return f"{hour % 24:02d}:{minute:02d}"


def _sub_12h(m: re.Match[str]) -> str:
    t = _time(int(m.group(1)), int(m.group(2) or 0), m.group(3)[0])
    return f" {t} " if t else m.group(0)


def _sub_24h(m: re.Match[str]) -> str:
    t = _time(int(m.group(1)), int(m.group(2)), None)
    return t if t else m.group(0)


def _sub_ordinal(m: re.Match[str]) -> str:
    """'1st' -> 'first', '2nd' -> 'second' (the words stay words), '3rd' and beyond -> the bare number."""
    return {"1": "first", "2": "second"}.get(m.group(1), m.group(1))


def normalise(text: str) -> str:
    """One spelling for one statement: NFKC, casefold, contractions expanded, number words as digits,
    times as 24-hour HH:MM ("6pm", "6 p.m.", "18:00" -> "18:00"), currency signs as codes, thousands
    separators and punctuation gone (e-mails and domains kept whole), a few filler words dropped, units
    and day names in one form, blanks collapsed. Idempotent; never raises."""
    out = _normalise_once(text)
    for _ in range(4):  # a rewrite can expose another ("1:PM" -> "1 pm" -> "13:00"): settle
        again = _normalise_once(out)
        if again == out:
            break
        out = again
    return out


def _normalise_once(text: str) -> str:
    s = unicodedata.normalize("NFKC", text).casefold()
    s = s.translate(_QUOTES_DASHES)
    s = unicodedata.normalize("NFKC", s)  # casefold may leave a non-NFKC form (e.g. "ΐ")
    s = re.sub(r"\be-mail", "email", s)
    for pattern, repl in _CONTRACTIONS:
        s = pattern.sub(repl, s)
    s = _NUMBER_RUN.sub(lambda m: _number_run_value(m.group(0)), s)
    s = _THOUSANDS.sub(lambda m: m.group(0).replace(",", ""), s)
    s = _CENTS.sub(r"\1", s)
    s = _CURRENCY_BEFORE.sub(lambda m: f" {m.group(2)} {_CURRENCY_SIGN[m.group(1)]} ", s)
    s = _CURRENCY_AFTER.sub(lambda m: f" {m.group(1)} {_CURRENCY_SIGN[m.group(2)]} ", s)
    s = _CODE_BEFORE.sub(r"\2 \1", s)
    s = s.replace("%", " percent ").replace("per cent", "percent")
    s = _OCLOCK.sub(lambda m: f"{m.group(1)}:00", s)
    s = _TIME_12H.sub(_sub_12h, s)
    s = _TIME_24H.sub(_sub_24h, s)
    s = _NUM_UNIT_GLUED.sub(r"\1 \2", s)
    s = _ORDINAL.sub(_sub_ordinal, s)
    s = _FREE_PHRASE.sub("free", s)
    s = _AROUND_THE_CLOCK.sub("around the clock", s)
    s = _PER_UNIT.sub(r"per \1", s)
    s = _UNIT_WINDOW.sub(r"\1", s)
    s = _OPEN_UNTIL.sub("closes at", s)
    s = re.sub(r"\bworking days?\b", "business day", s)
    s = _RANGE_DASH.sub(" to ", s)
    s = re.sub(
        r"\b(mon|tue|tues|wed|thu|thurs|fri|sat|sun)\s*-\s*(?=mon|tue|wed|thu|fri|sat|sun)", r"\1 to ", s
    )
    kept: list[str] = []

    def _keep(m: re.Match[str]) -> str:
        kept.append(m.group(0))
        return f" \x00{len(kept) - 1}\x00 "

    s = _EMAIL_OR_DOMAIN.sub(_keep, s.replace("\x00", " "))
    s = _NON_WORD.sub(" ", s)
    s = _STRAY_DOT_COLON.sub(" ", s)
    s = _LEAD_FILLER.sub("", s.strip())
    tokens = s.split()
    has_weekday = any(_WORD_MAP.get(t, t) in _WEEKDAY_NAMES for t in tokens)
    out: list[str] = []
    for i, tok in enumerate(tokens):
        if tok.startswith("\x00"):
            out.append(kept[int(tok.strip("\x00"))])
            continue
        if tok == "min":
            tok = "minute" if i and _NUMBER_TOKEN.match(tokens[i - 1]) else "minimum"
        elif tok in _WEEKEND_ABBR and has_weekday:
            tok = _WEEKEND_ABBR[tok]
        elif tok in _UNPREFIXED:
            out += ["not", _UNPREFIXED[tok]]
            continue
        elif tok == "non":
            tok = "not"
        tok = _WORD_MAP.get(tok, _ORDINAL_WORDS.get(tok, tok))
        if tok not in _DROP:
            out.append(tok)
    result = " ".join(out)
    while (shorter := _LEAD_FILLER.sub("", result).strip()) != result:
        result = shorter
    return result


# ------------------------------------------------------------------------------------------------- guards

_NEGATORS = {"not", "no", "never", "none", "nobody", "nothing", "neither", "nor", "without", "nowhere"}
_UNITS = {
    "hour", "minute", "second", "day", "week", "month", "year", "eur", "usd", "gbp", "jpy", "percent",
    "kg", "g", "km", "m", "cm", "mm", "gb", "mb", "tb", "kb", "users", "items", "times", "characters",
    "digits", "points", "licenses", "devices", "attempts", "cents", "degrees",
}  # fmt: skip

# Enumerations: the two texts must name the same members (a member named in one only is a difference).
_UNIT_ADJECTIVES = {"business", "working", "calendar", "full", "whole", "consecutive", "additional", "extra"}
_ENUMERATIONS: dict[str, dict[str, str]] = {
    "weekday": {d: d for d in (*_WEEKDAY_NAMES, "weekdays", "weekends")},
    "month": {
        m: m
        for m in (
            "january",
            "february",
            "march",
            "april",
            "june",
            "july",
            "august",
            "september",
            "october",
            "november",
            "december",
        )
    },
    "day kind": {"business": "business", "working": "business", "calendar": "calendar"},
    "colour": {
        c: c
        for c in (
            "black",
            "white",
            "red",
            "blue",
            "green",
            "yellow",
            "grey",
            "gray",
            "silver",
            "gold",
            "pink",
            "purple",
            "orange",
            "brown",
            "colour",
            "color",
        )
    },
    "season": {"spring": "spring", "summer": "summer", "autumn": "autumn", "winter": "winter"},
}
# Polarity classes: the texts must not take disjoint sides (one naming only "open", the other only "close").
_POLARITIES: dict[str, dict[str, str]] = {
    "open/close": {**dict.fromkeys(("open", "opens", "opened", "opening"), "open"),
                   **dict.fromkeys(("close", "closes", "closed", "closing"), "close")},
    "start/end": {**dict.fromkeys(("start", "starts", "begin", "begins", "starting", "beginning"), "start"),
                  **dict.fromkeys(("end", "ends", "ending", "finish", "finishes"), "end")},
    "before/after": {**dict.fromkeys(("before", "prior", "earlier", "within", "until"), "before"),
                     **dict.fromkeys(("after", "later", "following", "beyond"), "after")},
    "more/less": {**dict.fromkeys(("more", "over", "above", "greater", "exceeding", "higher", "larger",
                                   "longer", "exceeds", "exceed"), "more"),
                  **dict.fromkeys(("less", "fewer", "under", "below", "lower", "smaller", "shorter"),
                                  "less")},
    "minimum/maximum": {**dict.fromkeys(("minimum", "least", "min"), "min"),
                        **dict.fromkeys(("maximum", "most", "max", "limit", "cap", "capped"), "max")},
    "allowed/forbidden": {**dict.fromkeys(("allowed", "allow", "allows", "permitted", "permit", "permits"),
                                          "allow"),
                          **dict.fromkeys(("forbidden", "prohibited", "banned", "disallowed", "forbid",
                                           "forbids", "prohibits"), "forbid")},
    "free/paid": {**dict.fromkeys(("free", "complimentary", "gratis"), "free"),
                  **dict.fromkeys(("paid", "charged", "fee", "fees", "cost", "costs", "charge", "charges",
                                   "surcharge", "pay", "pays", "billed"), "paid")},
    "includes/excludes": {**dict.fromkeys(("include", "includes", "included", "including"), "include"),
                          **dict.fromkeys(("exclude", "excludes", "excluded", "excluding"), "exclude")},
    "accept/reject": {**dict.fromkeys(("accept", "accepts", "accepted", "approve", "approved"), "accept"),
                      **dict.fromkeys(("reject", "rejects", "rejected", "decline", "declines", "declined",
                                       "refuse", "refuses", "refused", "deny", "denied"), "reject")},
    "must/may": {**dict.fromkeys(("must", "required", "mandatory", "obligatory", "require", "requires"),
                                 "must"),
                 **dict.fromkeys(("optional", "voluntary", "can", "may", "could"), "may")},
    "increase/decrease": {**dict.fromkeys(("increase", "increases", "increased", "raise", "raised", "rises"),
                                          "up"),
                          **dict.fromkeys(("decrease", "decreases", "decreased", "reduce", "reduced",
                                           "reduces", "cut", "lowered"), "down")},
    "online/in person": {**dict.fromkeys(("online", "remote", "remotely", "virtual", "virtually"), "online"),
                         **dict.fromkeys(("onsite", "person", "store", "branch", "counter"), "in person")},
    "domestic/international": {**dict.fromkeys(("domestic", "national", "local"), "domestic"),
                               **dict.fromkeys(("international", "abroad", "overseas", "foreign"), "intl")},
    "enabled/disabled": {**dict.fromkeys(("enable", "enabled", "enables"), "on"),
                         **dict.fromkeys(("disable", "disabled", "disables"), "off")},
    "public/private": {**dict.fromkeys(("public",), "public"), **dict.fromkeys(("private",), "private")},
    "internal/external": {"internal": "internal", "external": "external"},
    "first/last": {"first": "first", **dict.fromkeys(("last", "final"), "last")},
    "new/existing": {**dict.fromkeys(("new",), "new"),
                     **dict.fromkeys(("existing", "returning", "old", "current"), "existing")},
    "part of day": {"morning": "morning", "mornings": "morning", "afternoon": "afternoon",
                    "afternoons": "afternoon", "evening": "evening", "evenings": "evening",
                    "night": "night", "nights": "night", "overnight": "night"},
    "in/out": {**dict.fromkeys(("in", "login", "inbound", "incoming"), "in"),
               **dict.fromkeys(("out", "logout", "outbound", "outgoing"), "out")},
    "direction": {"north": "n", "northern": "n", "south": "s", "southern": "s", "east": "e",
                  "eastern": "e", "west": "w", "western": "w"},
    "size": {**dict.fromkeys(("small", "smaller"), "s"), **dict.fromkeys(("medium",), "m"),
             **dict.fromkeys(("large", "big", "bigger"), "l")},
}  # fmt: skip
_NOT_ENTITY = {
    "i", "am", "pm", "a", "eur", "usd", "gbp", "ok", "faq", "id", "ids", "faqs", "tv", "it", "pdf", "utc",
    "cet", "cest", "gmt", "est", "pst",
}  # fmt: skip
_SENTENCE_END = re.compile(r"[.!?:;]\s*$")


@dataclass(frozen=True)
class Facts:
    """What the guards compare, computed once per text."""

    norm: str
    seq: tuple[str, ...]
    tokens: frozenset[str]
    content: frozenset[str]
    quantities: frozenset[tuple[str, str]]
    negated: bool
    classes: tuple[tuple[str, frozenset[str]], ...]
    entities: frozenset[str]
    identifiers: frozenset[str]
    rates: frozenset[str]


_STOP = {
    "is", "are", "was", "were", "be", "been", "being", "at", "on", "in", "of", "to", "for", "and", "or",
    "it", "its", "this", "that", "these", "those", "with", "from", "as", "we", "you", "your", "they",
    "their", "them", "there", "here", "do", "does", "did", "have", "has", "had", "will", "would", "should",
    "shall", "so", "if", "then", "than", "also", "all", "any", "each", "every", "per", "via", "into",
    "about", "which", "who", "what", "when", "where", "how", "only", "up", "out", "get", "gets",
}  # fmt: skip


# Modal, auxiliary and pronoun words: swapping one for another rephrases rather than changes a fact
# (a modal's meaning is judged by the must/may class).
_FUNCTION = {
    "can", "may", "might", "could", "must", "should", "need", "needs", "have", "has", "had", "get", "gets",
    "got", "i", "me", "us", "you", "he", "she", "him", "her", "everyone", "anyone", "someone", "people",
    "not", "no", "never", "offers", "offer", "offered", "there", "is", "are", "be", "provides", "provide",
}  # fmt: skip
# Words that stand in for each other in the facts people share (compared after `_stem`).
_SYNONYM_GROUPS = [
    {"get", "gets", "receive", "receiv"},
    {"kids", "kid", "children", "child"},
    {"shop", "store"},
    {"client", "clients", "customer", "customers"},
    {"staff", "employee", "employees", "worker", "workers"},
    {"start", "starts", "begin", "begins"},
    {"buy", "purchase", "purchas"},
    {"ahead", "advance"},
    {"each", "every", "per"},
    {"big", "large"},
    {"help", "support", "assistance"},
    {"sent", "send", "issu", "issue", "issued"},
    {"receipt", "proof"},
    {"need", "needs", "require", "requir", "must"},
    {"phone", "call", "telephone"},
    {"item", "items", "product", "products", "article", "articles", "goods"},
    {"email", "mail"},
    {"fee", "charge", "cost", "costs"},
    {"answer", "answered", "repli", "reply", "respond", "respon"},
    {"visitor", "visitors", "guest", "guests"},
    {"ship", "deliver", "dispatch", "sent"},
    {"named", "called"},
    {"exchang", "redeem", "swap", "trade"},
    {"delivery", "deliveri", "shipping"},
]


def _stem(word: str) -> str:
    """A light suffix strip, enough for word overlap: 'refunds'/'refunded'/'refunding' -> 'refund',
    'deliveries' -> 'delivery', 'mornings' -> 'morn'."""
    while True:
        if len(word) > 5 and word.endswith("ies"):
            return word[:-3] + "y"
        for suffix in ("s", "ing", "ed", "es"):
            if len(word) > len(suffix) + 3 and word.endswith(suffix) and not word.endswith("ss"):
                word = word[: -len(suffix)]
                break
        else:
            return word


@functools.lru_cache(maxsize=4096)
def _normalised_word(word: str) -> tuple[str, ...]:
    return tuple(normalise(word).split())


def _entities(text: str) -> frozenset[str]:
    """Capitalised words that are not a sentence's first word, and all-caps or mixed-case words anywhere
    ("Berlin", "ACME", "iPhone"); none in a text written mostly in capitals."""
    letters = [c for c in text if c.isalpha()]
    if letters and sum(c.isupper() for c in letters) > 0.6 * len(letters):
        return frozenset()
    found: set[str] = set()
    start = True
    for raw in text.split():
        word = raw.strip("\"'()[]{}<>,.;:!?")
        if word:
            inner_caps = any(c.isupper() for c in word[1:]) and any(c.islower() for c in word)
            all_caps = len(word) > 1 and word.isupper() and any(c.isalpha() for c in word)
            if (word[0].isupper() and not start) or inner_caps or all_caps:
                for piece in _normalised_word(word):
                    if (
                        piece not in _NOT_ENTITY
                        and piece not in _ENUM_WORDS
                        and not _NUMBER_TOKEN.match(piece)
                    ):
                        found.add(piece)
        start = bool(_SENTENCE_END.search(raw)) or raw in {"-", "•"}
    return frozenset(found)


_ENUM_WORDS = {w for table in _ENUMERATIONS.values() for w in table}


def facts(text: str) -> Facts:
    """Parse one text for the guards."""
    norm = normalise(text)
    toks = norm.split()
    quantities: set[tuple[str, str]] = set()
    for i, tok in enumerate(toks):
        if any(c.isdigit() for c in tok) and "@" not in tok:
            after = toks[i + 1 : i + 3]
            if after and after[0] in _UNIT_ADJECTIVES:
                after = after[1:]
            unit = after[0] if after and after[0] in _UNITS else ""
            quantities.add((tok, unit))
    classes: list[tuple[str, frozenset[str]]] = []
    for name, table in (*_ENUMERATIONS.items(), *_POLARITIES.items()):
        values = frozenset(table[t] for t in toks if t in table)
        if name == "month" and "may" in toks:  # "may" is a month only next to a number
            for i, t in enumerate(toks):
                near = toks[max(0, i - 1) : i + 2]
                if t == "may" and any(_NUMBER_TOKEN.match(n) for n in near):
                    values = values | {"may"}
        classes.append((name, values))
    content = frozenset(_stem(t) for t in toks if t not in _STOP)
    return Facts(
        norm=norm,
        seq=tuple(toks),
        tokens=frozenset(toks),
        content=content,
        quantities=frozenset(quantities),
        negated=any(t in _NEGATORS for t in toks),
        classes=tuple(classes),
        entities=_entities(unicodedata.normalize("NFKC", text)),
        rates=frozenset(t for prev, t in itertools.pairwise(toks) if prev == "per"),
        identifiers=frozenset(t for t in toks if "@" in t or re.search(r"[a-z]\.[a-z]", t)),
    )


def guard_objection(a: Facts, b: Facts) -> str | None:
    """Why two texts cannot state the same fact whatever their similarity; None when no guard objects."""
    if a.quantities != b.quantities:
        return "numbers differ"
    if a.rates != b.rates:
        return "rate differs"
    if a.identifiers != b.identifiers:
        return "addresses differ"
    if a.negated != b.negated:
        return "negation differs"
    for (name, va), (_, vb) in zip(a.classes, b.classes, strict=True):
        if name in _ENUMERATIONS:
            if va != vb:
                return f"{name} differs"
        elif va and vb and not (va <= vb or vb <= va):
            return f"{name} differs"
    missing = (a.entities - b.tokens) | (b.entities - a.tokens)
    if missing:
        return f"name differs ({', '.join(sorted(missing))})"
    swapped = substitution(a.seq, b.seq)
    if swapped is not None:
        return f"words swapped ({swapped[0]}/{swapped[1]})"
    added = addition(a.seq, b.seq)
    if added is not None:
        return f"words added ({added})"
    return None


def _synonyms(x: str, y: str) -> bool:
    sx, sy = _stem(x), _stem(y)
    if sx == sy:
        return True
    return any((x in g or sx in g) and (y in g or sy in g) for g in _SYNONYM_GROUPS)


def substitution(a: Sequence[str], b: Sequence[str]) -> tuple[str, str] | None:
    """One or two content words of one text replaced in place by different ones in the other, with the
    same words around them ("the berlin office" / "the munich office", "pay by bank transfer" / "pay by
    credit card"):
    almost always a different fact, and a swap that embeddings and capitalisation most often miss."""
    ops = difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
    for k, (op, i1, i2, j1, j2) in enumerate(ops):
        if op != "replace" or not (i2 - i1 <= 2 and j2 - j1 <= 2):
            continue
        before_ok = k == 0 or ops[k - 1][0] == "equal"
        after_ok = k == len(ops) - 1 or ops[k + 1][0] == "equal"
        xs, ys = a[i1:i2], b[j1:j2]
        if (
            before_ok
            and after_ok
            and any(_content(x) for x in xs)
            and any(_content(y) for y in ys)
            and all(_content(w) or w in _PARTICLES for w in (*xs, *ys))
            and not any(_synonyms(x, y) for x in xs for y in ys)
        ):
            return " ".join(xs), " ".join(ys)
    return None


def addition(a: Sequence[str], b: Sequence[str]) -> str | None:
    """Content words one text adds to an otherwise identical other ("deleted after 30 days" / "deleted
    after 30 days of inactivity"): a qualifier or a condition, so a narrower fact."""
    ops = [op for op in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes() if op[0] != "equal"]
    if len(ops) != 1 or ops[0][0] not in ("insert", "delete"):
        return None
    _, i1, i2, j1, j2 = ops[0]
    extra = [*a[i1:i2], *b[j1:j2]]
    return " ".join(extra) if any(_content(w) for w in extra) else None


_PARTICLES = {"up", "out", "off", "down", "back", "over", "away"}  # "backed up", "sign out": part of a verb


def _content(word: str) -> bool:
    return word not in _STOP and word not in _FUNCTION and not any(c.isdigit() for c in word)


def content_words(text: str) -> list[str]:
    """The words of `text` that carry its meaning: normalised, without stop, function and number words."""
    return [w for w in normalise(text).split() if _content(w)]


def embedding_text(text: str) -> str:
    """What is embedded: the normalised text without its stop words, so that "returns require the
    receipt" and "the receipt is required for returns" meet (measured: higher paraphrase similarity, and
    a wider margin to the nearest different fact, for both static and full MiniLM)."""
    norm = normalise(text)
    return " ".join(w for w in norm.split() if w not in _STOP) or norm or text


def jaccard(a: Facts, b: Facts) -> float:
    """Overlap of normalised content words (1.0 for two texts with none)."""
    union = a.content | b.content
    return len(a.content & b.content) / len(union) if union else 1.0


# ------------------------------------------------------------------------------------------------ matcher


@dataclass(frozen=True)
class Decision:
    """One comparison: the verdict, the similarity it rests on and why (for the gate's audit)."""

    same: bool
    score: float
    reason: str


class FactMatcher:
    """Decides whether two shared texts state the same fact (see the module docstring for the rule).

    `threshold` is the cosine threshold used with an embedder; `lexical_threshold` the Jaccard threshold
    used without one (a lexical-only install). Both default to the values measured on the labelled set.
    """

    def __init__(
        self,
        embedder: Embedder | None,
        threshold: float = DEFAULT_THRESHOLD,
        *,
        lexical_threshold: float = LEXICAL_THRESHOLD,
    ) -> None:
        for name, value in (("threshold", threshold), ("lexical_threshold", lexical_threshold)):
            if not isinstance(value, int | float) or not -1.0 <= float(value) <= 1.0:
                raise ValueError(f"FactMatcher: `{name}` must be a number in [-1, 1], got {value!r}")
        self.embedder = embedder
        self.threshold = float(threshold)
        self.lexical_threshold = float(lexical_threshold)

    @property
    def lexical(self) -> bool:
        return self.embedder is None

    def vectors(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """Embeddings of the texts' `embedding_text`, one row each; zero columns without an embedder."""
        if self.embedder is None or not texts:
            dim = 0 if self.embedder is None else self.embedder.dim
            return np.zeros((len(texts), dim), dtype=np.float32)
        return np.asarray(self.embedder.embed([embedding_text(t) for t in texts]), dtype=np.float32)

    def decide_vec(self, a: str, va: Any, b: str, vb: Any) -> Decision:
        """The decision for two texts with their precomputed vectors (ignored without an embedder)."""
        fa, fb = facts(a), facts(b)
        if fa.norm == fb.norm:
            return Decision(True, 1.0, "same normalised text")
        if self.embedder is None or va is None or vb is None or np.size(va) == 0 or np.size(vb) == 0:
            score, threshold, kind = jaccard(fa, fb), self.lexical_threshold, "word overlap"
        else:
            score = float(np.dot(np.ravel(va), np.ravel(vb)))
            threshold, kind = self.threshold, "cosine"
        if score < threshold:
            return Decision(False, score, f"{kind} {score:.3f} below {threshold:.2f}")
        objection = guard_objection(fa, fb)
        if objection is not None:
            return Decision(False, score, objection)
        return Decision(True, score, f"{kind} {score:.3f} at or above {threshold:.2f}")

    def decide(self, a: str, b: str) -> Decision:
        va, vb = self.vectors([a, b]) if self.embedder is not None else (None, None)
        return self.decide_vec(a, va, b, vb)

    def same_vec(self, a: str, va: Any, b: str, vb: Any) -> bool:
        """Whether two texts state the same fact, given their vectors from `vectors`."""
        return self.decide_vec(a, va, b, vb).same

    def same(self, a: str, b: str) -> bool:
        """Whether two texts state the same fact."""
        return self.decide(a, b).same

    def group(self, texts: Sequence[str]) -> list[list[int]]:
        """Clusters of indices into `texts`, deterministic for a given order.

        Leader clustering: texts are taken in order; each joins the first cluster (in order of creation)
        whose representative, its first member, states the same fact, else starts a new cluster. So every
        member is `same` as its cluster's first member (not necessarily as every other member), clusters
        are ordered by their first index and indices within a cluster ascend.
        """
        vecs = self.vectors(texts)
        clusters: list[list[int]] = []
        for i, text in enumerate(texts):
            for cluster in clusters:
                lead = cluster[0]
                if self.same_vec(texts[lead], vecs[lead], text, vecs[i]):
                    cluster.append(i)
                    break
            else:
                clusters.append([i])
        return clusters
