"""The user's profile: name, home and origin, employer and role."""

from __future__ import annotations

import re
from datetime import datetime

from tinymemory.api import About
from tinymemory.lifecycle.rules.english import (
    _MONTHS,
    _NAME_RUN,
    _TRAIL,
    _VALUE_END,
    _article,
    _ended,
    _is_name,
    _key,
)
from tinymemory.lifecycle.rules.learning import RuleLearning
from tinymemory.lifecycle.rules.people import _KIN, _NATIONALITY, named_creature

# names --------------------------------------------------------------------------------------------------

_LISTED_STATE = r"(?:happily\s+)?(?:married|single|engaged|divorced|separated|widowed)"
_THERE_IS_NAMED = r"there(?:'s| is)\s+(?P<what>an?\s+[\w -]+?\s+(?:called|named)\s+.+)"


# "Hi, I'm Jonas", and "hi I'm Jonas, 26, living in Graz": an introduction may list more about the user
_GREETING_NAME = re.compile(
    # "Hey, Tomasz here, 31, ...": after a greeting, a name and "here" is an introduction too
    rf"^(?i:hi|hello|hey|hiya)\b[,!.]?\s+"
    rf"(?:(?i:i'm|i am|this is)\s+(?={_NAME_RUN})|(?={_NAME_RUN}\s+(?i:here)\b))"
    rf"({_NAME_RUN})(?:\s+(?i:here))?"
    r"(?:[.!]?\s*$|,\s*(?P<rest>.+?)[.!]?$)"
)


def introduced_clauses(rest: str) -> list[str]:
    """ "26, living in Graz" after "I'm Jonas," (or after "quick facts about me:"): each item said of the
    user, a bare number as the age, a participle as what the user is doing, a verb of living or working
    as the user's, and a post held at a named organisation ("UX designer at Showpad") as the user's."""
    out: list[str] = []
    for item in re.split(r",\s*|\s+(?:and|but)\s+", rest):
        item = re.sub(r"^(?:and|plus)\s+", "", item.strip().rstrip(".!"), flags=re.I)
        if re.fullmatch(r"\d{1,3}", item) or re.match(r"^\w+ing\b", item):
            out.append(f"I am {item}")
        elif re.fullmatch(_LISTED_STATE, item, re.I):
            out.append(f"I am {item}")  # "38, married, ...": a relationship state in the list
        elif m := re.fullmatch(_THERE_IS_NAMED, item, re.I):
            out.append(f"I have {m.group('what')}")  # "there's a dog called Roxy": in a list about the user
        elif re.match(r"^(?!(?:a|an|the)\s)[a-z-]+(?:\s+[a-z-]+)?\s+(?:at|in)\s+(?:a|an|the)\s", item):
            out.append(f"I am {_article(item)}")  # "maths teacher at a secondary school": a post held
        elif re.match(r"^(?:i|i'm|we)\b", item, re.I):
            out.append(item)  # "Hiya, I'm Niamh, I'm 33 and I live in Belfast": a clause with its subject
        elif re.match(r"^(?:originally\s+)?from\s+(?-i:[A-Z])", item, re.I):
            out.append(f"I am {item}")  # "originally from Porto": where the user comes from
        elif re.match(r"^(?:live|work|grew up|come from)\s", item, re.I):
            out.append(f"I {item}")
        elif re.match(rf"^(?!(?:a|an|the)\s)[\w-]+(?:\s+[\w-]+){{0,2}}\s+at\s+{_NAME_RUN}$", item):
            out.append(f"I am {_article(item)}")
    return out


# "Quick facts about me: 34, live in Ghent, ...": a list introduced as being about the user
_ABOUT_ME = re.compile(r"^(?:[\w' ]{0,30}\s)?(?i:about|on)\s+(?i:me|myself)\s*:\s*(?P<rest>.+)$")


# The name the user goes by, or asks to be called: "I'd rather you called me ...", "my friends call me ..."
# (contractions are expanded before this reads: "I'd" is "I would"). Being called, addressed, known or
# referred to as a name is asking for it.
_CALLED = r"(?:called|addressed as|known as|referred to as)"
# a title of address keeps its full stop inside the name: "Dr. Abena Mensah", "Ms Ortiz"
_TITLE = r"(?:Dr|Mr|Mrs|Ms|Mx|Prof|Professor|Doctor|Dame|Sir|Rev|Revd)"
_TITLED_NAME = rf"(?!{_TITLE}\b\.?+(?!\s+[A-Z]))((?:{_TITLE}\.?\s+)?{_NAME_RUN})"
_NAME = re.compile(
    # chat drops the article of "the name's Caitlin" as it drops a subject
    rf"^(?:(?i:my name is(?: actually| really)?|my name's|my first name is|(?:the )?name's|the name is|"
    rf"(?:you can\s+)?(?:just\s+)?call me(?: by my (?:nickname|middle name|first name),?)?|"
    rf"(?:please\s+)?(?:refer to|address)\s+me\s+as|"
    rf"i go by|i go by my (?:middle|second|first|last) name,?|i am called|i (?:have\s+)?changed my name to|"
    rf"i'm called|please call me|(?:i would\s+)?(?:rather|prefer|like)\s+to\s+be\s+{_CALLED}|"
    rf"i (?:would\s+)?prefer to be {_CALLED}|i would rather be {_CALLED}|i would like you to call me|"
    rf"i would (?:rather|prefer)(?:\s+it)?(?:\s+if)?\s+you\s+(?:to\s+)?call(?:ed)?\s+me|"
    rf"(?:everyone|everybody|people|most people|folks|most folks|(?:all\s+)?my (?:friends|mates|colleagues)|"
    rf"friends|my family)\s+"
    rf"(?:(?:all|just|usually|mostly)\s+)*(?:calls?\s+me|knows?\s+me\s+as))"
    rf")\s+{_TITLED_NAME}"
)
# "I'm Alexandra but please just call me Sasha": the name asked for after "but" is the one to use
_CALL_INSTEAD = re.compile(
    rf"^(?i:i am)\s+{_NAME_RUN},?\s+(?i:but)\s+(?i:(?:please\s+)?(?:just\s+)?(?:call me|go with))\s+"
    rf"({_NAME_RUN})"
)


