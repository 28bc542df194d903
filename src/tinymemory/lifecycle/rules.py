"""The rule-based learning extractor: what belief builds use when no LLM is configured.

It reads the user's own sentences, clause by clause, and recognises first-person statements of a few
kinds, each with a stable subject (`About`) so that a later statement on the same subject supersedes
the earlier one:

- profile: name ("call me ..."), home (live in, based in, and the verbs of moving: moved, relocated),
  origin, employer and role (work at/for/as, joined, "I'm a <occupation>", promoted), relationship
  status, age and birthday;
- family members and pets with their names; health (allergies, intolerances, conditions, diet);
- preferences (prefer, like, love, hate, favourite, fan of, switched to) and standing instructions
  (always, never, from now on, ... and their withdrawal);
- dated events (a sentence naming one day, read by retrieval/dates.py against when it was said) and,
  when asked for, plain first-person statements as notes without a subject.

An update is a statement on a subject already held: a move, a new job, "actually ...". Negations and
verbs of ending ("no longer", "not ... anymore", "don't ... anymore", quit, left, broke up, passed away)
yield the same subject with a "no longer" value, so the old value stops being the active one.
Questions, hypotheticals ("if ...", "would ...", "I wish ...") and statements whose subject is someone
else yield nothing. The rules are about English clause structure, never about particular sentences.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from tinymemory.api import About
from tinymemory.retrieval import dates

_SENTENCES = re.compile(r"(?<=[.!?])\s+|\n+")
_LEAD = re.compile(
    r"^(?:(?:oh|ok|okay|so|well|also|and|but|hey|hi|hello|actually|correction|update|by the way|btw|"
    r"fyi|just so you know|please|pls|no(?=[,!.:;])|yes|yeah|yep|sorry|quick update|news|guess what|"
    r"i mean|"
    r"in fact|anyway|anyways|oops|wait|heads up|just|plus|then|now|i meant|what i meant is|sadly|"
    r"unfortunately|luckily|fortunately|thankfully|honestly|long story short)\b[,:;!.-]?\s*|"
    r"^(?![^:]*\b(?:i|we|my|our|have|has|had|is|are|was|were)\b)[\w' ]{1,24}:\s+|"
    r"^(?:[a-z']+\s+){0,2}[a-z']+,\s+(?=(?:i|we|my|our|correction|actually)\b))+",
    # a short lead ending in a colon ("big news: ..."), not a clause introducing a list
    re.I,
)
_TRAIL = re.compile(
    r"\s*(?:,?\s*(?:now|anymore|any more|these days|nowadays|instead|please|thanks|thank you|again|"
    r"too|as well|already|btw|lol|haha|for now|at the moment|right now|though|actually))+\s*$",
    re.I,
)
# Time and circumstance phrases that end a value: "Madrid in May", "Initech last year".
_VALUE_END = re.compile(
    r"\s*(?:,|\s(?:in|on|since|from|during|around|about|back in)\s+(?:the\s+)?(?:\d|early|late|mid|spring|"
    r"summer|autumn|fall|winter|january|february|march|april|may|june|july|august|september|october|"
    r"november|december|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)\b|\s(?:last|this|next|a few|"
    r"a couple of|two|three|several|some)\s+(?:week|month|year|day|summer|spring|winter|autumn|fall|"
    r"weeks|months|years|days)|\s\w+\s+ago\b|\s(?:recently|yesterday|today|tonight|lately|"
    r"because|since|when|after|before|so that|which|where|and i|but i|and we|but we|with my|with our|"
    r"for work|for good|for a while|for now|full[- ]time|part[- ]time|at the moment|according to|"
    r"over the (?:summer|winter|spring|autumn|weekend|holidays|past|last)|at the (?:start|end) of|"
    r"earlier this|later this)\b|\s(?:for|over)\s+(?:the\s+(?:past|last)\s+)?"
    r"(?:\d+|a|an|one|two|three|four|five|"
    r"six|seven|eight|nine|ten|twelve|twenty|a few|a couple of|several|many|some|nearly|almost|over|about)"
    r"\s*(?:\w+\s+)?(?:years?|months?|weeks?|days?|decades?|ages)\b|\s(?:for ages|for years|for decades|"
    r"for a long time|for a decade|for a year|for a month)\b)",
    re.I,
)
_MONTHS = (
    "january|february|march|april|may|june|july|august|september|october|november|december|"
    "jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec"
)
_SUBJECT_PERSON = re.compile(r"\b(i|i'm|i've|i'll|we|we're|my|our)\b", re.I)
_DAY = timedelta(days=1)

_NAME_WORD = r"[A-Z][\w'-]*"
_NAME_RUN = rf"(?-i:{_NAME_WORD}(?:\s+{_NAME_WORD})?)"

# -- clauses ------------------------------------------------------------------------------------------

_SUBJECT_START = r"(?:i|i'm|i've|i'd|i'll|i am|i was|my|we|we're|we've|our)\b"
_CLAUSE_SPLIT = re.compile(
    rf"\s*;\s*|\s*(?:,\s*|\s+)(?:and|but|so|plus|though|although|while|whereas|yet)\s+(?={_SUBJECT_START}|"
    rf"(?:also|now|actually)\s+{_SUBJECT_START})|,\s+(?={_SUBJECT_START})",
    re.I,
)
# A verb that continues the subject of the clause before it: "I live in X and work as a Y".
_ELLIPSIS_VERBS = (
    r"work|live|love|like|prefer|hate|enjoy|have|am|study|teach|own|play|moved|relocated|quit|left|"
    r"joined|started|got|drink|eat|go|went|run|ran|speak|use|can't|don't|do not|no longer|never|always"
)
_ELLIPSIS_SPLIT = re.compile(rf"\s*(?:,\s*|\s+)(?:and|but)\s+(?=(?:{_ELLIPSIS_VERBS})\b)", re.I)
_QUESTION_START = re.compile(
    r"^(?:what|why|how|when|where|who|which|whose|do|does|did|can|could|would|will|should|is|are|am|"
    r"was|were|have|has|shall|may|might)\b(?!\s+(?:i|we)\s+(?:mention|tell|say)\b)",
    re.I,
)
_HYPOTHETICAL = re.compile(
    r"\b(?:if|unless|suppose|supposing|imagine|pretend|hypothetically|in theory|would|wouldn't|"
    r"could|might|wish|wonder|maybe|perhaps|someday|one day)\b",
    re.I,
)
# A plan or an intention is not (yet) a fact about the user: no profile rule reads it.
_PLAN = re.compile(
    r"\b(?:thinking of|thinking about|considering|dream of|dreaming of|hope to|hoping to|plan to|"
    r"planning to|planning on|want to|wanna|going to|gonna|about to|trying to decide|might)\b",
    re.I,
)
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
_STANDING = re.compile(
    r"\b(?:always|never|from now on|going forward|in (?:the )?future|by default|every time|whenever|"
    r"each time|any time|from here on|in all (?:your )?(?:answers|replies|responses|messages)|"
    r"in every (?:answer|reply|response|message)|all the time)\b",
    re.I,
)


@dataclass(frozen=True, slots=True)
class RuleLearning:
    """A learning read from one clause of one turn."""

    text: str
    kind: str
    about: About | None
    confidence: float
    event_from: datetime | None = None
    event_to: datetime | None = None
    named: str | None = None  # the pet's or relative's name this learning binds to its subject


def extract(
    text: str, said_at: datetime, *, notes: bool = False, known: Mapping[str, About] | None = None
) -> list[RuleLearning]:
    """Learnings in one user turn, in clause order. With `notes`, a first-person statement no rule
    recognises is kept as a note without a subject (what the user said about themselves). `known` maps
    the (lowercased) names earlier turns bound to a pet or a relative to that subject, so "Rex died"
    needs no "my"."""
    out: list[RuleLearning] = []
    for raw in _SENTENCES.split(text):
        sentence = raw.strip()
        if not sentence:
            continue
        if sentence.endswith("?"):
            # A question keeps nothing, unless it asks for a standing behaviour ("could you always ...?").
            asks = re.match(r"^(?:please\s+)?(?:can|could|would|will) you\b", sentence, re.I)
            if not (asks and _STANDING.search(sentence)):
                continue
        greeting = _GREETING_NAME.match(sentence)
        if greeting:
            out.append(_name(greeting.group(1)))
            continue
        for clause in clauses(_clean(sentence)):
            found = _bound_name(clause, known or {}) or _clause(clause, said_at)
            if not found and notes:
                found = _note(clause)
            out.extend(found)
    return out


_NAME_DIED = re.compile(
    rf"^({_NAME_WORD})\s+(?:has\s+|just\s+|sadly\s+)?"
    r"(?:died|passed away|passed|was put down|had to be put down)\b"
)


def _bound_name(s: str, known: Mapping[str, About]) -> list[RuleLearning]:
    """ "Rex died": a bare name the thread already bound to a pet or a relative ends that subject."""
    m = _NAME_DIED.match(s)
    about = known.get(m.group(1).lower()) if m else None
    if m is None or about is None:
        return []
    return [RuleLearning(f"{m.group(1)} died.", "fact", about, 0.8, named=m.group(1))]


def clauses(sentence: str) -> list[str]:
    """A sentence cut where a new first-person subject begins ("..., and I ...", "...; I ...") or where a
    verb continues the first one's subject ("I live in X and work as Y" -> "I work as Y")."""
    out: list[str] = []
    parts: list[str] = []
    for part in _CLAUSE_SPLIT.split(sentence):
        # "Sam and I ...", "My wife and I ...": a subject of one or two words is not a clause of its own
        if parts and len(parts[-1].split()) <= 2 and not re.match(r"^(?:i|we)\b", parts[-1], re.I):
            parts[-1] = f"{parts[-1]} and {part}"
        else:
            parts.append(part)
    for part in parts:
        pieces = _ELLIPSIS_SPLIT.split(part)
        subject = re.match(r"^(i|we)\b", pieces[0].strip(), re.I)
        out.append(pieces[0])
        for piece in pieces[1:]:
            out.append(f"{subject.group(1)} {piece}" if subject else piece)
    return [c for c in (_clean(p) for p in out) if c]


