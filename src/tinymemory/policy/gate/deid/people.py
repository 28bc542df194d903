"""Who a text speaks of by name, and where what it says of them is an organisational role.

A mention of a particular person is one of:

- a capitalised name (one to four words, with particles: "Marisol van der Berg", "Siobhan O'Brien", a
  title and a surname: "Dr Weber") that is the subject of a predicate, possessed ("Bruno's diagnosis"),
  the object of a preposition or a request ("for Priya", "ask Dana") or what a description is equated
  with ("The colleague who ... is Dana Lee");
- a chat handle ("@frank", "@frank.miller"), anywhere;
- a lower-case name or account id ("frank", "jsmith") that opens a clause as its subject and is no
  ordinary word ("parking", "everyone", a sensitive word itself).

Between a subject and its verb may stand an appositive or relative clause ("Bruno, our designer, has
..."), a bracket or dashes, a place ("from the warehouse", "in accounts") or an adverb ("apparently").

A role: the predicate is an organisational act ("runs", "approves", "is our first aider", "is the contact
for ...", "was appointed"), a description says which role ("Astrid, our occupational health nurse,"), or
the person is who to ask or who handles something ("Questions about sick pay go to Nadia", "Ask Dana for
the form", "handled by Frank"). What stands in a role's span is the organisation's fact, not the
person's: "Dana runs the first-aid course" and "Nadia approves salary advances" name nobody's health or
pay. Everything is a scan over tokens with a bounded look-ahead, so it is linear in the text's length.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from tinymemory.policy.gate.deid.sensitive import sensitive_word

# A handle, a number with its separators, a word (an id with underscores or dots before a small letter
# inside is one word: "alice.smith", not "budget.Frank"), or one mark.
_TOKEN = re.compile(r"@[\w.-]*\w|\d+(?:[.,:/-]\d+)*|[^\W_][\w'-]*(?:\.(?=[a-z\d])[\w'-]+)*|[^\w\s]")


@dataclass(frozen=True)
class Mention:
    """A person named in a text: where, and the span (if any) whose words are the organisation's."""

    start: int
    end: int
    role: tuple[int, int] | None = None


@dataclass(frozen=True)
class _Token:
    start: int
    end: int
    text: str
    possessive: bool = False

    @property
    def low(self) -> str:
        return self.text.casefold()


def _tokens(s: str) -> list[_Token]:
    out = []
    for m in _TOKEN.finditer(s):
        text, start, end = m.group(), m.start(), m.end()
        low = text.casefold()
        if len(text) > 2 and low.endswith("'s"):
            out.append(_Token(start, end - 2, text[:-2], possessive=True))
        elif len(text) > 2 and low.endswith("s'"):
            out.append(_Token(start, end - 1, text[:-1], possessive=True))
        else:
            if text[0] == "@" and s.startswith("'s", end):
                out.append(_Token(start, end, text, possessive=True))
                continue
            out.append(_Token(start, end, text))
    return out