# "Shiv is what my friends call me", "Bea is what everyone uses": the name before a cleft of calling
_NAME_CLEFT = re.compile(
    rf"^({_NAME_RUN})\s+is\s+what\s+(?i:(?:everyone|everybody|people|most people|my friends|friends|"
    rf"my family|they|folks)\s+(?:(?:all|usually|mostly|tend to)\s+)?(?:calls?\s+me|uses?|go with|goes with|"
    rf"know me as|knows me as)|i\s+(?:go by|prefer|answer to))\b"
)


# "it's Dev, short for Devendra": a name given with the one it shortens is the name the user goes by
_SHORT_FOR = re.compile(
    # "that's Rob, short for Robert" points at someone else
    rf"^(?:(?i:it is|it's|i am)\s+)?(?!(?i:that's|that|this|he's|she's)\b)({_NAME_RUN})(?:\s+(?i:btw))?,?\s+"
    rf"(?i:short for)\s+{_NAME_RUN}$"
)


def _name(name: str) -> RuleLearning:
    return RuleLearning(f"The user's name is {name}.", "fact", About("profile", "name"), 0.9)


# "I'm Keziah, and I ...": a clause that is only "I am" and a name, not a nationality or a faith
# an introduction may close on a greeting formula: "I'm Laura Finch, nice to meet you"
_BARE_NAME = re.compile(
    rf"^(?i:i am)\s+{_TITLED_NAME}"
    r"(?:,?\s+(?i:(?:(?:it is|it's)\s+)?(?:nice|pleased|good|great|lovely)\s+to\s+meet\s+you))?"
    # how the name is spelled, or what the holder of a title belongs to, set off after it: "I'm Elisabeth,
    # with an s", "I am Professor Ana Reis, of the history department"
    r"(?:,\s+(?i:with\s+an?\s+[a-z]|spelt\s+[\w -]+|spelled\s+[\w -]+|of\s+the\s+[\w -]+))?$"
)
_NOT_NAMES = frozenset(
    [
        "OK",
        "Okay",
        "Ok",
        "Fine",
        "Good",
        "Back",
        "Here",
        "Sorry",
        "Ready",
        "Done",
        "Not",
        "So",
        "Very",
        "The",
        "Sure",
    ]
)


def _names(s: str, said_at: datetime) -> list[RuleLearning]:
    if (m := _CALL_INSTEAD.match(s)) or (m := _NAME.match(s)) or (m := _NAME_CLEFT.match(s)):
        return [_name(m.group(1))]
    if m := _SHORT_FOR.match(s):
        return [_name(m.group(1))]
    m = _BARE_NAME.match(s)
    # a nationality or a faith stands first ("Irish Catholic"); a surname may end like one ("Laura Finch")
    first = m.group(1).split()[0] if m else ""
    if m and first not in _NOT_NAMES and not _NATIONALITY.search(first):
        return [_name(m.group(1))]
    return []


# home, origin -------------------------------------------------------------------------------------------

