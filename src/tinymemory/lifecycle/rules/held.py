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
# "We left Dubai", "I've moved away from Leeds": leaving a named place or workplace ends it
_LEFT = re.compile(
    rf"^(?i:i|we)\s+(?i:have\s+)?(?i:(?:just|finally|recently|officially|already)\s+)?"
    rf"(?i:left|moved away from|moved out of|quit)\s+(?:(?i:the)\s+)?({_NAME_RUN})(?P<rest>.*)$"
)
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
    if m := _NOT_THAT.match(s):
        new, old = (m.group("new") or m.group("new2")).strip(), (m.group("old") or m.group("old2")).strip()
        new = re.sub(r"^(?:it's|it is|it was|that's|that is|i meant|i mean)\s+", "", new, flags=re.I)
        if len(old) < 3 or _NOT_A_VALUE.match(old) or _NOT_A_VALUE.match(new):
            return []
        if re.match(r"^(?:i|we|my|our)\s", new, re.I):
            return []  # "I live in Galway, not Cork" says its fact whole; the other rules read it
        if about := _holding(old, held):
            text = re.sub(rf"\b{re.escape(old)}\b", new, held[about], flags=re.I)
            kind = about.kind if about.kind in {"preference", "instruction"} else "fact"
            return [RuleLearning(text, kind, about, 0.8)]
        return []
    if (m := _LEFT.match(s)) and (not m.group("rest").strip() or _ended(m.group("rest")) == ""):
        about = _holding(m.group(1), held, _ENDABLE)
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


def _holding(value: str, held: Mapping[About, str], only: set[tuple[str, str]] | None = None) -> About | None:
    """The subject whose latest held text names `value` (the most recent such, if several)."""
    found = None
    for about, text in held.items():
        if (only is None or (about.kind, about.key) in only) and re.search(
            rf"\b{re.escape(value)}\b", text, re.I
        ):
            found = about
    return found
