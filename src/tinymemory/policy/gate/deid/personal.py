"""Whether a fact is about one person, and so is never published however many users share it.

Personal: an identifier of a person or an account (not an organisation's role address, line or office), a
first-person statement, a family detail ("my wife", "Frank's son"), or a sensitive detail (`sensitive`:
the special categories of personal data, criminal records, immigration status, money, family, identity,
home) about a particular person: one named by a pronoun or a role ("she", "the customer", "the CEO"), by
a placeholder this module wrote ("[person]"), or by name (`people`: "Dana Lee has diabetes", "Bruno, our
designer, has a brain tumour", "@frank.miller is on chemo", "Maya's diagnosis ...").

A named person's detail counts when it stands in the same sentence as the name and outside what the
person's role is about: "Dana runs the first-aid course" and "Questions about sick pay go to Nadia" are
the organisation's facts and stay shareable, "Dana runs the first-aid course and has epilepsy" is not.
A rule about people in general ("Parking is free for disabled staff", "Employees with diabetes may take
extra breaks") names nobody. When a named role holder is a sharer, `deidentify` takes the name out of
the published copy.
"""

from __future__ import annotations

import bisect
import re

from tinymemory.policy.gate.deid.identifiers import find_identifiers
from tinymemory.policy.gate.deid.people import mentions, name_like
from tinymemory.policy.gate.deid.sensitive import ABOUT_SOMEONE, details, first_category
from tinymemory.policy.gate.deid.text import FIRST_PERSON, normalise

_PARTICULAR = re.compile(
    r"\b(?:he|she|him|her|his|hers|himself|herself|the user|this user|user's|the customer|this customer|"
    r"customer's|the client|this client|the member|the patient|the caller|the employee|this employee)\b"
    r"|\b(?:the|our|this|that|your)\s+(?:new\s+)?(?:ceo|cfo|cto|coo|boss|director|receptionist|assistant|"
    r"intern|trainee|cleaner|caretaker|janitor|secretary|accountant|founder|owner|landlord|neighbou?r|"
    r"team lead|head of \w+)\b|\[person\]",
    re.I,
)
_FAMILY_WORDS = (
    r"wife|husband|partner|spouse|son|daughter|kids?|children|child|baby|mother|father|mom|mum|dad|"
    r"parents?|brother|sister|sibling|girlfriend|boyfriend|fianc[eé]e?|grandmother|grandfather|"
    r"grandparents?"
)
_POSSESSIVE = r"(?:my|our|his|her|their|the user's|user's|the customer's|\[person\]'s)"
_FAMILY = re.compile(rf"\b{_POSSESSIVE}\s+(?:\w+\s+)?(?:{_FAMILY_WORDS}|family|ex)\b", re.I)

# ------------------------------------------------------------------------------------------ the verdict

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
_NAME_FAMILY = re.compile(rf"\b(?P<name>[^\W\d_][\w-]{{0,30}})'s\s+(?:\w+\s+)?(?:{_FAMILY_WORDS})\b")


def personal_reason(text: str) -> str | None:
    """Why `text` is a personal fact that must never be published, or None for a shareable one."""
    s = normalise(text).translate(_APOSTROPHES)
    for span in find_identifiers(s):
        if not span.organisational:
            return _REASONS[span.kind]
    if FIRST_PERSON.search(s):
        return _detail("first-person", s) or "first-person statement"
    family = _FAMILY.search(s)
    if family and not family.group(0).casefold().startswith("their"):
        return "family detail of a person"
    if _PARTICULAR.search(s):
        detail = _detail("", s, skip=ABOUT_SOMEONE)
        if detail:
            return detail.strip()
    if any(name_like(m.group("name")) for m in _NAME_FAMILY.finditer(s)):
        return "family detail of a named person"  # "Frank's wife is pregnant"
    category = _named_detail(s)
    return f"{category} detail of a named person" if category else None


def _named_detail(s: str) -> str | None:
    """The category of a sensitive detail that shares a sentence with a named person and is not what
    that person's role is about ("Dana runs the first-aid course" says nothing of Dana's health)."""
    found = list(mentions(s))
    if not found:
        return None
    starts = [m.start for m in found]  # mentions come in text order, disjoint
    roles = _merged(sorted(m.role for m in found if m.role))
    role_starts = [a for a, _ in roles]
    for detail in details(s, skip=ABOUT_SOMEONE):
        k = bisect.bisect_right(role_starts, detail.start) - 1
        if k >= 0 and detail.end <= roles[k][1]:
            continue  # what a role is about
        k = bisect.bisect_right(starts, detail.start) - 1  # the nearest mention before, then after
        before = found[k] if k >= 0 else None
        after = found[k + 1] if k + 1 < len(found) else None
        if before and detail.start < before.end:
            continue  # inside the name itself
        if (before and _same_sentence(s, before.end, detail.start)) or (
            after and _same_sentence(s, detail.end, after.start)
        ):
            return detail.category
    return None


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for a, b in spans:
        if out and a <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out


_SENTENCE_BREAK = re.compile(r"[.!?;](?:\s|$)")


def _same_sentence(s: str, lo: int, hi: int) -> bool:
    """Whether no sentence ends between offsets `lo` and `hi` (a dot inside a name, "Dr. Weber", lies
    before `lo`)."""
    return lo >= hi or _SENTENCE_BREAK.search(s, lo, hi) is None


def _detail(who: str, s: str, skip: tuple[str, ...] = ()) -> str | None:
    if _FAMILY.search(s):
        return f"{who} family detail".strip()
    name = first_category(s, skip)
    if name is None:
        return None
    return f"{who} {name} detail" if who else f"{name} detail of a person"


def is_personal(text: str) -> bool:
    """Whether `text` is about one person (see `personal_reason`): such a fact is never published."""
    return personal_reason(text) is not None
