"""A sentence into clauses, each cleaned to the plain form the rules read."""

from __future__ import annotations

import re

from tinymemory.lifecycle.rules.english import _FRONTED, _LEAD, _NAME_WORD
from tinymemory.lifecycle.rules.people import _KIN, _PETS

# a title's full stop ("Dr. Khan") ends no sentence
_SENTENCES = re.compile(
    r"(?<!\bDr\.)(?<!\bMr\.)(?<!\bMs\.)(?<!\bMrs\.)(?<!\bSt\.)(?<!\bProf\.)(?<!\bMx\.)(?<=[.!?])\s+|\n+"
)
# -- clauses ------------------------------------------------------------------------------------------

_SUBJECT_START = r"(?:i|i'm|i've|i'd|i'll|i am|i was|my|we|we're|we've|our)\b"
_CLAUSE_SPLIT = re.compile(
    rf"\s*;\s*|\s*(?:,\s*|\s+)(?:and|but|so|plus|though|although|while|whereas|yet)\s+(?={_SUBJECT_START}|"
    # an adverb of time may stand before the new subject: "..., but these days I'm in Braga"
    rf"(?:also|now|actually|these days|nowadays|lately|today)\s*,?\s+{_SUBJECT_START}|"
    # a clause whose object is the user is about the user too: "..., and penicillin brings me out in hives"
    rf"[\w' -]{{2,30}}?\s+(?:brings?|gives?|makes?)\s+me\b|"
    # a new subject with "the" and its verb: "..., and the divorce went through last week"
    rf"the\s+[a-z]+\s+(?:went|came|was|is|has|had|got)\b)|,\s+(?={_SUBJECT_START})|"
    # "..., and she'll kill me if I forget": a clause about someone else is cut off, so its "if" or its
    # facts are not read as the user's
    r",\s*(?:and|but)\s+(?=(?:she|he|they)(?:'ll|'s|'d|'re|\s)\b)|"
    # "..., they're seven": a comma before another person's state is a clause of its own too
    r",\s+(?=(?:she|he|they)(?:'re|'s|\s+(?:are|is|was|were))\b)|"
    # "I live in Leeds so it rains a lot", "..., so keep that in mind": a consequence with a subject of its
    # own, or an imperative, is a clause of its own ("so pescatarian, really" concludes the clause before)
    r"(?:,\s*|\s+)so\s+(?=(?:it|it's|they|he|she|you|there|that|this|these|those|the|his|her|their|your)\b|"
    r"(?:keep|bear|please|make|don't)\b|(?:[a-z]+\s+)?[a-z]+\s+(?:is|are|was|were|isn't|aren't|wasn't|weren't)\b)|"
    # "I love jazz, it's so relaxing", "call me Zee, nobody uses my full name": a comma before a comment
    # with a subject of its own; a day said after "it's" ("..., it's 14 September") stays with its clause
    r",\s+(?=(?:it's|it is|that's|that is|that was|it was)\s+"
    r"(?!\d|the\s+\d|on\b|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b)|"
    r"(?:nobody|no one|everyone|everybody)\b|(?:it|that)\s+(?:keeps|makes|helps|gives|gets)\s+me\b)|"
    # "that's too much, reply in English again": a comma before an imperative of answering in a language
    r",\s+(?=(?:please\s+)?(?:answer|reply|respond)\s+(?:to\s+me\s+)?in\s+(?-i:[A-Z]))",
    re.I,
)
# A verb that continues the subject of the clause before it: "I live in X and work as a Y".
_ELLIPSIS_VERBS = (
    r"work|live|love|like|prefer|hate|enjoy|have|am|study|teach|own|play|moved|relocated|quit|left|"
    r"joined|started|got|became|retired|drink|eat|go|went|run|ran|speak|use|can't|don't|do not|no longer|"
    r"never|always|switched|changed"
)
# an adverb of time may stand before it: "I left law and now work as a teacher"
_ELLIPSIS_SPLIT = re.compile(
    rf"\s*(?:,\s*|\s+)(?:and|but)\s+(?=(?:(?:now|then|later|since|also|still)\s+)?(?:{_ELLIPSIS_VERBS})\b)",
    re.I,
)

