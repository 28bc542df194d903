"""Birthdays, anniversaries and age."""

from __future__ import annotations

import re
from datetime import datetime

from tinymemory.api import About
from tinymemory.lifecycle.rules.english import _MONTHS, _TRAIL, _VALUE_END, _key, _sentence_case
from tinymemory.lifecycle.rules.learning import RuleLearning
from tinymemory.lifecycle.rules.people import _PEOPLE

# dates --------------------------------------------------------------------------------------------------

_BIRTHDAY = re.compile(
    r"^(?:my|our)\s+(?:(?P<who>[\w\s'-]{1,30}?)'s\s+)?(?P<what>birthday|bday|wedding anniversary|anniversary)"
    r"(?:'s| is)\s+(?:on\s+)?(?P<when>.+)$|^(?P<name>[A-Z][\w-]*)'s\s+(?P<what2>birthday|bday)\s+is\s+"
    r"(?:on\s+)?(?P<when2>.+)$",
    re.I,
)
_AGE = re.compile(
    r"^i\s+(?:am|just turned|turned|have just turned|have turned|will be|will turn|turn)\s+(\d{1,3})"
    r"(?:\s+(?:years?|yrs?)\s+old)?(?P<rest>.*)$",
    re.I,
)
# what may follow an age: nothing, a clause, or a time phrase ("I turned 42 yesterday", "... last week")
_AFTER_AGE = re.compile(r"^\s*(?:$|,|(?:now|this|next|on|in|last|and|but|soon)\b)", re.I)


def _dates(s: str, said_at: datetime) -> list[RuleLearning]:
    if m := _BIRTHDAY.match(s):
        when = _TRAIL.sub("", m.group("when") or m.group("when2")).strip()
        when = re.sub(r"^on\s+", "", when, flags=re.I)
        when = re.split(r"\s*(?:,|\band\b|\bbut\b|\bso\b)\s*", when, maxsplit=1)[0]
        who = m.group("who") or m.group("name")
        if m.group("who") and _PEOPLE.search(who):
            return []  # a friend's or a colleague's birthday is their fact, as their other facts are
        what = (m.group("what") or m.group("what2")).lower().replace("bday", "birthday")
        if not re.search(rf"\d|{_MONTHS}|today|tomorrow|next|this|week", when, re.I):
            return []
        if who:
            holder = who if who[:1].isupper() and not m.group("who") else f"the user's {who.lower()}"
            about = About("date", f"{_key(who)} {what}")
            return [RuleLearning(f"{_sentence_case(holder)}'s {what} is {when}.", "fact", about, 0.85)]
        if what == "birthday":
            return [
                RuleLearning(f"The user's birthday is {when}.", "fact", About("profile", "birthday"), 0.9)
            ]
        return [RuleLearning(f"The user's {what} is {when}.", "fact", About("date", what), 0.85)]
    if (m := _AGE.match(s)) and (_AFTER_AGE.match(m.group("rest")) or _VALUE_END.match(m.group("rest"))):
        age = int(m.group(1))
        if 1 <= age <= 120:
            return [RuleLearning(f"The user is {age} years old.", "fact", About("profile", "age"), 0.85)]
    return []
