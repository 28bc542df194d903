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

This module reads a turn clause by clause and dispatches each clause; the rules live beside it, one
job a module: sentences (cutting and cleaning clauses), english (shared words, value ends, third
person), profile, people, health, days, preferences, instructions, held (corrections and the like,
read against what the thread holds), notes; learning holds the type.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace
from datetime import datetime

from tinymemory.api import About
from tinymemory.lifecycle.rules.days import _dates, birthday_said
from tinymemory.lifecycle.rules.english import (
    _FRONTED,
    _HYPOTHETICAL,
    _NAME_WORD,
    _PLAN,
    _QUESTION_START,
    _STANDING,
    _sentence_case,
    _singular,
    conjugate,
    no_longer,
    third_person,
)
from tinymemory.lifecycle.rules.health import _AVOID, _health
from tinymemory.lifecycle.rules.held import from_correction, from_held
from tinymemory.lifecycle.rules.instructions import _base_phrase, _dropped, _instruction, _swapped, known_slot
from tinymemory.lifecycle.rules.learning import RuleLearning
from tinymemory.lifecycle.rules.notes import _attribute, _event, _note
from tinymemory.lifecycle.rules.people import (
    _KIN,
    _PETS,
    _family,
    _introduced,
    _kin_key,
    _kin_named_in,
    _listed_pet,
)
from tinymemory.lifecycle.rules.preferences import _NOT_ACTIVITY, _activity, _gerund, _preferences
from tinymemory.lifecycle.rules.profile import (
    _ABOUT_ME,
    _GREETING_NAME,
    _NAME,
    _home,
    _job,
    _name,
    _names,
    introduced_clauses,
)
from tinymemory.lifecycle.rules.sentences import _SENTENCES, _SUBJECT_DROPPED, _clean, _present, clauses

__all__ = ["RuleLearning", "clauses", "conjugate", "extract", "known_slot", "third_person"]


def extract(
    text: str,
    said_at: datetime,
    *,
    notes: bool = False,
    known: Mapping[str, About] | None = None,
    held: Mapping[About, str] | None = None,
) -> list[RuleLearning]:
    """Learnings in one user turn, in clause order. With `notes`, a first-person statement no rule
    recognises is kept as a note without a subject (what the user said about themselves). `known` maps
    the (lowercased) names earlier turns bound to a pet or a relative to that subject, so "Rex died"
    needs no "my", and "instruction <key>" to each standing instruction's subject, so "use X instead"
    replaces it. `held` maps each subject earlier turns gave a value to its latest text, oldest first,
    so "Boeing, not Airbus" or "we left Dubai" changes the subject whose value it names."""
    out: list[RuleLearning] = []
    # "favourite colour? purple": a choice asked of oneself and answered is the choice said
    text = _ASKED_AND_ANSWERED.sub(r"\1 is ", text)
    for raw in _SENTENCES.split(text):
        sentence = _THINGS_LISTED.sub(r"I \g<verb> \g<list>", raw.strip())
        if not sentence:
            continue
        if sentence.endswith("?"):
            # A question keeps nothing, unless it asks for a standing behaviour ("could you always ...?").
            asks = re.match(r"^(?:please\s+)?(?:can|could|would|will) you\b", sentence, re.I)
            # "can you stop using emojis?" asks the same of every answer to come
            if not (asks and (_STANDING.search(sentence) or re.search(r"\bstop\s+\w+ing\b", sentence, re.I))):
                continue
        greeting = _GREETING_NAME.match(sentence)
        if about_me := _ABOUT_ME.match(sentence):
            for clause in introduced_clauses(about_me.group("rest")):
                out.extend(_clause(_clean(clause), said_at))
            continue
        if greeting:
            out.append(_name(greeting.group(1)))
            for clause in introduced_clauses(greeting.group("rest") or ""):
                out.extend(_clause(_clean(clause), said_at))
            continue
        if intro := _introduced(sentence):
            out.append(intro)
            continue
        if listed := _listed_pet(sentence):
            out.extend(listed)
            continue
        if corrected := from_correction(sentence, held or {}):
            out.extend(corrected)
            continue
        parts = _set_against(_contrasted(_pointed_back(clauses(_clean(sentence)))), held or {})
        for n, clause in enumerate(parts):
            found = _facts(clause, said_at, known or {}, held or {})
            # only a sentence's first clause: after "and" the subject dropped is the clause before's
            if not found and n == 0 and _PARTICIPLE_FIRST.match(clause):
                # "Living in Bristol with ...": a participle of living or working with its subject dropped
                found = _facts(f"I am {clause[:1].lower()}{clause[1:]}", said_at, known or {}, held or {})
            elif not found and n == 0 and _LIKING_DROPPED.match(clause):
                # "can't stand podcasts": chat drops the subject of a liking too
                found = _facts(f"I {clause[:1].lower()}{clause[1:]}", said_at, known or {}, held or {})
            elif not found and n == 0 and _SUBJECT_DROPPED.match(clause):
                # "Started at BMW this week": chat drops the subject of a verb of change; the facts are
                # the user's, but no note is kept of a clause whose subject was never said
                # the auxiliary dropped with it comes back too: "been single ..." is "I have been single ..."
                aux = {"been": "have ", "born": "was "}.get(clause.split()[0].lower(), "")
                said = f"I {aux}{clause[:1].lower()}{clause[1:]}"
                found = _facts(said, said_at, known or {}, held or {})
            elif not found and notes:
                found = _note(clause)
            out.extend(_held_form(_scoped(f, known or {}), held or {}) for f in found)
    return out