def _clean(raw: str) -> str:
    s = raw.strip().rstrip(".!?").strip()
    s = re.sub(r"[\u2019\u2018]", "'", s)
    for pattern, full in _CONTRACTIONS:
        s = re.sub(pattern, full, s, flags=re.I)
    s = _LEAD.sub("", s).strip().strip(",;:- ")
    # an adverb between the subject and its verb changes no fact: "we also have", "I'm also allergic"
    s = re.sub(
        r"^((?:i|we)(?:\s+(?:am|are|have|was|were))?)\s+(?:also|just|recently|finally|currently|still|even|"
        r"actually|now|officially|already|both|too)\s+(?=\w)",
        r"\1 ",
        s,
        flags=re.I,
    )
    return _present(_untail(s))


_ADDITIVE_TAIL = re.compile(
    r"(?:,?\s+(?:too|as well|also|either|as well as that)|,\s*(?:sadly|unfortunately|luckily|fortunately|"
    r"thankfully|honestly|of course|believe it or not|to make (?:things|matters|it) worse|for the record|"
    r"for what it's worth|as it happens|funnily enough|if that matters|if that helps|lol|haha))+$",
    re.I,
)


def _untail(s: str) -> str:
    """ "I'm gluten intolerant as well" -> "I am gluten intolerant": an additive particle or a comment
    at the end of a clause adds nothing to its fact."""
    return _ADDITIVE_TAIL.sub("", s).strip()


def _present(s: str) -> str:
    """Perfect tenses that describe a state still true, read as the present the rules know: "I have been
    living in X" -> "I am living in X"; "I have lived in X for six years" -> "I live in X for six years";
    "I have been a nurse since 2019" -> "I am a nurse since 2019". A past perfect ("I had been living")
    or a perfect without a duration ("I have lived in Paris and Rome", experience) stays as it is."""
    s = re.sub(
        r"^(i|we)\s+have\s+been\s+(?=\w+ing\b)", lambda m: f"{m.group(1)} {_be(m.group(1))} ", s, flags=re.I
    )
    duration = r"(?=.*\s(?:for|since)\s)"
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


def _is_name(value: str) -> bool:
    """A proper name, with or without a determiner: "Madrid", "the Netherlands", "the BBC"."""
    return re.sub(r"^the\s+", "", value, flags=re.I)[:1].isupper()


# -- the clause rules ------------------------------------------------------------------------------------

_NEGATION = re.compile(
    r"\b(?:no longer|not anymore|not any more|anymore|any more|not\s+\w+\s+anymore)\b|"
    r"\b(?:don't|do not|doesn't|am not|'m not|isn't|aren't|haven't|can't)\b.*\b(?:anymore|any more)\b",
    re.I,
)


def _clause(s: str, said_at: datetime) -> list[RuleLearning]:
    if not s:
        return []
    found = _instruction(s)
    if found is not None:
        return [found]
    if _QUESTION_START.match(s):
        return []
    if m := _REMEMBER.match(s):
        inner = _clean(m.group(1))
        if not inner:
            return []
        nested = [x for c in clauses(inner) for x in _clause(c, said_at)]
        return nested or [RuleLearning(_sentence_case(third_person(inner)) + ".", "fact", None, 0.85)]
    if _HYPOTHETICAL.search(s) and not re.search(r"\bi would like you to\b|\bi'd like you to\b", s, re.I):
        return []
    if _PLAN.search(s):
        return _event(s, said_at)
    if _NEGATION.search(s):
        return _negated(s, said_at)
    for rule in _RULES:
        got = rule(s, said_at)
        if got:
            return got
    return _event(s, said_at)


def _negated(s: str, said_at: datetime) -> list[RuleLearning]:
    """ "I don't live in Lisbon anymore" -> the positive reading's subject, with a "no longer" value."""
    positive = re.sub(r"\s*\b(?:anymore|any more)\b", "", s, flags=re.I)
    positive = re.sub(r"\b(?:no longer|not)\s+", "", positive, flags=re.I)
    positive = re.sub(r"\b(?:don't|do not)\s+", "", positive, flags=re.I)
    positive = re.sub(r"\b(?:am not|'m not)\b", "am", positive, flags=re.I)
    positive = re.sub(r"\bisn't\b", "is", positive, flags=re.I)
    positive = re.sub(r"\baren't\b", "are", positive, flags=re.I)
    positive = re.sub(r"\bhaven't got\b|\bhaven't\b", "have", positive, flags=re.I)
    positive = re.sub(r"\bcan't\b", "can", positive, flags=re.I)
    positive = " ".join(positive.split())
    out = []
    for rule in _RULES:
        got = rule(positive, said_at)
        if got:
            out = got
            break
    return [RuleLearning(_no_longer(f.text), f.kind, f.about, f.confidence) for f in out]


