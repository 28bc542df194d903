"""Relationships, family members and pets, with their names."""

from __future__ import annotations

import re
from datetime import datetime

from tinymemory.api import About
from tinymemory.lifecycle.rules.english import _NAME_RUN, _NAME_WORD, _TRAIL
from tinymemory.lifecycle.rules.learning import RuleLearning
from tinymemory.retrieval.answer import MONTH_NAMES

# relationships, family, pets ----------------------------------------------------------------------------

_UNIQUE_KIN = {
    "mom": "mother",
    "mum": "mother",
    "mother": "mother",
    "mommy": "mother",
    "dad": "father",
    "father": "father",
    "daddy": "father",
    "wife": "wife",
    "husband": "husband",
    "spouse": "spouse",
    "partner": "partner",
    "girlfriend": "girlfriend",
    "boyfriend": "boyfriend",
    "fiance": "fiance",
    "fiancé": "fiance",
    "fiancee": "fiancee",
    "fiancée": "fiancee",
    "stepmother": "stepmother",
    "stepfather": "stepfather",
    "stepmom": "stepmother",
    "stepdad": "stepfather",
}
# longest first, so that an alternation never takes "gran" out of "grandson"
_KIN_WORDS = (
    "sister|brother|son|daughter|child|kid|baby|cousin|aunt|uncle|niece|nephew|grandmother|grandfather|"
    "grandma|grandpa|granny|nana|nan|gran|grandad|granddad|auntie|aunty|grandson|granddaughter|grandchild|"
    "little one|"
    "twin|stepson|stepdaughter|stepsister|stepbrother|sibling|in-law|sister-in-law|brother-in-law|"
    "mother-in-law|father-in-law"
)
_KIN = "|".join(
    sorted(
        _KIN_WORDS.split("|") + list(_UNIQUE_KIN),
        key=len,
        reverse=True,
    )
)
_PETS = (
    "dog|puppy|pup|cat|kitten|rabbit|bunny|hamster|parrot|budgie|bird|fish|goldfish|turtle|tortoise|"
    "horse|pony|guinea pig|snake|lizard|ferret|gecko|chinchilla|rat|mouse|hedgehog|cockatiel|pig|goat|"
    "tomcat|tom|moggy|moggie|mutt|pooch|kitty|"
    # a coat or a breed names the animal as its kind does: "my old tabby Marzipan", "our beagle Rolo"
    "tabby|labrador|retriever|spaniel|terrier|poodle|collie|beagle|greyhound|whippet|dachshund|pug|husky|"
    "hen|chicken|duck"
)
_MY_KIN = re.compile(
    rf"^(?i:my|our)\s+(?i:(?:little|big|older|younger|baby|eldest|oldest|youngest|twin|new|late)\s+)?"
    rf"(?i:({_KIN}))(?i:'s name is\s+|'s\s+(?:called|named)\s+|\s+is\s+(?:called\s+|named\s+)?|,\s*|"
    rf"\s+(?:is\s+)?(?:called|named)\s+|\s+)"
    rf"({_NAME_RUN})\b(.*)$"
)
_NATIONALITY = re.compile(
    r"(?:ese|ish|ean|ic|ch)$|^(?:American|Italian|Canadian|Indian|Brazilian|Mexican|German|Russian|Korean|"
    r"African|Asian|European|Australian|Christian|Catholic|Jewish|Muslim|Hindu|Buddhist|Cuban|Chilean|"
    r"Peruvian|Colombian|Argentinian|Argentine|Nigerian|Kenyan|Ukrainian|Iranian|Egyptian|Moroccan|Thai|"
    r"Greek|Dutch|French|Swiss|British|English|Irish|Scottish|Welsh|Spanish)$"
)
_KIN_IS_MINE = re.compile(
    rf"^({_NAME_RUN})(?:\s+is|\s*,)\s+(?i:my|our)\s+(?i:(?:little|big|older|younger)\s+)?(?i:({_KIN}|{_PETS}))"
    r"(?:\s*$|\s*,)"
)
_HAVE_KIN = re.compile(
    rf"^(?:i|we)\s+(?:have|'ve got|have got|had)\s+(?:(?:an?|one|two|three|four|five|\d+)\s+|(?=twins?\b))"
    rf"(?:(?:little|big|older|younger|baby|twin|grown-up)\s+)?({_KIN}|boy|girl)s?\s*(?:,|:|named|called|-)?\s*(.+)$",
    re.I,
)
# children one has, by sex: "I've got three boys" are sons
# and twins one has, said as the head noun ("I have twins"), are children; "my twin" is a sibling
_CHILD = {"boy": "son", "girl": "daughter", "twin": "child"}
_PET_OWN = re.compile(
    rf"^(?:i|we)\s+(?:(?:just|recently|finally)\s+)?(?:have|'ve got|have got|got|adopted|rescued|"
    rf"brought home|bought)\s+(?:an?|one|two|three|\d+|a new|a little)\s+(?:(?:new|little|baby|"
    rf"rescue|\w+)\s+)?({_PETS})s?\s*(?:,|:|named|called|-)?\s*(.+)$",
    re.I,
)
_MY_PET = re.compile(
    rf"^(?i:my|our)\s+(?i:(?:[a-z-]+\s+){{0,2}}?)(?i:({_PETS}))"
    rf"(?i:'s name is\s+|'s\s+(?:called|named)\s+|\s+is\s+an?\s+[a-z-]+(?:\s+[a-z-]+)?\s+(?:called|named)\s+|"
    rf"\s+is\s+(?:called\s+|named\s+)?|,\s*|"
    rf"\s+(?:is\s+)?(?:called|named)\s+|\s+)({_NAME_RUN})\b(.*)$"
)
# "My cats are called Salt and Pepper": pets of one kind named together
_MY_PETS = re.compile(
    rf"^(?i:my|our)\s+(?i:(?:[a-z-]+\s+){{0,2}}?)(?i:(?P<kind>{_PETS}))s\s+(?i:are\s+(?:called|named))\s+(?P<names>.+)$"
)
# "We rescued a greyhound named Dash", "I have a border collie called Tess": a creature adopted, rescued
# or had, and named, is a pet whatever its kind; a person or a made thing ("a band called ...") is not
_ADOPTED_NAMED = re.compile(
    rf"^(?i:i|we)\s+(?i:have\s+)?(?i:(?:just|recently|finally)\s+)?(?P<verb>(?i:adopted|rescued|took in|"
    rf"brought home|have|have got|got|keep))\s+(?i:an?|one)\s+"
    rf"((?i:[a-z-]+)(?:\s+(?i:[a-z-]+))?)\s+(?i:named|called)\s+({_NAME_RUN})\b"
)
_NOT_A_PET = re.compile(
    r"\b(?:man|woman|guy|girl|boy|lady|person|tutor|teacher|coach|doctor|nurse|student|pupil|patient|"
    r"employee|intern|nanny|babysitter|cleaner|lawyer|accountant|trainer|penpal|car|van|boat|bike|plant|"
    r"band|podcast|blog|channel|company|business|shop|cafe|restaurant|project|app|startup|house|song|book|"
    r"novel|film|game|show|group|club|account|website|site|newsletter|brand|product|tool|robot|server)s?$",
    re.I,
)
_DIED = re.compile(r"\b(?:passed away|died|passed|was put down|had to be put down|is gone)\b", re.I)
_LOST_PET = re.compile(
    rf"^(?:i|we)\s+(?:(?:just|recently|sadly)\s+)?"
    rf"(?P<verb>lost|had to put down|said goodbye to|had to say goodbye to|rehomed|had to rehome|gave away|"
    rf"had to give away|found a new home for)\s+(?:my|our)\s+"
    rf"(?:(?:old|little|beloved|sweet)\s+)?({_PETS}|{_KIN}),?\s+({_NAME_RUN})\b",
    re.I,
)
# A relationship state after the user, "we", or a two-person subject ("Noor and I", "my husband and I",
# "me and my girlfriend"): a state adjective after a form of "be" or "get" ("are getting divorced", "got
# engaged", "are separated"), or a verb of parting ("broke up", "have split up").
_RELATIONSHIP = re.compile(
    rf"^(?:i|we|(?:(?P<name>{_NAME_RUN})|(?:my|our)\s+(?:{_KIN})(?:\s+(?P<name3>{_NAME_RUN}))?)\s+and\s+i|"
    rf"me\s+and\s+(?:(?P<name2>{_NAME_RUN})|(?:my|our)\s+(?:{_KIN})))\s+"
    r"(?:(?:just|recently|finally|officially|now|still|happily)\s+)*"
    r"(?:(?:am|are|is|'m|'re)\s+(?:(?:now|still|officially|finally|happily|recently)\s+)*"
    r"(?:(?P<getting>getting)\s+)?|(?P<got>got|get)\s+|(?:have|has)\s+been\s+|have\s+|has\s+)?"
    r"(?P<state>married|remarried|re-married|engaged|divorced|separated|single|widowed|together|dating|seeing|"
    r"in a relationship|broke up|split up|broken up|"
    # idioms of marrying, "going out with", partings in progress and partings decided
    r"tied the knot|hitched|eloped|going out|going steady|separating|splitting up|breaking up|"
    r"divorcing|getting a divorce|split(?=\s*$|\s+(?:in|last|this|on|after|a|two|recently|for good)\b)|"
    r"(?:broke|broken|called)\s+off\s+(?:the|our|my)\s+(?:engagement|wedding)|"
    # a divorce completed: "we finalised our divorce", "my divorce came through"
    r"(?:finali[sz]ed|completed)\s+(?:our|my|the)\s+divorce|"
    # back together, a couple, separate ways
    r"back together|(?:officially\s+)?a couple|(?:went|gone)\s+(?:our|their)\s+separate\s+ways|"
    r"called it a day|called it quits|parted ways|"
    r"(?:decided|agreed|chosen)\s+to\s+(?:separate|split up|divorce|"
    r"get divorced|break up|go our separate ways|call it quits))\b(?P<rest>.*)$",
    re.I,
)
# "My girlfriend dumped me", "Ana left me": a partner parting from the user
_PARTNER = r"(?:girlfriend|boyfriend|partner|wife|husband|fiance|fiancé|fiancee|fiancée)"
_DUMPED = re.compile(
    rf"^(?i:my|our)\s+(?i:{_PARTNER})(?:\s+(?P<name>{_NAME_RUN}))?\s+"
    r"(?i:has\s+|just\s+)*(?i:dumped|left|broke up with|walked out on|split up with|"
    r"ended (?:it|things) with)\s+"
    r"(?i:me)\b(?!\s+(?i:a|an|the|some|my|alone)\b)"
)
# "I popped the question and she said yes": a proposal accepted is an engagement
_PROPOSED = re.compile(
    rf"^(?i:i)\s+(?i:finally\s+|just\s+)?(?i:popped the question|proposed)"
    rf"(?:\s+(?i:to)\s+(?P<name>{_NAME_RUN}))?",
)
# "the divorce went through", "my divorce came through", "our divorce is final": a divorce completed,
# said of the divorce itself, is the user divorced
_DIVORCE_DONE = re.compile(
    r"^(?:the|my|our)\s+divorce\s+(?:has\s+|have\s+|finally\s+|just\s+)*"
    r"(?:went through|gone through|came through|come through|(?:is|was|has been)\s+"
    r"(?:now\s+)?(?:finali[sz]ed|final|official|through|done))\b",
    re.I,
)
_STATE_TEXT = {
    "together": "is in a relationship",
    "seeing": "is dating",
    "broken up": "broke up",
    "broke up": "broke up",
    "split up": "broke up",
    "split": "broke up",
    "back together": "is in a relationship",
    "a couple": "is in a relationship",
    "officially a couple": "is in a relationship",
    "tied the knot": "is married",
    "remarried": "is married",
    "re-married": "is married",
    "hitched": "is married",
    "eloped": "is married",
    "going out": "is dating",
    "going steady": "is dating",
    "separating": "is separating",
    "splitting up": "is breaking up",
    "breaking up": "is breaking up",
    "divorcing": "is getting divorced",
    "getting a divorce": "is getting divorced",
}
_PARTING = {"broke up", "split up", "broken up", "split", "splitting up", "breaking up"}
# a parting decided is a parting under way: "we have decided to separate" -> "is separating"
_DECIDED = {
    "separate": "separating",
    "split up": "splitting up",
    "divorce": "divorcing",
    "get divorced": "divorcing",
    "break up": "breaking up",
    "go our separate ways": "separating",
    "call it quits": "breaking up",
}
_PARTNER_PREP = {
    "married": "to",
    "remarried": "to",
    "re-married": "to",
    "engaged": "to",
    "divorced": "from",
    "separated": "from",
    "broke up": "with",
    "split up": "with",
    "in a relationship": "with",
    "together": "with",
    "back together": "with",
    "a couple": "with",
    "officially a couple": "with",
    "dating": "",
    "seeing": "",
    "tied the knot": "to",
    "hitched": "to",
    "eloped": "with",
    "going out": "",
    "going steady": "",
    "separating": "from",
    "splitting up": "with",
    "breaking up": "with",
    "divorcing": "from",
    "getting a divorce": "from",
}