def _held_form(found: RuleLearning, held: Mapping[About, str]) -> RuleLearning:
    """ "I'm no longer allergic to peanuts" after "I have a peanut allergy": a subject said again with
    its last noun in the other number is the subject the thread holds."""
    about = found.about
    if about is None or about in held:
        return found
    one = _singular(about.key)
    same = [a for a in held if a.kind == about.kind and a.key != about.key and _singular(a.key) == one]
    return replace(found, about=same[-1]) if same else found


_ASKED_AND_ANSWERED = re.compile(
    # or set as a heading: "favourite film: Jaws"
    r"(?:^|(?<=[.!]\s))((?:my\s+)?(?:all-time\s+)?(?:favou?rite|fave|go-to)\s+[a-z][\w -]{0,30}?)"
    r"\s*[?:]\s+(?=\w)",
    re.I,
)
# "Two things I can't stand: olives and mayonnaise": things a verb of liking takes, listed after a colon
_THINGS_LISTED = re.compile(
    r"^(?:(?:the\s+)?(?:two|three|four|a few|some|the)\s+)?things\s+i\s+"
    r"(?P<verb>(?:really\s+)?(?:love|like|hate|adore|enjoy|loathe|detest|can't stand|cannot stand|"
    r"can't live without))\s*:\s*(?P<list>.+)$",
    re.I,
)
# a verb of liking with its subject dropped, before a bare noun (not "love you", not "love the idea"); as
# "love" and "hate" are nouns too ("love and acceptance ..."), they take only a bare plural of a word or two
_LIKING_DROPPED = re.compile(
    r"^(?:(?:really|absolutely|honestly|genuinely)\s+)?"
    r"(?:(?:can't stand|cannot stand|can't bear|loathe|detest|can't get enough of)\s+"
    r"(?!(?:it|you|that|this|them|him|her|me|us|u|ya|the|a|an|your|his|their|our|my|"
    r"how|what|when|where|why|to|being)\b)[a-z]|(?:love|hate|adore)\s+(?:[a-z-]+\s+)?[a-z-]+s$)",
    re.I,
)
_PARTICIPLE_FIRST = re.compile(
    r"^(?:(?:currently|now|still)\s+)?(?:living|based|working)\s+(?:in|at|as|for)\s", re.I
)


def _facts(
    clause: str, said_at: datetime, known: Mapping[str, About], held: Mapping[About, str]
) -> list[RuleLearning]:
    """What the fact rules make of one clause, read against the names and values the thread holds."""
    swapped = _swapped(clause, known) or _dropped(clause, known)
    return (
        _bound_name(clause, known)
        or ([swapped] if swapped else from_held(clause, held))
        or _clause(clause, said_at)
    )


