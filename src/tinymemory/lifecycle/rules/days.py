"""Birthdays, anniversaries and age."""

from __future__ import annotations

import re
from datetime import datetime

from tinymemory.api import About
from tinymemory.lifecycle.rules.english import _MONTHS, _TRAIL, _VALUE_END, _key, _sentence_case
from tinymemory.lifecycle.rules.learning import RuleLearning
from tinymemory.lifecycle.rules.people import _KIN, _PEOPLE, _kin_key, _kin_learning
from tinymemory.retrieval.date_words import NUMBERS

# dates --------------------------------------------------------------------------------------------------

# the verb that puts a day on a date: "is", "falls on", "lands on"
_FALLS = r"(?:'s|\s+is|\s+falls|\s+lands|\s+comes)"
_BIRTHDAY = re.compile(
    r"^(?:my|our)\s+(?:(?P<who>[\w\s'-]{1,30}?)'s\s+)?"
    r"(?P<what>birthday|bday|b-day|wedding anniversary|anniversary)"
    rf"{_FALLS}\s+(?:on\s+)?(?P<when>.+)$|^(?P<name>[A-Z][\w-]*)'s\s+(?P<what2>birthday|bday){_FALLS}\s+"
    r"(?:on\s+)?(?P<when2>.+)$",
    re.I,
)
# "We celebrate our anniversary on 3 August": the day a date is kept on
_CELEBRATE = re.compile(
    r"^(?:(?:i|we)\s+(?:always\s+|usually\s+)?(?:celebrate|mark|have)|it is|it's)\s+(?:my|our)\s+"
    r"(?P<what>birthday|wedding anniversary|anniversary)\s+on\s+(?P<when>.+)$",
    re.I,
)
# "I'm a Leo, born 1 August": a birth date set beside a clause about the user
_BORN_BESIDE = re.compile(
    rf"^i am\b.*,\s*born\s+(?:on\s+)?(?P<when>(?:the\s+)?\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:{_MONTHS})|"
    rf"(?:{_MONTHS})\s+\d{{1,2}}(?:st|nd|rd|th)?)$",
    re.I,
)
# "Had my 58th birthday on Tuesday", "I celebrated my 40th": a birthday counted is an age
_NTH_BIRTHDAY = re.compile(
    r"^(?:i\s+|we\s+)?(?:just\s+)?(?:had|celebrated|have had|have celebrated)\s+my\s+"
    r"(\d{1,3})(?:st|nd|rd|th)(?:\s+(?:birthday|bday))?(?P<rest>.*)$",
    re.I,
)
# "Mum was born on 1 May", "my brother was born on 3 June": a relative's birth date is their birthday
# a word may describe the relative and a name may follow, set off or not: "my dad, Gerhard, was born on"
_DESCRIBED = r"(?:(?-i:[a-z]+)\s+)?"
_NAMED = r"(?:\s*,?\s+(?P<name>(?-i:[A-Z][\w-]*))\s*,?)?"
_KIN_BORN = re.compile(
    rf"^(?:(?:my|our)\s+{_DESCRIBED})?(?P<who>(?i:{_KIN})){_NAMED}\s+was\s+born\s+on\s+(?P<when>.+)$", re.I
)
# "My son Arlo turns six on 9 December": the day a relative reaches an age is their birthday
_KIN_TURNS = re.compile(
    rf"^(?:my|our)\s+{_DESCRIBED}(?P<who>(?i:{_KIN})){_NAMED}\s+"
    r"(?:turns|is turning|will turn|will be)\s+[\w-]+\s+on\s+(?P<when>.+)$",
    re.I,
)
# "It's my dad Hamid's birthday on 8 February" says "my dad Hamid's birthday is on 8 February"
_ITS_BIRTHDAY = re.compile(
    r"^(?:it is|it's)\s+(?P<whose>(?:my|our)\s+[\w\s'-]{1,30}?'s\s+(?:birthday|bday|b-day))\s+on\s+"
    r"(?P<when>.+)$",
    re.I,
)
# an age in words, thirteen to ninety-nine ("thirty-five", "forty", "nineteen"), from the date reader's
# number words: longest first, so "twenty-five" is read whole rather than as "twenty"
_AGE_WORDS = "(?:" + "|".join(sorted((w for w, n in NUMBERS.items() if n >= 13), key=len, reverse=True)) + ")"


def _number(said: str) -> int:
    """ "thirty-five" -> 35, "42" -> 42."""
    return int(said) if said.isdigit() else NUMBERS.get(said.lower(), 0)


_AGE = re.compile(
    r"^i\s+(?:am|just turned|turned|have just turned|have turned|will be|will turn|turn)\s+"
    rf"(\d{{1,3}}|{_AGE_WORDS})"
    r"(?:\s+(?:years?|yrs?)\s+old)?(?P<rest>.*)$",
    re.I,
)
# what may follow an age: nothing, a clause, or a time phrase ("I turned 42 yesterday", "... last week")
_AFTER_AGE = re.compile(r"^\s*(?:$|,|(?:now|this|next|on|in|last|and|but|soon)\b)", re.I)


