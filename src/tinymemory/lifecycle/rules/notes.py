"""The user's own attributes ("my X is Y"), dated events, and notes without a subject."""

from __future__ import annotations

import re
from datetime import datetime

from tinymemory.api import About
from tinymemory.lifecycle.rules.english import (
    _HYPOTHETICAL,
    _PLAN,
    _QUESTION_START,
    _SUBJECT_PERSON,
    _dated,
    _key,
    _sentence_case,
    _value,
    third_person,
)
from tinymemory.lifecycle.rules.learning import RuleLearning
from tinymemory.lifecycle.rules.people import _KIN, _PEOPLE, _PETS
from tinymemory.lifecycle.rules.preferences import _SAYING

# events and notes ---------------------------------------------------------------------------------------

_MY_IS = re.compile(r"^my\s+([\w\s'-]{1,40}?)\s+(?:is|are)\s+(.+)$", re.I)


def _attribute(s: str, said_at: datetime) -> list[RuleLearning]:
    """ "My X is Y" for the user's own attributes (address, email, timezone, goal), not other people."""
    if m := _MY_IS.match(s):
        what, value = _key(m.group(1)), _value(m.group(2))
        # someone else's, or a pet's ("my cat is lovely"), is no attribute of the user's
        people = _PEOPLE.search(m.group(1)) or re.search(rf"\b(?:{_KIN}|{_PETS})s?\b", m.group(1), re.I)
        if not (what and value) or people or _dated(s, said_at):
            return []
        if re.match(r"^(?:so|very|really|too|kind of|a bit|pretty|super)\b", value, re.I):
            return []
        # a habit of speech ("my go-to excuse is that I'm busy") is no attribute: it keeps a note
        chosen = re.match(r"^(?:favou?rite|preferred|go-to|go to|usual|regular)\b", m.group(1), re.I)
        clause = re.match(r"^(?:that|when|because|how|if)\b", value, re.I)
        if chosen and (clause or _SAYING.search(m.group(1))):
            return []
        return [
            RuleLearning(f"The user's {what} is {third_person(value)}.", "fact", About("profile", what), 0.8)
        ]
    return []


def _event(s: str, said_at: datetime) -> list[RuleLearning]:
    if _MOOD.match(s) or _someone_elses(s):
        return []  # "I'm so tired today" dates a mood, not an event; a colleague's day is theirs
    dated = _dated(s, said_at)
    # the user (or the user's household) must be a subject: "recommend me something" is a request
    if dated is not None and _SUBJECT_PERSON.search(s) and not re.match(r"^(?:you|your)\b", s, re.I):
        start, end = dated
        return [
            RuleLearning(
                f"{_sentence_case(third_person(s))} ({start.date().isoformat()}).",
                "event",
                None,
                0.75,
                start,
                end,
            )
        ]
    return []


_NOTE_SUBJECT = re.compile(
    r"^(?:(?:last|this|next)\s+\w+,?\s+|yesterday,?\s+|today,?\s+|recently,?\s+|lately,?\s+|"
    r"since then,?\s+|these days,?\s+|for me,?\s+)?(?:i|i'm|i've|i'll|i was|i am|we|we're|we've|we were|"
    r"my|our|me and)\b",
    re.I,
)
_PLEASANTRY = re.compile(
    r"^(?:i|we)\s+(?:(?:really|totally|so|completely|truly|just|also|definitely|absolutely|100%|do|"
    r"still)\s+)*(?:agree|think|thought|hope|bet|guess|wish|know|knew|believe|understand|appreciate|"
    r"feel you|mean|meant|see|get it|get that|can imagine|can tell|can't wait|cannot wait|love that|"
    r"love it|love this|love your|love you|like that|like your|like it|like this|miss you|owe you|"
    r"remember|recall|'m glad|am glad|'m happy for|am happy for|'m proud of|am proud of|'m sorry|"
    r"am sorry|'m sure|am sure|'m excited for you|'m thrilled for you|'m thankful for you|'ll|will|"
    r"'d|would|totally|feel the same|'m with you|couldn't agree|can relate|hear you|'m curious|"
    r"am curious|was wondering|wonder|'m wondering|'m not sure|am not sure|have to say|must say|gotta|"
    r"should|need to go|'m off|am off|gotta go|have to go|'ll talk|'m here|am here|'m always here|"
    r"can't believe|cannot believe|"
    # a remark on what the user said is about the conversation, not the user: "I mixed the two up"
    r"mixed|mixed up|misspoke|mistyped|misread|misremembered|confused|got (?:that|it|this|them|those|"
    r"the \w+) (?:wrong|mixed up|backwards|confused)|made a typo|made a mistake)\b",
    re.I,
)
# How the user is or what kind of day they had: small talk about the moment, not a fact to keep.
_MOOD = re.compile(
    r"^(?:i|we)\s+(?:am|are|was|were|feel|felt|have been|had)\s+(?:(?:so|such|really|very|pretty|quite|"
    r"a bit|a little|kind of|kinda|just|super|totally|fine|good|okay|ok|well|alright|great|"
    r"not bad|tired|sleepy|exhausted|bored|busy|hungry|sick|stressed|cold|hot|sore|knackered|"
    r"swamped|relaxed|happy|sad|excited|nervous|a|an|the)[,\s]+)*"
    r"(?:fine|good|okay|ok|well|alright|great|tired|sleepy|exhausted|bored|busy|hungry|sick|stressed|"
    r"knackered|sore|cold|hot|(?:long|rough|busy|good|great|lovely|nice|bad|hard|tough|lazy|quiet|fun)\s+"
    r"(?:day|week|night|morning|evening|weekend|shift|time))\b",
    re.I,
)


def _note(s: str) -> list[RuleLearning]:
    """A plain first-person statement no rule recognises, kept as said (third person), without a subject."""
    words = s.split()
    if (
        len(words) < 5
        or len(s) > 300
        or _QUESTION_START.match(s)
        or _HYPOTHETICAL.search(s)
        or _PLAN.search(s)
    ):
        return []
    if not _NOTE_SUBJECT.match(s) or _PLEASANTRY.match(s) or _MOOD.match(s):
        return []
    if re.search(r"\b(?:you|your|you're|you've|yours)\b", s, re.I):
        return []
    if _someone_elses(s):
        return []
    if re.match(r"^(?:my|our)\s+[\w-]+'s\s+\w", s, re.I):
        return []  # "my sister's boyfriend works at ...": a possessive chain is about someone else
    return [RuleLearning(_sentence_case(third_person(s)) + ".", "fact", None, 0.6)]


_HOUSEHOLD = re.compile(r"\b(?:kids|children|family|parents)\b", re.I)


def _someone_elses(s: str) -> bool:
    """ "My colleague ...", "my friend's ...": what a friend or a colleague did or has is their fact, not
    the user's (the user's household is the user's)."""
    owner = re.match(r"^(?:my|our)\s+([\w'-]+(?:\s+[\w'-]+)?)", s, re.I)
    return bool(owner and _PEOPLE.search(owner.group(1)) and not _HOUSEHOLD.search(owner.group(1)))
