"""What a clause says about a value the thread already holds: a correction ("X, not Y"), leaving a held
place or workplace ("we left Dubai"), or switching from the choice just held ("I've switched to X").

These forms name no subject of their own; English leaves it to what was said before, so they read the
thread's held learnings (subject -> latest text) and change the one whose value they name.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from tinymemory.api import About
from tinymemory.lifecycle.rules.english import _NAME_RUN, _ended, _value, no_longer, third_person
from tinymemory.lifecycle.rules.learning import RuleLearning
from tinymemory.lifecycle.rules.preferences import _CATEGORIES, _preference_key

# "Boeing, not Airbus", "not Airbus, Boeing", "not Airbus but Boeing" (a lead such as "sorry, I meant" is
# already gone): the contrast names the new value and the held one it replaces
_NOT_THAT = re.compile(
    r"^(?P<new>[\w' .&-]{1,40}?),?\s+not\s+(?P<old>[\w' .&-]{1,40})$|"
    r"^not\s+(?P<old2>[\w' .&-]{1,40}?)\s*(?:,\s*|\s+but\s+|,\s*but\s+)(?P<new2>[\w' .&-]{1,40})$",
    re.I,
)
# "We left Dubai", "I've moved on from Deloitte", "I'm no longer at Deloitte": leaving a held place or
# workplace ends it
_LEFT = re.compile(
    rf"^(?i:i|we)\s+(?i:have\s+)?(?i:(?:just|finally|recently|officially|already)\s+)?"
    rf"(?i:left|moved away from|moved out of|moved on from|quit|walked out of|walked out on|"
    rf"said (?:goodbye|farewell) to|said (?:our|my) goodbyes to|waved goodbye to|"
    rf"(?:am|are)\s+no\s+longer\s+(?:at|with|in)|"
    rf"(?P<neg>(?:am|are)\s+not\s+(?:at|with|in)))\s+(?:(?i:the)\s+)?(?P<what>{_NAME_RUN})(?P<rest>.*)$"
)
_ANYMORE = re.compile(r"\s*\b(?:anymore|any more)\b", re.I)
_SWITCHED = re.compile(
    r"^(?:i|we)\s+(?:have\s+)?(?:(?:just|recently|finally|now)\s+)?(?:switched|changed)\s+"
    r"(?:over\s+)?to\s+(.+)$",
    re.I,
)
_NOT_A_VALUE = re.compile(
    r"^(?:really|sure|exactly|quite|that|this|yet|now|today|much|me|you|at all|so|too|now|anymore|"
    r"the user|i|we|it|them|one|any|all)$",
    re.I,
)
_ENDABLE = {("profile", "home"), ("profile", "employer")}


def from_held(s: str, held: Mapping[About, str]) -> list[RuleLearning]:
    """The learning `s` makes of a held value, or nothing when it names none."""
    if not held:
        return []
    if corrected := _corrected(s, held):
        return corrected
    if m := _LEFT.match(s):
        rest = m.group("rest")
        if m.group("neg"):  # "not at X" needs "anymore": "I'm not at Google today" says where the user is
            if not _ANYMORE.search(rest):
                return []
            rest = _ANYMORE.sub("", rest)
        about = _holding(m.group("what"), held, _ENDABLE) if not rest.strip() or _ended(rest) == "" else None
        return [RuleLearning(no_longer(held[about]), "fact", about, 0.8)] if about else []
    if m := _SWITCHED.match(s):
        new = _ended(_value(m.group(1)))
        if not new or _preference_key(new, None) in _CATEGORIES or len(new.split()) > 3:
            return []  # a known kind of choice is the preference rules' to read
        # the choice switched from is the one just talked about: the latest held subject, if it is one
        last = list(held)[-1]
        if last.kind == "preference" and last.key in _CATEGORIES:
            return [RuleLearning(f"The user prefers {third_person(new)}.", "preference", last, 0.75)]
    return []


def _corrected(s: str, held: Mapping[About, str]) -> list[RuleLearning]:
    """ "Boeing, not Airbus": the held subject naming the old value, with the new one in its place."""
    m = _NOT_THAT.match(s)
    if m is None:
        return []
    new, old = (m.group("new") or m.group("new2")).strip(), (m.group("old") or m.group("old2")).strip()
    new = re.sub(r"^(?:it's|it is|it was|that's|that is|i meant|i mean)\s+", "", new, flags=re.I)
    if len(old) < 3 or _NOT_A_VALUE.match(old) or _NOT_A_VALUE.match(new):
        return []
    if re.match(r"^(?:i|we|my|our)\s", new, re.I):
        return []  # "I live in Galway, not Cork" says its fact whole; the other rules read it
    about = _holding(old, held)
    if about is None:
        return []
    kind = about.kind if about.kind in {"preference", "instruction"} else "fact"
    return [RuleLearning(re.sub(rf"\b{re.escape(old)}\b", new, held[about], flags=re.I), kind, about, 0.8)]


def _holding(value: str, held: Mapping[About, str], only: set[tuple[str, str]] | None = None) -> About | None:
    """The subject whose latest held text names `value` (the most recent such, if several)."""
    found = None
    for about, text in held.items():
        if (only is None or (about.kind, about.key) in only) and re.search(
            rf"\b{re.escape(value)}\b", text, re.I
        ):
            found = about
    return found