NOT_NAMES = {
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
    "sales", "marketing", "engineering", "operations", "ops", "facilities", "procurement", "accounting",
    "accounts", "logistics", "research", "product", "design", "admin", "hr", "purchasing",
}  # fmt: skip
# Lower-case words that open a clause as its subject without naming anyone: function words and the
# things an office's rules are about.
_ORDINARY = NOT_NAMES | {
    "me", "us", "him", "them", "is", "was", "are", "were", "be", "been", "has", "have", "had", "do",
    "does", "did", "will", "would", "can", "could", "should", "must", "might", "shall", "to", "of", "in",
    "on", "at", "by", "for", "with", "from", "about", "as", "into", "than", "too", "very", "more", "less",
    "much", "such", "other", "another", "own", "same", "there's", "it's", "that's", "let's", "here's",
    "fyi", "btw", "ps", "nb", "reminder", "update", "tip", "info", "important", "attention", "per", "hr",
    "ok", "okay", "hi", "hello", "thanks", "sorry", "well", "yeah", "nope", "re", "confidential",
    "apparently", "probably", "maybe", "perhaps", "turns", "out", "heard", "know", "think", "guess",
    "parking", "lunch", "coffee", "tea", "food", "water", "rent", "overtime", "pay", "travel", "insurance",
    "pension", "leave", "holiday", "vacation", "wifi", "internet", "access", "dinner", "breakfast",
    "budget", "bonus", "tax", "shipping", "delivery", "postage", "alcohol", "transport", "fuel", "cover",
    "help", "equipment", "software", "hardware", "email", "mail", "post", "feedback", "childcare", "work",
    "home", "space", "room", "desk", "floor", "building", "site", "canteen", "kitchen", "fridge", "car",
    "bike", "bus", "train", "flight", "hotel", "meal", "cake", "pizza", "fruit", "milk", "badge", "key",
    "keys", "laptop", "phone", "printer", "project", "report", "meeting", "policy", "rule", "rules",
    "plan", "process", "form", "list", "schedule", "rota", "deadline", "release", "build", "server",
    "code", "data", "system", "service", "account", "invoice", "order", "ticket", "cost", "price", "fee",
}  # fmt: skip
_ORDINARY_ENDINGS = (
    "ing", "tion", "sion", "ment", "ness", "ity", "ance", "ence", "ism", "ship", "ure", "ics", "ery",
    "ogy", "ies", "ed", "ly", "ful", "ous", "ive", "able", "ible", "less",
)  # fmt: skip
PEOPLE_IN_GENERAL = re.compile(
    r"\b(?:employees|staff|workers|colleagues|customers|clients|users|people|visitors|guests|members|"
    r"patients|students|parents|children|kids|everyone|everybody|anyone|anybody|candidates|applicants|"
    r"travell?ers|passengers|residents|tenants|volunteers|contractors|interns|managers|teams|families|"
    r"women|men|adults|minors|those|whoever|drivers|refugees|fathers|mothers|nobody|no one)\b",
    re.I,
)
_PARTICLES = {"van", "von", "der", "den", "de", "del", "della", "da", "di", "du", "dos", "das", "le", "la",
              "bin", "ibn", "al", "el", "ter", "ten", "st"}  # fmt: skip
_TITLES = {"mr", "mrs", "ms", "miss", "mx", "dr", "prof", "sir", "dame"}
_OPENERS = {"fyi", "nb", "ps", "btw", "reminder", "note", "update", "tip", "attention", "important", "info",
            "confidential", "re", "psst", "so", "also", "oh", "ok", "okay", "hey", "hi"}  # fmt: skip
_REPORTING = {"that", "heard", "know", "knew", "guess", "think", "thinks", "thought", "believe",
              "says", "said", "told", "apparently", "out", "seems", "rumour", "rumor", "fyi", "btw",
              "and", "but", "because", "so", "while", "whether", "if"}  # fmt: skip
_PLACE_PREPOSITIONS = {"from", "in", "at", "of", "on"}
_ADVERBS = {"apparently", "probably", "reportedly", "allegedly", "recently", "just", "still", "also",
            "now", "actually", "finally", "unfortunately", "sadly", "secretly", "currently", "already",
            "often", "never", "always", "sometimes", "really", "definitely", "even", "too", "again",
            "meanwhile", "obviously", "clearly", "possibly", "supposedly"}  # fmt: skip
_AUXILIARIES = {
    "is", "was", "has", "had", "isn't", "wasn't", "hasn't", "hadn't", "does", "did", "doesn't", "didn't",
    "will", "would", "can", "could", "should", "must", "might", "may", "won't", "can't", "couldn't",
    "wouldn't", "shouldn't",
}  # fmt: skip
_IRREGULAR_PAST = {
    "took", "made", "got", "became", "saw", "went", "felt", "came", "left", "lost", "broke", "fell", "gave",
    "told", "said", "ran", "led", "wrote", "spent", "underwent", "won", "began", "sat", "thought", "knew",
    "found", "kept", "held", "sent", "paid", "heard", "fought", "drank", "ate", "slept", "quit", "met",
    "sold", "bought", "taught", "brought", "built", "chose", "drove", "flew", "grew", "hid", "hit", "hurt",
    "let", "put", "read", "rode", "rose", "shook", "stood", "stole", "swore", "tore", "wore", "woke",
}  # fmt: skip
# The acts of a role in an organisation; their objects are the organisation's business.
_ROLE_VERBS = {
    "approve", "sign", "run", "lead", "chair", "manage", "handle", "process", "organise", "organize",
    "coordinate", "book", "review", "check", "host", "present", "teach", "train", "answer", "explain",
    "own", "maintain", "order", "issue", "collect", "give", "write", "draft", "send", "schedule",
    "arrange", "oversee", "supervise", "head", "direct", "administer", "cover", "plan", "deliver",
    "prepare", "compile", "publish", "announce", "update", "track", "monitor", "audit", "authorise",
    "authorize", "coach", "mentor", "moderate", "facilitate", "represent", "recruit", "hire", "onboard",
    "assess", "evaluate", "certify", "inspect", "buy", "purchase", "procure", "negotiate", "advise",
    "help", "assist", "allocate", "assign", "distribute", "hand", "set", "configure", "install",
    "design", "build", "release", "deploy", "lock", "open", "close", "welcome", "greet", "introduce",
    "launch", "sponsor", "reimburse", "invoice", "appoint", "elect", "nominate", "promote", "name",
    "respond", "reply", "field", "sort", "escalate", "forward", "route", "triage", "look", "take", "deal",
}  # fmt: skip
# Not roles, though offices use them: "files for bankruptcy", "keeps kosher", "holds a passport", "pays
# alimony", "tests positive", "supports the party", "reports sick".
_ROLE_IRREGULAR = {"ran": "run", "led": "lead", "wrote": "write", "gave": "give", "taught": "teach",
                   "oversaw": "oversee", "sent": "send", "set": "set", "built": "build", "bought": "buy",
                   "took": "take", "dealt": "deal"}  # fmt: skip
