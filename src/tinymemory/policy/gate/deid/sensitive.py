"""What counts as a sensitive detail about a person, by category: the special categories of personal data
(health, genetics, sex life and orientation, gender identity, ethnic origin, religion and belief,
political opinion, union membership), criminal records, immigration status, money, family, identity and
home; plus the account and job words that make a pronoun's sentence personal.

Each category is a pattern of general forms rather than a list of single words: word stems with every
ending ("diabet" for diabetes and diabetic), the suffixes medicine names conditions and procedures with
(-itis, -oma, -osis, -aemia, -ectomy, ...), the names of drug classes and drug-name endings, and frames
that make whatever follows a detail ("was diagnosed with ...", "is being treated for ...", "is on ..."
followed by a bare noun, "has ..." followed by a bare noun that ends the clause, "converted to ...").
A word that also names something ordinary ("diploma", "academia", "sympathy") is excluded by name.
Every pattern is a bounded alternation, so a search is linear in the text's length.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass


@dataclass(frozen=True)
class Detail:
    """A sensitive word or phrase found in a text: where, and its category."""

    start: int
    end: int
    category: str


_MEDICAL_SUFFIX = (  # the endings of conditions and procedures, and the ordinary words that share them
    r"\b(?!(?:diploma|diplomas|aroma|aromas|academia|bohemia|sympathy|empathy|apathy|antipathy|telepathy|"
    r"nostalgia|dichotomy|anatomy|trophy|trophies|osmosis|symbiosis|apotheosis|metamorphosis|academic|"
    r"academics|epidemic|pandemic|endemic|polemic|systemic|critic|critics)\b)"
    r"[a-z]{2,25}(?:itis|itic|omas?|osis|a?emia|a?emic|pathy|pathies|plegia|plegic|phrenia|"
    r"phrenic|ectomy|ectomies|otomy|ostomy|oscopy|plasty|algia|phobia|phobic|trophy|penia|iasis|"
    r"rhythmia)\b"
)
_DRUG_SUFFIX = (  # the stems international drug names end with
    r"\b[a-z]{3,20}(?:azepam|zepam|azolam|prazole|statin|olol|pril|sartan|oxetine|triptan|cillin|mycin|"
    r"cycline|floxacin|codone|morphine|semide|parin|xaban|tidine|afil|dronate|gliptin|formin|thiazide|"
    r"lukast|tropin|profen)\b"
)
_HEALTH = re.compile(
    rf"{_MEDICAL_SUFFIX}|{_DRUG_SUFFIX}|"
    r"\b(?:diagnos\w*|prognos\w*|illness\w*|ill|sick\w*|unwell|disease\w*|disorder\w*|syndrome\w*|"
    r"pregnan\w*|medication\w*|medicine\w*|medical\w*|meds|pills?|prescri\w*|therap\w*|allerg\w*|"
    r"intoleran\w*|deficien\w*|surger\w*|surgical|operation on|operated on|infect\w*|"
    r"depress\w*|antidepress\w*|anxiety|anxious|panic attacks?|burn-?out|burned out|breakdown|"
    r"cancer\w*|tumou?rs?|leuka?emia|lymphoma|diabet\w*|asthma\w*|hiv|aids patient|hepatitis|"
    r"tuberculosis|herpes|chlamydia|std|sti|lupus|crohn\w*|colitis|coeliac|celiac|arthritis|rheumat\w*|"
    r"sclerosis|fibromyalgia|endometriosis|pcos|thyroid|eczema|psoriasis|glaucoma|cataracts?|tinnitus|"
    r"vertigo|insomnia|sleep apn(?:o)?ea|narcolepsy|obes\w*|eating disorder|anorexi\w*|bulimi\w*|"
    r"self-harm\w*|suicid\w*|disabilit\w*|disabled|adhd|autis\w*|asperger\w*|dyslexi\w*|dyspraxi\w*|"
    r"tourette\w*|stutter\w*|stammer\w*|down syndrome|cerebral palsy|paraly[sz]\w*|parapleg\w*|"
    r"quadripleg\w*|amput\w*|prosthe\w*|pacemaker|injur\w*|fractur\w*|concussion|crutches|"
    r"broken (?:leg|arm|wrist|ankle|hip|back)|hospital\w*|in (?:the )?hospital|hospice|palliative|"
    r"terminal(?:ly)? ill|symptom\w*|blood (?:pressure|test|tests|thinners?|transfusions?|clots?)|"
    r"migraine\w*|epilep\w*|seizures?|stroke|heart attack|heart surgery|chemo\w*|radiotherap\w*|"
    r"dialysis|transplant\w*|biops\w*|scan results|test results|rehab\w*|addict\w*|alcoholi\w*|"
    r"drinking problem|drug (?:use|problem|habit)|sober\w*|relapse\w*|overdose\w*|"
    r"mental|bipolar|psych\w*|antipsychotic\w*|lithium|ssris?|opioids?|methadone|steroids?|insulin|"
    r"inhaler|antibiotic\w*|antiretroviral\w*|anticoagulants?|"
    r"hormone (?:therapy|treatment|replacement)|hrt|"
    r"dementia|alzheimer\w*|parkinson\w*|schizo\w*|ptsd|ocd|covid|long covid|flu|influenza|fever|"
    r"miscarri\w*|stillb\w*|abortion\w*|ivf|fertility|infertil\w*|contracept\w*|postnatal|postpartum|"
    r"menopaus\w*|menstrua\w*|maternity|gyna?ecolog\w*|egg freezing|"
    r"counsell?or\w*|counsell?ing|wheelchair|sick leave|sick note|"
    r"suffer(?:s|ed|ing)? from|recover(?:s|ed|ing|y)? from|treated for|treatment for|treatments?|"
    r"tested (?:positive|negative)|positive for|allergic to|struggl\w* with|"
    r"expecting (?:a baby|a child|twins)|"
    r"baby is due|deaf|deafness|blind|blindness|visual(?:ly)? impair\w*|hearing impair\w*|sight loss|"
    r"hard of hearing|"
    r"hearing (?:aids?|loss)|learning (?:disabilit\w*|difficult\w*)|"
    r"(?:heart|medical|chronic|health|skin|lung|kidney|liver|rare|serious|genetic) (?:condition|problem|"
    r"disease|failure)s?|"
    r"(?:has|have|had|with) (?:a |an )(?:\w+ ){0,2}condition(?! that| of)|"
    r"(?:had|has|having|needs|needed|awaiting|waiting for|booked for|scheduled for) (?:a|an|her|his|their) "
    r"(?:[\w-]+ ){0,2}(?:operation|procedure|implant|scan|check-?up)s?|"
    r"had (?:a|an|her|his|their) (?:[\w-]+ ){1,2}removed)\b",
    re.I,
)
_GENETIC = re.compile(
    r"\b(?:genetic\w*|genes?|dna|hereditary|inherited (?:condition|disease|disorder)|carrier of)\b",
    re.I,
)
_SEX_LIFE = re.compile(
    r"\b(?:gay|lesbian\w*|(?-i:bi)(?!-)|bisexual\w*|queer|homosexual\w*|heterosexual\w*|pansexual\w*|asexual\w*|"
    r"sexual\w*|sex life|(?:came|comes|coming) out (?:as|to)|coming out|lgbt\w*|dating|affair|sleeping with|"
    r"hooked up)\b",
    re.I,
)
_GENDER_IDENTITY = re.compile(
    r"\b(?:trans(?!-)|transgender\w*|transsexual\w*|non-?binary|genderqueer|gender (?:identity|"
    r"reassignment|transition|affirming)|transitioning|transitioned|(?:his|her|their|'s) transition"
    r"(?!\s+(?:to|plan|period|team|phase|project))|deadname\w*)\b",
    re.I,
)
_ETHNIC_ORIGIN = re.compile(
    r"\b(?:ethnic\w*|racial\w*|of [\w-]+ (?:origin|descent|heritage|ancestry|background))\b", re.I
)
_BELIEFS = re.compile(
    r"\b(?:religio\w*|faith|christian\w*|catholic\w*|protestant\w*|anglican|methodist|baptist|baptis\w*|"
    r"lutheran|evangelical|pentecostal|orthodox|quaker\w*|"
    r"muslim\w*|islam\w*|sunni|shia|jews?|jewish|judaism|hindu\w*|sikh\w*|buddhis\w*|jain\w*|taoist|"
    r"shinto|pagan\w*|wiccan|atheis\w*|agnostic\w*|scientolog\w*|rastafari\w*|zoroastrian\w*|"
    r"church|mosque|synagogue|temple|gurdwara|prays|prayed|praying|prayers?|fasts|fasted|fasting|"
    r"ramadan|passover|diwali|yom kippur|shabbat|sabbath|kosher|hijab|headscarf|turban|kippah|"
    r"yarmulke|convert\w* (?:to|from)|conversion to|lost (?:his|her|their) faith|devout)\b",
    re.I,
)
_POLITICS = re.compile(
    r"\b(?:politic\w*|party member\w*|member of the [\w-]+ party|[\w-]+ party (?:member|supporter|"
    r"candidate|activist|voter)s?|(?:joined|supports?|supported|vot\w* for|member of) (?:the )?"
    r"(?:[\w-]+ ){1,2}part(?:y|ies)|vot(?:e|es|ed|ing) (?:for|against)|"
    r"activis\w*|protest\w*|far[- ](?:right|left)|"
    r"(?:left|right)-wing|communis\w*|socialis\w*|marxis\w*|anarchis\w*|fascis\w*|nationalis\w*|"
    r"libertarian\w*)\b",
    re.I,
)
_UNION = re.compile(
    r"\b(?:(?:trade|labou?r) unions?|unioni[sz]\w*|union (?:member\w*|rep|reps|representative\w*|dues|"
    r"card|official\w*|activist\w*|organi[sz]er\w*)|joined (?:the |a )?(?:[\w-]+ ){0,2}union|"
    r"in (?:the|a) union|on strike|went on strike)\b",
    re.I,
)
_CRIMINAL = re.compile(
    r"\b(?:criminal\w*|police (?:record|caution|investigation)|convict\w*|arrest\w*|in prison|in jail|"
    r"prison|jail\w*|on parole|parole\w*|on probation|on bail|charged with|served time|sentence\w*|"
    r"restraining order|sex offender|offen[cs]es?|offenders?|cautioned|under investigation|"
    r"investigated for|court case|in court|on trial|fraud|theft|stealing|assault\w*|burglar\w*|"
    r"robber\w*)\b",
    re.I,
)
_IMMIGRATION = re.compile(
    r"\b(?:(?-i:visas?)|asylum|refugee\w*|undocumented|illegal(?:ly)? (?:immigrant|migrant|alien|resident)s?|"
    r"migrants?|immigra\w*|deport\w*|(?:residence|residency|work) permits?|settled status|"
    r"leave to remain|green card|citizenship|stateless|naturali[sz]\w*)\b",
    re.I,
)
_FINANCES = re.compile(
    r"\b(?:earn|earns|earned|earning|salar\w*|income|wage|wages|paid \d|is paid|gets paid|pay (?:cut|rise|"
    r"raise)|debt|debts|in debt|loan|loans|mortgage|insolven\w*|debt collectors?|repossess\w*|"
    r"evict\w*|payday loans?|on benefits|unemploy\w*|bankrupt\w*|credit (?:score|rating|history)|"
    r"overdra\w*|arrears|pension|owe|owes|owed|net worth|bonus was|inheritance|lottery|pawn\w*|"
    r"(?:his|her|their|'s) savings|savings account)\b",
    re.I,
)
_FAMILY = re.compile(
    r"\b(?:divorc\w*|widow\w*|custody|adopted|adoption|married|engaged to|(?:paternity|parental) leave)\b",
    re.I,
)
_IDENTITY = re.compile(
    r"\b(?:my name is|(?:is|was) named|born (?:on|in)|birthday|date of birth|years old|\d+ yo|nationality|"
    r"citizen(?:ship)?|passport|social security|gender|pronouns)\b",
    re.I,
)
_HOME = re.compile(
    r"\b(?:lives? (?:in|at|on|near|with)|living in|home address|address is|reside\w*|"
    r"moved to(?!\s+(?:the|our|a|another)\s+(?:\w+\s+)?(?:office|team|department|role|job|position|site|"
    r"branch|building|floor|project)))\b",
    re.I,
)
# Frames that make what follows a detail whatever its word: "is on chemo", "is on dialysis" (not "is on
# call", "is on the rota"), and "has gout" (a bare noun that ends the clause, not "has access to ...").
_NOT_AFTER_ON = (
    r"the|a|an|his|her|their|our|your|my|its|this|that|call|duty|holiday|holidays|vacation|leave|annual|"
    r"site|board|time|schedule|track|target|budget|hold|mute|standby|loan|tour|stage|air|point|top|it|"
    r"break|lunch|shift|shifts|nights|days|earlies|lates|rota|rotation|secondment|sabbatical|furlough|"
    r"training|mobile|email|slack|trial|record|file|paper|sale|offer|display|foot|strike|behalf|purpose|"
    r"average|course|fire|demand|request|hand|edge|floor|floors|level|page|screen|slide|sheet|list|agenda|team|"
    r"committee|panel|phone|line|speaker|wifi|vpn|camera|video|weekends|weekdays|mondays|tuesdays|"
    r"wednesdays|thursdays|fridays|saturdays|sundays|\d\w*"
)
# "is on chemo", "was on dialysis": a bare noun after "is on" is a treatment (or a legal or money status)
_TREATMENT_FRAME = rf"\b(?:is|was|been|stays?|went|goes) on (?!(?:{_NOT_AFTER_ON})\b)(?-i:[a-z])[\w-]{{2,}}"
_NOT_AFTER_HAS = (
    r"the|a|an|his|her|their|our|your|my|its|this|that|these|those|any|no|several|access|keys|time|lunch|"
    r"breakfast|dinner|plans|questions|news|feedback|ideas|experience|permission|authority|priority|"
    r"rights|approval|control|responsibility|ownership|capacity|availability|seniority|meetings|visitors|"
    r"guests|clients|customers|friends|money|budget|admin|been|got|gone|done|to|not|never|already|just|"
    r"always|also|two|three|four|five|some|many|more|most|less|enough|all|both|each|every|one|none|"
    r"nothing|something|everything|left|won|written|taken|given|seen|made|said|sent|spent|told|begun|"
    r"become|come|run|paid|met|kept|held|brought|built|bought|found|\w+ed|\w+en"
)
# "has gout", "had shingles": a bare noun ending the clause after "has" (not "has access to the archive")
_BARE_NOUN_FRAME = (
    rf"\b(?:has|had) (?!(?:{_NOT_AFTER_HAS})\b)(?-i:[a-z])[\w'-]{{2,30}}"
    r"(?=\s*(?:$|[.,;:!?)]|\s(?:and|but|so|since|again|now|too|which)\b))"
)
_FRAMES = re.compile(f"{_TREATMENT_FRAME}|{_BARE_NOUN_FRAME}", re.I)

# The categories in the order a reason names them; the first five are those a name or pronoun needs.
CATEGORIES: list[tuple[str, re.Pattern[str]]] = [
    ("health", _HEALTH),
    ("genetic", _GENETIC),
    ("sex life", _SEX_LIFE),
    ("gender identity", _GENDER_IDENTITY),
    ("ethnic origin", _ETHNIC_ORIGIN),
    ("beliefs", _BELIEFS),
    ("political opinion", _POLITICS),
    ("union membership", _UNION),
    ("criminal record", _CRIMINAL),
    ("immigration status", _IMMIGRATION),
    ("finances", _FINANCES),
    ("family", _FAMILY),
    ("identity", _IDENTITY),
    ("health", _FRAMES),
    ("home", _HOME),
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
ABOUT_SOMEONE = ("account", "work")  # a pronoun's or a name's order or job is not a sensitive detail
SENSITIVE = tuple(dict.fromkeys(name for name, _ in CATEGORIES if name not in (*ABOUT_SOMEONE, "home")))


def details(s: str, skip: tuple[str, ...] = ()) -> Iterator[Detail]:
    """Every sensitive word or phrase in `s`, category by category (in `CATEGORIES` order)."""
    for name, pattern in CATEGORIES:
        if name not in skip:
            for m in pattern.finditer(s):
                yield Detail(m.start(), m.end(), name)


def first_category(s: str, skip: tuple[str, ...] = ()) -> str | None:
    """The first category with a word in `s`, or None."""
    for name, pattern in CATEGORIES:
        if name not in skip and pattern.search(s):
            return name
    return None


def sensitive_word(word: str) -> bool:
    """Whether `word` is itself a sensitive word ("Insulin is kept in the fridge" names no one)."""
    return any(pattern.search(word) for name, pattern in CATEGORIES if name in SENSITIVE)