# who a home is said of: the user, "we", or the user and one other ("Ana and I", "my partner Jo and I")
_HOUSEHOLD = r"(?:i|we|(?:my\s+|our\s+)?[\w'-]+(?:\s+(?-i:[A-Z][\w'-]*))? and i)"
_HOME = re.compile(
    rf"^{_HOUSEHOLD}\s+"
    r"(?:(?:now|currently|still|also|just|finally|recently|officially)\s+)?"
    r"(live in|live near|'m living in|am living in|are living in|'re living in|'m based in|am based in|"
    r"are based in|'re based in|'m based out of|am based out of|are based out of|"
    # the idiom of moving house: "we've upped sticks to X"
    r"(?:have\s+)?upped sticks(?:\s+and\s+moved)?(?:\s+(?:back|down|up|over|out|across|away|home))*\s+to|"
    r"(?:have\s+)?(?:moved|relocated|emigrated|immigrated)(?:\s+house)?"
    # a particle of direction changes no destination: "moved back to", "moved down to", "moved out to"
    r"(?:\s+(?:back|down|up|over|out|across|away|home|south|north|east|west|abroad))*"
    # an adverb of repetition changes none either: "we've moved again, to Darwin"
    r"(?:\s+(?:again|once more|once again|for good|permanently),?)?"
    r"(?:\s+from\s+(?-i:[A-Z])[\w'-]*(?:\s+(?-i:[A-Z])[\w'-]*)?)?\s+to|"
    # the place set after "again" with no "to": "we've relocated again, Galway this time"
    r"(?:have\s+)?(?:moved|relocated)\s+(?:again|once more|once again),(?=\s+(?-i:[A-Z]))|"
    r"(?:have\s+|are\s+|am\s+)?(?:settled|settling)\s+(?:down\s+)?(?:into\s+life\s+)?in|"
    r"(?:am\s+|are\s+)(?:all\s+|finally\s+)?unpacked\s+in|"
    r"(?:am\s+|are\s+)?(?:renting|rent)\s+in|(?:have\s+)?made the (?:big\s+)?move to|"
    r"live)\s+(.+)$",
    re.I,
)
_LIVING_WITH = re.compile(
    rf"\bwith\s+(?i:an?)\s+(?P<kind>[\w-]+(?:\s+[\w-]+)?)\s+(?i:called|named)\s+(?P<name>{_NAME_RUN})\b"
)
# "a small flat in X", "our new place near X": a dwelling and where it is
_DWELLING_AT = (
    r"(?:a|an|the|my|our)\s+(?:[\w'-]+\s+){0,3}?"
    r"(?:flat|apartment|house|place|home|cottage|studio|condo|bungalow|room|loft|townhouse|duplex|"
    r"houseboat|farmhouse|villa|cabin|bedsit)\s+(?:in|near|outside|just outside|on the edge of)\s+"
)
_DWELLING_IN = re.compile(rf"^{_DWELLING_AT}", re.I)
# "I rent a flat in X", "we're settling into our new place in X": a home named by the dwelling in it
_DWELLING = re.compile(
    rf"^{_HOUSEHOLD}\s+(?:(?:am|are|have)\s+)?"
    r"(?:rent|renting|share|sharing|moved into|settled into|settling into|own|have got|got|have|bought|"
    r"have bought|purchased|have purchased|closed on|have closed on|completed on|have completed on|"
    # being back at a dwelling is living there again: "I'm back at my parents' place in El Paso"
    rf"live in|living in|living at|back at|back in)\s+"
    rf"(?!(?:a|an|the|my|our)\s+(?:holiday|second|summer|weekend|country)\b)"
    rf"{_DWELLING_AT}(.+)$",
    re.I,
)
# "my place is in Melbourne", "our flat's in Leith": where the user's dwelling is
_DWELLING_IS = re.compile(
    r"^(?:my|our)\s+(?:(?:new|own|little|current)\s+)?(?:flat|apartment|house|place|home|cottage|studio|"
    r"condo|bungalow|loft|townhouse)\s+is\s+(?:now\s+)?(?:in|near|just outside)\s+(.+)$",
    re.I,
)
# "I moved in with my girlfriend in Hull": moving in with someone somewhere is living there
_MOVED_IN_WITH = re.compile(
    rf"^{_HOUSEHOLD}\s+(?:have\s+)?(?:(?:just|finally)\s+)?(?:moved in|(?:am |are )?living|live)\s+"
    r"(?:together\s+)?"
    r"(?:with\s+(?:my|our|a|an|the)\s+[\w'-]+(?:\s+(?-i:[A-Z])[\w'-]*)?\s+)?(?:in|near)\s+(.+)$",
    re.I,
)
# "Work shipped me off to Chicago", "I was transferred to Leeds": a move the employer made
_SENT = re.compile(
    r"^(?:(?:work|my work|my job|my company|my employer|the company|my firm|the firm|they)\s+"
    r"(?:has\s+|have\s+)?(?:relocated|transferred|posted|moved|shipped|packed)\s+(?:me|us)"
    r"(?:\s+(?:off|out|over|back|down|up))?|i\s+(?:was|have been|got|am being)\s+"
    r"(?:relocated|transferred|posted|shipped(?:\s+off)?))\s+to\s+(.+)$",
    re.I,
)
# "we now call Brisbane home": calling a place home
# "We're Toronto-based now": a place before "-based" is where the user is based
_X_BASED = re.compile(r"^(?:i am|we are)\s+(?:now\s+)?((?-i:[A-Z])[\w' ]*?)-based(?:\s+now)?$", re.I)
# "I'm a Bristol resident", "I've made Glasgow my home": a place said as the user's residence
_RESIDENT = re.compile(
    rf"^(?:i am|we are)\s+(?:now\s+)?(?:an?\s+)?(?:proud\s+)?((?-i:[A-Z])[\w' ]*?)\s+residents?$|"
    rf"^{_HOUSEHOLD}\s+(?:have\s+)?(?:now\s+)?made\s+((?-i:[A-Z])[\w' ]*?)\s+(?:my|our)\s+(?:new\s+)?home$",
    re.I,
)
_CALL_HOME = re.compile(rf"^{_HOUSEHOLD}\s+(?:now\s+)?call\s+((?:the\s+)?(?-i:[A-Z]).+?)\s+home$", re.I)
# a bounded stay: "for a week", "for the holidays", "on holiday"
_STAY = re.compile(
    r"\b(?:for\s+(?:a|an|one|two|three|four|five|six|seven|eight|nine|ten|twelve|several|\d+|a few|"
    r"a couple of|the)\s+(?:\w+\s+)?(?:nights?|days?|weeks?|"
    r"weekends?|holidays?|summer|winter|months?|festival|conference)|on\s+(?:holiday|vacation|"
    r"(?:our|my)\s+honeymoon|a trip|business))\b",
    re.I,
)
# "we're in Adelaide now": being in a place is a home only when the clause says it is the present state
_IN_NOW = re.compile(
    # a particle of direction changes nothing: "I'm down in Brighton these days"
    r"^(?:i am|we are)\s+(?:(?:now|back|finally|permanently|down|up|over|out)\s+)*in\s+(.+?)"
    r"\s+(?:now|these days|nowadays|for good|permanently)$|"
    r"^(?:i am|we are)\s+now\s+(?:(?:back|finally|permanently)\s+)*in\s+(.+)$",
    re.I,
)
_ORIGIN = re.compile(
    r"^i\s+(?:(?:originally)\s+)?(am from|'m from|am originally from|'m originally from|grew up in|"
    r"come from|was raised in)\s+(.+)$",
    re.I,
)
# "born 23rd Jan 1988": a day of the month straight after "born" is the day born on
_BORN = re.compile(r"^i\s+was born\s+(?:(on|in)\s+|(?=(?:the\s+)?\d{1,2}(?:st|nd|rd|th)?\s))(.+)$", re.I)