def _no_longer(text: str) -> str:
    """ "The user lives in X." -> "The user no longer lives in X."; "... is X" -> "... is no longer X"."""
    if m := re.match(r"^(The user(?:'s [\w ]+?)?) (is|are|has) (.*)$", text):
        return f"{m.group(1)} {m.group(2)} no longer {m.group(3)}"
    if m := re.match(r"^The user (\w+) (.*)$", text):
        return f"The user no longer {m.group(1)} {m.group(2)}"
    return f"No longer: {text}"


# names --------------------------------------------------------------------------------------------------

_GREETING_NAME = re.compile(rf"^(?i:hi|hello|hey)\b[,!.]?\s+(?i:i'm|i am|this is)\s+({_NAME_RUN})[.!,]?\s*$")
_NAME = re.compile(
    rf"^(?:(?i:my name is|my name's|my first name is|call me|you can call me|people call me|everyone "
    rf"calls me|i go by|i am called|i'm called|i prefer to be called|i'd rather be called|please call me)"
    rf")\s+({_NAME_RUN})"
)


def _name(name: str) -> RuleLearning:
    return RuleLearning(f"The user's name is {name}.", "fact", About("profile", "name"), 0.9)


def _names(s: str, said_at: datetime) -> list[RuleLearning]:
    m = _NAME.match(s)
    return [_name(m.group(1))] if m else []


# home, origin -------------------------------------------------------------------------------------------

_HOME = re.compile(
    r"^(?:i|we|(?:my\s+|our\s+)?[\w'-]+ and i)\s+"
    r"(?:(?:now|currently|still|also|just|finally|recently|officially)\s+)?"
    r"(live in|live near|'m living in|am living in|are living in|'re living in|'m based in|am based in|"
    r"are based in|'re based in|'m based out of|moved to|moved back to|relocated to|have moved to|"
    r"'ve moved to|have relocated to|'ve relocated to|'ve just moved to|settled in|moved house to|"
    r"live)\s+(.+)$",
    re.I,
)
_ORIGIN = re.compile(
    r"^i\s+(?:(?:originally)\s+)?(am from|'m from|am originally from|'m originally from|grew up in|"
    r"come from|was raised in)\s+(.+)$",
    re.I,
)
_BORN = re.compile(r"^i\s+was born\s+(?:on|in)\s+(.+)$", re.I)


def _place(text: str) -> str:
    value = _VALUE_END.split(_TRAIL.sub("", text), maxsplit=1)[0].strip()
    value = re.sub(r"^(?:here in|here to|over in)\s+", "", value, flags=re.I)
    return value.rstrip(",.; ")


def _home(s: str, said_at: datetime) -> list[RuleLearning]:
    if m := _HOME.match(s):
        place = _place(m.group(2))
        if not place or place.lower() in {"here", "there", "alone", "together", "nearby", "abroad"}:
            return []
        if not m.group(1).lower().startswith(("live in", "am living", "are living")) and not _is_name(place):
            return []  # "moved to a bigger flat" names no place
        return [RuleLearning(f"The user lives in {place}.", "fact", About("profile", "home"), 0.85)]
    if m := _ORIGIN.match(s):
        place = _place(m.group(2))
        return (
            [RuleLearning(f"The user is from {place}.", "fact", About("profile", "origin"), 0.85)]
            if place
            else []
        )
    if m := _BORN.match(s):
        what = _TRAIL.sub("", m.group(1)).strip()
        if re.match(rf"^(?:\d|the\s+\d|(?:{_MONTHS})\b)", what, re.I):
            value = re.split(r"\s+(?:in|at)\s+(?=[A-Z])", what)[0].strip(", ")
            return [
                RuleLearning(f"The user was born on {value}.", "fact", About("profile", "birthday"), 0.85)
            ]
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
        "quick learner|night owl|early riser|insider|bit|lot|kind|sort|part|piece|"
    )
    .strip("|")
    .split("|")
)
_EMPLOYER = re.compile(
    r"^i\s+(?:(?:now|currently|still|also|just|recently|finally|officially)\s+)?"
    r"(work at|work for|'m working at|am working at|'m working for|am working for|joined|"
    r"started at|started working at|started working for|got a job at|got a job with|got hired by|"
    r"got hired at|was hired by|'ve been hired by|have been hired by|'ve joined|have joined|"
    r"started a new job at|started a job at|'ve started a new job at|'m employed by|am employed by|"
    r"'m employed at|have started at|have started a new job at|now work at)\s+(.+)$",
    re.I,
)
_ROLE = re.compile(
    r"^i\s+(?:(?:now|currently|still|also|just|recently|finally|officially)\s+)?"
    r"(work as|'m working as|am working as|got a job as|was promoted to|'ve been promoted to|"
    r"have been promoted to|got promoted to|became|'ve become|have become|started as|retrained as|"
    r"trained as|qualified as|am|'m)\s+(.+)$",
    re.I,
)
_LEFT_JOB = re.compile(
    r"^i\s+(?:(?:just|finally|recently|officially)\s+)?(?P<verb>quit|left|resigned from|was laid off from|"
    r"got laid off from|was fired from|got fired from|retired from|have left|have quit|"
    r"handed in my notice at|"
    r"stopped working at|stopped working for)\s+(?P<job>my job at\s+|my job with\s+|my position at\s+|"
    r"my role at\s+|my job as\s+(?:an?\s+)?(?P<role>[\w\s-]+?)\s+at\s+|my job as\s+(?:an?\s+)?"
    r"(?P<oldrole>[\w\s-]+)$|)(?P<org>.*)$",
    re.I,
)


def _org(text: str) -> str:
    value = _VALUE_END.split(_TRAIL.sub("", text), maxsplit=1)[0].strip().rstrip(",.; ")
    value = re.split(r"\s+as\s+(?:an?\s+)?", value, maxsplit=1)[0]
    return value


def _role_value(text: str) -> tuple[str, str | None]:
    """ "a nurse at St Mary's" -> ("nurse", "St Mary's")."""
    value = _TRAIL.sub("", text).strip()
    m = re.match(r"^(.+?)\s+(?:at|for|with)\s+(.+)$", value)
    employer = None
    if m:
        # the workplace is not part of the role; a named one is the employer
        value, employer = m.group(1), (_org(m.group(2)) if _is_name(m.group(2)) else None)
    value = _VALUE_END.split(value, maxsplit=1)[0].strip().rstrip(",.; ")
    value = re.sub(r"^(?:an?|the)\s+", "", value, flags=re.I)
    return value, employer