def _relationship(m: re.Match[str]) -> list[RuleLearning]:
    state = " ".join(m.group("state").lower().split())
    if state in _PARTING and re.match(
        r"^\s*(?:the|a|an|our|my|their|it|them|this|that)\b", m.group("rest"), re.I
    ):
        return []  # "we split up the tasks": a parting verb with an object parts a thing, not a couple
    if re.match(r"^(?:called it a day|called it quits|parted ways)$", state):
        if re.match(r"^(?:i|we)\s", m.group(0), re.I):
            return []  # "we called it a day" may end a day's work: a parting needs the two people named
        state = "broke up"
    if re.match(r"^(?:went|gone) (?:our|their) separate ways$", state):
        state = "broke up"
    if re.match(r"^(?:finali[sz]ed|completed) ", state):
        state = "divorced"
    if re.match(r"^(?:broke|broken|called) off ", state):
        state = "broke up"  # an engagement or a wedding called off is a parting
    if d := re.match(r"^(?:decided|agreed|chosen) to (.+)$", state):
        state = _DECIDED[d.group(1)]
    pair = m.group("name") or m.group("name2") or m.group("name3")
    if state == "together" and re.match(r"^(?:i|we)\s", m.group(0), re.I):
        return []  # "together" needs the two people named: "we are together in this" is no relationship
    said = f"is getting {state}" if m.group("getting") else _STATE_TEXT.get(state, f"is {state}")
    rest = _TRAIL.sub("", m.group("rest")).strip()
    # the partner by name, perhaps described first: "to Ana", "a woman named Ana", "someone called Ana"
    who = re.match(
        rf"^(?:(?:to|with|from)\s+)?(?:(?:a|an|this|someone|somebody)\s+(?:[a-z'-]+\s+){{0,3}}?"
        rf"(?:called|named)\s+|(?:my|our)\s+(?:{_KIN})\s+)?({_NAME_RUN})\b",
        rest,
        re.I,
    )
    # or in a clause set beside it: "seeing someone now, his name's Mateo"
    apposed = re.search(rf",\s*(?:his|her|their)\s+name(?:'s|\s+is)\s+({_NAME_RUN})\b", rest)
    name = pair or (who.group(1) if who else None) or (apposed.group(1) if apposed else None)
    if name and name.split()[0] in {"I", "We", "My", "Me", "Our"}:
        name = None
    if said == "is dating" and not name:
        return []  # "I'm seeing the dentist" is an appointment, not a partner
    prep = _PARTNER_PREP.get(state, "")
    text = f"The user {said}" + (f"{' ' + prep if prep else ''} {name}." if name else ".")
    return [RuleLearning(text, "fact", About("profile", "relationship"), 0.8)]