def _place(text: str) -> str:
    value = _VALUE_END.split(_TRAIL.sub("", text), maxsplit=1)[0].strip()
    value = re.sub(r"^(?:here in|here to|over in)\s+", "", value, flags=re.I)
    # "moved to Cardiff from Newport": the place left, named after the one reached, is no part of it
    value = re.split(r"\s+(?i:from)\s+(?=[A-Z])", value, maxsplit=1)[0]
    return value.rstrip(",.; ")


def _origin(place: str) -> RuleLearning:
    return RuleLearning(f"The user is from {place}.", "fact", About("profile", "origin"), 0.85)


_HOME_IS = re.compile(
    r"^home(?:\s+(?:for me|for us|now|these days|nowadays|at the moment|right now))?(?:'s|\s+is)\s+"
    r"(?:now\s+)?(.+)$",
    re.I,
)


def _home(s: str, said_at: datetime) -> list[RuleLearning]:
    """Where the user lives, and a named creature the user lives there with ("living in Bristol with an
    African grey called Bartholomew")."""
    home = _where(s)
    with_ = (
        _LIVING_WITH.search(s) if home and re.match(r"^(?:i|we)\s+(?:am\s+|are\s+)?liv", s, re.I) else None
    )
    pet = named_creature(with_.group("kind"), with_.group("name")) if with_ else None
    return [*home, pet] if pet else home


def _where(s: str) -> list[RuleLearning]:
    if m := _HOME_IS.match(s):
        place = _place(
            _DWELLING_IN.sub("", m.group(1), count=1)
        )  # "home is Tbilisi": only a named place is a home
        return (
            [RuleLearning(f"The user lives in {place}.", "fact", About("profile", "home"), 0.8)]
            if (place and _is_name(place))
            else []
        )
    if (m := _SENT.match(s)) and not _STAY.search(s):
        place = _place(m.group(1))
        # a named place, not a part of the employer's ("the London office")
        if place and _is_name(place) and not place.split()[-1][:1].islower():
            return [RuleLearning(f"The user lives in {place}.", "fact", About("profile", "home"), 0.8)]
        return []
    if (
        (m := _DWELLING.match(s))
        or (m := _DWELLING_IS.match(s))
        or (m := _IN_NOW.match(s))
        or (m := _CALL_HOME.match(s))
        or (m := _X_BASED.match(s))
        or (m := _MOVED_IN_WITH.match(s))
        or (m := _RESIDENT.match(s))
    ):
        if _STAY.search(s):
            return []  # "we're renting a villa in Crete for a week" is a stay, not a home
        place = _place(next(g for g in m.groups() if g))
        if place and _is_name(place):
            return [RuleLearning(f"The user lives in {place}.", "fact", About("profile", "home"), 0.8)]
        return []
    if m := _HOME.match(s):
        place = _place(m.group(2))
        if not place or place.lower() in {"here", "there", "alone", "together", "nearby", "abroad"}:
            return []
        if not m.group(1).lower().startswith(("live in", "am living", "are living")) and not _is_name(place):
            return []  # "moved to a bigger flat" names no place
        return [RuleLearning(f"The user lives in {place}.", "fact", About("profile", "home"), 0.85)]
    if m := _ORIGIN.match(s):
        place = _place(m.group(2))
        return [_origin(place)] if place else []
    if m := _BORN.match(s):
        what = _TRAIL.sub("", m.group(2)).strip()
        if re.fullmatch(r"(?:in\s+)?\d{4}", what):
            # a year is not a birthday: "born in 1990" says when, not which day comes round each year
            return [
                RuleLearning(f"The user was born in {what}.", "fact", About("profile", "birth year"), 0.85)
            ]
        if re.match(rf"^(?:\d|the\s+\d|(?:{_MONTHS})\b)", what, re.I):
            value = re.split(r"\s+(?:in|at)\s+(?=[A-Z])", what)[0].strip(", ")
            return [
                RuleLearning(f"The user was born on {value}.", "fact", About("profile", "birthday"), 0.85)
            ]
        if (m.group(1) or "").lower() == "on":
            # "born on Christmas Eve" names a day; "born on a farm" names neither a day nor a named place
            if what[:1].isupper():
                value = _VALUE_END.split(what, maxsplit=1)[0].strip(", ")
                return [
                    RuleLearning(f"The user was born on {value}.", "fact", About("profile", "birthday"), 0.8)
                ]
            return []
        place = _place(what)
        if place and place[0].isupper():
            return [RuleLearning(f"The user was born in {place}.", "fact", About("profile", "origin"), 0.8)]
    return []