def _job(s: str, said_at: datetime) -> list[RuleLearning]:
    if m := _LEFT_JOB.match(s):
        org = _org(m.group("org") or "")
        role = m.group("role") or m.group("oldrole")
        out = []
        if m.group("verb").lower() in {"left", "have left"} and not m.group("job"):
            return []  # "I left Lisbon" may be a place: only "left my job at ..." is a job
        if org and (_is_name(org) or (m.group("job") and org[:1].isalpha())):
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
        org = _org(rest)
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
        value, employer = _role_value(m.group(2))
        # the noun phrase stays whole with its of-phrase ("head of department"); its head is the noun
        # before "of"
        value = re.split(r"\s+(?:in|who|that|and|but)\s+", value, maxsplit=1)[0]
        core = re.split(r"\s+of\s+", value, maxsplit=1)[0]
        head = core.split()[-1].lower() if core else ""
        if value.lower() in _NOT_OCCUPATION or head in _NOT_OCCUPATION or len(value.split()) > 5:
            return []
        if verb in {"am", "'m"}:
            if not re.match(r"^(?:an?\s+)", _TRAIL.sub("", m.group(2)).strip(), re.I):
                return []
            if not _OCCUPATION.search(head):
                return []
        if not value:
            return []
        out = [RuleLearning(f"The user works as {_article(value)}.", "fact", About("profile", "role"), 0.85)]
        if employer:
            out.append(
                RuleLearning(f"The user works at {employer}.", "fact", About("profile", "employer"), 0.85)
            )
        return out
    return []


def _article(noun: str) -> str:
    if re.match(r"^(?:an?|the|my)\s", noun, re.I) or noun[:1].isupper():
        return noun
    return ("an " if noun[:1].lower() in "aeiou" else "a ") + noun


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
_KIN = (
    "sister|brother|son|daughter|child|kid|baby|cousin|aunt|uncle|niece|nephew|grandmother|grandfather|"
    "grandma|grandpa|granny|grandson|granddaughter|grandchild|twin|stepson|stepdaughter|stepsister|"
    "stepbrother|sibling|in-law|sister-in-law|brother-in-law|mother-in-law|father-in-law|"
    + "|".join(sorted(_UNIQUE_KIN, key=len, reverse=True))
)
_PETS = (
    "dog|puppy|pup|cat|kitten|rabbit|bunny|hamster|parrot|budgie|bird|fish|goldfish|turtle|tortoise|"
    "horse|pony|guinea pig|snake|lizard|ferret|gecko|chinchilla|rat|mouse|hedgehog|cockatiel|pig|goat"
)
_MY_KIN = re.compile(
    rf"^(?i:my|our)\s+(?i:(?:little|big|older|younger|baby|eldest|oldest|youngest|twin|new|late)\s+)?"
    rf"(?i:({_KIN}))(?i:'s name is\s+|\s+is\s+(?:called\s+|named\s+)?|,\s*|"
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
    rf"^({_NAME_RUN})\s+is\s+(?i:my)\s+(?i:(?:little|big|older|younger)\s+)?(?i:({_KIN}))\b"
)
_HAVE_KIN = re.compile(
    rf"^(?:i|we)\s+(?:have|'ve got|have got|had)\s+(?:an?|one|two|three|four|five|\d+)\s+"
    rf"(?:(?:little|big|older|younger|baby|twin|grown-up)\s+)?({_KIN})s?\s*(?:,|:|named|called|-)?\s*(.+)$",
    re.I,
)
_PET_OWN = re.compile(
    rf"^(?:i|we)\s+(?:(?:just|recently|finally)\s+)?(?:have|'ve got|have got|got|adopted|rescued|"
    rf"brought home|bought)\s+(?:an?|one|two|three|\d+|a new|a little)\s+(?:(?:new|little|baby|"
    rf"rescue|\w+)\s+)?({_PETS})s?\s*(?:,|:|named|called|-)?\s*(.+)$",
    re.I,
)
_MY_PET = re.compile(
    rf"^(?i:my|our)\s+(?i:(?:new|little|old|rescue)\s+)?(?i:({_PETS}))(?i:'s name is\s+|\s+is\s+(?:called\s+|"
    rf"named\s+)?|,\s*|\s+(?:is\s+)?(?:called|named)\s+|\s+)({_NAME_RUN})\b(.*)$"
)
# "We rescued a greyhound named Dash": a creature adopted or rescued and named is a pet, whatever its kind
_ADOPTED_NAMED = re.compile(
    rf"^(?i:i|we)\s+(?i:(?:just|recently|finally)\s+)?(?i:adopted|rescued|took in)\s+(?i:an?|one)\s+"
    rf"((?i:[a-z-]+)(?:\s+(?i:[a-z-]+))?)\s+(?i:named|called)\s+({_NAME_RUN})\b"
)
_DIED = re.compile(r"\b(?:passed away|died|passed|was put down|had to be put down|is gone)\b", re.I)
_LOST_PET = re.compile(
    rf"^(?:i|we)\s+(?:(?:just|recently|sadly)\s+)?(?:lost|had to put down|said goodbye to)\s+(?:my|our)\s+"
    rf"(?:(?:old|little|beloved|sweet)\s+)?({_PETS}|{_KIN}),?\s+({_NAME_RUN})\b",
    re.I,
)
_RELATIONSHIP = re.compile(
    r"^(?:i|we)\s+(?:(?:just|recently|finally|officially)\s+)?(?P<state>'m married|am married|are married|"
    r"'re married|got married|'m engaged|am engaged|got engaged|are engaged|'re engaged|'m single|am single|"
    r"'m divorced|am divorced|got divorced|'m separated|am separated|'m dating|am dating|'m seeing|"
    r"am seeing|'m in a relationship|am in a relationship|broke up|split up|separated|"
    r"'ve broken up|have broken up|'re separated|are separated)(?P<rest>.*)$",
    re.I,
)
_THEY_AND_I = re.compile(
    rf"^({_NAME_RUN}) and i\s+(got married|got engaged|broke up|split up|separated|got divorced|"
    r"are dating|are engaged|are married|have broken up|'ve broken up)\b",
    re.I,
)
_STATE_TEXT = {
    "married": "is married",
    "got married": "is married",
    "engaged": "is engaged",
    "got engaged": "is engaged",
    "single": "is single",
    "divorced": "is divorced",
    "got divorced": "is divorced",
    "separated": "is separated",
    "dating": "is dating",
    "seeing": "is dating",
    "in a relationship": "is in a relationship",
    "broke up": "broke up",
    "split up": "broke up",
    "broken up": "broke up",
}


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
    return {"kid": "child", "grandma": "grandmother", "grandpa": "grandfather", "granny": "grandmother"}.get(
        low, low
    ), False


def _kin_learning(rel: str, name: str) -> RuleLearning:
    key, unique = _kin_key(rel)
    about = About("family", key if unique else f"{key} {name.lower()}")
    return RuleLearning(f"The user's {rel.lower()} is {name}.", "fact", about, 0.85, named=name)


def _pet_learning(animal: str, name: str) -> RuleLearning:
    return RuleLearning(
        f"The user has a {animal.lower()} named {name}.", "fact", About("pet", name.lower()), 0.85, named=name
    )