def _scoped(found: RuleLearning, known: Mapping[str, About]) -> RuleLearning:
    """ "Stop putting keywords in capitals" after "whenever you write SQL, put keywords in capitals": an
    instruction the thread holds only under a condition is the one an unconditioned change of the same
    action changes, when exactly one such is held."""
    about = found.about
    if about is None or about.kind != "instruction" or known_slot(about.key) in known:
        return found
    scoped = {a for k, a in known.items() if k.startswith(known_slot("")) and a.key.endswith(f" {about.key}")}
    return replace(found, about=scoped.pop()) if len(scoped) == 1 else found


# "I can't take aspirin, I'm allergic to it": "it" at a clause's end is the object of the clause before
_OBJECT = re.compile(
    r"^(?:i|we)\s+(?:(?:can't|cannot|can not|don't|do not|never|could not|couldn't)\s+)?"
    r"(?:take|eat|drink|have|use|touch|tolerate|digest|stand)\s+(?:any\s+)?([\w' -]{1,30})$",
    re.I,
)


# an activity: a verb and, up to a preposition or a time phrase, its object ("I play chess on Sundays")
_DOING = re.compile(
    r"^i\s+(?:(?:usually|often|always|also|still)\s+)?([a-z]+)\b((?:\s+(?!(?:to|at|in|on|with|for|most|every|each|"
    r"a|an|the|my|our|some|all)\b)[a-z]+){0,2})",
    re.I,
)
# "Eggs make me ill; I'm allergic": an allergy with no object is to what the clause before says harms
_HARMS = re.compile(
    r"^(?!(?:i|we|it|this|that|they|he|she|you|there|my|our)\b)([\w' -]{2,30}?)\s+"
    r"(?:makes?|gives?|brings?|is|are|do|does|don't|doesn't)\b",
    re.I,
)


def _pointed_back(parts: list[str]) -> list[str]:
    out: list[str] = []
    for part in parts:
        # "I cycle to work and love it": a liking of "it" after an activity is a liking of the activity
        liked = re.fullmatch(
            r"(i\s+(?:really\s+|absolutely\s+)?(?:love|like|enjoy|adore|hate))\s+it", part, re.I
        )
        act = _DOING.match(out[-1]) if out and liked else None
        if liked and act and act.group(1).lower() not in _NOT_ACTIVITY:
            part = f"{liked.group(1)} {_gerund(act.group(1).lower())}{act.group(2) or ''}"
        harm = _HARMS.match(out[-1]) if out else None
        if harm and re.fullmatch(r"i am (?:\w+\s+)?(?:allergic|intolerant)", part, re.I):
            part = f"{part} to {harm.group(1).lower()}"
        prev = _OBJECT.match(out[-1]) if out else None
        if prev and re.search(r"\s(?:it|them)$", part, re.I):
            part = re.sub(r"(?<=\s)(?:it|them)$", prev.group(1), part, flags=re.I)
        out.append(part)
    return out


# "gave up coffee and never went back, it's peppermint tea now": what "it's ... now" names after a liking
# given up is the choice switched to
_GAVE_UP = re.compile(
    r"^(?:i\s+(?:have\s+)?)?(?:gave up|given up|quit|kicked|gone off|went off|stopped|cut out|ditched)\s+"
    r"(?P<old>[\w' -]+?)(?:\s+(?:for|in|on|at|after|since|last|this)\b.*)?$",
    re.I,
)
_ITS_NOW = re.compile(r"^it(?:'s| is)\s+(?P<new>[\w' -]{2,30}?)\s+(?:for me\s+|for us\s+)?now$", re.I)


def _set_against(parts: list[str], held: Mapping[About, str]) -> list[str]:
    """The choice "it's ... now" names after a liking given up: a correction of the held value given up
    ("gone off purple, it's burnt orange now" is "burnt orange, not purple", which restates the giving
    up), or, with no such value held, a switch to it."""
    out: list[str] = []
    for part in parts:
        at = next((i for i in reversed(range(len(out))) if _GAVE_UP.match(out[i])), None)
        gave = _GAVE_UP.match(out[at]) if at is not None else None
        if (m := _ITS_NOW.match(part)) and at is not None and gave:
            old = gave.group("old")
            if any(re.search(rf"\b{re.escape(old)}\b", text, re.I) for text in held.values()):
                del out[at]
                part = f"{m.group('new')}, not {old}"
            else:
                part = f"I have switched to {m.group('new')}"
        out.append(part)
    return out