# work ---------------------------------------------------------------------------------------------------

_OCCUPATION = re.compile(
    r"(?:er|or|ist|ian|ant|ent|eer|ect|ographer|man|woman|person|nurse|chef|cook|doctor|lawyer|student|"
    r"surgeon|pilot|barista|clerk|judge|nanny|medic|paramedic|vet|dentist|therapist|analyst|"
    r"scientist|researcher|intern|apprentice|freelancer|consultant|officer|agent|assistant|"
    r"lead|head|director|ceo|cto|cfo|founder|co-founder|owner|engineer|developer|designer|"
    r"artist|writer|editor|teacher|tutor|professor|lecturer|coach|trainer|accountant|architect|"
    r"mechanic|electrician|plumber|carpenter|farmer|firefighter|soldier|sailor|retiree|"
    r"pharmacist|physio|physiotherapist|midwife|caregiver|carer|librarian|curator|maid|waitress)$",
    re.I,
)
_NOT_OCCUPATION = frozenset(
    (
        "vegetarian|vegan|pescatarian|fan|lover|member|believer|beginner|parent|person|"
        "morning person|night person|introvert|extrovert|christian|mother|father|brother|sister|"
        "daughter|grandmother|grandfather|newcomer|foreigner|outsider|loner|dreamer|fast learner|"
        "quick learner|night owl|early riser|insider|bit|lot|kind|sort|part|piece|user|drinker|resident|"
        "native|local|regular|guest|patient|customer|client|visitor|subscriber|passenger|"
    )
    .strip("|")
    .split("|")
)
_EMPLOYER = re.compile(
    r"^i\s+(?:(?:now|currently|still|also|just|recently|finally|officially)\s+)?"
    r"(work at|work for|work from home for|work remotely for|'m working at|am working at|'m working for|"
    r"am working for|joined|"
    r"started at|started working at|started working for|got a job at|got a job with|got hired by|"
    r"am starting at|start at|am starting work at|"
    r"got hired at|was hired by|'ve been hired by|have been hired by|'ve joined|have joined|"
    r"started a new job at|started a job at|'ve started a new job at|'m employed by|am employed by|"
    r"'m employed at|have started at|have started a new job at|now work at|"
    # being on an employer's books: "I'm on the payroll at X", "I'm on the staff of X"
    r"am on the (?:payroll|books|staff)\s+(?:at|of|with)|"
    # a verb of getting or starting with a job noun: "landed a role at", "took a position with"
    r"(?:have\s+)?(?:got|gotten|landed|took|taken|accepted|found|secured|started|begun|began)\s+"
    r"(?:a|an|the|my)\s+(?:new\s+)?(?:(?:full|part)[- ]time\s+)?(?:job|position|role|post|placement)"
    r"\s+(?:at|with))\s+(.+)$",
    re.I,
)
# "I was laid off", "I got made redundant", "I lost my job": a dismissal ends the employer unnamed
# "Today was my first day at Danone", "it's my first week with Arup": a first day at a named place of work
_FIRST_DAY = re.compile(
    r"^(?:(?:today|yesterday|monday|tuesday|wednesday|thursday|friday|it)\s+(?:was|is)\s+|i\s+(?:had|have|start)\s+)"
    r"my\s+first\s+(?:day|week|shift)\s+(?:at|with)\s+((?-i:(?:the\s+)?[A-Z]).+)$",
    re.I,
)
# the employer as the subject: "Lidl have taken me on as a shift supervisor", "Meta let me go"
_THEY_HIRED = re.compile(
    r"^(?P<org>(?-i:(?:the\s+)?[A-Z][\w&'.-]*(?:\s+[A-Z][\w&'.-]*){0,2}))\s+(?:have|has|just|finally)?\s*"
    r"(?:(?P<hire>hired me|taken me on|took me on|employed me)|"
    r"(?P<fire>let me go|laid me off|fired me|sacked me|made me redundant|dismissed me))\b(?P<rest>.*)$",
    re.I,
)
# "I used to work at a bank": a job the user had is a past job, kept beside whatever they do now
_USED_TO_WORK = re.compile(r"^i\s+used\s+to\s+work\s+(?P<prep>at|for|in|as)\s+(?P<what>.+)$", re.I)
# "My last day at Aviva was Friday", "today was my last day at Aviva": a last day past ends the job
_LAST_DAY = re.compile(
    r"^(?:my\s+last\s+(?:day|shift)\s+(?:at|with)\s+(?P<org>(?-i:(?:the\s+)?[A-Z])[\w&' .-]*?)\s+was\b.*|"
    r"(?:today|yesterday|friday|monday|tuesday|wednesday|thursday)\s+was\s+my\s+last\s+(?:day|shift)\s+"
    r"(?:at|with)\s+(?P<org2>(?-i:(?:the\s+)?[A-Z]).+))$",
    re.I,
)
_DISMISSED = re.compile(
    r"^i\s+(?:was|got|have been|have just been|just got|just lost|lost|have lost)\s+"
    r"(?:laid off|made redundant|let go|fired|sacked|my job)(?P<rest>.*)$",
    re.I,
)
# a verb of working other than "work" ("freelancing as", "I contract as"): the role after "as"
_WORKING_AS = (
    r"(?:am\s+|have been\s+)?(?:freelanc(?:e|ing)|contract(?:ing)?|consult(?:ing)?|temp(?:ing)?|"
    r"moonlight(?:ing)?|employed|practi[sc](?:e|ing)|working freelance|working part-time|"
    r"working full-time)(?:\s+(?:now|full[- ]time|part[- ]time))?\s+as"
)
_ROLE = re.compile(
    r"^i\s+(?:(?:now|currently|still|also|just|recently|finally|officially)\s+)?"
    r"(work as|work (?:nights|days|evenings|weekends|shifts|nights and weekends) as|'m working as|"
    r"am working as|got a job as|was promoted to|'ve been promoted to|(?:have\s+)?stepped up to|"
    r"(?:have been|was|got|have got|just got)\s+(?:hired|taken on|employed|appointed|taken on)\s+as|"
    # an appointment in the passive: "I've been made manager of the shop" (not "made redundant")
    r"(?:have been|have just been|was|got|have got|just got)\s+(?:made|appointed|named)(?!\s+redundant\b)|"
    r"have been promoted to|got promoted to|(?:got|was given|earned|have got) a promotion to|became|"
    r"'ve become|have become|started as|retrained as|"
    rf"(?:have\s+)?(?:trained|qualified|retrained)\s+as|(?:am\s+)?(?:now\s+)?(?:fully\s+)?qualified as|"
    rf"start as|am starting as|{_WORKING_AS}|"
    # a job noun after a verb of getting or starting: "I've started a new job as a nurse"
    r"(?:have\s+)?(?:got|gotten|landed|took|taken|accepted|found|started|begun|began)\s+(?:a|an|the|my)\s+"
    r"(?:new\s+)?(?:(?:full|part)[- ]time\s+)?(?:job|position|role|post)\s+as|am|'m)\s+(.+)$",
    re.I,
)
# "I retired last year", "I'm retired now", "I've gone freelance": a state of working is a role,
# whatever the job was
_RETIRED = re.compile(
    r"^i\s+(?:am\s+going\s+|am\s+|have\s+|have gone\s+|went\s+|have become\s+|became\s+)?"
    r"(?:(?:now|finally|officially|just|recently|happily|fully)\s+)*"
    r"((?:semi-)?retired|self-employed|freelance|unemployed|out of work|between jobs)(?P<rest>.*)$",
    re.I,
)
# "I handed in my notice", "I resigned last week": leaving the job, no workplace named
_RESIGNED = re.compile(
    r"^i\s+(?:have\s+)?(?:(?:just|finally|officially)\s+)?(?:handed in my notice|resigned|gave my notice|"
    r"given my notice|quit my job|have quit my job)(?P<rest>.*)$",
    re.I,
)
_LEFT_JOB = re.compile(
    r"^i\s+(?:(?:just|finally|recently|officially)\s+)?(?P<verb>quit|left|resigned from|was laid off from|"
    r"got laid off from|was fired from|got fired from|retired from|have left|have quit|"
    r"was sacked from|got sacked from|was let go from|got let go from|was let go by|got let go by|"
    r"packed in|jacked in|chucked in|have packed in|"
    r"handed in my notice at|handed my notice in at|have handed my notice in at|have handed in my notice at|"
    r"stopped working at|stopped working for)\s+(?P<job>my job at\s+|my job with\s+|my position at\s+|"
    r"my role at\s+|my job as\s+(?:an?\s+)?(?P<role>[\w\s-]+?)\s+at\s+|my job as\s+(?:an?\s+)?"
    r"(?P<oldrole>[\w\s-]+)$|)(?P<org>.*)$",
    re.I,
)