def _family(s: str, said_at: datetime) -> list[RuleLearning]:
    if m := _LOST_PET.match(s):
        what, name = m.group(1), m.group(2)
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
    if (m := _ADOPTED_NAMED.match(s)) and not (
        _PEOPLE.search(m.group(1)) or re.search(rf"\b(?:{_KIN}|girl|boy|child|kid)s?\b", m.group(1), re.I)
    ):
        return [_pet_learning(m.group(1), m.group(2))]
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
                out += [_kin_learning(kin.group(1), n) for n in _names_in(kin.group(2))]
        return out
    if m := _THEY_AND_I.match(s):
        name, state = m.group(1), m.group(2).lower()
        said = _STATE_TEXT.get(state.replace("are ", "").replace("have ", "").replace("'ve ", ""), state)
        prep = "with" if said in {"broke up", "is dating"} else "to"
        return [
            RuleLearning(f"The user {said} {prep} {name}.", "fact", About("profile", "relationship"), 0.8)
        ]
    if m := _RELATIONSHIP.match(s):
        state = re.sub(r"^(?:'m|am|are|'re|'ve|have)\s+", "", m.group("state").lower())
        said = _STATE_TEXT.get(state, state)
        rest = _TRAIL.sub("", m.group("rest")).strip()
        who = re.match(rf"^(?:to|with)\s+({_NAME_RUN})\b|^({_NAME_RUN})\b", rest)
        name = (who.group(1) or who.group(2)) if who else None
        if name and name.split()[0] in {"I", "We", "My"}:
            name = None
        if said == "is dating" and not name:
            return []  # "I'm seeing the dentist" is an appointment, not a partner
        prep = "with" if said in {"broke up", "is dating", "is in a relationship"} else "to"
        text = f"The user {said}" + (f" {prep} {name}." if name else ".")
        return [RuleLearning(text, "fact", About("profile", "relationship"), 0.8)]
    if (m := _MY_KIN.match(s)) and not _NATIONALITY.search(m.group(2)):
        rel, name, rest = m.group(1), m.group(2), m.group(3)
        if _DIED.search(rest):
            key, unique = _kin_key(rel)
            about = About("family", key if unique else f"{key} {name.lower()}")
            return [RuleLearning(f"The user's {rel.lower()} {name} died.", "fact", about, 0.8)]
        return [_kin_learning(rel, name)]
    if m := _KIN_IS_MINE.match(s):
        return [_kin_learning(m.group(2), m.group(1))]
    return []


# health -------------------------------------------------------------------------------------------------

_ALLERGY = re.compile(
    r"^i(?:'m| am| have been| was)?\s+(?:(?:severely|very|really|mildly|slightly|deathly|super|also|so)\s+)*"
    r"allergic to\s+(.+)$|^i\s+(?:have|'ve got|have got|got)\s+(?:an?\s+)?(?:(?:severe|bad|mild|serious)\s+)?"
    r"allergy to\s+(.+)$|^i\s+(?:have|'ve got|have got)\s+(?:an?\s+)?(?:(?:severe|bad|mild|serious)\s+)?"
    r"([\w\s-]+?)\s+allergy$|^my\s+([\w\s-]+?)\s+allergy\b",
    re.I,
)
_INTOLERANT = re.compile(
    r"^i(?:'m| am)\s+(?:(?:very|really|a bit|slightly)\s+)?([\w-]+)\s+intolerant$|"
    r"^i(?:'m| am)\s+intolerant to\s+(.+)$|^i\s+(?:have|'ve got)\s+(?:an?\s+)?([\w\s-]+?)\s+intolerance$",
    re.I,
)
_CONDITION = re.compile(
    r"^i(?:'ve| have)?\s+(?:(?:recently|just|finally)\s+)?(?:was|been|got)\s+diagnosed with\s+(.+)$|"
    r"^i\s+suffer from\s+(.+)$|^i\s+(?:have|'ve got|live with|deal with|struggle with)\s+"
    r"((?:type [12] |chronic |mild |severe |bad )?(?:diabetes|asthma|arthritis|migraines|epilepsy|"
    r"celiac disease|coeliac disease|celiac|coeliac|adhd|autism|anxiety|depression|high blood pressure|"
    r"hypertension|ibs|crohn's|eczema|psoriasis|a heart condition|a bad back|back pain|insomnia|"
    r"sleep apnea|tinnitus|lupus|multiple sclerosis|ms|cancer|long covid|a thyroid condition|"
    r"hypothyroidism|fibromyalgia|ptsd|ocd|dyslexia|glaucoma|gout|anemia|anaemia))\b(.*)$|"
    r"^i(?:'m| am)\s+(diabetic|asthmatic|epileptic|celiac|coeliac|anemic|anaemic|pregnant|"
    r"colorblind|colour-blind|color-blind|deaf|hard of hearing|dyslexic|autistic|short-sighted|"
    r"near-sighted|nearsighted)\b",
    re.I,
)
_DIET = re.compile(
    r"^i(?:'m| am| went| have gone| 've gone| became| 've become| have become| eat| follow| keep)\s+"
    r"(?:(?:now|fully|strictly|mostly|also|a)\s+)*(vegan|vegetarian|pescatarian|pescetarian|keto|paleo|"
    r"plant-based|kosher|halal|gluten-free|dairy-free)\b",
    re.I,
)
_AVOID = re.compile(
    r"^i\s+(?:(?:also|strictly)\s+)?(?:don't|do not|can't|cannot|never)\s+(?:eat|drink|have|consume|touch)\s+"
    r"(meat|red meat|pork|beef|fish|seafood|shellfish|dairy|gluten|eggs|alcohol|sugar|caffeine|nuts|"
    r"peanuts|wheat|soy|chicken|lamb)\b",
    re.I,
)
_OUTGREW = re.compile(
    r"^i\s+(?:outgrew|grew out of|'ve outgrown|have outgrown)\s+my\s+([\w\s-]+?)\s+allergy", re.I
)


def _items(text: str) -> list[str]:
    """ "peanuts, shellfish and cats" -> the three, each clipped at its first time phrase."""
    text = re.split(r",?\s+(?:so|but|which|because|though|since|when)\b", text, maxsplit=1)[0]
    parts = re.split(r"\s*,\s*(?:and\s+|or\s+)?|\s+(?:and|or|&)\s+", _TRAIL.sub("", text))
    out = []
    for p in parts:
        p = _VALUE_END.split(p, maxsplit=1)[0].strip(" .")
        p = re.sub(r"^(?:all|most|some|any|certain)\s+", "", p, flags=re.I)
        if p and len(p.split()) <= 4:
            out.append(p)
    return out


def _health(s: str, said_at: datetime) -> list[RuleLearning]:
    if m := _OUTGREW.match(s):
        what = m.group(1).strip()
        return [
            RuleLearning(
                f"The user is no longer allergic to {what}.",
                "fact",
                About("health", f"allergy {_key(what)}"),
                0.8,
            )
        ]
    if m := _ALLERGY.match(s):
        raw = next(g for g in m.groups() if g)
        return [
            RuleLearning(f"The user is allergic to {x}.", "fact", About("health", f"allergy {_key(x)}"), 0.9)
            for x in _items(raw)
        ]
    if m := _INTOLERANT.match(s):
        what = next(g for g in m.groups() if g).strip()
        return [
            RuleLearning(
                f"The user is intolerant to {what}.",
                "fact",
                About("health", f"intolerance {_key(what)}"),
                0.85,
            )
        ]
    if m := _CONDITION.match(s):
        if m.group(5):
            word = m.group(5).lower()
            text = f"The user is {word}."
            key = word
        else:
            what = _VALUE_END.split(_TRAIL.sub("", m.group(1) or m.group(2) or m.group(3)), maxsplit=1)[
                0
            ].strip()
            text, key = f"The user has {what}.", what.lower()
        return [RuleLearning(text, "fact", About("health", f"condition {_key(key)}"), 0.85)]
    if m := _DIET.match(s):
        diet = m.group(1).lower()
        return [RuleLearning(f"The user is {diet}.", "fact", About("health", "diet"), 0.85)]
    if m := _AVOID.match(s):
        what = m.group(1).lower()
        return [
            RuleLearning(
                f"The user does not eat {what}.", "fact", About("health", f"avoids {_key(what)}"), 0.8
            )
        ]
    return []


