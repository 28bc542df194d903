"""English words, phrases and forms the rules share: where a value ends, names, cue words, third person."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from tinymemory.retrieval import dates

_LEAD = re.compile(
    r"^(?:(?:oh|ok|okay|so|well|also|and|but|hey|hi|hello|actually|correction|update|by the way|btw|"
    r"fyi|just so you know|please|pls|no(?=[,!.:;])|yes|yeah|yep|sorry|quick update|news|guess what|"
    r"(?:the\s+)?(?:good|great|big|bad|some|exciting|sad) news(?:\s+is(?:\s+that)?)?|"
    r"scratch that|typo|no wait|"
    # a frame of telling: "I should say: ...", "I forgot to mention, ..."
    r"i (?:should|must|have to|need to|forgot to|meant to) (?:say|mention|add|tell you)|"
    # leads of reconsidering
    r"come to think of it|on second thoughts?|on reflection|thinking about it|having thought about it|"
    r"i mean|"
    r"in fact|anyway|anyways|oops|whoops|wait|heads up|just|plus|then|now|i meant|what i meant is|sadly|"
    r"unfortunately|luckily|fortunately|thankfully|honestly|long story short)\b[,:;!.-]?\s*|"
    # an imperative before a colon is the clause, its examples after: "use British spelling: colour"; a
    # lead joined by "and" is a clause too ("relented and switched editors: ...")
    r"^(?![^:]*\b(?:i|we|my|our|have|has|had|is|are|was|were|and)\b)"
    r"(?!(?:use|write|keep|give|answer|reply|format|stick|skip|avoid|put|show)\b)[\w' -]{1,30}:\s+|"
    # a lead with a name inside it is a clause of its own: "Huge Radiohead fan, I've seen them twice"
    r"^(?!(?:i|we)\s)(?![\w']+\s+(?:[\w']+\s+)?(?-i:[A-Z]))(?:[a-z']+\s+){0,2}[a-z']+,\s+"
    r"(?=(?:i|we|my|our|correction|actually)\b))+",
    # a short lead ending in a colon ("big news: ..."), not a clause introducing a list
    re.I,
)
_TRAIL = re.compile(
    r"\s*(?:,?\s*(?:now|anymore|any more|these days|nowadays|instead|please|thanks|thank you|again|"
    r"too|as well|already|btw|lol|haha|for now|at the moment|right now|(?-i:rn)|though|actually|"
    # an emphatic reflexive after a predicate adds nothing to it: "I'm a nurse myself"
    r"everywhere|myself|ourselves))+\s*$",
    re.I,
)
# Time and circumstance phrases that end a value: "Madrid in May", "Initech last year".
_VALUE_END = re.compile(
    r"\s*(?:,|\s(?:in|on|since|from|during|around|about|back in)\s+(?:the\s+)?(?:\d+|early|late|mid|spring|"
    r"summer|autumn|fall|winter|january|february|march|april|may|june|july|august|september|october|"
    r"november|december|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec|monday|tuesday|wednesday|"
    r"thursday|friday|saturday|sunday)\b|\s(?:last|this|next|a few|"
    r"a couple of|two|three|several|some)\s+(?:week|month|year|day|summer|spring|winter|autumn|fall|"
    r"weeks|months|years|days)|\s(?:(?:a|an|one|two|three|four|five|six|a few|a couple of|several|many|"
    r"some)\s+)?\w+\s+ago\b|\s(?:recently|yesterday|today|tonight|lately|"
    r"because|since|when|after|before|so that|which|where|and i|but i|and we|but we|with my|with our|"
    r"with (?:a|an|the|two|three|my|our) (?:[\w-]+ ){1,3}?(?:called|named)|"
    r"for work|for good|for a while|for now|this time|full[- ]time|part[- ]time|at the moment|according to|"
    r"over the (?:summer|winter|spring|autumn|weekend|holidays|past|last)|at the (?:start|end) of|"
    r"earlier this|later this|in the (?:morning|mornings|evening|evenings|afternoon|afternoons)|at night|"
    r"at (?:the )?weekends?|on (?:the )?weekends?|"
    r"as an? (?:kid|child|adult|teen|teenager|baby|toddler|student)|"
    # a period of life is a time too: "diagnosed coeliac in my twenties"
    r"in (?:my|our|his|her|their) (?:(?:early|mid|late)[- ])?(?:teens|twenties|thirties|forties|fifties|"
    r"sixties|seventies|20s|30s|40s|50s|60s))\b|"
    r"\s(?:for|over)\s+(?:the\s+(?:past|last)\s+)?"
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
# A plan or an intention is not (yet) a fact about the user: no profile rule reads it. "Going to" before a
# determiner names a place ("going to the theatre"), not an intention.
_PLAN = re.compile(
    r"\b(?:thinking of|thinking about|considering|dream of|dreaming of|hope to|hoping to|plan to|"
    r"planning to|planning on|want to|wanna|going to(?!\s+(?:the|a|an|my|our|his|her|their)\b)|gonna|"
    r"toying with the idea|weighing up|mulling over|"
    r"about to|trying to decide|might|"
    r"training to be|training to become|training as|retraining as|studying to be|studying to become|"
    # "favourite film has to be Jaws" asserts, it plans nothing
    r"(?:am|are)\s+planning\s+(?:a|an|my|our|the|some)|need to|needs to|have to|has to(?!\s+be\b))\b",
    re.I,
)
# A time phrase before the subject ("In 2021 I moved ...", "These days I work ..."): it dates the
# clause and changes none of its facts.
_FRONTED = re.compile(
    rf"^(?:these days|nowadays|lately|recently|currently|at the moment|right now|for now|"
    rf"(?:in|since|by|from|during|until|as of)\s+(?:(?:the|this|last)\s+)?(?:(?:early|late|mid)[- ]?\s*)?"
    rf"(?:\d{{4}}|(?:{_MONTHS})\b(?:\s+\d{{4}})?|spring|summer|autumn|fall|winter|the summer|the spring)|"
    # "as of Saturday", "as of this week", "since last month": a point in time the state holds from
    rf"(?:as of|since|from)\s+(?:(?:this|last)\s+(?:week|weekend|month|year)|today|yesterday|"
    rf"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday))|"
    # "Since starting the new medication I ...": a gerund's clause dates what follows it
    rf"since\s+[a-z]+ing\b(?:\s+[\w'-]+){{0,5}}?|"
    rf"(?:last|this|next|earlier this|later this)\s+(?:week|weekend|month|year|spring|summer|autumn|fall|"
    rf"winter|(?:{_MONTHS})\b)|(?:(?:a|an|one|two|three|four|five|six|a few|a couple of|several|many|some)"
    rf"\s+)?\w+\s+ago|yesterday|today|this morning|last night|years later|a while back|"
    # a prepositional time phrase: "over the summer", "during the holidays", "at the end of May"
    rf"(?:over|during|throughout|after|before)\s+the\s+(?:(?:past|last|next)\s+(?:few\s+)?)?"
    rf"(?:summer|spring|autumn|fall|winter|weekend|holidays|holiday|break|week|weeks|month|months|"
    rf"year|years|pandemic|lockdown)|at\s+the\s+(?:start|end|beginning)\s+of\s+(?:the\s+)?"
    rf"(?:(?:{_MONTHS})\b|\w+)|on\s+(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)|"
    rf"in\s+the\s+end|eventually|originally|in\s+the\s+(?:spring|summer|autumn|fall|winter))"
    rf",?\s+(?=(?:i|we|my|our)\b)",
    re.I,
)

_STANDING = re.compile(
    r"\b(?:always|never|from now on|going forward|in (?:the )?future|by default|every time|whenever|"
    r"each time|any time|from here on|in all (?:your )?(?:answers|replies|responses|messages)|"
    r"in every (?:answer|reply|response|message)|all the time)\b",
    re.I,
)


def _is_name(value: str) -> bool:
    """A proper name, with or without a determiner: "Madrid", "the Netherlands", "the BBC"."""
    return re.sub(r"^the\s+", "", value, flags=re.I)[:1].isupper()


def _article(noun: str) -> str:
    if re.match(r"^[A-Z]{2,5}\s+[a-z]", noun):
        # an initialism before a common noun is read letter by letter: "a UX designer", "an HR manager"
        return ("an " if noun[0] in "AEFHILMNORSX" else "a ") + noun
    if re.match(r"^(?:an?|the|my)\s", noun, re.I) or noun[:1].isupper():
        return noun
    return ("an " if noun[:1].lower() in "aeiou" else "a ") + noun


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
    # a measure is not the thing measured: "a glass of wine", "three cups of tea"
    text = re.sub(
        r"^(?:(?:a|an|one|two|three|four|five|a few|several|\d+)\s+)?(?:glass|cup|mug|pint|bottle|can|shot|"
        r"bowl|pot|jug|litre|liter|slice|piece|bar|bag)(?:e?s)?\s+of\s+",
        "",
        text,
        flags=re.I,
    )
    return _TRAIL.sub("", text).strip().rstrip(",.; ")


def _ended(text: str) -> str:
    """A value cut where a time phrase or a reason begins: "VS Code last month" -> "VS Code",
    "running since my knee injury" -> "running"."""
    return _VALUE_END.split(text, maxsplit=1)[0].strip().rstrip(",.; ")


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
        "hung fought dug swung stuck bit hid rang drew froze shook forgave rose sank sprang "
    )
    .strip(" ")
    .split(" ")
)


def _past(word: str) -> bool:
    """A verb form ending in -ed is past ("moved", "tied", "dyed"), except the base forms ending in -eed
    ("need", "feed", "succeed": "agreed" and "freed" are agree and free in the past), the few short
    words whose -ed is their stem ("shed", "sled") and anything shorter ("red", "wed")."""
    if word.endswith("eed"):
        return word in {"agreed", "freed", "decreed", "guaranteed", "refereed", "disagreed"}
    return word.endswith("ed") and len(word) > 3 and word not in {"shed", "sled"}


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
        if low in {"was", "had", "are", "were"} or _past(low) or low in _IRREGULAR_PAST or low in _MODALS:
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


def no_longer(text: str) -> str:
    """ "The user lives in X." -> "The user no longer lives in X."; "... is X" -> "... is no longer X"."""
    if m := re.match(r"^(The user(?:'s [\w ]+?)?) (has|have) (.*)$", text):
        return f"{m.group(1)} no longer {m.group(2)} {m.group(3)}"  # "no longer has", not "has no longer"
    if m := re.match(r"^(The user(?:'s [\w ]+?)?) (is|are) (.*)$", text):
        return f"{m.group(1)} {m.group(2)} no longer {m.group(3)}"
    if m := re.match(r"^The user (\w+)\b(.*)$", text):
        return f"The user no longer {m.group(1)}{m.group(2)}"
    return f"No longer: {text}"


def _sentence_case(text: str) -> str:
    return text[:1].upper() + text[1:] if text else text


def _singular(key: str) -> str:
    """The key with its last noun in the singular: "peanuts" -> "peanut", "strawberries" -> "strawberry"."""
    if re.search(r"[^aeiou]ies$", key):
        return key[:-3] + "y"
    if re.search(r"(?:ss|x|z|ch|sh)es$", key):
        return key[:-2]
    return key[:-1] if re.search(r"[^s]s$", key) else key


def _key(text: str) -> str:
    words = re.findall(r"[a-z0-9]+", text.lower())
    return (
        " ".join(w for w in words if w not in {"the", "a", "an", "to", "my", "your", "our"})[:80] or "general"
    )


def _dated(s: str, said_at: datetime) -> tuple[datetime, datetime] | None:
    """The day a sentence is about, as a UTC [start, end) range: the first expression the date reader
    (retrieval/dates.py) resolves to a single day, against when the sentence was said."""
    for span in dates.resolve(s, said_at.astimezone(UTC)):
        if span.end - span.start == _DAY:
            return span.start, span.end
    return None