# a verb of change in the past with no subject before it, as chat writes it ("Moved to Leeds in May")
_SUBJECT_DROPPED = re.compile(
    r"^(?:(?:just|finally|recently|officially)\s+)?(?:moved|relocated|quit|left|joined|started|switched|"
    # "Turned 30 yesterday": an age reached is a change too
    r"retired|became|adopted|rescued|turned(?=\s+\d))\b(?!\s+(?:it|that|this|raining|snowing)\b)|"
    # "born 23rd Jan 1988": a birth, said without "I was"; "been single for two years", without "I have"
    r"^born(?=\s+(?:on\s+|in\s+)?(?:the\s+)?\d)|^been(?=\s+(?:single|married|engaged|divorced|separated|"
    r"widowed|together|vegan|vegetarian|pescatarian|living|working|going out|seeing|dating)\b)",
    re.I,
)
# any verb in the past, said without its subject: "Finally caved and switched editors: ..."
_PAST_FIRST = re.compile(r"^(?:(?:just|finally|recently|eventually)\s+)?[a-z]{3,}ed\b", re.I)

_CONTRACTIONS = (
    (r"\bI'm\b|\bIm\b(?=\s)", "I am"),
    (r"\bI've\b", "I have"),
    (r"\bI'd\b", "I would"),
    (r"\bI'll\b", "I will"),
    (r"\bwe're\b", "we are"),
    (r"\bwe've\b", "we have"),
    (r"\bwe'll\b", "we will"),
    (r"\bwe'd\b", "we would"),
)


# The words the rules key on, as typing on a phone misspells them: two neighbouring letters swapped ("nmae",
# "jsut") or a double letter typed once ("finaly"); the slips that spell another English word are kept as
# they are.
_KEY_WORDS = frozenset(
    [
        "name",
        "just",
        "finally",
        "moved",
        "married",
        "allergic",
        "allergy",
        "birthday",
        "favourite",
        "really",
        "actually",
        "started",
        "living",
        "working",
        "daughter",
        "husband",
        "girlfriend",
        "boyfriend",
        "recently",
        "vegetarian",
        "engaged",
        "divorced",
        "partner",
        "retired",
    ]
)


def _slips(word: str) -> set[str]:
    swapped = {word[:i] + word[i + 1] + word[i] + word[i + 2 :] for i in range(len(word) - 1)}
    once = {word[:i] + word[i + 1 :] for i in range(len(word) - 1) if word[i] == word[i + 1]}
    return (swapped | once) - {word}


_WORDS_ALREADY = frozenset(("retried", "juts"))
_MISSPELT = {
    slip: word
    for word in _KEY_WORDS
    for slip in _slips(word)
    if slip not in _KEY_WORDS and slip not in _WORDS_ALREADY
}
_WORD = re.compile(r"\b[a-z]{4,}\b")


def _spelt(s: str) -> str:
    """ "my nmae is Rahul" -> "my name is Rahul": a slip of one of the rules' own words, read as the word."""
    return _WORD.sub(lambda m: _MISSPELT.get(m.group(0), m.group(0)), s)


_NAMED_KIN = re.compile(
    rf"^(?i:my|our)\s+(?:[a-z]+\s+)?(?i:{_KIN}|{_PETS})\s*,?\s+[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)?\s*,?$"
)