def _names_in(text: str) -> list[str]:
    """The names listed at the start of `text`: "Ana and Rui, who ..." -> ["Ana", "Rui"]."""
    head = re.split(
        r"\s+(?:who|that|which|whom)\b|[.;]|"
        r",?\s+(?:in|from|at|near|of|on|with|for|by|out in|over in|back in)\s",
        text,
        maxsplit=1,
    )[0]
    names = re.findall(rf"\b({_NAME_RUN})\b", head)
    stop = {"I", "We", "My", "Our", "They", "He", "She", "The"}
    return [n for n in names if n.split()[0] not in stop][:6]


def _kin_key(rel: str) -> tuple[str, bool]:
    low = rel.lower()
    if low in _UNIQUE_KIN:
        return _UNIQUE_KIN[low], True
    return _FAMILIAR.get(low, low), False


# the familiar forms of a kinship word, keyed under the plain one
_FAMILIAR = {
    "kid": "child",
    "little one": "child",
    "grandma": "grandmother",
    "granny": "grandmother",
    "nana": "grandmother",
    "nan": "grandmother",
    "gran": "grandmother",
    "grandpa": "grandfather",
    "grandad": "grandfather",
    "granddad": "grandfather",
    "auntie": "aunt",
    "aunty": "aunt",
}