def _org(text: str) -> str:
    value = _VALUE_END.split(_TRAIL.sub("", text), maxsplit=1)[0].strip().rstrip(",.; ")
    value = re.split(r"\s+as\s+(?:an?\s+)?", value, maxsplit=1)[0]
    return value


def _called(text: str) -> str:
    """ "a startup called Nimbus" -> "Nimbus": the name a described workplace goes by."""
    c = re.match(r"^(?:an?|the)\s+(?:[\w-]+\s+){1,3}?(?:called|named)\s+((?-i:[A-Z]).+)$", text, re.I)
    return c.group(1) if c else text


def _role_value(text: str) -> tuple[str, str | None]:
    """ "a nurse at St Mary's" -> ("nurse", "St Mary's"); "a barista at a cafe called Brew" names Brew."""
    value = _TRAIL.sub("", text).strip()
    m = re.match(r"^(.+?)\s+(?:at|for|with)\s+(.+)$", value)
    employer = None
    if m:
        # the workplace is not part of the role; a named one is the employer
        place = _called(m.group(2))
        value, employer = m.group(1), (_org(place) if _is_name(place) else None)
    # "a full-time illustrator": how much the user works is not the role
    value = re.sub(r"^((?:an?|the)\s+)?(?:full|part)[- ]time\s+", r"\1", value, flags=re.I)
    value = _VALUE_END.split(value, maxsplit=1)[0].strip().rstrip(",.; ")
    value = re.sub(r"^(?:an?|the)\s+", "", value, flags=re.I)
    return value, employer