# "Gareth, my husband, does the cooking": a name with its relation in apposition is "my husband Gareth"
_APPOSED = re.compile(
    rf"^(?P<name>[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)?),\s+(?P<rel>(?i:my|our)\s+(?:[a-z-]+\s+)?(?i:{_KIN}|{_PETS})),\s+"
)
# "..., she's called Luna", "...; his name is Mateo": a clause naming what the clause before introduced
_NAMED_NEXT = re.compile(
    r"^(?:(?:she|he|it|they)(?:\s+is|'s|\s+are)\s+(?:called|named)|(?:her|his|its|their)\s+name"
    r"(?:'s|\s+is))\s+(?-i:([A-Z][\w'-]*))$",
    re.I,
)


# "Dad turns 65 on ...": a parent's or grandparent's title, capitalised, as the subject is the user's own
_TITLE_SUBJECT = re.compile(
    r"^(?-i:(Mum|Mom|Mam|Dad|Grandma|Grandpa|Gran|Granny|Nan|Nana|Grandad|Granddad))(?=(?:'s)?\s+(?-i:[a-z]))"
)
# "Wife's birthday: July 9": a relative's birthday with the "my" and the verb dropped, as a heading
_KIN_BIRTHDAY_HEAD = re.compile(
    rf"^(?:(?i:my|our)\s+)?(?P<kin>(?i:{_KIN}))'s\s+(?i:birthday|bday)\s*(?:[:\u2013-]\s*|\s(?i:is)\s+)"
)
# "Me and the wife (Shona) are ...": "me and X" is "X and I", "the wife" is the user's, and a name in
# brackets after a relative is the relative's
_ME_AND = re.compile(r"^(?i:me and)\s+(?P<who>.{1,40}?)\s+(?P<verb>(?i:are|were|have|had|got|went))\b")
_THE_SPOUSE = re.compile(r"\b(?i:the)\s+(?=(?i:wife|husband|missus|missis|other half)\b)")
_BRACKETED_NAME = re.compile(rf"\b(?P<kin>(?i:{_KIN}|{_PETS}))\s*\((?P<name>{_NAME_WORD})\)")
# "Our little one, Isla, is only 2": a relative set off by the name after it is "my <relative> <Name>"
_NAME_AFTER = re.compile(
    rf"^(?P<rel>(?i:my|our)\s+(?:[a-z-]+\s+)?(?i:{_KIN}|{_PETS})),\s+(?P<name>{_NAME_WORD}),\s+(?=[a-z])"
)


def _kin_said(s: str) -> str:
    """The forms chat uses for one's relatives, in the plain form the family rules read."""
    s = _TITLE_SUBJECT.sub(r"my \1", s)
    s = _KIN_BIRTHDAY_HEAD.sub(lambda m: f"my {m.group('kin')}'s birthday is ", s)
    s = _THE_SPOUSE.sub("my ", s)
    s = _BRACKETED_NAME.sub(r"\g<kin> \g<name>", s)
    s = _NAME_AFTER.sub(r"\g<rel> \g<name> ", s)
    return _ME_AND.sub(lambda m: f"{m.group('who')} and I {m.group('verb')}", s)


def _apposed(sentence: str) -> str:
    m = _APPOSED.match(sentence)
    if m is None or m.group("name").split()[0] in {"I", "We", "My", "Our", "The", "Yes", "No", "Oh", "So"}:
        return sentence
    # a lead adverb ("Honestly, my sister, she ...") or a subject restated by a pronoun is no apposition
    rest = sentence[m.end() :]
    if m.group("name").lower().endswith("ly") or re.match(r"^(?:she|he|they|it|i|we|you)\b", rest, re.I):
        return sentence
    return f"{m.group('rel')} {m.group('name')} {rest}"


def _named_next(parts: list[str]) -> list[str]:
    """ "We brought home a greyhound; she's called Luna" -> "We brought home a greyhound named Luna"."""
    out: list[str] = []
    for part in parts:
        m = _NAMED_NEXT.match(part)
        if m and out and re.search(r"\b(?:an?)\s+(?:[\w-]+\s+){0,2}[\w-]+$", out[-1], re.I):
            out[-1] = f"{out[-1]} named {m.group(1)}"
            continue
        out.append(part)
    return out