def _kin_learning(rel: str, name: str) -> RuleLearning:
    name = re.sub(r"'s$", "", name)  # "my brother Sean's car": the possessive is not part of the name
    key, unique = _kin_key(rel)
    about = About("family", key if unique else f"{key} {name.lower()}")
    return RuleLearning(f"The user's {rel.lower()} is {name}.", "fact", about, 0.85, named=name)


def named_creature(kind: str, name: str, had: bool = True) -> RuleLearning | None:
    """A pet of any kind, named: not a person, a relative, or (when only had, not adopted or rescued) a
    made thing ("a band called ...")."""
    if _PEOPLE.search(kind) or re.search(rf"\b(?:{_KIN}|girl|boy|child|kid)s?\b", kind, re.I):
        return None
    if had and _NOT_A_PET.search(kind):
        return None
    return _pet_learning(kind, name)


def _pet_learning(animal: str, name: str) -> RuleLearning:
    kind = animal.lower()
    article = "an" if kind[:1] in "aeio" else "a"  # "an axolotl", "an iguana"; "a unicorn" keeps "a"
    return RuleLearning(
        f"The user has {article} {kind} named {name}.", "fact", About("pet", name.lower()), 0.85, named=name
    )


# "My sister Leonie just had a baby boy, Felix": a child born to the user's sibling
_SIBLING_BABY = re.compile(
    rf"^(?i:my|our)\s+(?i:(?:little|big|older|younger|baby|twin)\s+)?(?P<sib>(?i:sister|brother))"
    rf"(?:\s+(?P<sibname>{_NAME_RUN}))?\s+(?i:has\s+)?(?i:(?:just|recently|finally)\s+)?(?i:had|welcomed)\s+"
    rf"(?i:a)\s+(?i:(?:beautiful|healthy|little|new)\s+)?(?i:baby\s+)?(?P<sex>(?i:girl|boy|daughter|son))\s*,?\s+"
    rf"(?i:(?:called|named)\s+)?(?P<name>{_NAME_RUN})\b"
)
# "We welcomed a baby girl, Ivy", "I had a baby boy called Max": a child born, by sex, with the name
_BABY = re.compile(
    rf"^(?i:i|we)\s+(?i:have\s+)?(?i:(?:just|recently|finally)\s+)?(?i:welcomed|had)\s+(?i:a)\s+"
    rf"(?i:(?:beautiful|healthy|little|new)\s+)?(?i:baby\s+)?(?P<sex>(?i:girl|boy|daughter|son))\s*,?\s+"
    rf"(?i:(?:called|named)\s+)?(?P<name>{_NAME_RUN})\b"
)