# dates --------------------------------------------------------------------------------------------------

_BIRTHDAY = re.compile(
    r"^(?:my|our)\s+(?:(?P<who>[\w\s'-]{1,30}?)'s\s+)?(?P<what>birthday|bday|wedding anniversary|anniversary)"
    r"(?:'s| is)\s+(?:on\s+)?(?P<when>.+)$|^(?P<name>[A-Z][\w-]*)'s\s+(?P<what2>birthday|bday)\s+is\s+"
    r"(?:on\s+)?(?P<when2>.+)$",
    re.I,
)
_AGE = re.compile(
    r"^i\s+(?:am|just turned|turned|have just turned|will be|will turn|turn)\s+(\d{1,3})"
    r"(?:\s+(?:years?|yrs?)\s+old)?(?=\s*$|\s*,|\s+(?:now|today|this|next|on|in|last|and|but|soon)\b)",
    re.I,
)


def _dates(s: str, said_at: datetime) -> list[RuleLearning]:
    if m := _BIRTHDAY.match(s):
        when = _TRAIL.sub("", m.group("when") or m.group("when2")).strip()
        when = re.sub(r"^on\s+", "", when, flags=re.I)
        when = re.split(r"\s*(?:,|\band\b|\bbut\b|\bso\b)\s*", when, maxsplit=1)[0]
        who = m.group("who") or m.group("name")
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
    if m := _AGE.match(s):
        age = int(m.group(1))
        if 1 <= age <= 120:
            return [RuleLearning(f"The user is {age} years old.", "fact", About("profile", "age"), 0.85)]
    return []


# preferences --------------------------------------------------------------------------------------------