# "I'm not in Melbourne any more, I'm in Hobart": not being in a place any more is not living there, and
# being in the place set against it is the present state
_NOT_IN = re.compile(
    r"^(i|we)\s+(?:am|are)\s+not\s+(?:(?:living|based)\s+)?in\s+"
    r"(?P<place>(?-i:(?:the\s+)?[A-Z]).*?)\s+(?:any ?more)$",
    re.I,
)
_IN = re.compile(r"^(?:i am|we are)\s+(?:(?:now|back|down|up|over|out)\s+)*in\s+(?-i:(?:the\s+)?[A-Z])", re.I)


def _contrasted(parts: list[str]) -> list[str]:
    out: list[str] = []
    for part in parts:
        if out and _NOT_IN.match(out[-1]) and _IN.match(part) and not re.search(r"\bnow$", part):
            part = f"{part} now"
        out.append(part)
    return [
        f"{m.group(1)} don't live in {m.group('place')} anymore" if (m := _NOT_IN.match(p)) else p
        for p in out
    ]


# "Rex died", "Grandpa Walter passed away": a kinship title before a name is how one names one's own
# relative, so it needs no earlier turn
_NAME_DIED = re.compile(
    rf"^(?:(?P<title>(?i:{_KIN}))\s+)?(?P<name>{_NAME_WORD})\s+(?:has\s+|just\s+|sadly\s+)?"
    # "didn't make it" is the euphemism a death is told by: with a bound name it needs no other word
    r"(?:died|passed away|passed|was put down|had to be put down|was put to sleep|had to be put to sleep|"
    r"did not make it|didn't make it|"
    r"is no longer with us)\b"
)


# "We lost Rex last week", "we buried Grandma Ines": a bereavement verb before a bound or titled name
_LOST_NAMED = re.compile(
    rf"^(?i:i|we)\s+(?i:have\s+)?(?i:(?:just|sadly|recently)\s+)?(?i:lost|buried|(?P<bye>said (?:our|my) "
    rf"(?:last\s+|final\s+)?goodbyes|said (?:a\s+)?(?:last|final) goodbye) to)\s+"
    rf"(?:(?P<title>(?i:{_KIN}))\s+)?(?P<name>{_NAME_WORD})(?:\s+(?i:in|on|at|last|this|yesterday|today|"
    rf"two|a few|after)\b.*)?$"
)
# "RIP Gus": wishing a bound or titled name rest in peace tells of its death
_RIP = re.compile(
    rf"^(?i:rip|r\.i\.p\.?|rest in peace)\s*,?\s+(?:(?P<title>(?i:{_KIN}))\s+)?(?P<name>{_NAME_WORD})\b"
)
# "We had to put Rex down", "we had Rex put to sleep", "I had to put my dog Rex to sleep": a pet put down
_PUT_DOWN = re.compile(
    rf"^(?i:i|we)\s+(?i:(?:just|sadly|finally)\s+)?(?i:(?:have\s+)?had\s+to\s+)?(?i:put|have|had)\s+"
    rf"(?:(?i:my|our)\s+(?i:(?:old|little|beloved|sweet)\s+)?(?P<what>(?i:{_PETS}))\s*,?\s+)?"
    rf"(?P<name>{_NAME_WORD})\s*,?\s+(?i:(?:put\s+)?(?:down|to sleep))\b"
)


# "My grandmother passed away", "my dad died": a relative named by kinship alone
_KIN_DIED = re.compile(
    rf"^(?i:my|our)\s+(?i:late\s+)?(?P<rel>(?i:{_KIN}))\s+(?i:has\s+|just\s+|sadly\s+)?"
    r"(?i:died|passed away|passed on|passed)\b|"
    # "I lost my dad in March": a bereavement verb before a relative by kinship alone, then at most a time
    rf"^(?i:i|we)\s+(?i:have\s+)?(?i:(?:just|sadly|recently)\s+)?(?i:lost)\s+(?i:my|our)\s+"
    rf"(?P<rel2>(?i:{_KIN}))(?:\s+(?i:in|on|last|this|yesterday|today|two|a few|after|to)\b.*)?$"
)