def clauses(sentence: str) -> list[str]:
    """A sentence cut where a new first-person subject begins ("..., and I ...", "...; I ...") or where a
    verb continues the first one's subject ("I live in X and work as Y" -> "I work as Y")."""
    out: list[str] = []
    parts: list[str] = []
    for part in _CLAUSE_SPLIT.split(sentence):
        # "Sam and I ...", "My wife and I ...", "My husband Tom and I ...": a subject of one or two words,
        # or a relative or a pet with a name, is not a clause of its own
        # (a subject is a name or a determiner's phrase: "don't judge, but I ...", "surprise, and we ...",
        # "van's unpacked and I ..." are asides of their own)
        if parts and (
            (
                len(parts[-1].split()) <= 2
                and not re.match(r"^(?:i|we|don't|do not|please|not|no)\b", parts[-1], re.I)
                and re.match(r"^(?:(?i:my|our|the|his|her|their|me)\b|[A-Z])", parts[-1])
            )
            or _NAMED_KIN.match(parts[-1])
        ):
            parts[-1] = f"{parts[-1]} and {part}"
        else:
            parts.append(part)
    for part in parts:
        pieces = _ELLIPSIS_SPLIT.split(part)
        # the subject stands after a fronted time phrase: "Last month we packed up and moved to X"
        subject = re.match(r"^(i|we)\b", _FRONTED.sub("", pieces[0].strip(), count=1), re.I)
        # a first verb in the past with no subject ("Finally caved and switched ...") is the user's, as
        # chat drops it, so the verb continuing it is the user's too
        said = subject.group(1) if subject else "I" if _PAST_FIRST.match(pieces[0].strip()) else ""
        out.append(pieces[0])
        for piece in pieces[1:]:
            out.append(f"{said} {piece}" if said else piece)
    return _named_next([c for c in (_clean(p) for p in out) if c])


def _clean(raw: str) -> str:
    s = _apposed(raw.strip().rstrip(".!?").strip())
    s = _spelt(re.sub(r"[\u2019\u2018]", "'", s))
    # a pictograph says how the user feels, never what is so: "vegan for 3 years now" plus a sprout
    s = re.sub(r"\s*[\U0001F000-\U0001FAFF\u2600-\u27BF\uFE0F\u200D]+", "", s).strip()
    for pattern, full in _CONTRACTIONS:
        s = re.sub(pattern, full, s, flags=re.I)
    s = _kin_said(s)
    s = _LEAD.sub("", s).strip().strip(",;:- ")
    # a sentence adverb before the subject adds nothing either: "weirdly I've gone off purple"
    s = re.sub(r"^(?-i:[a-z]{3,}ly)\s+(?=(?i:i|we)\s)", "", s)
    # a sentence adverb set off by commas inside a clause adds nothing: "to codeine and, weirdly, to avocado"
    s = re.sub(r",\s*(?-i:[a-z]+ly)\s*,\s*", " ", s)
    # a hedge of opinion asserts the clause it frames: "these days I'd say The Thing is my favourite"
    s = re.sub(
        r"^(?:(?:these days|nowadays|now|today|honestly)\s*,?\s+)?i would say(?:\s+that)?,?\s+",
        "",
        s,
        flags=re.I,
    )
    # an adverb between the subject and its verb changes no fact: "we also have", "I'm also allergic"
    s = re.sub(
        r"^((?:i|we)(?:\s+(?:am|are|have|was|were))?)\s+(?:also|just|recently|finally|currently|still|even|"
        r"actually|now|officially|already|both|too|properly|fully|happily)\s+(?=\w)",
        r"\1 ",
        s,
        flags=re.I,
    )
    return _present(_untail(s))