# "There's a ginger tom called Nacho who rules our house": a pet said to be there, in the user's home
_THERE_IS_PET = re.compile(
    rf"^(?i:there is|there's)\s+(?i:an?)\s+(?i:(?:[a-z-]+\s+){{0,2}}?)(?P<kind>(?i:{_PETS}))\s+"
    rf"(?i:called|named)\s+(?P<name>{_NAME_RUN})\b(?P<rest>.*)$"
)
_OURS = re.compile(
    r"\b(?:our|my)\s+(?:house|home|flat|place|family|household|garden)\b|\bat home\b|\bwith us\b", re.I
)
# "And a corgi, Waffles, who's a diva": a pet added to a list the user is giving, without a verb of its own
_AND_A_PET = re.compile(
    rf"^(?i:and|also|plus)\s+(?i:an?)\s+(?i:(?:[a-z-]+\s+){{0,2}}?)(?P<kind>[a-z-]+)\s*,\s*"
    # the name may come in a clause of naming: "plus a ragdoll, her name's Biscotti"
    r"(?:(?i:(?:her|his|its)\s+name(?:'s|\s+is)|(?:she|he|it)(?:'s|\s+is)\s+(?:called|named))\s+)?"
    rf"(?P<name>{_NAME_RUN})\s*(?:,\s*(?i:who|which|that)\b.*)?$"
)