def _bound_name(s: str, known: Mapping[str, About]) -> list[RuleLearning]:
    """ "Rex died": a bare name the thread already bound to a pet or a relative ends that subject; so
    does a pet put down, named with its kind or bound before, and a relative named by kinship alone (the
    one of that kinship the thread named, if it named one)."""
    if m := _KIN_DIED.match(s):
        rel = m.group("rel") or m.group("rel2")
        key, unique = _kin_key(rel)
        named = {a for a in known.values() if a.kind == "family" and a.key.split()[0] == key}
        kin = About("family", key) if unique or len(named) != 1 else named.pop()
        return [RuleLearning(f"The user's {rel.lower()} died.", "fact", kin, 0.8)]
    if m := _PUT_DOWN.match(s):
        name = m.group("name")
        if m.group("what"):
            about: About | None = About("pet", name.lower())
            text = f"The user's {m.group('what').lower()} {name} died."
        else:
            about, text = known.get(name.lower()), f"{name} died."
        return [] if about is None else [RuleLearning(text, "fact", about, 0.8, named=name)]
    m = _NAME_DIED.match(s) or _LOST_NAMED.match(s) or _RIP.match(s)
    if m is None:
        return []
    name = m.group("name")
    about = known.get(name.lower())
    if "bye" in m.groupdict() and m.group("bye") and (about is None or about.kind != "pet"):
        return []  # "we said our goodbyes to Rex" at the vet's is a death; to a person, a parting
    if about is None and m.group("title"):
        key, unique = _kin_key(m.group("title"))
        about = About("family", key if unique else f"{key} {name.lower()}")
    if about is None:
        return []
    who = f"{m.group('title')} {name}" if m.group("title") else name
    return [RuleLearning(f"{who} died.", "fact", about, 0.8, named=name)]


# -- the clause rules ------------------------------------------------------------------------------------

_NEGATION = re.compile(
    r"\b(?:no longer|not anymore|not any more|anymore|any more|not\s+\w+\s+anymore)\b|"
    r"\b(?:don't|do not|doesn't|am not|'m not|isn't|aren't|haven't|can't)\b.*"
    r"\b(?:anymore|any more|after all)\b",
    re.I,
)


def _clause(s: str, said_at: datetime) -> list[RuleLearning]:
    if not s:
        return []
    # "please call me Bex from now on" asks for a name, whatever marks it as standing
    if m := _NAME.match(_STANDING_MARK.sub("", s).strip(" ,")):
        return [_name(m.group(1))]
    found = _instruction(s)
    if found is not None:
        return [found]
    if _QUESTION_START.match(s):
        return []
    if m := _FOUND_OUT.match(s):
        # "it turns out I'm allergic to kiwi": a frame of finding out or being told embeds the fact
        # a negated state found out is a correction: "it turns out I'm not allergic" -> "not ... after all"
        embedded = [
            re.sub(r"^(i am not|i do not|i don't)\b(.*)$", r"\1\2 after all", c, flags=re.I)
            for c in clauses(_clean(m.group(1)))
        ]
        return [x for c in embedded for x in _clause(c, said_at)]
    if m := _REMEMBER.match(s):
        inner = _clean(m.group(1))
        if not inner:
            return []
        nested = [x for c in clauses(inner) for x in _clause(c, said_at)]
        return nested or [RuleLearning(_sentence_case(third_person(inner)) + ".", "fact", None, 0.85)]
    if _HYPOTHETICAL.search(s) and not (
        re.search(r"\bi would like you to\b|\bi'd like you to\b", s, re.I) or _NAME.match(s)
    ):
        return []  # a wish or a condition, but "I'd rather you called me Jo" asks for a name
    if _PLAN.search(s):
        # a relative named in a plan is the user's all the same: "my wife Shona and I are thinking of ..."
        return _kin_named_in(s) + _event(s, said_at)
    # the facts read without a fronted time phrase; events keep it
    bare = birthday_said(_begun(_stopped(_unfronted(s))))
    if _NEGATION.search(bare):
        return _negated(bare, said_at)
    kin = _kin_named_in(bare)
    for rule in _RULES:
        got = rule(bare, said_at)
        if got:
            return got + [k for k in kin if all(g.about != k.about for g in got)]
    return kin + _event(s, said_at)


_STANDING_MARK = re.compile(
    r"^(?:always|from now on|going forward|in future)\s*,?\s+|\s*,?\s+(?:from now on|going forward)$", re.I
)