# "take" and "look" are roles only with their particle: "takes care of", "looks after"; "deal with".
_ROLE_PARTICLE = {"take": ("care",), "look": ("after",), "deal": ("with",)}
# What a role holder is called: "is our first aider", "is the contact for ...", "is the new head of ...".
_ROLE_NOUNS = {
    "lead", "leader", "head", "manager", "officer", "contact", "coordinator", "owner", "representative",
    "champion", "ambassador", "aider", "warden", "trainer", "mentor", "buddy", "chair",
    "chairperson", "chairman", "chairwoman", "secretary", "director", "administrator",
    "admin", "advisor", "adviser", "partner", "organiser", "organizer", "host", "sponsor",
    "doctor", "person", "point", "go-to", "expert", "specialist", "consultant", "engineer",
    "developer", "designer", "analyst", "assistant", "receptionist", "accountant", "auditor", "editor",
    "coach", "teacher", "instructor", "facilitator", "moderator", "liaison", "delegate",
    "spokesperson", "president", "ceo", "cfo", "cto", "coo", "founder", "supervisor", "controller",
    "guardian", "keeper", "holder", "approver", "signatory", "reviewer", "planner", "scheduler",
    "recruiter", "buyer", "architect", "custodian", "deputy", "clerk", "superintendent", "caretaker",
}  # fmt: skip
_CONTACT_BEFORE = {"ask", "contact", "call", "ping", "email", "e-mail", "message", "see", "through", "via",
                   "thank", "tell", "cc"}  # fmt: skip
_CONTACT_TO = {
    "go", "goes", "went", "talk", "talks", "speak", "speaks", "sent", "send", "submit", "submitted",
    "forward", "forwarded", "report", "reports", "escalate", "escalated", "write", "directed", "addressed",
    "hand", "handed", "return", "returned", "turn", "reach", "out",
}  # fmt: skip
_BY_PARTICIPLES = {
    "handled", "approved", "signed", "run", "led", "organised", "organized", "managed", "processed",
    "booked", "reviewed", "done", "issued", "coordinated", "hosted", "taught", "given", "answered",
    "arranged", "ordered", "owned", "maintained", "checked", "made", "chaired", "kept", "covered", "held",
    "sent", "written", "prepared", "delivered", "supervised", "overseen", "authorised", "authorized",
    "administered", "provided",
}  # fmt: skip
_CLAUSE_WORDS = {"because", "so", "while", "although", "though", "since", "whereas", "who", "which",
                 "when", "after", "before", "until", "unless", "if", "as", "whose", "where"}  # fmt: skip
_PUNCT_BREAK = {",", ";", ".", "!", "?", "(", ")", ":"}
_SENTENCE_END = {";", ".", "!", "?"}
_LOOKAHEAD = 14  # tokens an appositive, a bracket or a place may take between a subject and its verb


def name_like(word: str) -> bool:
    """Whether `word` may be (a word of) a capitalised name: not all capitals ("HR"), no opener."""
    return (
        word[0].isupper()
        and any(c.isalpha() for c in word)
        and not (word.isupper() and len(word) > 1)
        and word.casefold() not in NOT_NAMES
    )


def _capitalised(t: _Token) -> bool:
    return name_like(t.text)