# "Oh and two guinea pigs as well, Hazel and Nutmeg": several of a kind, counted, then named
_AND_PETS = re.compile(
    r"^(?i:(?:oh\s+)?(?:and|also|plus))\s+(?i:two|three|four|five|\d)\s+(?i:(?:[a-z-]+\s+){0,2}?)"
    # a plural the same as its singular counts too: "two goldfish"
    rf"(?:(?P<kind>(?i:{_PETS})|[a-z-]+?)s|(?P<same>(?i:fish|goldfish|sheep)))(?:\s+(?i:as well|too))?\s*,\s*"
    rf"(?P<names>{_NAME_WORD}(?:\s*,\s*{_NAME_WORD})*\s+and\s+{_NAME_WORD})"
    # a comment set off after the names: "..., Salt and Vinegar, obviously"
    r"(?:\s*,\s*(?-i:[a-z]+)(?:\s+(?-i:[a-z]+))?)?$"
)


def _family(s: str, said_at: datetime) -> list[RuleLearning]:
    if (m := _THERE_IS_PET.match(s)) and _OURS.search(m.group("rest")):
        return [_pet_learning(m.group("kind"), m.group("name"))]
    if m := _BABY.match(s):
        rel = _CHILD.get(m.group("sex").lower(), m.group("sex").lower())
        return [_kin_learning(rel, m.group("name"))]
    if m := _LOST_PET.match(s):
        what, name = m.group(2), m.group(3)
        if re.search(r"home|give|gave", m.group("verb"), re.I):
            # a pet rehomed or given away is no longer the user's: not a death
            if not re.fullmatch(_PETS, what, re.I):
                return []
            text = f"The user no longer has the {what.lower()} {name}."
            return [RuleLearning(text, "fact", About("pet", name.lower()), 0.8)]
        if re.fullmatch(_PETS, what, re.I):
            return [
                RuleLearning(
                    f"The user's {what.lower()} {name} died.", "fact", About("pet", name.lower()), 0.8
                )
            ]
        key, unique = _kin_key(what)
        return [
            RuleLearning(
                f"The user's {what.lower()} {name} died.",
                "fact",
                About("family", key if unique else f"{key} {name.lower()}"),
                0.8,
            )
        ]
    if (m := _ADOPTED_NAMED.match(s)) and (
        creature := named_creature(
            m.group(2), m.group(3), had=m.group("verb").lower() in {"have", "have got", "got", "keep"}
        )
    ):
        # "... named Khaleesi and two axolotls, Mango and Chutney": pets added to the list after it
        return [creature, *_listed_pet(s[m.end() :])]
    if m := _MY_PETS.match(s):
        return [_pet_learning(m.group("kind"), n) for n in _names_in(m.group("names"))]
    if m := _MY_PET.match(s):
        animal, name, rest = m.group(1), m.group(2), m.group(3)
        if _DIED.search(rest):
            return [
                RuleLearning(
                    f"The user's {animal.lower()} {name} died.", "fact", About("pet", name.lower()), 0.8
                )
            ]
        return [_pet_learning(animal, name)]
    if (m := _PET_OWN.match(s)) or _HAVE_KIN.match(s):
        # "I have a dog named Rex and two cats, Luna and Milo": each quantified noun with its own names
        head = re.match(r"^(?:i|we)\s+\S+(?:\s+got)?\s+", s, re.I)
        lead = head.group(0) if head else "I have "
        parts = re.split(r",?\s+and\s+(?=(?:an?|one|two|three|four|five|\d+)\s)", s, flags=re.I)
        out: list[RuleLearning] = []
        for i, part in enumerate(parts):
            part = part if i == 0 else lead + part
            if pet := _PET_OWN.match(part):
                out += [_pet_learning(pet.group(1), n) for n in _names_in(pet.group(2))]
            elif kin := _HAVE_KIN.match(part):
                rel = _CHILD.get(kin.group(1).lower(), kin.group(1))
                if rel != kin.group(1) and re.match(r"^(?:i|we)\s+had\b", part, re.I):
                    continue  # "I had a boy in my class called Tim": boys had in the past are not sons
                out += [_kin_learning(rel, n) for n in _names_in(kin.group(2))]
        return out
    if m := _DUMPED.match(s):
        name = f" with {m.group('name')}" if m.group("name") else ""
        return [RuleLearning(f"The user broke up{name}.", "fact", About("profile", "relationship"), 0.8)]
    if m := _SIBLING_BABY.match(s):
        # a sibling's son is a nephew, a daughter a niece
        sex = m.group("sex").lower()
        rel = "nephew" if sex in {"boy", "son"} else "niece"
        sibling = [_kin_learning(m.group("sib"), m.group("sibname"))] if m.group("sibname") else []
        return [*sibling, _kin_learning(rel, m.group("name"))]
    if _DIVORCE_DONE.match(s):
        return [RuleLearning("The user is divorced.", "fact", About("profile", "relationship"), 0.8)]
    if (m := _PROPOSED.match(s)) and re.search(r"\bsaid yes\b", s, re.I):
        name = f" to {m.group('name')}" if m.group("name") else ""
        return [RuleLearning(f"The user is engaged{name}.", "fact", About("profile", "relationship"), 0.8)]
    if m := _RELATIONSHIP.match(s):
        return _relationship(m)
    # "my partner Jo and I live in ..." is a subject of two: the clause's verb says the fact, and the
    # relative named in it is kept beside it
    if (
        (m := _MY_KIN.match(s))
        and not _NATIONALITY.search(m.group(2))
        and not re.match(r"^\s*and\s+i\b", m.group(3), re.I)
    ):
        rel, name, rest = m.group(1), m.group(2), m.group(3)
        if _DIED.search(rest):
            key, unique = _kin_key(rel)
            about = About("family", key if unique else f"{key} {name.lower()}")
            return [RuleLearning(f"The user's {rel.lower()} {name} died.", "fact", about, 0.8)]
        return [_kin_learning(rel, name)]
    if (m := _KIN_IS_MINE.match(s)) and m.group(1).split()[0] not in _NOT_A_NAME:
        if re.fullmatch(_PETS, m.group(2), re.I):
            return [_pet_learning(m.group(2), m.group(1))]
        return [_kin_learning(m.group(2), m.group(1))]
    return []