def _unfronted(s: str) -> str:
    """ "In 2021 I moved to Ghent" -> "I moved to Ghent": a time phrase before the subject dates the
    clause; the perfect it hid from the tense reading is read again ("Since May I have been ...")."""
    bare = _FRONTED.sub("", s, count=1)
    if bare == s:
        return s
    # a fronted marker of the present still marks it: "These days we're in Seattle" is "we're in Seattle now"
    if re.match(r"^(?:these days|nowadays|currently|at the moment|right now)\b", s, re.I) and re.match(
        r"^(?:i am|we are)\s+in\s", bare, re.I
    ):
        bare = f"{bare} now"
    return _present(bare, lasting=bool(re.match(r"^(?:since|for)\s", s, re.I)))


_STOPPED = re.compile(
    r"^(i|we)\s+(?:have\s+|had\s+)?(?:(?:just|recently|finally|completely|totally)\s+)?"
    r"(?:stopped|quit|gave up|given up|cut out)\s+(\w+ing)\b(.*)$",
    re.I,
)


def _stopped(s: str) -> str:
    """ "I've stopped drinking coffee" -> "I don't drink coffee anymore": a verb of ending with a gerund
    is the gerund's verb negated, so its subject ends the same way."""
    m = _STOPPED.match(s)
    if not m:
        return s
    if m.group(2).lower() == "being":  # "I stopped being vegetarian" -> "I am not vegetarian anymore"
        return f"{m.group(1)} {'am' if m.group(1).lower() == 'i' else 'are'} not{m.group(3)} anymore"
    return f"{m.group(1)} don't {_base_phrase(m.group(2))}{m.group(3)} anymore"


_BEGUN = re.compile(
    r"^(i|we)\s+(?:have\s+)?(?:(?:just|recently|finally)\s+)?(?:started|begun|began)\s+(\w+ing)\b(.*)$", re.I
)


def _begun(s: str) -> str:
    """ "I've started dating Ana" -> "I am dating Ana": a state begun is the state now. Only the fact
    rules read it, so "I started crying" is no more than the note it was."""
    m = _BEGUN.match(s)
    if not m:
        return s
    return f"{m.group(1)} {'am' if m.group(1).lower() == 'i' else 'are'} {m.group(2)}{m.group(3)}"


def _negated(s: str, said_at: datetime) -> list[RuleLearning]:
    """ "I don't live in Lisbon anymore" -> the positive reading's subject, with a "no longer" value."""
    positive = re.sub(r"\s*\b(?:anymore|any more|after all)\b", "", s, flags=re.I)
    if _AVOID.match(positive):
        return _health(positive, said_at)  # "I don't eat meat anymore": what the user avoids now
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
    else:
        out = _activity(positive)  # "I don't play chess anymore" ends the activity kept
    return [RuleLearning(no_longer(f.text), f.kind, f.about, f.confidence) for f in out]


_FOUND_OUT = re.compile(
    r"^(?:it turns out|turns out|as it turns out|(?:i\s+(?:have\s+)?(?=\w+\s+\w+)|(?=found out))"
    # chat drops the subject of "found out": "found out at a picnic I'm allergic to wasps"
    r"(?:recently\s+|just\s+|finally\s+)?"
    r"(?:found out|learned|learnt|discovered|realised|realized|been told|was told|got told)"
    # a time phrase may say when: "I was told last month that ...", and a place where ("at a picnic")
    r"(?:\s+(?:last|this)\s+\w+|\s+yesterday|\s+today|\s+\w+\s+ago|"
    r"\s+(?:at|on|in|during|after)\s+(?:a|an|the|my|our)\s+[\w-]+(?:\s+[\w-]+)?)?|"
    r"my (?:doctor|gp|dentist|allergist|specialist|consultant|nurse) (?:says|said|told me|thinks|confirmed))"
    r",?\s+(?:that\s+)?(?=(?:i|i'm|i am|i have|i've)\b)(.+)$",
    re.I,
)
_REMEMBER = re.compile(
    r"^(?:remember|don't forget|do not forget|note|keep in mind)\s+(?:that\s+)?(.+)$", re.I
)

# In order: the first rule that reads a clause wins.
_RULES = (_names, _health, _dates, _family, _preferences, _job, _home, _attribute)