# "I'm at Shopify, working as a product manager": being at a named place while working there as a role
_AT_WORKING = re.compile(
    rf"^(?i:i\s+am\s+(?:now\s+)?at)\s+(?P<org>(?:the\s+)?{_NAME_RUN}),?\s+"
    rf"(?i:(?:working|employed)\s+as)\s+(?P<role>.+)$"
)


# "I got promoted last month, so senior developer now": the post a promotion led to, said after "so"
_PROMOTED_SO = re.compile(
    r"^i\s+(?:got|was|have been|have just been|just got)\s+promoted\b[^,]*,\s*so\s+(?:i am\s+)?(?:an?\s+)?"
    r"(?P<role>(?!i\b|we\b|it\b|that\b)[\w -]+?)(?:\s+now)?$",
    re.I,
)


# the last word of a post's name: "ward sister", "analytics lead", "sous chef", "data engineer"
_RANK = re.compile(
    r"(?:er|or|ist|ian|ant|ent|eer|ect|head|lead|chief|captain|partner|sister|chair|chairperson|principal|"
    r"deputy|officer|president|editor|nurse|chef|director|manager|supervisor)$",
    re.I,
)
# "I started at Deliveroo on Monday, analytics lead": the post, set off after a clause of starting at an
# employer, is the post held there
_STARTED_AS = re.compile(
    r"^(?P<head>i\s+(?:have\s+)?(?:just\s+)?(?:started|joined|began)\s+(?:at\s+)?(?-i:[A-Z]).+?),\s+"
    # an adverb that ends like a post is none: "..., however", "..., together"
    r"(?:as\s+)?(?:an?\s+)?(?!(?:however|together|whatever|either|rather|after|never|ever|later|better|"
    r"forever|remember|other|sooner|further)$)(?P<post>(?:[a-z-]+\s+){0,2}[a-z-]+)$",
    re.I,
)