def _verb_stem(low: str) -> str | None:
    """The bare verb of a third-person or past form ("approves" -> "approve", "ran" -> "run")."""
    if low in _ROLE_IRREGULAR:
        return _ROLE_IRREGULAR[low]
    for suffix, repl in (("ies", "y"), ("ied", "y"), ("es", ""), ("es", "e"), ("s", ""), ("ed", ""),
                         ("ed", "e"), ("ing", ""), ("ing", "e"), ("d", "")):  # fmt: skip
        if low.endswith(suffix) and len(low) - len(suffix) >= 2:
            stem = low[: len(low) - len(suffix)] + repl
            if stem in _ROLE_VERBS:
                return stem
    return low if low in _ROLE_VERBS else None


def _is_verb(t: _Token) -> bool:
    low = t.low
    if low in _AUXILIARIES or low in _IRREGULAR_PAST or low in {"says", "told"}:
        return True
    return (
        t.text[0].islower()
        and low.isalpha()
        and 3 <= len(low) <= 30
        and (low.endswith("s") or low.endswith("ed"))
        and not low.endswith("ss")
        and low not in NOT_NAMES
    )


_PLURAL_FOLLOWERS = {"are", "were", "have", "can", "must", "may", "should", "will", "would", "could", "might",
                     "do", "don't", "aren't", "weren't"}  # fmt: skip


class _Scan:
    """One text's tokens, with each token's clause end and sentence bounds worked out once (backwards
    and forwards passes), so that every question a mention asks is answered in constant time."""

    def __init__(self, s: str) -> None:
        self.s = s
        self.toks = _tokens(s)
        self.n = n = len(self.toks)
        self._ends = ends = [self._ends_sentence(i) for i in range(n)]
        self._sentence_start = [0] * n  # the first token of each token's sentence
        for i in range(n):
            self._sentence_start[i] = i if i == 0 or ends[i - 1] else self._sentence_start[i - 1]
        self._sentence_end = [n - 1] * n  # its last token
        self._clause_break = [n] * (n + 1)  # the first token after i that ends i's clause
        for i in range(n - 1, -1, -1):
            self._sentence_end[i] = i if ends[i] or i == n - 1 else self._sentence_end[i + 1]
            nxt = i + 1
            self._clause_break[i] = nxt if nxt < n and self._breaks_clause(nxt) else self._clause_break[nxt]

    def low(self, i: int) -> str:
        return self.toks[i].low if 0 <= i < self.n else ""

    def verb(self, i: int) -> bool:
        """Whether token `i` is a verb: a word in -s followed by "are" or "can" is a plural noun."""
        return 0 <= i < self.n and _is_verb(self.toks[i]) and self.low(i + 1) not in _PLURAL_FOLLOWERS

    def _breaks_clause(self, j: int) -> bool:
        t = self.toks[j]
        if t.text in _PUNCT_BREAK or t.low in _CLAUSE_WORDS:
            return True
        return t.low in {"and", "but", "or"} and j + 1 < self.n and _is_verb(self.toks[j + 1])

    def clause_end(self, i: int) -> int:
        """The character offset where the clause that token `i` is in ends."""
        j = self._clause_break[i]
        return self.toks[j].start if j < self.n else len(self.s)

    def sentence(self, i: int) -> tuple[int, int]:
        return self.toks[self._sentence_start[i]].start, self.toks[self._sentence_end[i]].end

    def _ends_sentence(self, i: int) -> bool:
        t = self.toks[i]
        if t.text not in _SENTENCE_END:
            return False
        prev = self.low(i - 1)
        return not (t.text == "." and (prev in _TITLES or len(prev) == 1))

    def _skip_openers(self, i: int, colon: bool) -> int:
        j = i - 1
        while j >= 0 and i - j <= 3 and (self.low(j) in _OPENERS or (colon and self.toks[j].text == ":")):
            j -= 1
        return j

    def opens_clause(self, i: int) -> bool:
        """Whether token `i` is where a clause's subject stands: the start of a sentence or after a
        colon, a comma, an opener ("FYI") or a reporting word ("I heard", "turns out")."""
        j = self._skip_openers(i, colon=False)
        if j < 0:
            return True
        prev = self.toks[j]
        return prev.text in _PUNCT_BREAK or prev.text in {"-", "–"} or prev.low in _REPORTING

    def opens_sentence(self, i: int) -> bool:
        j = self._skip_openers(i, colon=True)
        return j < 0 or self._ends[j]


