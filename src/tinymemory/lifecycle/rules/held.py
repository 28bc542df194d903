"""What a clause says about a value the thread already holds: a correction ("X, not Y"), leaving a held
place or workplace ("we left Dubai"), or switching from the choice just held ("I've switched to X").

These forms name no subject of their own; English leaves it to what was said before, so they read the
thread's held learnings (subject -> latest text) and change the one whose value they name.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from tinymemory.api import About
from tinymemory.lifecycle.rules.english import _NAME_RUN, _NAME_WORD, _ended, _value, no_longer, third_person
from tinymemory.lifecycle.rules.health import DIET_EXCLUDES
from tinymemory.lifecycle.rules.learning import RuleLearning
from tinymemory.lifecycle.rules.people import _NOT_A_NAME, _PETS
from tinymemory.lifecycle.rules.preferences import _CATEGORIES, _preference_key
from tinymemory.lifecycle.rules.profile import _RANK

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
_SWAPPED_PLACE = re.compile(
    rf"^(?i:i|we)\s+(?i:have\s+)?(?i:(?:just|finally)\s+)?(?i:swapped|traded|exchanged)\s+(?P<old>{_NAME_RUN})\s+"
    rf"(?i:for)\s+(?P<new>{_NAME_RUN})$"
)
# "I've started eating meat again": eating again what the held diet keeps off ends the diet
_EATS_AGAIN = re.compile(
    r"^(?:i|we)\s+(?:have\s+|am\s+|are\s+)?(?:(?:started|begun|began|gone back to|went back to)\s+)?"
    r"(?:eating|eat)\s+(?P<food>[a-z]+)\s+(?:again|now|these days)$|"
    r"^(?:i|we)\s+(?:am|are)\s+back\s+on\s+(?:the\s+)?(?P<food2>[a-z]+)$",
    re.I,
)
# "My blood pressure is back to normal": a measure back to normal ends the held condition naming it
_NORMAL_AGAIN = re.compile(
    r"^my\s+(?P<what>[\w ]{3,30}?)(?:'s|\s+is|\s+are)\s+(?:back to normal|normal again|back in range)$", re.I
)


# "Sorry, I meant Madrid", "correction: it's Madrid", "make that Aldi": a bare name after a correction lead
_CORRECTION = re.compile(
    rf"^(?:(?:(?i:sorry|no|oops|wait|oh|actually|sorry, no)[,!]?\s+)*(?i:i meant|i mean|correction:?|"
    rf"make that|scratch that,?|typo,?)|(?P<bare>(?:(?i:sorry|no|oops|actually)[,!]?\s+)+"
    # an aside of a word or two may follow the lead before "it's": "sorry, brain fog, it's Capgemini"
    rf"(?:(?-i:[a-z]+)(?:\s+(?-i:[a-z]+))?,\s+(?=(?i:it's|it is|it was)\s))?))\s*"
    # a title may end in a number ("Paddington 2", "Windows 11")
    rf"(?P<its>(?i:it's|it is|it was)\s+)?(?P<new>(?:the\s+)?{_NAME_RUN}(?:\s+\d{{1,3}})?)"
    rf"(?i:,?\s+(?:please|instead))?[.!]*$"
)
# the held texts a bare correction can change: a proper name as the value at the end
_NAMED_VALUE = re.compile(rf"\b(?P<old>(?:the\s+)?{_NAME_RUN}(?:\s+\d{{1,3}})?)\.$")
# "I don't work there any more", "we moved out": the place or workplace held is the one ended
_THERE = re.compile(
    r"^(?:i|we)\s+(?:don't|do not|no longer)\s+(?P<verb>work|live)\s+there(?:\s+(?:any ?more))?$|"
    r"^(?:i|we)\s+(?:have\s+)?(?:just\s+|finally\s+)?(?P<out>moved out)"
    r"(?:\s+(?:last|this|in|on|two|a few)\b.*)?$",
    re.I,
)
# "we lost our cat", "our dog passed away": a pet by kind alone is the one of that kind the thread holds
_PET_KIND_DIED = re.compile(
    rf"^(?:(?i:i|we)\s+(?i:have\s+)?(?i:(?:just|sadly|recently)\s+)?(?i:lost)\s+(?i:my|our)|(?i:my|our))\s+"
    rf"(?i:(?:old|little|beloved|sweet|poor)\s+)?(?P<kind>(?i:{_PETS}))"
    r"(?:\s+(?i:(?:has\s+|just\s+|sadly\s+)?(?:died|passed away|passed|is no longer with us)))?"
    r"(?:\s+(?i:in|on|last|this|yesterday|today|two|a few|after)\b.*)?$"
)


# "I'd rather you used Kit": the name the assistant is asked to use, said while a name is held
_USE_NAME = re.compile(
    rf"^(?i:i)\s+(?i:would\s+(?:rather|prefer))(?:\s+(?i:it\s+if))?\s+(?i:you)\s+"
    rf"(?i:used|use|went with|go with|stuck to|stuck with|stick to|stick with)\s+({_NAME_WORD})"
    rf"(?i:,?\s+(?:instead|please|actually))?$"
)
# "my surname's Desai these days, not Sharma": the part of the name said, set against the one held
_NAME_PART = re.compile(
    r"^my\s+(?:sur|last\s+|first\s+|full\s+|middle\s+|family\s+)?name(?:'s|\s+is)\s+(?P<new>.+?)"
    r"(?:\s+(?:these days|now|nowadays))?$",
    re.I,
)
_PREFER_NAME = re.compile(
    rf"^(?i:i)\s+(?i:(?:would\s+)?prefer|(?:would\s+)?rather)\s+({_NAME_WORD})(?i:,?\s+(?:actually|please|instead|now))?$|"
    # "Fred is better", "Fred works better": a name set against the one just held
    rf"^({_NAME_WORD})\s+(?i:is|would be|sounds|works)\s+(?i:(?:much\s+)?better|best|nicer)$"
)


# "I've moved over to HSBC" with a workplace held: a move between employers
_MOVED_OVER = re.compile(
    rf"^(?i:i)\s+(?i:have\s+)?(?i:(?:just|now|finally)\s+)?(?i:moved over|moved across|jumped ship|gone over|"
    rf"defected|switched)\s+(?i:to)\s+(?P<org>(?:the\s+)?{_NAME_RUN})(?P<rest>.*)$"
)
# "Switch to German from now on": an instruction's proper value switched
_SWITCH_VALUE = re.compile(
    rf"^(?i:please\s+)?(?i:switch|change|move|go)\s+(?i:over\s+|back\s+)?(?i:to)\s+(?P<new>{_NAME_WORD})"
    r"(?i:,?\s+(?:from now on|going forward|instead|now|please))*$"
)


def _variant(new: str, old: str, about: About) -> bool:
    """Whether `new` may be a form of the held name `old` ("Alistair" of "Ali"): a name, same first letter."""
    if about != About("profile", "name"):
        return False
    held_name = re.sub(r"^.*\bis\s+|\.$", "", old)
    return new[:1].lower() == held_name[:1].lower()


# "oops, 45.": a bare number after a correction lead corrects the age the thread holds
_AGE_FIX = re.compile(r"^(?i:sorry|no|oops|wait|actually|correction|typo)[,:!]?\s+(?P<age>\d{1,3})[.!]*$")


def from_correction(sentence: str, held: Mapping[About, str]) -> list[RuleLearning]:
    """ "Sorry, I meant Madrid": a name after a correction lead replaces the name that ends the thread's
    latest held value (a home, a workplace, a name), or nothing when that value is no name; a bare number
    after one replaces the age, when the age is the value the thread gave last."""
    age = About("profile", "age")
    if (fix := _AGE_FIX.match(sentence.strip())) and held and list(held)[-1] == age:
        return [RuleLearning(f"The user is {fix.group('age')} years old.", "fact", age, 0.8)]
    m = _CORRECTION.match(sentence.strip())
    if m is None or not held:
        return []
    about = list(held)[-1]
    # a preference named by a proper name ("favourite movie is Spirited Away") is corrected the same way
    if about.kind not in {"profile", "pet", "family", "date", "preference"}:
        return []
    old = _NAMED_VALUE.search(held[about])
    new = m.group("new")
    if old is None or new.split()[-1] in _NOT_A_NAME:
        return []  # "I mean Tuesday" corrects a day, not a held name
    if m.group("bare") and not m.group("its") and not _variant(new, old.group("old"), about):
        # "Sorry Dave" addresses someone; with no "I meant" (or "no, it's X", restating the value), only a
        # name's own variant corrects it
        return []
    return [RuleLearning(held[about][: old.start("old")] + new + ".", "fact", about, 0.8)]


def from_held(s: str, held: Mapping[About, str]) -> list[RuleLearning]:
    """The learning `s` makes of a held value, or nothing when it names none."""
    if not held:
        return []
    name = About("profile", "name")
    if (
        (m := _PREFER_NAME.match(s))
        and list(held)[-1] == name
        and (m.group(2) or _variant(m.group(1), held[name], name))
    ):
        # "I prefer Samantha, actually" just after "Sam": the name preferred is the name
        said = m.group(1) or m.group(2)
        return [RuleLearning(f"The user's name is {said}.", "fact", About("profile", "name"), 0.8)]
    if (m := _USE_NAME.match(s)) and name in held and m.group(1) not in _NOT_A_NAME:
        return [RuleLearning(f"The user's name is {m.group(1)}.", "fact", name, 0.8)]
    employer = About("profile", "employer")
    if (
        (m := _MOVED_OVER.match(s))
        and employer in held
        and (not m.group("rest").strip() or _ended(m.group("rest")) == "")
        and _preference_key(m.group("org"), None) not in _CATEGORIES
        and About("profile", "home") not in held
    ):
        return [RuleLearning(f"The user works at {m.group('org')}.", "fact", employer, 0.75)]
    if m := _SWITCH_VALUE.match(s):
        # the latest held instruction naming a proper value ("answer in French") takes the new one
        for rule in reversed(list(held)):
            if rule.kind == "instruction" and (old := re.search(r"\bin\s+([A-Z][\w-]*)", held[rule])):
                text = held[rule][: old.start(1)] + m.group("new") + held[rule][old.end(1) :]
                return [RuleLearning(text, "instruction", rule, 0.8)]
        return []
    if m := _THERE.match(s):
        there = About(
            "profile", "employer" if m.group("verb") and m.group("verb").lower() == "work" else "home"
        )
        return [RuleLearning(no_longer(held[there]), "fact", there, 0.8)] if there in held else []
    if m := _PET_KIND_DIED.match(s):
        kind = m.group("kind").lower()
        pets = [
            a for a, t in held.items() if a.kind == "pet" and re.search(rf"\b{re.escape(kind)}\b", t, re.I)
        ]
        if len(pets) == 1 and ("died" in s or "passed" in s or "lost" in s or "no longer with us" in s):
            return [RuleLearning(f"The user's {kind} died.", "fact", pets[0], 0.8)]
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
    if m := _SWAPPED_PLACE.match(s):
        # "We've swapped London for Lisbon": a held home traded for another place
        home = About("profile", "home")
        if home in held and re.search(rf"\b{re.escape(m.group('old'))}\b", held[home]):
            return [RuleLearning(f"The user lives in {m.group('new')}.", "fact", home, 0.8)]
        return []
    if m := _EATS_AGAIN.match(s):
        diet = About("health", "diet")
        said = held.get(diet, "")
        word = re.sub(r"^The user is (?:a |an )?|\.$", "", said).lower()
        if (m.group("food") or m.group("food2")).lower() in DIET_EXCLUDES.get(word, set()):
            return [RuleLearning(no_longer(said), "fact", diet, 0.8)]
        return []
    if m := _NORMAL_AGAIN.match(s):
        words = set(m.group("what").lower().split())
        ended = [
            a
            for a in held
            if a.kind == "health" and a.key.startswith("condition ") and words <= set(a.key.split())
        ]
        if len(ended) == 1:
            return [RuleLearning(no_longer(held[ended[0]]), "fact", ended[0], 0.8)]
        return []
    if m := _SWITCHED.match(s):
        new = _ended(_value(m.group(1)))
        if not new or _preference_key(new, None) in _CATEGORIES or len(new.split()) > 3:
            return []  # a known kind of choice is the preference rules' to read
        # the choice switched from is the one just talked about: the latest held subject, if it is one
        last = list(held)[-1]
        if last.kind == "preference" and last.key in _CATEGORIES:
            return [RuleLearning(f"The user prefers {third_person(new)}.", "preference", last, 0.75)]
    return []


# "it's John with an h": spelling a name out corrects the name held
_SPELLED = re.compile(
    rf"^(?:(?:it is|it's|that is|that's)\s+)?(?P<name>{_NAME_RUN}),?\s+with\s+(?:an?|two|double)\s+"
    # letters may be listed: "it's Kaitlyn, with a K and a y"
    r"(?-i:[A-Za-z])(?:'s)?(?:\s+and\s+(?:an?\s+)?(?-i:[A-Za-z])(?:'s)?)*"
    r"(?:\s+(?:at the end|in the middle|not\s+(?:an?\s+)?\w))?$",
    re.I,
)


# "They've made me ward sister", "the board made me a partner": an appointment, read against a held role
_MADE_ME = re.compile(
    r"^(?:they|they have|they've|the \w+|my \w+|(?-i:[A-Z])\w*)\s+(?:have\s+|has\s+|finally\s+|just\s+)*"
    r"(?:made|appointed|named)\s+me\s+(?:an?\s+|the\s+|their\s+|our\s+)?(?P<role>[a-z-]+(?:\s+[a-z-]+){0,3}?)"
    r"(?:\s+(?:as of|from|starting|last|this|next|on|in)\b.*)?$",
    re.I,
)


def _corrected(s: str, held: Mapping[About, str]) -> list[RuleLearning]:
    role = About("profile", "role")
    if (m := _MADE_ME.match(s)) and role in held and _RANK.search(m.group("role")):
        said = m.group("role")
        article = (
            "" if re.match(r"^(?:head|chief|deputy)\b", said) else ("an " if said[0] in "aeiou" else "a ")
        )
        return [RuleLearning(f"The user works as {article}{said}.", "fact", role, 0.8)]
    name = About("profile", "name")
    if (m := _SPELLED.match(s)) and name in held:
        return [RuleLearning(f"The user's name is {m.group('name')}.", "fact", name, 0.85)]
    """ "Boeing, not Airbus": the held subject naming the old value, with the new one in its place."""
    m = _NOT_THAT.match(s)
    if m is None:
        return []
    new, old = (m.group("new") or m.group("new2")).strip(), (m.group("old") or m.group("old2")).strip()
    new = re.sub(r"^(?:it's|it is|it was|that's|that is|i meant|i mean)\s+", "", new, flags=re.I)
    if part := _NAME_PART.match(new):
        new = part.group("new")  # "my surname's Desai, not Sharma" sets one name against another
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