_PEOPLE = re.compile(
    r"\b(?:friend|friends|coworker|co-worker|colleague|colleagues|boss|manager|neighbou?r|roommate|"
    r"flatmate|classmate|teammate|teacher|doctor|landlord|client|clients|team|company|kids|children|"
    r"family|parents|mentor|therapist)\b",
    re.I,
)


# "I spent the weekend with my nephew Arlo": a relative named inside a first-person clause
_KIN_NAMED = re.compile(
    rf"\b(?i:my|our)\s+(?i:(?:little|big|older|younger|baby|eldest|oldest|youngest|twin|new|late)\s+)?"
    rf"(?i:({_KIN}))\s+({_NAME_RUN})\b"
)
_NOT_A_NAME = frozenset(
    [
        "Monday",
        "Tuesday",
        "Wednesday",
        "Thursday",
        "Friday",
        "Saturday",
        "Sunday",
        *MONTH_NAMES,
        "I",
    ]
)


_PET_NAMED = re.compile(
    rf"\b(?i:my|our)\s+(?i:(?:new|little|old|rescue|sweet)\s+)?(?i:({_PETS}))\s*,?\s+({_NAME_RUN})\b"
)


# "we share a flat with a cat called Pickles": a pet with its kind and name inside a clause about the user
_A_PET_NAMED = re.compile(
    rf"\b(?i:with|have|has|got)\s+(?i:an?|one|our|my)\s+(?i:[a-z-]+\s+)?(?i:({_PETS}))\s+(?i:called|named)\s+"
    rf"({_NAME_RUN})\b"
)


