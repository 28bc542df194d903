"""Whether a fact is about one person, and so is never published however many users share it.

Personal: an identifier of a person or an account (not an organisation's role address, line or office), a
first-person statement, a family detail ("my wife", "Frank's son"), or a sensitive detail (health, finances,
family, identity, beliefs, a criminal record, home) about a particular person: one named by a pronoun or a
role ("she", "the customer", "the CEO"), by a placeholder this module wrote ("[person]"), or by name ("Dana
Lee has diabetes", "Frank is pregnant", "Olu, who has epilepsy, ...").

A name is a capitalised word (or two or three) directly before a verb ("is", "has", "takes", or any
word ending in -s or -ed), a possessive "'s" or ", who"; it is not a name when it is an
ordinary sentence opener ("The", "Everyone", "Today", a weekday), a sensitive word itself ("Insulin is
kept in the fridge"), or a single word opening a sentence about people in general ("Parking is free for
disabled staff"). A named person in a role, with no sensitive detail ("Dana Lee approves every travel
request above 500 euros", "Frank runs the Friday deployment"), is an organisational fact and stays
shareable; when that person is a sharer, `deidentify` takes the name out of the published copy.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from tinymemory.policy.gate.deid.identifiers import find_identifiers
from tinymemory.policy.gate.deid.text import FIRST_PERSON, normalise

_PARTICULAR = re.compile(
    r"\b(?:he|she|him|her|his|hers|himself|herself|the user|this user|user's|the customer|this customer|"
    r"customer's|the client|this client|the member|the patient|the caller|the employee|this employee)\b"
    r"|\b(?:the|our|this|that|your)\s+(?:new\s+)?(?:ceo|cfo|cto|coo|boss|director|receptionist|assistant|"
    r"intern|trainee|cleaner|caretaker|janitor|secretary|accountant|founder|owner|landlord|neighbou?r|"
    r"team lead|head of \w+)\b|\[person\]",
    re.I,
)
_FAMILY_WORDS = (
    r"wife|husband|partner|spouse|son|daughter|kids?|children|child|baby|mother|father|mom|mum|dad|"
    r"parents?|brother|sister|sibling|girlfriend|boyfriend|fianc[eé]e?|grandmother|grandfather|"
    r"grandparents?"
)
_POSSESSIVE = r"(?:my|our|his|her|their|the user's|user's|the customer's|\[person\]'s)"
_FAMILY = re.compile(rf"\b{_POSSESSIVE}\s+(?:\w+\s+)?(?:{_FAMILY_WORDS}|family|ex)\b", re.I)
_CATEGORIES: list[tuple[str, re.Pattern[str]]] = [
    (
        "health",
        re.compile(  # conditions, treatments, disabilities, addiction, reproductive health
            r"\b(?:diagnos\w*|illness|ill|sick|disease|disorder|syndrome|pregnan\w*|medication|medicine|meds|"
            r"prescri\w*|therapy|therapist|allerg\w*|surgery|operation on|depress\w*|antidepress\w*|anxiety|"
            r"panic attacks?|burn-?out|breakdown|cancer|tumou?r|leuka?emia|lymphoma|diabet\w*|asthma|hiv|"
            r"aids patient|hepatitis|tuberculosis|herpes|chlamydia|std|sti|lupus|crohn\w*|colitis|coeliac|"
            r"celiac|arthritis|rheumat\w*|sclerosis|fibromyalgia|endometriosis|pcos|thyroid|eczema|psoriasis|"
            r"glaucoma|cataracts?|tinnitus|vertigo|insomnia|sleep apn(?:o)?ea|narcolepsy|obes\w*|"
            r"eating disorder|"
            r"anorexi\w*|bulimi\w*|self-harm\w*|suicid\w*|disabilit\w*|disabled|adhd|autis\w*|asperger\w*|"
            r"dyslexi\w*|tourette\w*|stutter\w*|stammer\w*|down syndrome|cerebral palsy|paraly[sz]\w*|"
            r"parapleg\w*|quadripleg\w*|amput\w*|prosthe\w*|pacemaker|injur\w*|fractur\w*|concussion|"
            r"broken (?:leg|arm|wrist|ankle|hip|back)|hospitali[sz]\w*|in (?:the )?hospital|hospice|"
            r"palliative|"
            r"terminal(?:ly)? ill|symptom\w*|blood pressure|migraine|epilep\w*|seizures?|stroke|heart attack|"
            r"heart surgery|chemo\w*|radiotherapy|dialysis|transplant|biopsy|rehab|addict\w*|alcoholi\w*|"
            r"drinking problem|drug (?:use|problem|habit)|sober|relapse\w*|overdose\w*|mental health|bipolar|"
            r"psychos[ie]s|psychotic|antipsychotic\w*|lithium|ssris?|opioids?|methadone|steroids?|insulin|"
            r"dementia|alzheimer\w*|parkinson\w*|psychiatr\w*|psycholog\w*|schizophreni\w*|ptsd|ocd|"
            r"covid|long covid|miscarriage|abortion|ivf|fertility|infertil\w*|postnatal|postpartum|"
            r"menopaus\w*|wheelchair|sick leave|sick note|maternity leave|antibiotic\w*|antiretroviral\w*|"
            r"suffer(?:s|ed|ing)? from|recover(?:s|ed|ing)? from|expecting (?:a baby|a child|twins)|"
            r"baby is due|blood thinners?|anticoagulants?|deaf|blind|hard of hearing|hearing (?:aid|loss)|"
            r"(?:heart|medical|chronic|health|skin|lung|kidney|liver) (?:condition|problem|disease|"
            r"failure))s?\b",
            re.I,
        ),
    ),
    (
        "finances",
        re.compile(
            r"\b(?:earn|earns|earned|earning|salary|income|wage|wages|paid \d|debt|debts|in debt|loan|"
            r"mortgage|"
            r"insolven\w*|debt collectors?|repossess\w*|evict\w*|payday loans?|on benefits|unemployed|"
            r"bankrupt\w*|credit score|savings|overdrawn|owe|owes|owed|net worth|bonus was|inheritance)\b",
            re.I,
        ),
    ),
    (
        "family",
        re.compile(
            r"\b(?:divorc\w*|widow\w*|custody|adopted|adoption|married|engaged to|"
            r"(?:paternity|parental) leave)\b",
            re.I,
        ),
    ),
    (
        "identity",
        re.compile(
            r"\b(?:my name is|(?:is|was) named|born (?:on|in)|birthday|date of birth|years old|\d+ yo|"
            r"nationality|citizen(?:ship)?|passport|social security|gender|pronouns)\b",
            re.I,
        ),
    ),
    (
        "beliefs",
        re.compile(
            r"\b(?:religio\w*|christian|catholic|protestant|muslim|jewish|hindu|sikh|buddhist|atheist|"
            r"vot(?:e|es|ed|ing) for|political|party member|member of the \w+ party|gay|lesbian|bisexual|"
            r"transgender|"
            r"sexual orientation|union member)\b",
            re.I,
        ),
    ),
    (
        "criminal record",
        re.compile(
            r"\b(?:criminal record|police record|convicted|conviction|arrested|in prison|in jail|on parole|"
            r"on probation|on bail|charged with|served time|sentenced|restraining order|sex offender)\b",
            re.I,
        ),
    ),
    (
        "home",
        re.compile(
            r"\b(?:lives? (?:in|at|on|near|with)|living in|home address|address is|reside\w*|"
            r"moved to(?!\s+(?:the|our|a|another)\s+(?:\w+\s+)?(?:office|team|department|role|job|"
            r"position|site|branch|building|floor|project)))\b",
            re.I,
        ),
    ),
    (
        "account",
        re.compile(
            r"\b(?:account|subscription|order|orders|booking|contract|invoice|password|login|username|"
            r"profile|plan|card|balance|ticket|claim|parcel|package|delivery)\b",
            re.I,
        ),
    ),
    (
        "work",
        re.compile(r"\b(?:boss|manager|coworker|colleague|work(?:s|ed)? (?:at|for)|job|fired|hired)\b", re.I),
    ),
]
_ABOUT_SOMEONE = ("account", "work")  # a pronoun's or a name's order or job is not a sensitive detail

# ----------------------------------------------------------------------------------------- named people

_NAME_BEFORE_PREDICATE = re.compile(
    r"(?P<name>[^\W\d_][\w-]{0,30}(?:[ ][^\W\d_][\w-]{0,30}){0,2}?)"  # the shortest: "Hana" of "Hana takes"
    r"(?:'s\b|,[ ]who\b|[ ](?:is|was|has|had|isn't|wasn't|hasn't|does|did|doesn't|didn't|will|would|can|"
    r"could|should|must|might|may|takes|took|earns|earned|makes|made|lives|lived|suffers|suffered|gets|got|"
    r"needs|needed|uses|used|owes|owed|became|becomes|visits|visited|sees|saw|votes|voted|prays|identifies|"
    r"belongs|attends|attended|receives|received|underwent|undergoes|goes|went|moved|feels|felt|tested|"
    r"recently|just|still|also|never|always|now|[a-z]{2,30}(?:s|ed))\b)"
)
_NOT_NAMES = {
    "the", "a", "an", "this", "that", "these", "those", "it", "its", "we", "you", "they", "there", "here",
    "our", "your", "their", "my", "his", "her", "each", "every", "all", "any", "some", "no", "none", "nobody",
    "everyone", "someone", "anyone", "everybody", "somebody", "anybody", "what", "who", "when", "where",
    "why", "how", "which", "if", "please", "note", "also", "today", "tomorrow", "yesterday", "now", "then",
    "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "january", "february",
    "march", "april", "may", "june", "july", "august", "september", "october", "november", "december",
    "support", "team", "office", "company", "management", "reception", "security", "finance", "legal",
    "payroll", "staff", "everything", "nothing", "something", "one", "both", "either", "neither", "most",
    "many", "few", "she", "he", "i", "and", "but", "or", "so", "because", "after", "before", "since",
    "while", "once", "only", "even", "just", "still", "yes", "not", "new", "old", "next", "last",
}  # fmt: skip
_PEOPLE_IN_GENERAL = re.compile(
    r"\b(?:employees|staff|workers|colleagues|customers|clients|users|people|visitors|guests|members|"
    r"patients|students|parents|children|kids|everyone|everybody|anyone|anybody|candidates|applicants|"
    r"travell?ers|passengers|residents|tenants|volunteers|contractors|interns|managers|teams|families|"
    r"women|men|adults|minors|those|whoever)\b",
    re.I,
)
_SENSITIVE = ("health", "finances", "family", "identity", "beliefs", "criminal record")


def _sensitive_word(word: str) -> bool:
    return any(pattern.search(word) for name, pattern in _CATEGORIES if name in _SENSITIVE)


def _name_like(word: str) -> bool:
    return word[0].isupper() and not (word.isupper() and len(word) > 1) and word.casefold() not in _NOT_NAMES


_OPENERS = {"fyi", "nb", "ps", "btw", "reminder", "note", "update", "tip", "attention", "important", "info"}


def _opens_sentence(s: str, start: int) -> bool:
    """Whether the word at `start` opens its sentence (after "FYI", "Note:" and the like too)."""
    i = start - 1
    while True:
        while i >= 0 and not s[i].isalnum() and s[i] not in ".!?;\n":
            i -= 1
        if i < 0 or s[i] in ".!?;\n":
            return True
        word_end = i + 1
        while i >= 0 and s[i].isalnum():
            i -= 1
        if s[i + 1 : word_end].casefold() not in _OPENERS:
            return False


def named_people(s: str) -> Iterator[str]:
    """The names of particular people `s` speaks of (see the module docstring)."""
    general = None
    for m in _NAME_BEFORE_PREDICATE.finditer(s):
        words = m.group("name").split(" ")
        tail: list[str] = []  # the capitalised words right before the predicate: "the doctor said Frank"
        for w in reversed(words):
            if not _name_like(w):
                break
            tail.insert(0, w)
        if not tail or any(_sensitive_word(w) or _PEOPLE_IN_GENERAL.fullmatch(w) for w in tail):
            continue
        if len(tail) == 1 and _opens_sentence(s, m.end("name") - len(tail[0])):
            if general is None:
                general = _PEOPLE_IN_GENERAL.search(s) is not None
            if general:
                continue  # "Parking is free for disabled staff": a rule about people in general
        yield " ".join(tail)


# ------------------------------------------------------------------------------------------ the verdict

_APOSTROPHES = str.maketrans("’‘", "''")
_REASONS = {
    "email": "e-mail address of a person",
    "phone": "phone number of a person",
    "card number": "payment card number",
    "iban": "bank account number (IBAN)",
    "account number": "account number",
    "id number": "government id number",
    "credential": "credential",
    "address": "street address of a person",
}
_NAME_FAMILY = re.compile(rf"\b(?P<name>[^\W\d_][\w-]{{0,30}})'s\s+(?:\w+\s+)?(?:{_FAMILY_WORDS})\b")


def personal_reason(text: str) -> str | None:
    """Why `text` is a personal fact that must never be published, or None for a shareable one."""
    s = normalise(text).translate(_APOSTROPHES)
    for span in find_identifiers(s):
        if not span.organisational:
            return _REASONS[span.kind]
    if FIRST_PERSON.search(s):
        return _detail("first-person", s) or "first-person statement"
    family = _FAMILY.search(s)
    if family and not family.group(0).casefold().startswith("their"):
        return "family detail of a person"
    if _PARTICULAR.search(s):
        detail = _detail("", s, skip=_ABOUT_SOMEONE)
        if detail:
            return detail.strip()
    if any(_name_like(m.group("name")) for m in _NAME_FAMILY.finditer(s)):
        return "family detail of a named person"  # "Frank's wife is pregnant"
    detail = _detail("", s, skip=_ABOUT_SOMEONE)
    if detail and next(named_people(s), None) is not None:
        return detail.replace("of a person", "of a named person")
    return None


def _detail(who: str, s: str, skip: Sequence[str] = ()) -> str | None:
    if _FAMILY.search(s):
        return f"{who} family detail".strip()
    for name, pattern in _CATEGORIES:
        if name not in skip and pattern.search(s):
            return f"{who} {name} detail" if who else f"{name} detail of a person"
    return None


def is_personal(text: str) -> bool:
    """Whether `text` is about one person (see `personal_reason`): such a fact is never published."""
    return personal_reason(text) is not None