def birthday_said(s: str) -> str:
    """A birthday said in another shape, in the shape the rules read ("my son Arlo's birthday is 9
    December"), so the relative it names is kept beside it; any other clause as it is."""
    if m := _ITS_BIRTHDAY.match(s):
        return f"{m.group('whose')} is on {m.group('when')}"
    if m := _KIN_TURNS.match(s):
        when = _day(m.group("when"))
        if re.search(rf"\d|{_MONTHS}", when, re.I):
            who = f"{m.group('who')} {m.group('name')}" if m.group("name") else m.group("who")
            return f"my {who}'s birthday is {when}"
    return s


def _dates(s: str, said_at: datetime) -> list[RuleLearning]:
    if m := _CELEBRATE.match(s):
        when = _day(m.group("when"))
        what = m.group("what").lower()
        if not re.search(rf"\d|{_MONTHS}", when, re.I):
            return []
        if what == "birthday":
            return [
                RuleLearning(f"The user's birthday is {when}.", "fact", About("profile", "birthday"), 0.85)
            ]
        return [RuleLearning(f"The user's {what} is {when}.", "fact", About("date", what), 0.85)]
    if m := _BORN_BESIDE.match(s):
        return [
            RuleLearning(
                f"The user's birthday is {m.group('when')}.", "fact", About("profile", "birthday"), 0.8
            )
        ]
    if (m := _NTH_BIRTHDAY.match(s)) and (not m.group("rest").strip() or _VALUE_END.match(m.group("rest"))):
        age = int(m.group(1))
        if 1 <= age <= 120:
            return [RuleLearning(f"The user is {age} years old.", "fact", About("profile", "age"), 0.8)]
    if m := _KIN_BORN.match(s):
        when, who = _day(m.group("when")), m.group("who").lower()
        if re.search(rf"\d|{_MONTHS}", when, re.I) and not re.fullmatch(r"(?:in\s+)?\d{4}", when):
            about = About("date", f"{_holder_key(who)} birthday")
            named = [_kin_learning(m.group("who"), m.group("name"))] if m.group("name") else []
            return [RuleLearning(f"The user's {who}'s birthday is {when}.", "fact", about, 0.8), *named]
        return []
    if m := _BIRTHDAY.match(s):
        when = _TRAIL.sub("", m.group("when") or m.group("when2")).strip()
        when = re.sub(r"^on\s+", "", when, flags=re.I)
        # "my birthday's coming up, it's 14 September": the day in the clause set beside it
        when = re.sub(
            r"^(?:coming up|soon|approaching|around the corner|close)\s*,?\s*(?:it is|it's)\s+",
            "",
            when,
            flags=re.I,
        )
        when = re.split(r"\s*(?:,|\band\b|\bbut\b|\bso\b)\s*", when, maxsplit=1)[0]
        who = m.group("who") or m.group("name")
        # "Mum's birthday is ...": a kinship word used as a name is the user's own relative
        kin_named = bool(m.group("name")) and re.fullmatch(rf"(?:{_KIN})", m.group("name"), re.I) is not None
        if m.group("who") and _PEOPLE.search(who):
            return []  # a friend's or a colleague's birthday is their fact, as their other facts are
        what = (
            (m.group("what") or m.group("what2"))
            .lower()
            .replace("b-day", "birthday")
            .replace("bday", "birthday")
        )
        if not re.search(rf"\d|{_MONTHS}|today|tomorrow|next|this|week", when, re.I):
            return []
        if who:
            # a name keeps its capital: "my brother Sean's birthday" is the user's brother Sean's
            kin = " ".join(w if w[:1].isupper() and i else w.lower() for i, w in enumerate(who.split()))
            holder = (
                who if who[:1].isupper() and not m.group("who") and not kin_named else f"the user's {kin}"
            )
            about = About("date", f"{_holder_key(who)} {what}")
            return [RuleLearning(f"{_sentence_case(holder)}'s {what} is {when}.", "fact", about, 0.85)]
        if what == "birthday":
            return [
                RuleLearning(f"The user's birthday is {when}.", "fact", About("profile", "birthday"), 0.9)
            ]
        return [RuleLearning(f"The user's {what} is {when}.", "fact", About("date", what), 0.85)]
    if (m := _AGE.match(s)) and (_AFTER_AGE.match(m.group("rest")) or _VALUE_END.match(m.group("rest"))):
        age = _number(m.group(1))
        if 1 <= age <= 120:
            return [RuleLearning(f"The user is {age} years old.", "fact", About("profile", "age"), 0.85)]
    return []


# the one spelling a parent's date is filed under, however the parent is called ("mum", "mother", "mom")
_PARENT_KEY = {"mother": "mom", "father": "dad"}


def _holder_key(who: str) -> str:
    """ "Mum" and "my mother" are one relative, so their birthday is one subject: "mom birthday"."""
    words = _key(who).split()
    if words:
        kin, unique = _kin_key(words[0])
        words[0] = _PARENT_KEY.get(kin, words[0]) if unique else words[0]
    return " ".join(words) or "general"


def _day(text: str) -> str:
    """A day as said, without a trailing clause: "3 August, every year" -> "3 August"."""
    when = _TRAIL.sub("", text).strip()
    return re.split(r"\s*(?:,|\band\b|\bbut\b|\bso\b)\s*", when, maxsplit=1)[0]
