"""Preferences: prefer, like, love, hate, favourite, fan of, switched to."""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import datetime

from tinymemory.api import About
from tinymemory.lifecycle.rules.english import _ended, _key, _sentence_case, _value, conjugate, third_person
from tinymemory.lifecycle.rules.learning import RuleLearning

# preferences --------------------------------------------------------------------------------------------

# the adjectives of choosing: favourite, preferred, go-to, usual ("my go-to drink is ...")
_CHOSEN = r"(?:favou?rite|preferred|go-to|go to|usual|regular)"
_FAVOURITE = re.compile(
    # chat drops the "my" ("Favourite film has to be Jaws"); "has to be" asserts, as "must be" does
    rf"^(?:my\s+)?(?:(?:all-time|all time|absolute|very|new)\s+)?(?:{_CHOSEN})\s+([\w\s-]{{1,40}}?)\s+"
    r"(?:is|are|has to be|must be|is definitely|is probably)\s+"
    r"(.+)$|"
    r"^my\s+([\w\s-]{1,40}?)\s+of choice\s+(?:is|are)\s+(.+)$",
    re.I,
)
_FAVOURITE_IS = re.compile(
    rf"^(.{{1,40}}?)(?:'s|\s+is|\s+are|\s+has\s+(?:always\s+)?been|\s+have\s+(?:always\s+)?been)\s+my\s+"
    rf"(?:absolute\s+|all-time\s+|new\s+)?(?:(?:{_CHOSEN})\s*([\w\s-]{{0,40}})|([\w-]+(?:\s+[\w-]+)?)\s+of\s+choice)$",
    re.I,
)
# "My go-to excuse is ...": what one habitually says is a habit of speech, not a liking
_SAYING = re.compile(
    r"\b(?:excuse|answer|reply|response|line|reason|joke|argument|comeback|phrase|saying|complaint|story|"
    r"question|apology|insult|lie)s?$",
    re.I,
)
# "Coffee's more my thing these days": what is "my thing" is a liking
_MY_THING = re.compile(
    r"^(.{1,40}?)(?:'s|\s+is|\s+are)\s+(?:(?:more|really|very much|definitely|totally)\s+)?my\s+"
    r"(?:thing|jam)$",
    re.I,
)
# "Nothing beats a proper cup of tea", "you can't beat X", "there's nothing like X": a liking said by
# comparison with everything else
_NOTHING_BEATS = re.compile(
    r"^(?:nothing|nothing at all)\s+(?:beats|compares to|tops)\s+(.+)$|"
    r"^(?:you can't|you cannot|can't)\s+beat\s+(.+)$|"
    r"^there is nothing (?:quite\s+)?like\s+(.+)$|^there's nothing (?:quite\s+)?like\s+(.+)$",
    re.I,
)
# "I basically live on Diet Coke": what one lives on is a staple
_LIVE_ON = re.compile(
    r"^i\s+(?P<adv>(?:(?:basically|practically|pretty much|mostly|just|literally)\s+)*)live\s+on\s+"
    r"(?P<obj>.+)$",
    re.I,
)
_PREFER = re.compile(
    r"^i\s+(?:now\s+|really\s+|much\s+|definitely\s+|still\s+|generally\s+|usually\s+)?prefer\s+(.+?)"
    r"(?:\s+(?:to|over|rather than)\s+(.+?))?$",
    re.I,
)
_SWITCHED = re.compile(
    r"^i(?:'ve| have)?\s+(?:(?:just|recently|finally)\s+)?(?:switched|changed|gone over|jumped ship|migrated|"
    r"moved|"
    r"converted|"
    r"moved over|(?:gone|went|switched|changed)\s+back)\s+(?:from\s+(.+?)\s+)?to\s+(.+)$",
    re.I,
)
# "I switched my editor to Helix", "I've changed my browser from Chrome to Firefox": the object names
# the category the new value is a choice in
# "I switched editors: Helix now": a bare plural names the category too, and a colon may give the new one
_SWITCHED_MY = re.compile(
    r"^i(?:'ve| have)?\s+(?:(?:just|recently|finally)\s+)?(?:switched|changed|moved|swapped)\s+"
    r"(?:(?:my|our)\s+(?:(?:default|main|usual|daily|go-to)\s+)?(?P<cat>[\w-]+(?:\s+[\w-]+)?)|(?P<plural>[\w-]+)s)"
    r"(?:\s+(?:over\s+)?(?:from\s+(?P<old>.+?)\s+)?to\s+|:\s+)(?P<new>.+)$",
    re.I,
)
# "I've swapped coffee for tea", "I replaced Chrome with Firefox": the object after "for"/"with" is the
# new choice
_SWAPPED = re.compile(
    r"^i\s+(?:have\s+)?(?:(?:just|recently|finally)\s+)?(?:swapped|traded|exchanged|replaced|ditched)\s+"
    r"(?:my\s+)?(.+?)\s+(?:for|with)\s+(.+)$",
    re.I,
)
# Verbs of losing a liking: "I've lost interest in X", "I've gone off X", "I've grown out of X"
_LOST_LIKING = re.compile(
    r"^i\s+(?:have\s+|had\s+)?(?:(?:kind of|kinda|sort of|completely|totally|really|just|finally|right)\s+)?"
    r"(?:lost (?:all |my |any )?interest in|(?:gone|went)\s+(?:right\s+|completely\s+)?off|gotten tired of|"
    r"grown tired of|"
    r"grew tired of|gotten bored (?:of|with)|grown bored (?:of|with)|"
    r"fallen out of love with|fell out of love with|grown out of|grew out of|outgrown|outgrew|"
    r"went cold on|gone cold on)\s+(.+)$",
    re.I,
)
_LIKE = re.compile(
    r"^i\s+(?:really\s+|do\s+|absolutely\s+|totally\s+|truly\s+|also\s+|still\s+|kind of\s+|kinda\s+|"
    r"honestly\s+|just\s+)*(like|love|adore|enjoy|dislike|hate|detest|loathe|don't like|do not like|"
    r"can't stand|cannot stand|don't enjoy|do not enjoy|can't get enough of|cannot get enough of|am loving|"
    r"am enjoying)\s+(.+)$",
    re.I,
)
_FAN = re.compile(
    r"^i(?:'m| am| have|)\s+(?:(?:a|more|much more|such a|a huge|a big|a massive|huge|big|really|so|totally|"
    r"very|not|"
    r"not really|not much of)\s+)*(fan of|into|obsessed with|crazy about|mad about|nuts about|wild about|"
    r"hooked on|all about|fallen in love with|"
    # an activity begun: "I've got into pottery", "I've taken up running"
    r"(?:got|gotten)\s+(?:(?:really|so|properly|seriously)\s+)?into|taken up|took up|"
    r"passionate about|keen on|a fan of)\s+(.+)$",
    re.I,
)
# "I'm a big rugby fan": the noun before "fan" is what the user is a fan of
_INTENSE = (
    r"(?:big|huge|massive|lifelong|die-hard|diehard|real|true|keen|heavy|total|complete|serious|"
    r"self-confessed)"
)
_X_FAN = re.compile(
    r"^(?:i(?:'m| am)\s+(?:(?:more of|very much|definitely|such|really|totally)\s+)?(?:an?\s+)?"
    # chat drops the "I'm a" before an intensifier: "Massive Arctic Monkeys fan"
    rf"|(?={_INTENSE}\s))(?:{_INTENSE}\s+)*"
    r"([\w-]+(?:\s+[\w-]+)?)\s+(?P<noun>fan|lover|nut|buff|fanatic|user|person|drinker|addict|fiend)"
    # a comment after a comma is no part of it: "a flat white person, no sugar"
    r"(?:,\s*[^,]{1,30})?$",
    re.I,
)
# Bare "I prefer X" needs a subject so a later "I prefer Y" replaces it; a few common ones are known.
_CATEGORIES = {
    "drink": {
        "tea",
        "coffee",
        "espresso",
        "water",
        "juice",
        "beer",
        "wine",
        "milk",
        "soda",
        "cocoa",
        "latte",
        "green tea",
        "black coffee",
        "herbal tea",
        "oat milk",
        "cappuccino",
        "flat white",
        "decaf",
        "matcha",
        "coke",
        "cola",
        "lemonade",
        "kombucha",
        "chai",
        "smoothie",
        "hot chocolate",
    },
    "editor": {
        "vim",
        "neovim",
        "emacs",
        "vscode",
        "vs code",
        "nano",
        "sublime",
        "intellij",
        "pycharm",
        "zed",
    },
    "theme": {"dark mode", "light mode", "dark theme", "light theme"},
    "indentation": {"tabs", "spaces"},
    "contact": {"email", "phone", "slack", "text", "sms", "a call", "phone calls", "texts", "whatsapp"},
}
# "I drink X": the verb says X is a drink, whatever X is ("I drink chai"), unless X says how much or how
# often ("I drink a lot", "I drink socially").
_DRINK = re.compile(
    r"^i\s+(?:usually\s+|mostly\s+|only\s+|mainly\s+|just\s+|always\s+)?(?:drink|am drinking)\s+(.+?)"
    r"(?:\s+(?:every|each|in the|at|with|most|a lot|a day|a week|a night|per day|daily)\b.*)?$",
    re.I,
)
_NOT_A_DRINK = re.compile(
    r"^(?:a lot|lots|loads|too much|much|more|less|enough|little|socially|rarely|heavily|occasionally|"
    r"moderately|responsibly|sometimes|often|regularly|only|at|on|with|like|it|them|that|this|anything|"
    r"nothing|alone|every|whatever)\b",
    re.I,
)
# "I use Neovim for everything", "I do all my coding in Helix": a tool of a known category is a preference
# of that category
_USE = re.compile(
    r"^i\s+(?:(?:usually|mostly|only|mainly|just|always|now|still|exclusively)\s+)?"
    r"(?:use|am using|am now using|code in|program in|"
    r"write\s+(?:(?:all|most|much)\s+(?:of\s+)?)?(?:my\s+)?code\s+in|"
    r"do\s+(?:(?:all|most|much)\s+(?:of\s+)?)?my\s+(?:coding|programming|editing)\s+in)\s+(.+?)"
    r"(?:\s+(?:for|at|on|in|every|everywhere|all|most|with|when|because)\b.*)?$",
    re.I,
)
_REACTION = re.compile(
    r"^(?:it|that|this|those|these|them|him|her|you|your|yours|the idea|the sound of)\b", re.I
)