def mentions(s: str) -> Iterator[Mention]:
    """The people `s` names (see the module docstring), each with its role span or None."""
    scan = _Scan(s)
    general: bool | None = None
    i = 0
    while i < scan.n:
        end_i = _name_at(scan, i)
        if end_i is None:
            i += 1
            continue
        first, last = scan.toks[i], scan.toks[end_i]
        handle = first.text[0] == "@"
        lower = not handle and not _capitalised(first) and scan.low(i) not in _TITLES
        role, kind = _after_name(scan, i, end_i)
        if kind is None and not handle:
            kind = _before_name(scan, i)
        if kind is None and not handle:
            i = end_i + 1
            continue
        # one word opening a sentence about people in general: "Parking is free for disabled staff"
        if not handle and (lower or (end_i == i and scan.opens_sentence(i))):
            if general is None:
                general = PEOPLE_IN_GENERAL.search(s) is not None
            if general:
                i = end_i + 1
                continue
        if kind == "contact":
            role = scan.sentence(i)
        yield Mention(first.start, last.end, role)
        i = end_i + 1


def _name_at(scan: _Scan, i: int) -> int | None:
    """The last token of a name starting at token `i`, or None."""
    t = scan.toks[i]
    if t.text[0] == "@":
        return i if len(t.text) > 1 else None
    if t.low in _TITLES:
        j = i + 1
        if scan.low(j) == ".":
            j += 1
        if j < scan.n and _capitalised(scan.toks[j]) and not t.possessive:
            return j
        return None
    if _capitalised(t):
        if sensitive_word(t.text) or PEOPLE_IN_GENERAL.fullmatch(t.text):
            return None
        if i > 0 and (_capitalised(scan.toks[i - 1]) or scan.toks[i - 1].text[0].isdigit()):
            return None  # the rest of another name, or a street: "19 Church Lane"
        j = i
        while not scan.toks[j].possessive and j + 1 < scan.n and j - i < 4:
            k = j + 1
            while k < scan.n and scan.low(k) in _PARTICLES and k - i < 4:
                k += 1
            if k < scan.n and _capitalised(scan.toks[k]) and not sensitive_word(scan.toks[k].text):
                j = k
            else:
                break
        return j
    if t.text[0].islower() and scan.opens_clause(i):  # a lower-case name or id, only as a subject
        j = i
        if not _plain_name(t):
            return None
        if (
            not t.possessive
            and i + 1 < scan.n
            and _plain_name(scan.toks[i + 1])
            and not _is_verb(scan.toks[i + 1])
        ):
            j = i + 1
        return j
    return None


def _plain_name(t: _Token) -> bool:
    low = t.low
    return (
        t.text[0].islower()
        and low.replace("'", "").replace("-", "").replace(".", "").replace("_", "").isalpha()
        and 2 <= len(low) <= 30
        and low not in _ORDINARY
        and not low.endswith(_ORDINARY_ENDINGS)
        and not sensitive_word(low)
        and not PEOPLE_IN_GENERAL.fullmatch(low)
    )


def _after_name(scan: _Scan, i: int, end_i: int) -> tuple[tuple[int, int] | None, str | None]:
    """What follows a name: (its role span or None, "subject" / "possessed" / "equated" / None)."""
    last = scan.toks[end_i]
    j = end_i + 1
    if last.possessive:  # "Bruno's diagnosis ...": a noun phrase, then maybe its verb
        k = j
        while (
            k < scan.n and k - j < 4 and not _is_verb(scan.toks[k]) and scan.toks[k].text not in _PUNCT_BREAK
        ):
            k += 1
        if k > j and scan.verb(k) and _role_predicate(scan, k):
            return (scan.toks[k].start, scan.clause_end(k)), "possessed"
        return None, "possessed"
    role_description: tuple[int, int] | None = None
    opener = scan.toks[j].text if j < scan.n else ""
    closers = {",": ",", "(": ")", "-": "-", "–": "–"}
    if opener in closers:  # an appositive, a relative clause, a bracket or dashes
        k = j + 1
        while (
            k < scan.n
            and k - j <= _LOOKAHEAD
            and scan.toks[k].text not in (closers[opener], ";", ".", "!", "?")
        ):
            k += 1
        if k < scan.n and k - j <= _LOOKAHEAD and scan.toks[k].text == closers[opener] and k > j + 1:
            verb = k + 1
            while scan.low(verb) in _ADVERBS:
                verb += 1
            if scan.verb(verb):
                if _role_description(scan, j + 1, k):
                    role_description = (scan.toks[j].start, scan.toks[k].end)
                return _predicate(scan, verb, role_description), "subject"
    elif scan.low(j) in _PLACE_PREPOSITIONS:  # "Paul from the warehouse was ...", "Lena in accounts has"
        window = range(j + 2, min(j + 6, scan.n))
        stop = next((k for k in window if scan.toks[k].text in _PUNCT_BREAK), window.stop)
        # an auxiliary first ("in logistics was": "logistics" is no verb), else a word in -s or -ed
        aux = [k for k in range(j + 2, stop) if scan.low(k) in _AUXILIARIES or scan.low(k) in _IRREGULAR_PAST]
        verbs = aux or [k for k in range(j + 2, stop) if scan.verb(k)]
        if verbs:
            return _predicate(scan, verbs[0], None), "subject"
    verb = j
    while scan.low(verb) in _ADVERBS or (scan.low(verb).endswith("ly") and len(scan.low(verb)) > 4):
        verb += 1
        if verb - j > 2:
            break
    if scan.verb(verb):
        return _predicate(scan, verb, None), "subject"
    if opener == "," and scan.low(j + 1) == "who":  # "Olu, who has epilepsy, ..." with no verb found after
        return None, "subject"
    # "The colleague who has ... is Dana Lee": a name a description is equated with, ending its clause
    if scan.low(i - 1) in {"is", "was"} and (j >= scan.n or scan.toks[j].text in _PUNCT_BREAK):
        return None, "equated"
    return None, None