def _kin_named_in(s: str) -> list[RuleLearning]:
    """Every "my <relative> <Name>" and "our <pet>, <Name>" inside a clause whose subject is the user
    (or the user and someone: "my partner and I ...")."""
    # the user's clause, or one about a named relative's thing ("my brother Sean's birthday is ...")
    own = re.match(rf"^(?i:my|our)\s+(?i:{_KIN})\s+[A-Z][\w-]*'s\s", s)
    # "she's brought my niece Saoirse along": a relative the user names as theirs, in someone else's clause
    if not (own or re.match(r"^(?:i|we|she|he|they)\b|^[\w' ]{1,30}?\band i\b", s, re.I)):
        return []
    kin = [
        _kin_learning(m.group(1), m.group(2))
        for m in _KIN_NAMED.finditer(s)
        if m.group(2).split()[0] not in _NOT_A_NAME and not _NATIONALITY.search(m.group(2))
    ]
    pets = [
        _pet_learning(m.group(1), m.group(2))
        for rx in (_PET_NAMED, _A_PET_NAMED)
        for m in rx.finditer(s)
        if m.group(2) not in _NOT_A_NAME
    ]
    return kin + pets


# "Meet Pip, our new kitten!", "This is Nico, my nephew": someone introduced by name, then by kind
_INTRO = re.compile(
    rf"^(?i:meet|this is|say hi to|say hello to)\s+({_NAME_RUN}),?\s+(?i:my|our)\s+"
    rf"(?i:(?:new|little|old|baby|rescue|older|younger|big)\s+)*(?:(?P<pet>(?i:{_PETS}))|(?P<kin>(?i:{_KIN})))"
    rf"[.!]*$"
)


def _listed_pet(sentence: str) -> list[RuleLearning]:
    """ "And a corgi, Waffles, who's a diva", "oh and two guinea pigs as well, Hazel and Nutmeg": pets
    added, by kind and name, to the user's list."""
    said = sentence.strip().rstrip(".!")
    if m := _AND_A_PET.match(said):
        kind, names = m.group("kind"), [m.group("name")]
    elif m := _AND_PETS.match(said):
        kind, names = m.group("kind") or m.group("same"), re.split(r"\s*,\s*|\s+and\s+", m.group("names"))
    else:
        return []
    # any creature, as with a named rescue; a person or a made thing is not a pet
    person = re.fullmatch(rf"(?:{_KIN}|girl|boy|child|kid)s?", kind, re.I)
    if _PEOPLE.search(kind) or _NOT_A_PET.search(kind) or person or any(n in _NOT_A_NAME for n in names):
        return []
    return [_pet_learning(kind, name) for name in names]


def _introduced(sentence: str) -> RuleLearning | None:
    m = _INTRO.match(sentence.strip())
    if m is None or m.group(1) in _NOT_A_NAME:
        return None
    return (
        _pet_learning(m.group("pet"), m.group(1))
        if m.group("pet")
        else _kin_learning(m.group("kin"), m.group(1))
    )
