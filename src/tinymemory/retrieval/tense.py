"""Which way a clause looks from when it was said: back (the past) or ahead (a plan, the future).

The date reader asks this of a day named without last/next ("on Friday", "this Saturday", "on the
3rd"): "I saw Ana on Friday" is the Friday before, "I'm seeing Ana on Friday" the one to come. Within
the clause holding the day (a sentence, cut at ";" and "but"):

1. the past or future marker nearest the day decides. Past: was, were, did, had, went, saw and the
   other common irregular past forms, a word in -ed (not after am / is / feel / so ...: "I'm excited"
   is no past), ago, yesterday, last, earlier, previous. Future: will, 'll, shall, going to, gonna,
   about to, plan, hope, intend, scheduled, tomorrow, next, upcoming, soon;
2. else a present-tense word (am, is, are, have, has, want, need, can, should, must, and verbs of
   schedules: start, begin, open, close, end, leave, arrive, come, go, return, fly, meet) looks ahead:
   a present verb with a named day is a plan ("I have a dentist appointment on Friday", "school
   starts on Monday");
3. else there is no leaning (None) and the caller chooses.

It also says whether a clause is in the present perfect before a position (`perfect`): "I've been
painting for three years" reaches up to the moment it is said, "I painted for three years" does not.

Text is expected casefolded.
"""

from __future__ import annotations

import re
from typing import Literal

Leaning = Literal["back", "ahead"]

# Words that say the tense on their own.
_AHEAD_WORDS = (
    "will|won't|'ll|shall|going to|gonna|about to|plan|plans|planning|planned|hope|hoping|intend|"
    "intending|scheduled|tomorrow|next|upcoming|soon"
)
_PAST_WORDS = (
    "was|were|wasn't|weren't|had|hadn't|did|didn't|been|went|got|came|saw|made|took|met|told|said|"
    "gave|found|left|bought|ate|drove|flew|ran|won|lost|spent|sent|began|wrote|thought|felt|kept|sold|"
    "brought|caught|taught|heard|slept|sat|stood|paid|held|built|broke|fell|forgot|chose|swam|sang|"
    "drank|wore|rode|became|knew|grew|threw|drew|spoke|woke|led|fled|meant|dealt|"
    "ago|yesterday|last|earlier|previous|previously|used to"
)
# The present: it looks ahead only when nothing above is said ("what did you have on Friday?" is past,
# "I have a dentist appointment on Friday" a plan).
_PRESENT_WORDS = (
    "am|is|are|isn't|aren't|'m|'re|have|has|'ve|want|wants|need|needs|can|can't|should|must|let's|"
    "start|starts|begin|begins|open|opens|close|closes|end|ends|leave|leaves|arrive|arrives|come|comes|"
    "go|goes|return|returns|fly|flies|meet|meets"
)
# Words in -ed that are not past-tense verbs.
_NOT_PAST_ED = (
    "need|seed|feed|speed|bleed|breed|indeed|bed|red|shed|wed|fred|hundred|sacred|naked|wicked|kindred"
)
# Ahead first: "won't" is not "won", "planned" and "scheduled" look ahead though they end in -ed.
_MARKER = re.compile(
    rf"(?P<ahead>\b(?:{_AHEAD_WORDS})\b)|(?P<back>\b(?:{_PAST_WORDS})\b)"
    rf"|(?P<ed>\b(?!(?:{_NOT_PAST_ED})\b)[a-z]{{2,}}ed\b)|(?P<present>\b(?:{_PRESENT_WORDS})\b)"
)
# After one of these an -ed word is an adjective or a present passive ("I'm excited", "it's booked"),
# not a past tense.
_STATE_LEAD = re.compile(r"\b(?:am|is|are|'m|'re|'s|be|feel|feeling|get|getting|so|really|very|too)\s+$")
_CLAUSE_END = re.compile(r"[.!?;\n]|\bbut\b")
# The present perfect: have / has and a past participle (been, had, an -ed form or a common irregular
# one), a few adverbs allowed between; "'s" stands for "has" only before been / had / got ("it's been",
# while "it's booked" is a present passive). "have to", "had been" and "'d been" are not it.
_PARTICIPLES = (
    "been|had|got|gotten|known|done|gone|seen|grown|kept|taught|felt|held|run|worn|made|spent|lost|"
    "won|found|led|read|written|ridden|driven|sung|swum|slept|sat|stood|thought|brought|built|"
    "[a-z]{2,}ed"
)
_ADVERBS = r"(?:(?:not|never|already|always|just|only|really|also|actually|all|both|ever|since)\s+)*"
_AHEAD = re.compile(rf"\b(?:{_AHEAD_WORDS})\b")
_NEGATION = re.compile(r"n't\b|\b(?:not|never)\b")
_PERFECT = re.compile(
    rf"\b(?:(?:have|has|haven't|hasn't|'ve)\s+{_ADVERBS}(?:{_PARTICIPLES})|'s\s+{_ADVERBS}(?:been|had|got))\b"
)


def _clause(text: str, at: int) -> tuple[int, int]:
    """The [start, end) of the clause of `text` holding position `at`."""
    start = max((m.end() for m in _CLAUSE_END.finditer(text, 0, at)), default=0)
    stop = _CLAUSE_END.search(text, at)
    return start, stop.start() if stop else len(text)


def perfect(text: str, at: int, *, negated: bool = False) -> bool:
    """Whether the clause of casefolded `text` holding `at` is in the present perfect before `at`
    ("we've lived here for six years", "she has known him for two"); with `negated`, a negative one
    only ("I haven't seen her in years"). A future marker between the perfect and `at` takes over
    ("I've booked the cabin, we'll stay for a week")."""
    text = text.replace("\u2019", "'")
    start, _ = _clause(text, at)
    last = None
    for m in _PERFECT.finditer(text, start, at):
        if not negated or _NEGATION.search(m[0]) is not None:
            last = m
    return last is not None and _AHEAD.search(text, last.end(), at) is None


def leaning(text: str, at: int) -> Leaning | None:
    """The way the clause of casefolded `text` holding position `at` looks: the past or future marker
    nearest `at` decides; with none, a present-tense word looks ahead; with neither, None."""
    text = text.replace("\u2019", "'")
    start, end = _clause(text, at)
    best: tuple[int, Leaning] | None = None
    present = False
    for m in _MARKER.finditer(text, start, end):
        if m["present"]:
            present = True
            continue
        if m["ed"] and _STATE_LEAD.search(text, max(start, m.start() - 12), m.start()):
            continue
        distance = at - m.end() if m.end() <= at else m.start() - at
        if best is None or distance < best[0]:
            best = (distance, "ahead" if m["ahead"] else "back")
    if best is not None:
        return best[1]
    return "ahead" if present else None