# two words for one kind of thing are one subject, so a favourite "film" and a favourite "movie" replace
# each other
_ONE_KIND = {"film": "movie", "films": "movie", "movies": "movie"}


def _kind(words: str) -> str:
    key = _key(words)
    return _ONE_KIND.get(key, key)


# "I play tennis every Saturday morning", "I go swimming twice a week": an activity the user keeps to a
# schedule is one they keep up, read as the activity (its subject is the one "I don't play tennis
# anymore" ends)
_DAYS = r"(?:day|week|weekend|morning|evening|night|monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
_HABITUAL = re.compile(
    r"^(?P<act>i\s+(?:play|go(?=\s+\w+ing\b)|do|practise|practice)\s+[\w' -]+?)\s+"
    rf"(?:every\s+{_DAYS}(?:\s+(?:morning|evening|night|afternoon))?|"
    r"(?:once|twice|three times|four times|\d+ times)\s+a\s+(?:day|week|month)|"
    rf"most\s+(?:days|weekends|mornings|evenings|nights)|on\s+{_DAYS}s)"
    # when in the day it falls is part of the schedule: "most mornings before work"
    r"(?:\s+(?:before|after)\s+(?:work|school|breakfast|lunch|dinner|bed))?$",
    re.I,
)


def _preferences(s: str, said_at: datetime) -> list[RuleLearning]:
    if (m := _HABITUAL.match(s)) and (kept := _activity(m.group("act"))):
        return [replace(k, text=_sentence_case(third_person(s)) + ".") for k in kept]
    if m := _FAVOURITE.match(s):
        said, value = _key(m.group(1) or m.group(3)), _value(m.group(2) or m.group(4))
        # a clause ("that I'm busy", "to ...") is no choice, and a habit of speech is no liking
        if re.match(r"^(?:that|to|when|because|how|if|i|we|it|just)\b", value, re.I) or _SAYING.search(said):
            return []
        about = About("preference", _kind(said))
        return [RuleLearning(f"The user's favourite {said} is {value}.", "preference", about, 0.9)]
    if m := _FAVOURITE_IS.match(s):
        named = m.group(2) or m.group(3)
        value, what = _value(m.group(1)), _key(named or m.group(1))
        if _REACTION.match(value) or _SAYING.search(what):
            return []
        # with no noun after "favourite" the value is its own subject: "Thai food is my favourite"
        said = (
            f"The user's favourite {what} is {value}."
            if named and named.strip()
            else f"{value} is the user's favourite."
        )
        return [RuleLearning(_sentence_case(said), "preference", About("preference", _kind(what)), 0.85)]
    if (m := _MY_THING.match(_value(s))) and not _REACTION.match(m.group(1)):
        obj = _value(m.group(1))
        key = _preference_key(obj, None)
        key = key if key in _CATEGORIES else _activity_key(obj)
        return [
            RuleLearning(
                f"The user likes {obj[:1].lower() + obj[1:]}.", "preference", About("preference", key), 0.8
            )
        ]
    if (m := _NOTHING_BEATS.match(s)) or (m := _LIVE_ON.match(s)):
        obj = _ended(_value(m.group("obj") if "obj" in m.groupdict() else next(g for g in m.groups() if g)))
        if not obj or _REACTION.match(obj) or len(obj.split()) > 5:
            return []
        low = re.sub(r"^(?:an?|the|my|proper|good|decent|real)\s+", "", obj, flags=re.I)
        low = re.sub(r"^(?:proper|good|decent|real|nice)\s+", "", low, flags=re.I)
        key = _preference_key(low, None)
        # "I live on a boat" is a home: living on a thing is the idiom of a staple only with an adverb
        # ("I basically live on toast") or for a known kind of thing ("I live on coffee")
        if "adv" in m.groupdict() and not (m.group("adv") or key in _CATEGORIES):
            return []
        key = key if key in _CATEGORIES else _activity_key(low)
        return [
            RuleLearning(f"The user loves {third_person(obj)}.", "preference", About("preference", key), 0.8)
        ]
    if m := _PREFER.match(s):
        choice = _value(m.group(1))
        other = _value(m.group(2)) if m.group(2) else None
        if _REACTION.match(choice) or re.match(r"^(?:you|that you|it when)\b", choice, re.I):
            return []
        key = _preference_key(choice, other)
        text = f"The user prefers {third_person(choice)}" + (
            f" over {third_person(other)}." if other else "."
        )
        return [RuleLearning(text, "preference", About("preference", key), 0.85)]
    if m := _SWITCHED_MY.match(s):
        new = _ended(_value(m.group("new")))
        if not new or _REACTION.match(new):
            return []
        head = _key(m.group("cat") or m.group("plural")).split()[-1]
        if m.group("plural") and head not in _CATEGORIES:
            return []  # "I switched sides to ..." names no category of choice
        key = head if head in _CATEGORIES else _preference_key(new, m.group("old"))
        if key not in _CATEGORIES:
            return []  # "I switched my phone to silent" names no choice the rules keep
        said = f"The user prefers {new} as their {head}." if head == key else f"The user prefers {new}."
        return [RuleLearning(said, "preference", About("preference", key), 0.8)]
    if m := _SWAPPED.match(s):
        given, new = _ended(_value(m.group(1))), _ended(_value(m.group(2)))
        if re.match(r"^(?:nothing|anything|something|it|them|one|another)\b", new, re.I):
            return []
        key = _preference_key(new, given) if new else ""
        if key not in _CATEGORIES:
            return []  # "I swapped shifts with Ana" names no choice the rules keep
        return [
            RuleLearning(
                f"The user prefers {third_person(new)}.", "preference", About("preference", key), 0.8
            )
        ]
    if m := _LOST_LIKING.match(s):
        obj = _ended(_value(m.group(1)))
        if not obj or _REACTION.match(obj) or len(obj.split()) > 5 or re.match(r"^(?:my|our)\b", obj, re.I):
            return []  # a liking is of a thing in general: "grown out of my shoes" is no liking lost
        key = _preference_key(obj, None)
        key = key if key in _CATEGORIES else _activity_key(obj)
        return [
            RuleLearning(
                f"The user is no longer interested in {third_person(obj)}.",
                "preference",
                About("preference", key),
                0.8,
            )
        ]
    if m := _SWITCHED.match(s):
        old, new = (_value(m.group(1)) if m.group(1) else None), _ended(_value(m.group(2)))
        if not new or _REACTION.match(new):
            return []
        key = _preference_key(new, old)
        if key == _key(new) and old is None:
            return []  # "I switched to X" says nothing stable unless X has a known category
        if re.match(r"^i(?: have)?\s+(?:\w+\s+)?moved\b", s, re.I) and key not in _CATEGORIES:
            return []  # "I've moved to Seville for a job" is a home: only a known kind of thing is a choice
        return [
            RuleLearning(
                f"The user prefers {third_person(new)}.", "preference", About("preference", key), 0.8
            )
        ]
    if (m := _DRINK.match(s)) and (obj := _ended(_value(m.group(1)))) and not _NOT_A_DRINK.match(obj):
        return [RuleLearning(f"The user drinks {obj}.", "preference", About("preference", "drink"), 0.75)]
    if (m := _USE.match(s)) and (key := _preference_key(_value(m.group(1)), None)) in _CATEGORIES:
        obj = _value(m.group(1))
        return [RuleLearning(f"The user uses {obj}.", "preference", About("preference", key), 0.75)]
    if (m := _X_FAN.match(s)) and not re.fullmatch(
        r"(?:not|no|bit|real|big|huge|massive|true|keen|lifelong|die-hard|diehard|such a|such|an?|morning|"
        r"heavy|total|complete|serious|self-confessed|"
        r"night|people)",
        m.group(1),
        re.I,
    ):
        obj, noun = m.group(1), m.group("noun").lower()
        key = _preference_key(obj, None)
        if noun in {"user", "drinker"} and key not in _CATEGORIES:
            return []  # "a heavy user" names nothing the rules keep
        # "a Diet Coke addict" takes a kind of thing as a drinker does; "a chocolate addict" is a fan
        if noun in {"user", "person", "drinker"} or (noun in {"addict", "fiend"} and key in _CATEGORIES):
            # "a Vim user", "more of a tea person": one who uses or takes a kind of thing prefers it
            said = f"The user uses {obj}." if noun == "user" else f"The user is {_a(obj)} {noun}."
            return [RuleLearning(said, "preference", About("preference", key), 0.8)]
        return [
            RuleLearning(
                f"The user is a fan of {obj}.", "preference", About("preference", _activity_key(obj)), 0.8
            )
        ]
    if m := _FAN.match(s):
        negative = bool(re.search(r"\bnot\b", s, re.I))
        obj = re.split(r"\s+than\s+", _value(m.group(2)), maxsplit=1)[0]  # "more into X than Y" is into X
        # an activity begun is a bare noun or gerund: "taken up running", not "got into Oxford" or "the offer"
        begun = re.sub(r"\s+(?:really|so|properly|seriously)\b", "", m.group(1).lower()) in {
            "got into",
            "gotten into",
            "taken up",
            "took up",
            "fallen in love with",
        }
        obj = _ended(" " + obj) if begun else obj
        if not obj or _REACTION.match(obj):
            return []
        if begun and (
            not obj[:1].islower() or re.match(r"^(?:a|an|the|my|our|this|that|trouble|debt|bed)\b", obj, re.I)
        ):
            return []
        text = f"The user is {'not ' if negative else ''}a fan of {third_person(obj)}."
        return [RuleLearning(text, "preference", About("preference", _activity_key(_ended(obj))), 0.8)]
    if m := _LIKE.match(s):
        verb, obj = m.group(1).lower(), _value(m.group(2))
        if (
            not obj
            or _REACTION.match(obj)
            or obj.lower().startswith(("to hear", "how ", "what ", "the way you"))
            # "I'm enjoying the book": a progressive liking of a thing at hand is no liking in general
            or (verb.startswith("am ") and re.match(r"^(?:the|this|that|my|your|our|his|her)\b", obj, re.I))
        ):
            return []
        phrase = {
            "don't like": "does not like",
            "do not like": "does not like",
            "can't stand": "cannot stand",
            "cannot stand": "cannot stand",
            "don't enjoy": "does not enjoy",
            "do not enjoy": "does not enjoy",
            "can't get enough of": "loves",
            "am loving": "loves",
            "am enjoying": "enjoys",
            "cannot get enough of": "loves",
        }
        said = phrase.get(verb, conjugate(verb))
        return [
            RuleLearning(
                f"The user {said} {third_person(obj)}.",
                "preference",
                About("preference", _activity_key(_ended(obj) or obj)),
                0.8,
            )
        ]
    return []