_FAVOURITE = re.compile(r"^my (?:favou?rite|preferred)\s+([\w\s-]{1,40}?)\s+(?:is|are)\s+(.+)$", re.I)
_FAVOURITE_IS = re.compile(
    r"^(.{1,40}?)\s+(?:is|are)\s+my\s+(?:absolute\s+)?(?:favou?rite|preferred)\s*([\w\s-]{0,40})$", re.I
)
_PREFER = re.compile(
    r"^i\s+(?:now\s+|really\s+|much\s+|definitely\s+|still\s+|generally\s+|usually\s+)?prefer\s+(.+?)"
    r"(?:\s+(?:to|over|rather than)\s+(.+?))?$",
    re.I,
)
_SWITCHED = re.compile(
    r"^i(?:'ve| have)?\s+(?:(?:just|recently|finally)\s+)?(?:switched|changed|gone over)\s+"
    r"(?:from\s+(.+?)\s+)?to\s+(.+)$",
    re.I,
)
_LIKE = re.compile(
    r"^i\s+(?:really\s+|do\s+|absolutely\s+|totally\s+|truly\s+|also\s+|still\s+|kind of\s+|kinda\s+|"
    r"honestly\s+|just\s+)*(like|love|adore|enjoy|dislike|hate|detest|loathe|don't like|do not like|"
    r"can't stand|cannot stand|don't enjoy|do not enjoy)\s+(.+)$",
    re.I,
)
_FAN = re.compile(
    r"^i(?:'m| am)\s+(?:(?:a|such a|a huge|a big|a massive|huge|big|really|so|totally|very|not|not really|"
    r"not much of)\s+)*(fan of|into|obsessed with|crazy about|passionate about|keen on|a fan of)\s+(.+)$",
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
_DRINK = re.compile(
    r"^i\s+(?:usually\s+|mostly\s+|only\s+|mainly\s+|just\s+|always\s+)?drink\s+(.+?)"
    r"(?:\s+(?:every|each|in the|at|with|most|a lot)\b.*)?$",
    re.I,
)
_REACTION = re.compile(r"^(?:it|that|this|those|these|them|him|her|you|your|the idea|the sound of)\b", re.I)


def _preferences(s: str, said_at: datetime) -> list[RuleLearning]:
    if m := _FAVOURITE.match(s):
        what, value = _key(m.group(1)), _value(m.group(2))
        return [
            RuleLearning(
                f"The user's favourite {what} is {value}.", "preference", About("preference", what), 0.9
            )
        ]
    if m := _FAVOURITE_IS.match(s):
        value, what = _value(m.group(1)), _key(m.group(2) or m.group(1))
        if _REACTION.match(value):
            return []
        return [
            RuleLearning(
                f"The user's favourite {what} is {value}.", "preference", About("preference", what), 0.85
            )
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
    if m := _SWITCHED.match(s):
        old, new = (_value(m.group(1)) if m.group(1) else None), _value(m.group(2))
        if not new or _REACTION.match(new):
            return []
        key = _preference_key(new, old)
        if key == _key(new) and old is None:
            return []  # "I switched to X" says nothing stable unless X has a known category
        return [
            RuleLearning(
                f"The user prefers {third_person(new)}.", "preference", About("preference", key), 0.8
            )
        ]
    if (m := _DRINK.match(s)) and _preference_key(_value(m.group(1)), None) == "drink":
        obj = _value(m.group(1))
        return [RuleLearning(f"The user drinks {obj}.", "preference", About("preference", "drink"), 0.75)]
    if m := _FAN.match(s):
        negative = bool(re.search(r"\bnot\b", s, re.I))
        obj = _value(m.group(2))
        if not obj or _REACTION.match(obj):
            return []
        text = f"The user is {'not ' if negative else ''}a fan of {third_person(obj)}."
        return [RuleLearning(text, "preference", About("preference", _key(obj)), 0.8)]
    if m := _LIKE.match(s):
        verb, obj = m.group(1).lower(), _value(m.group(2))
        if (
            not obj
            or _REACTION.match(obj)
            or obj.lower().startswith(("to hear", "how ", "what ", "the way you"))
        ):
            return []
        phrase = {
            "don't like": "does not like",
            "do not like": "does not like",
            "can't stand": "cannot stand",
            "cannot stand": "cannot stand",
            "don't enjoy": "does not enjoy",
            "do not enjoy": "does not enjoy",
        }
        said = phrase.get(verb, conjugate(verb))
        return [
            RuleLearning(
                f"The user {said} {third_person(obj)}.", "preference", About("preference", _key(obj)), 0.8
            )
        ]
    return []


def _value(text: str) -> str:
    """An object as a value: without what a following clause adds ("X, they give me nightmares") and
    without a leading amount ("a lot of green tea" is green tea)."""
    text = re.split(
        r",\s*(?=(?:they|it|he|she|this|that|which|but|so|because|as|since)\b)", text, maxsplit=1
    )[0]
    # a comment after a comma ("Emacs, don't judge", "coffee, doctor's orders") is not part of the value
    text = re.split(
        r",\s*(?=[^,]*(?:\b(?:i|me|my|we|our|you|don't|doesn't|isn't|says|said|apparently|lol|haha)\b|'s\b))",
        text,
        maxsplit=1,
    )[0]
    text = re.sub(
        r"^(?:a lot of|lots of|loads of|plenty of|a bit of|a little|some|mostly)\s+", "", text, flags=re.I
    )
    return _TRAIL.sub("", text).strip().rstrip(",.; ")


# instructions -------------------------------------------------------------------------------------------

_ADDRESSED = re.compile(
    r"^(?:(?:please|kindly)\s+)?(?:(?:i(?:'d| would) like you to|i want you to|i need you to|"
    r"can you|could you|"
    r"make sure (?:to|that you|you)|remember to|be sure to|you should|you must|you need to|try to)\s+)?",
    re.I,
)
_ALWAYS = re.compile(
    r"^(?:from now on,?\s+|going forward,?\s+|in (?:the )?future,?\s+|by default,?\s+)?"
    r"(always|never)\s+(.+)$",
    re.I,
)
_DONT_EVER = re.compile(
    r"^(?:please\s+)?(?:don't|do not)\s+(?:ever\s+)?(.+?)(?:,?\s+(?:ever|ever again|again))?$", re.I
)
_STANDING_LEAD = re.compile(
    r"^(?:from now on|going forward|in (?:the )?future|by default|from here on(?: out)?|for all future "
    r"(?:answers|replies|chats))\s*,?\s+(.+)$|^(.+?)\s*,?\s+(?:from now on|going forward|in (?:the )?future|"
    r"by default|from here on(?: out)?)$",
    re.I,
)
_WHENEVER = re.compile(r"^(?:whenever|every time|each time|any time)\s+(.+?),\s*(?:please\s+)?(.+)$", re.I)
_WITHDRAW = re.compile(
    r"^(?:you\s+)?(?:don't|do not|no)\s+(?:need|have)\s+to\s+(.+?)\s+(?:any ?more|from now on)$|"
    r"^no need to\s+(.+?)\s+any ?more$|^(?:you can|feel free to|it's fine to|it is fine to|it's ok to|"
    r"it's okay to)\s+(.+?)\s+again$|^(?:please\s+)?(?:stop|quit)\s+(\w+ing\b.*)$|"
    r"^(?:forget|drop|cancel|ignore)\s+(?:the|my)\s+(?:rule|instruction|request)\s+(?:about|to|of)\s+(.+)$",
    re.I,
)
_YOU_SUBJECT = re.compile(
    r"^(?:you|your answers|your replies|answers|replies)\s+(?:should|must|need to)\s+(always|never)?\s*(.+)$",
    re.I,
)


def _instruction(s: str) -> RuleLearning | None:
    if m := _WITHDRAW.match(s):
        g = [x for x in m.groups() if x]
        action = _base_phrase(_value(g[0])) if g else ""
        if not action:
            return None
        key = _instruction_key(action)
        if m.group(4):  # "stop doing X" is itself a standing "never X"
            return RuleLearning(
                f"Never {third_person(action)}.", "instruction", About("instruction", key), 0.85
            )
        return RuleLearning(
            f"No longer a standing instruction: {third_person(action)}.",
            "instruction",
            About("instruction", key),
            0.85,
        )
    body = _ADDRESSED.sub("", s, count=1).strip()
    if m := _YOU_SUBJECT.match(body):
        if not (m.group(1) or _STANDING.search(s)):
            return None
        word = (m.group(1) or "always").lower()
        rest = _strip_standing(m.group(2))
        return RuleLearning(
            f"{word.capitalize()} {third_person(rest)}.",
            "instruction",
            About("instruction", _instruction_key(rest)),
            0.85,
        )
    if m := _ALWAYS.match(body):
        word, rest = m.group(1).lower(), _strip_standing(m.group(2))
        if not rest:
            return None
        return RuleLearning(
            f"{word.capitalize()} {third_person(rest)}.",
            "instruction",
            About("instruction", _instruction_key(rest)),
            0.9,
        )
    if m := _STANDING_LEAD.match(body):
        rest = _value(m.group(1) or m.group(2))
        if dont := _DONT_EVER.match(rest):
            action = _strip_standing(dont.group(1))
            return RuleLearning(
                f"Never {third_person(action)}.",
                "instruction",
                About("instruction", _instruction_key(action)),
                0.85,
            )
        if re.match(r"^(?:i|we|my|our)\b", rest, re.I):
            return None  # "from now on I ..." is about the user, not an instruction
        rest = _ADDRESSED.sub("", rest, count=1).strip()
        return RuleLearning(
            f"From now on, {third_person(rest)}.",
            "instruction",
            About("instruction", _instruction_key(rest)),
            0.85,
        )
    if m := _WHENEVER.match(body):
        rest = _value(m.group(2))
        if re.match(r"^(?:i|we|my|our)\b", rest, re.I):
            return None
        cond = _value(m.group(1))
        return RuleLearning(
            f"Whenever {third_person(cond)}, {third_person(rest)}.",
            "instruction",
            About("instruction", _instruction_key(rest)),
            0.85,
        )
    if body is not s and (dont := _DONT_EVER.match(body)) and re.search(r"\bever\b", s, re.I):
        action = _strip_standing(dont.group(1))
        return RuleLearning(
            f"Never {third_person(action)}.",
            "instruction",
            About("instruction", _instruction_key(action)),
            0.85,
        )
    if (dont := _DONT_EVER.match(s)) and re.search(r"\bever\b", s, re.I):
        action = _strip_standing(dont.group(1))
        return RuleLearning(
            f"Never {third_person(action)}.",
            "instruction",
            About("instruction", _instruction_key(action)),
            0.85,
        )
    return None


def _strip_standing(text: str) -> str:
    out = _STANDING.sub("", _value(text))
    return _value(" ".join(out.split()).strip(" ,"))


def _instruction_key(action: str) -> str:
    """The subject of an instruction: its verb phrase, with "in <X>" values folded ("answer in French"
    and "answer in Spanish" are one subject, so the later one wins)."""
    action = re.sub(r"^(?:please|to|you|kindly)\s+", "", action.strip(), flags=re.I)
    m = re.match(r"^(.+?\s(?:in|using))\s+\S+(?:\s+\S+)?$", action, re.I)
    return _key(m.group(1)) if m else _key(action)


def _base_phrase(text: str) -> str:
    """ "using emojis" -> "use emojis": a leading gerund back to its base form."""
    m = re.match(r"^(\w+)ing\b(.*)$", text, re.I)
    if not m:
        return text
    stem, rest = m.group(1), m.group(2)
    if len(stem) > 2 and stem[-1] == stem[-2] and stem[-1] not in "lsz":
        stem = stem[:-1]
    elif (
        len(stem) >= 2
        and stem[-1] not in "aeiouwxy"
        and stem[-2] in "aeiou"
        and (len(stem) < 3 or stem[-3] not in "aeiou")
        and not re.search(r"(?:er|en|on|el|it|ol|et)$", stem)
    ):
        stem += "e"
    return stem + rest


# events and notes ---------------------------------------------------------------------------------------

_MY_IS = re.compile(r"^my\s+([\w\s'-]{1,40}?)\s+(?:is|are)\s+(.+)$", re.I)
_PEOPLE = re.compile(
    r"\b(?:friend|friends|coworker|co-worker|colleague|colleagues|boss|manager|neighbou?r|roommate|"
    r"flatmate|classmate|teammate|teacher|doctor|landlord|client|clients|team|company|kids|children|"
    r"family|parents|mentor|therapist)\b",
    re.I,
)


def _attribute(s: str, said_at: datetime) -> list[RuleLearning]:
    """ "My X is Y" for the user's own attributes (address, email, timezone, goal), not other people."""
    if m := _MY_IS.match(s):
        what, value = _key(m.group(1)), _value(m.group(2))
        people = _PEOPLE.search(m.group(1)) or re.search(rf"\b(?:{_KIN})s?\b", m.group(1), re.I)
        if not (what and value) or people or _dated(s, said_at):
            return []
        if re.match(r"^(?:so|very|really|too|kind of|a bit|pretty|super)\b", value, re.I):
            return []
        return [
            RuleLearning(f"The user's {what} is {third_person(value)}.", "fact", About("profile", what), 0.8)
        ]
    return []


def _event(s: str, said_at: datetime) -> list[RuleLearning]:
    if _MOOD.match(s):
        return []  # "I'm so tired today" dates a mood, not an event
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
    r"can't believe|cannot believe)\b",
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
    if len(words) < 5 or len(s) > 300 or _QUESTION_START.match(s) or _HYPOTHETICAL.search(s):
        return []
    if not _NOTE_SUBJECT.match(s) or _PLEASANTRY.match(s) or _MOOD.match(s):
        return []
    if re.search(r"\b(?:you|your|you're|you've|yours)\b", s, re.I):
        return []
    owner = re.match(r"^(?:my|our)\s+([\w'-]+(?:\s+[\w'-]+)?)", s, re.I)
    household = re.compile(r"\b(?:kids|children|family|parents)\b", re.I)
    if owner and _PEOPLE.search(owner.group(1)) and not household.search(owner.group(1)):
        return []  # what a friend or a colleague did is their fact, not the user's
    return [RuleLearning(_sentence_case(third_person(s)) + ".", "fact", None, 0.6)]


# -- text ------------------------------------------------------------------------------------------------

_MODALS = {"can", "could", "will", "would", "should", "shall", "may", "might", "must", "cannot"}
_ADVERBS = (
    "really|also|just|usually|often|always|never|still|now|actually|sometimes|mostly|absolutely|totally|"
    "definitely|recently|finally|generally|normally|rarely|seldom|already|even|truly|currently|mainly|"
    "only|honestly|basically|kind of|kinda|sort of"
)
_IRREGULAR_PAST = frozenset(
    (
        "went ran was were had got made took saw came left met found felt thought told said bought "
        "brought began became did ate drank wrote read gave knew sat stood won lost spent sent "
        "built kept slept taught caught flew drove rode swam sang heard held paid put quit set cut "
        "hurt let broke chose fell forgot grew hit led meant moved sold shot shut split spoke stole "
        "struck threw understood woke wore used joined started tried finished visited decided "
    )
    .strip(" ")
    .split(" ")
)


def _past(word: str) -> bool:
    """A verb form ending in -ed is past ("moved"), except the base forms ending in -eed ("need",
    "feed", "succeed": "agreed" and "freed" are agree and free in the past) and short words ("shed")."""
    if word.endswith("eed"):
        return word in {"agreed", "freed", "decreed", "guaranteed", "refereed", "disagreed"}
    return word.endswith("ed") and len(word) > 4


def conjugate(verb: str) -> str:
    """A base-form verb for a third-person singular subject: live -> lives, have -> has, go -> goes."""
    low = verb.lower()
    special = {"be": "is", "am": "is", "have": "has", "do": "does", "go": "goes", "'m": "is", "'ve": "has"}
    if low in special:
        return special[low]
    if low in _MODALS or low in _IRREGULAR_PAST or _past(low) or low.endswith("'d"):
        return verb
    if re.search(r"(?:s|sh|ch|x|z|o)$", low):
        return verb + "es"
    if re.search(r"[^aeiou]y$", low):
        return verb[:-1] + "ies"
    return verb + "s"


def third_person(text: str) -> str:
    """First person to third: "my" -> "the user's", "I am" -> "the user is", "I live" -> "the user
    lives" (the verb agrees), "me" -> "the user", "we" -> "the user and others"."""

    def agree(m: re.Match[str]) -> str:
        adverbs, verb = m.group(1) or "", m.group(2)
        low = verb.lower()
        if low in {"don't", "dont"}:
            return f"the user {adverbs}does not"
        if low in {"can't", "cant"}:
            return f"the user {adverbs}cannot"
        if low in {"won't"}:
            return f"the user {adverbs}will not"
        if low in {"didn't", "wasn't", "haven't", "hasn't"}:
            return f"the user {adverbs}" + {"didn't": "did not", "wasn't": "was not"}.get(low, "has not")
        if low in {"was", "had"} or _past(low) or low in _IRREGULAR_PAST or low in _MODALS:
            return f"the user {adverbs}{verb}"
        if not re.fullmatch(r"[a-z]+", low) or low in {"the", "a", "an", "and", "or", "to", "in", "at"}:
            return f"the user {adverbs}{verb}"
        return f"the user {adverbs}{conjugate(verb)}"

    swaps: list[tuple[str, str]] = [
        (r"\bI am\b|\bI'm\b|\bIm\b", "the user is"),
        (r"\bI've\b|\bI have\b", "the user has"),
        (r"\bI'll\b|\bI will\b", "the user will"),
        (r"\bI'd\b", "the user would"),
        (r"\bI was\b", "the user was"),
        (r"\bwe're\b|\bwe are\b", "the user and others are"),
        (r"\bwe've\b", "the user and others have"),
        (r"\bwe\b", "the user and others"),
        (r"\bour\b", "the user's"),
        (r"\bours\b", "the user's"),
        (r"\bus\b", "the user and others"),
        (r"\bmy\b", "the user's"),
        (r"\bme\b", "the user"),
        (r"\bmine\b", "the user's"),
        (r"\bmyself\b", "the user"),
    ]
    out = text
    for pattern, repl in swaps[:5]:
        out = re.sub(pattern, repl, out, flags=re.I)
    out = re.sub(rf"\bI\s+((?:(?:{_ADVERBS})\s+)*)([\w']+)", agree, out, flags=re.I)
    out = re.sub(r"\bI\b", "the user", out, flags=re.I)
    for pattern, repl in swaps[5:]:
        out = re.sub(pattern, repl, out, flags=re.I)
    return out


def _sentence_case(text: str) -> str:
    return text[:1].upper() + text[1:] if text else text


def _key(text: str) -> str:
    words = re.findall(r"[a-z0-9]+", text.lower())
    return (
        " ".join(w for w in words if w not in {"the", "a", "an", "to", "my", "your", "our"})[:80] or "general"
    )


def _preference_key(choice: str, other: str | None) -> str:
    # the thing itself, without what follows it ("tea in the afternoons" is about tea)
    low = re.split(r"\s+(?:in|on|at|for|with|when|while|during|after|before|every)\s+", choice.lower())[0]
    for category, members in _CATEGORIES.items():
        if low in members or (other and other.lower() in members):
            return category
    if other:
        return " vs ".join(sorted([_key(choice), _key(other)]))
    m = re.search(r"\bfor\s+(.+)$", choice.lower())
    return _key(m.group(1)) if m else _key(choice)


def _dated(s: str, said_at: datetime) -> tuple[datetime, datetime] | None:
    """The day a sentence is about, as a UTC [start, end) range: the first expression the date reader
    (retrieval/dates.py) resolves to a single day, against when the sentence was said."""
    for span in dates.resolve(s, said_at.astimezone(UTC)):
        if span.end - span.start == _DAY:
            return span.start, span.end
    return None


_REMEMBER = re.compile(
    r"^(?:remember|don't forget|do not forget|note|keep in mind)\s+(?:that\s+)?(.+)$", re.I
)

# In order: the first rule that reads a clause wins.
_RULES = (_names, _health, _dates, _family, _preferences, _job, _home, _attribute)