def _predicate(scan: _Scan, verb: int, description: tuple[int, int] | None) -> tuple[int, int] | None:
    """The role span of a subject whose predicate starts at token `verb`: the description and the
    predicate when either says a role (a role description excuses itself only), else None."""
    if _role_predicate(scan, verb):
        start = description[0] if description else scan.toks[verb].start
        return start, scan.clause_end(verb)
    return description


def _role_predicate(scan: _Scan, verb: int) -> bool:
    """Whether the predicate at token `verb` is an organisational act or a role."""
    low = scan.low(verb)
    nxt = verb + 1
    if low in {"will", "would", "can", "could", "should", "must", "might", "may"}:
        return nxt < scan.n and _role_act(scan, nxt)
    if low in {"is", "was"}:
        k = nxt
        if scan.low(k) in {"responsible", "in"} and scan.low(k + 1) in {"for", "charge"}:
            return True
        if k < scan.n and scan.low(k).endswith("ing") and _verb_stem(scan.low(k)):
            return _role_act(scan, k)
        if scan.low(k) in {"appointed", "elected", "named", "promoted", "nominated", "hired"}:
            return True
        if scan.low(k) in {"the", "our", "a", "an", "their", "your", "its", "this", "one"}:
            for m in range(k + 1, min(k + 7, scan.n)):
                t = scan.toks[m]
                if t.text in _PUNCT_BREAK or t.low in _CLAUSE_WORDS:
                    break
                if t.low in _ROLE_NOUNS or (t.low.endswith("s") and t.low[:-1] in _ROLE_NOUNS):
                    return True
        return False
    return _role_act(scan, verb)


def _role_act(scan: _Scan, verb: int) -> bool:
    stem = _verb_stem(scan.low(verb))
    if stem is None:
        return False
    particles = _ROLE_PARTICLE.get(stem)
    return particles is None or scan.low(verb + 1) in particles


def _role_description(scan: _Scan, a: int, b: int) -> bool:
    """Whether tokens a..b-1 (an appositive) name a role: "our occupational health nurse", "the HR
    partner", "who manages payroll"."""
    if scan.low(a) == "who":
        return a + 1 < b and _role_act(scan, a + 1)
    if scan.low(a) not in {"the", "our", "a", "an", "their", "your", "its"}:
        return False
    return any(scan.low(m) in _ROLE_NOUNS for m in range(a + 1, b))


def _before_name(scan: _Scan, i: int) -> str | None:
    """What precedes a name that is not a subject: "contact" (who to ask or who handles it), "object"
    (for, with, about, to a person), or None (a place or an organisation: "in Berlin", "from Legal")."""
    prev, before = scan.low(i - 1), scan.low(i - 2)
    if prev in _CONTACT_BEFORE or (prev == "to" and before in _CONTACT_TO):
        return "contact"
    if prev in {"by", "with", "through"} and before in _BY_PARTICIPLES:
        return "contact"
    if prev in {"for", "with", "about"}:
        return "object"
    return None