# The verbs that only carry an activity: "playing chess" and "chess" are one subject, as are "going to
# the theatre" and "the theatre".
_LIGHT_VERB = re.compile(r"^(?:playing|doing|going to|going|practising|practicing)\s+(?=\S)", re.I)


def _activity_key(phrase: str) -> str:
    return _key(_LIGHT_VERB.sub("", phrase.strip(), count=1))


# "I don't play chess anymore", read without its negation: a verb no other rule reads, with a short
# object, is an activity; its subject is the activity's, so it ends a kept "I love playing chess".
# an adverb before the verb is no part of the activity: "I don't really play badminton anymore"
_ACTIVITY = re.compile(
    r"^i\s+(?:(?:really|still|even|actually|much|often|usually)\s+)?([a-z]+)\b\s*(.*)$", re.I
)
_NOT_ACTIVITY = frozenset(
    (
        "am|is|are|was|were|be|been|have|has|had|get|got|need|want|know|think|feel|see|hear|like|love|"
        "mind|care|remember|understand|believe|mean|own|live|work|eat|drink|use|can|could|will|would|"
        "should|must|may|might|shall|do|does|did|say|said|go|went|make|made|take|took|keep|find|give|"
        "let|seem|look|trust|recognise|recognize|agree|wish|hope|expect|blame"
    )
    .strip("|")
    .split("|")
)
_NOT_OBJECT = re.compile(
    r"\b(?:it|them|him|her|that|this|you|anything|anyone|anybody|much|so|well|there|here|any|that much)\b",
    re.I,
)