_ADDITIVE_TAIL = re.compile(
    # a hedge after the statement ("so pescatarian now I suppose") asserts it, and supposes nothing
    r"(?:,?\s+(?:too|as well|also|either|as well as that|i suppose|i guess|i reckon|though)|"
    r",\s*(?:sadly|unfortunately|luckily|fortunately|"
    r"thankfully|honestly|of course|believe it or not|to make (?:things|matters|it) worse|for the record|"
    r"for what it's worth|as it happens|funnily enough|by the way|btw|lol|no going back|no regrets|"
    r"haha|always (?:has|have) been|always was|ever since)|"
    # a condition on the remark, not the fact, with or without its comma: "I'm 38, if that matters for the
    # plan", "I'm 44 btw if that changes the advice"; and a chat particle at the end
    r",?\s+(?:(?:btw|by the way|fyi)\s+)?if (?:that|it|this) "
    r"(?:matters|helps|changes|affects|makes a difference)(?:\s+[\w' -]+)?|"
    r",?\s+if you need (?:that|it|this)(?:\s+(?:for|to)\s+[\w' -]+)?|\s+(?:btw|fyi|lol|haha)|"
    # a relative clause on the whole statement comments on it: "lactose intolerant, which makes ... tricky"
    r",\s*which\s+(?:still\s+|really\s+|just\s+)?(?:makes|means|made|meant|is|was|has been|sounds|feels|"
    r"seems|looks)\b[^,]*|"
    # a sentence adverb set off after the value comments on it: "allergic to peaches, annoyingly"
    r",\s*(?-i:[a-z]+ly)(?:\s+enough)?|"
    # how often, said after the value: "a big tea drinker, three cups a day at least"
    r",\s*(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|a few|a couple of)\s+[\w-]+\s+"
    r"(?:a|per|each)\s+(?:day|week|month|night)(?:\s+(?:at least|or so|at most|tops))?)+$",
    re.I,
)


def _untail(s: str) -> str:
    """ "I'm gluten intolerant as well" -> "I am gluten intolerant": an additive particle or a comment
    at the end of a clause adds nothing to its fact."""
    return _ADDITIVE_TAIL.sub("", s).strip()


def _present(s: str, lasting: bool = False) -> str:
    """Perfect tenses that describe a state still true, read as the present the rules know: "I have been
    living in X" -> "I am living in X"; "I have lived in X for six years" -> "I live in X for six years";
    "I have been a nurse since 2019" -> "I am a nurse since 2019". A past perfect ("I had been living")
    or a perfect without a duration ("I have lived in Paris and Rome", experience) stays as it is;
    `lasting` says a duration was fronted ("Since 2019 I've been a paralegal ...")."""
    s = re.sub(
        r"^(i|we)\s+have\s+been\s+(?=\w+ing\b)", lambda m: f"{m.group(1)} {_be(m.group(1))} ", s, flags=re.I
    )
    duration = "" if lasting else r"(?=.*\s(?:for|since)\s)"
    # "I've had epilepsy since I was a teenager": a condition had for a while is one the user has; so is
    # one had "since" a time, with an article too ("I've had a peanut allergy since I was a toddler")
    s = re.sub(r"^(i|we)\s+have\s+had\s+(?=(?:a|an)\s+[^,]*\ssince\s)", r"\1 have ", s, flags=re.I)
    s = re.sub(rf"^(i|we)\s+have\s+had\s+(?!a\b|an\b|the\b|my\b|to\b){duration}", r"\1 have ", s, flags=re.I)
    s = re.sub(
        rf"^(i|we)\s+have\s+(lived|worked)\b{duration}",
        lambda m: f"{m.group(1)} {_BASE[m.group(2).lower()]}",
        s,
        flags=re.I,
    )
    return re.sub(
        rf"^(i|we)\s+have\s+been\s+(?!to\b|diagnosed\b|hired\b|promoted\b|allergic\b|with\b){duration}",
        lambda m: f"{m.group(1)} {_be(m.group(1))} ",
        s,
        flags=re.I,
    )


_BASE = {"lived": "live", "worked": "work"}


def _be(subject: str) -> str:
    return "am" if subject.lower() == "i" else "are"