def _job(s: str, said_at: datetime) -> list[RuleLearning]:
    if (m := _STARTED_AS.match(s)) and _RANK.search(m.group("post")):
        return _job(m.group("head"), said_at) + _job(f"I work as {_article(m.group('post'))}", said_at)
    if m := _PROMOTED_SO.match(s):
        return _job(f"I got promoted to {m.group('role')}", said_at)
    if m := _AT_WORKING.match(s):
        return _job(f"I work at {m.group('org')} as {m.group('role')}", said_at)
    if m := _USED_TO_WORK.match(s):
        what = _ended(m.group("what")) if m.group("prep") != "as" else _role_value(m.group("what"))[0]
        if not what:
            return []
        prep = m.group("prep").lower()
        kind = "past role" if prep == "as" else "past employer"
        said = _article(what) if prep == "as" else what
        return [
            RuleLearning(
                f"The user used to work {prep} {said}.",
                "fact",
                About("profile", f"{kind} {_key(what)}"),
                0.75,
            )
        ]
    if m := _LAST_DAY.match(s):
        org = _org(m.group("org") or m.group("org2"))
        return [
            RuleLearning(f"The user no longer works at {org}.", "fact", About("profile", "employer"), 0.8)
        ]
    if m := _FIRST_DAY.match(s):
        org = _org(m.group(1))
        return (
            [RuleLearning(f"The user works at {org}.", "fact", About("profile", "employer"), 0.8)]
            if org
            else []
        )
    if m := _THEY_HIRED.match(s):
        org = m.group("org")
        if m.group("org").split()[0] in {"I", "We", "They", "He", "She", "It", "My", "Our", "You", "Work"}:
            return []
        rest = m.group("rest")
        timed = _VALUE_END.match(rest) or re.match(
            r"^\s+(?:in|after|during|as part of|following|with)\b", rest, re.I
        )
        if m.group("fire") and rest.strip() and not timed:
            return []  # "Google let me go home early" is leave, not a dismissal
        if m.group("fire"):
            return [
                RuleLearning(f"The user no longer works at {org}.", "fact", About("profile", "employer"), 0.8)
            ]
        out = [RuleLearning(f"The user works at {org}.", "fact", About("profile", "employer"), 0.8)]
        if r := re.match(r"^\s+as\s+(.+)$", m.group("rest")):
            hired_as = _role_value(r.group(1))[0]
            if hired_as:
                out.append(
                    RuleLearning(
                        f"The user works as {_article(hired_as)}.", "fact", About("profile", "role"), 0.8
                    )
                )
        return out
    if (m := _RETIRED.match(s)) and (
        not _TRAIL.sub("", m.group("rest")).strip() or _VALUE_END.match(m.group("rest"))
    ):
        return [RuleLearning(f"The user is {m.group(1).lower()}.", "fact", About("profile", "role"), 0.8)]
    if (m := _DISMISSED.match(s)) and (
        not _TRAIL.sub("", m.group("rest")).strip() or _VALUE_END.match(m.group("rest"))
    ):
        return [RuleLearning("The user lost their job.", "fact", About("profile", "employer"), 0.75)]
    if (m := _RESIGNED.match(s)) and (
        not _TRAIL.sub("", m.group("rest")).strip() or _VALUE_END.match(m.group("rest"))
    ):
        return [RuleLearning("The user left their job.", "fact", About("profile", "employer"), 0.75)]
    if m := _LEFT_JOB.match(s):
        org = _org(m.group("org") or "")
        role = m.group("role") or m.group("oldrole")
        out = []
        mine = org.lower() in {"my job", "my position", "my role"}
        if m.group("verb").lower() in {"left", "have left"} and not (m.group("job") or mine):
            return []  # "I left Lisbon" may be a place: only "left my job at ..." is a job
        # a verb that can only mean a job names its workplace even by a common noun ("the fire service")
        only_job = not re.match(r"^(?:quit|left|have left|have quit)$", m.group("verb"), re.I)
        common = bool(re.match(r"^(?:the|a|an)\s+[a-z]", org, re.I))
        if org and (_is_name(org) or (m.group("job") and org[:1].isalpha()) or (only_job and common)):
            out.append(
                RuleLearning(f"The user no longer works at {org}.", "fact", About("profile", "employer"), 0.8)
            )
        if role:
            out.append(
                RuleLearning(
                    f"The user no longer works as {_article(role.strip())}.",
                    "fact",
                    About("profile", "role"),
                    0.8,
                )
            )
        if not out and org.lower() in {"my job", "work", "my position", "my role"}:
            out.append(RuleLearning("The user left their job.", "fact", About("profile", "employer"), 0.75))
        return out
    if m := _EMPLOYER.match(s):
        verb = m.group(1).lower()
        rest = m.group(2)
        role = None
        if r := re.match(r"^(.+?)\s+as\s+(?:an?\s+)?(.+)$", rest):
            rest, role = r.group(1), _role_value(r.group(2))[0]
        org = _org(_called(rest))
        if not org or not (_is_name(org) or (verb in {"work at", "work for"} and org[:1].isalpha())):
            return []
        out = [RuleLearning(f"The user works at {org}.", "fact", About("profile", "employer"), 0.85)]
        if role:
            out.append(
                RuleLearning(f"The user works as {_article(role)}.", "fact", About("profile", "role"), 0.85)
            )
        return out
    if m := _ROLE.match(s):
        verb = m.group(1).lower()
        said, origin = m.group(2), None
        # "a nurse from Bergen": a named place after "from" is where the user is from, not the role
        if o := re.match(r"^(.+?)\s+from\s+((?:the\s+)?[A-Z].*)$", said):
            said, origin = o.group(1), _place(o.group(2))
        value, employer = _role_value(said)
        # the noun phrase stays whole with its of-phrase ("head of department"); its head is the noun
        # before "of"
        value = re.split(r"\s+(?:in|on|who|that|and|but)\s+", value, maxsplit=1)[0]
        core = re.split(r"\s+of\s+", value, maxsplit=1)[0]
        head = core.split()[-1].lower() if core else ""
        # a kinship word is no job: "I became a dad last year"
        kin = re.fullmatch(rf"(?:{_KIN})s?", head, re.I)
        if value.lower() in _NOT_OCCUPATION or head in _NOT_OCCUPATION or kin or len(value.split()) > 5:
            return []
        appointed = bool(re.search(r"\b(?:made|appointed|named)$", verb))
        if (re.fullmatch(_WORKING_AS, verb) or "stepped" in verb or appointed) and not _OCCUPATION.search(
            head
        ):
            return []  # "consulting as ..." names a job only when its head is an occupation
        if verb in {"am", "'m"}:
            said_role = _TRAIL.sub("", m.group(2)).strip()
            # a title with an of-phrase needs no article: "I'm head of marketing at Zalando"
            titled = re.match(
                r"^(?:head|director|chief|vp|vice president|manager|lead|ceo|cto|cfo|coo|founder|co-founder|"
                r"president|chair)\s+of\s",
                said_role,
                re.I,
            )
            if not (re.match(r"^(?:an?|the)\s+", said_role, re.I) or titled):
                return []
            # a noun held at a named organisation is a post there, whatever its ending: "a paralegal at
            # Clifford Chance"
            if not _OCCUPATION.search(head) and not (employer and _is_name(employer)):
                return []
        if not value:
            return []
        out = [RuleLearning(f"The user works as {_article(value)}.", "fact", About("profile", "role"), 0.85)]
        if employer:
            out.append(
                RuleLearning(f"The user works at {employer}.", "fact", About("profile", "employer"), 0.85)
            )
        if origin:
            out.append(_origin(origin))
        return out
    return []