def _activity(s: str) -> list[RuleLearning]:
    m = _ACTIVITY.match(s)
    if not m:
        return []
    # the object ends where a time phrase or a reason begins, even as the first word ("since the accident")
    verb, obj = m.group(1).lower(), _ended(" " + _value(m.group(2)))
    light = verb in {"do", "go"} and bool(obj) and not _NOT_OBJECT.search(obj)
    if (verb in _NOT_ACTIVITY and not light) or verb.endswith("ed") or len(obj.split()) > 4:
        return []
    if obj and (_NOT_OBJECT.search(obj) or not re.fullmatch(r"[\w' -]+", obj)):
        return []
    phrase = f"{_gerund(verb)} {obj}".strip()
    said = f"The user {conjugate(verb)}" + (f" {third_person(obj)}." if obj else ".")
    return [RuleLearning(said, "preference", About("preference", _activity_key(phrase)), 0.75)]


def _a(noun: str) -> str:
    return ("an " if noun[:1].lower() in "aeiou" else "a ") + noun


def _gerund(verb: str) -> str:
    """play -> playing, cycle -> cycling, swim -> swimming, ski -> skiing."""
    if verb.endswith("ie"):
        return verb[:-2] + "ying"
    if verb.endswith("e") and not verb.endswith(("ee", "ye", "oe")):
        return verb[:-1] + "ing"
    if re.fullmatch(r"[^aeiou]*[aeiou][^aeiouwxy]", verb):
        return verb + verb[-1] + "ing"  # one syllable ending consonant-vowel-consonant: swim, run, jog
    return verb + "ing"


def _preference_key(choice: str, other: str | None) -> str:
    # the thing itself, without what follows it ("tea in the afternoons" is about tea)
    low = re.split(r"\s+(?:in|on|at|for|with|when|while|during|after|before|every)\s+", choice.lower())[0]
    for category, members in _CATEGORIES.items():
        if low in members or (other and other.lower() in members):
            return category
    # a tool's name with a product word after it is the tool: "Sublime Text", "IntelliJ IDEA"
    if choice[:1].isupper() and len(low.split()) == 2 and low.split()[0] in _CATEGORIES["editor"]:
        return "editor"
    # a modifier keeps a drink a drink: "rooibos tea", "iced oat lattes"
    head = re.sub(r"(?<=[^s])s$", "", low.split()[-1]) if low.split() else ""
    if any(head == m or low.endswith(f" {m}") or low.endswith(f" {m}s") for m in _CATEGORIES["drink"]) and (
        len(low.split()) <= 4
    ):
        return "drink"
    if other:
        return " vs ".join(sorted([_key(choice), _key(other)]))
    m = re.search(r"\bfor\s+(.+)$", choice.lower())
    return _key(m.group(1)) if m else _key(choice)
