"""Health: allergies, intolerances, conditions, diet."""

from __future__ import annotations

import re
from datetime import datetime

from tinymemory.api import About
from tinymemory.lifecycle.rules.english import _TRAIL, _VALUE_END, _key
from tinymemory.lifecycle.rules.learning import RuleLearning

# health -------------------------------------------------------------------------------------------------

# the conditions the rules know by name
_CONDITIONS = (
    r"diabetes|asthma|arthritis|migraines|headaches|panic attacks|anxiety attacks|seizures|nosebleeds|"
    r"cold sores|"
    r"(?:high|low) (?:cholesterol|blood pressure|blood sugar|iron|thyroid levels|vitamin d)|epilepsy|"
    r"celiac disease|coeliac disease|celiac|coeliac|adhd|autism|anxiety|depression|high blood pressure|"
    r"hypertension|ibs|crohn's|eczema|psoriasis|a heart condition|a bad back|back pain|insomnia|"
    r"sleep apnea|tinnitus|lupus|multiple sclerosis|ms|cancer|long covid|a thyroid condition|"
    r"hypothyroidism|fibromyalgia|ptsd|ocd|dyslexia|glaucoma|gout|anemia|anaemia|hay fever|acne|rosacea"
)
_ALLERGY = re.compile(
    r"^i(?:'m| am| have been| was)?\s+(?:(?:severely|very|really|mildly|slightly|deathly|super|also|so)\s+)*"
    r"allergic to\s+(.+)$|^i\s+(?:have got|have developed|developed|have|'ve got|got)\s+(?:an?\s+)?"
    r"(?:(?:severe|bad|mild|serious)\s+)?allergy to\s+(.+)$|"
    r"^i\s+(?:have got|have developed|developed|'ve got|have)\s+(?:an?\s+)?"
    r"(?:(?:severe|bad|mild|serious)\s+)?"
    # how long it has lasted is no part of it: "a peanut allergy since I was a toddler"
    r"([\w\s-]+?)\s+allergy(?:\s+(?:since|for)\s.*)?$|^my\s+([\w\s-]+?)\s+allergy\b",
    re.I,
)
_INTOLERANT = re.compile(
    r"^i(?:'m| am)\s+(?:(?:very|really|a bit|slightly)\s+)?([\w-]+)\s+intolerant(?:\s+now)?$|"
    r"^i(?:'m| am)\s+intolerant to\s+(.+)$|"
    r"^i\s+(?:have got|'ve got|have developed|developed|have)\s+(?:an?\s+)?([\w\s-]+?)\s+intolerance$",
    re.I,
)
_CONDITION = re.compile(
    r"^i(?:'ve| have)?\s+(?:(?:recently|just|finally)\s+)?(?:was|been|got)\s+diagnosed with\s+(.+)$|"
    # "I was diagnosed coeliac": a known condition straight after "diagnosed" is the same diagnosis
    rf"^i(?:'ve| have)?\s+(?:(?:recently|just|finally)\s+)?(?:was|been|got)\s+diagnosed\s+"
    rf"((?:type [12] )?(?:{_CONDITIONS}|diabetic|asthmatic|epileptic|anaemic|anemic|autistic|dyslexic))\b.*$|"
    r"^i\s+suffer from\s+(.+)$|^i\s+(?:have got|have developed|developed|have|'ve got|live with|deal with|"
    r"struggle with|get|often get|keep getting)\s+"
    rf"((?:type [12] |chronic |mild |severe |bad |cluster |tension |frequent )?(?:{_CONDITIONS}))\b(.*)$|"
    r"^i(?:'m| am| have been diagnosed as| was diagnosed as| got diagnosed as)\s+(?:an?\s+)?"
    # a measure of how far along stands before "pregnant": "20 weeks pregnant", "six months pregnant"
    r"((?:type [12] )?(?:diabetic|asthmatic|epileptic|celiac|coeliac|anemic|anaemic)|"
    r"(?:(?:\d{1,2}|[a-z]+)\s+(?:weeks?|months?)\s+)?pregnant|"
    r"colorblind|colour-blind|color-blind|deaf|hard of hearing|dyslexic|autistic|short-sighted|"
    r"near-sighted|nearsighted)\b",
    re.I,
)
_DIET = re.compile(
    r"^i(?:\s+only)?(?:'m| am| went| have gone| 've gone| became| 've become| have become| eat| follow|"
    r" keep)\s+"
    r"(?:(?:now|fully|strictly|mostly|also|only|a)\s+)*(vegan|vegetarian|pescatarian|pescetarian|keto|paleo|"
    r"plant-based|kosher|halal|gluten-free|dairy-free)\b",
    re.I,
)
# "I eat fish but no other meat, so pescatarian, really": a diet named as the conclusion of a clause
# about what the user eats
_SO_DIET = re.compile(
    r"^i\s+(?:eat|do not eat|don't eat|avoid|cut out|have cut out|gave up|have given up)\b.*,?\s+so\s+"
    r"(?:i am\s+|i'm\s+)?(?:(?:basically|technically|mostly|kind of|sort of)\s+)?(?:an?\s+)?"
    r"(vegan|vegetarian|pescatarian|pescetarian|plant-based)"
    r"(?:,?\s+(?:really|basically|i guess|i suppose|now))?$",
    re.I,
)
_DIETS = r"(?:vegan|vegetarian|pescatarian|pescetarian|plant-based)"
# "Vegetarian here", "vegan for 3 years now", "..., so pescatarian now I suppose": chat drops the subject
# and the verb of a diet, at a clause's start or after a comma, with at most how long or how sure
_DROPPED_DIET = re.compile(
    rf"(?:^|,\s*(?:so\s+)?)(?:(?:now|basically|mostly|strictly|fully|full)\s+)?(?P<diet>{_DIETS})"
    r"(?:\s+(?:here|now|(?:for|since)\s+[^,]+?|i (?:suppose|guess)|(?:these|nowadays) days|then))*"
    r"(?:\s*,\s*(?:(?:i\s+)?have been|been)\b[^,]*)?$",
    re.I,
)
# "..., no alcohol at all now": a food or drink refused with the subject and the verb dropped
_NONE_NOW = re.compile(
    r"(?:^|,\s*)no\s+(?P<what>meat|red meat|pork|beef|fish|seafood|dairy|gluten|eggs|alcohol|sugar|caffeine|"
    r"booze|coffee)\s+(?:at all\s+)?(?:now|any ?more|for me|these days)$",
    re.I,
)
# what each diet keeps off: eating it again ends the diet
DIET_EXCLUDES = {
    "vegetarian": {"meat", "fish", "chicken", "pork", "beef", "lamb", "seafood", "bacon"},
    "pescatarian": {"meat", "chicken", "pork", "beef", "lamb", "bacon"},
    "vegan": {
        "meat",
        "fish",
        "chicken",
        "pork",
        "beef",
        "lamb",
        "seafood",
        "dairy",
        "eggs",
        "cheese",
        "bacon",
    },
}
DIET_EXCLUDES["pescetarian"] = DIET_EXCLUDES["pescatarian"]
DIET_EXCLUDES["plant-based"] = DIET_EXCLUDES["vegan"]
_AVOID = re.compile(
    r"^i\s+(?:(?:also|strictly)\s+)?(?:don't|do not|can't|cannot|never)\s+(eat|drink|have|consume|touch)\s+"
    r"(meat|red meat|pork|beef|fish|seafood|shellfish|dairy|gluten|eggs|alcohol|sugar|caffeine|nuts|"
    r"peanuts|wheat|soy|chicken|lamb)\b",
    re.I,
)
# "I avoid pork", "I stay away from dairy": a food the user keeps off
_AVOIDS = re.compile(
    r"^i\s+(?:(?:also|strictly|generally|always|mostly|try to)\s+)?(?:have\s+)?"
    r"(avoid|stay away from|steer clear of|given up|gave up|cut out|quit|am off|am staying off|keep off)\s+"
    r"(meat|red meat|pork|beef|fish|seafood|shellfish|dairy|gluten|eggs|alcohol|sugar|caffeine|nuts|"
    r"peanuts|wheat|soy|chicken|lamb|bread|carbs|processed food)\b",
    re.I,
)
# "I'm on tablets for high blood pressure": a treatment names the condition it treats, whether the user
# is on it, a doctor put the user on it, or the user carries it ("I carry an EpiPen for a nut allergy")
_TREATMENT = (
    r"(?:tablets|pills|medication|meds|medicine|insulin|an inhaler|inhalers|antidepressants|treatment|"
    r"injections|an epipen|an epi-pen|epipens|an auto-injector)"
)
_TREATED = re.compile(
    rf"^(?:i\s+(?:am|have been)\s+(?:now\s+|still\s+)?on|"
    rf"my\s+(?:gp|doctor|consultant|specialist|nurse)\s+(?:has\s+)?(?:put|started)\s+me\s+on|"
    rf"i\s+(?:always\s+)?(?:carry|use|need|have)(?=\s+(?:an?\s+)?(?:inhaler|epi)))"
    rf"\s+(?:(?:some|daily|the)\s+)?{_TREATMENT}\s+for\s+(?:my\s+|a\s+|an\s+)?(.+)$",
    re.I,
)
# "Penicillin brings me out in hives", "shellfish gives me a rash": a reaction of the skin is an allergy
_REACTION = re.compile(
    r"^(?P<what>[\w' -]{2,30}?)\s+(?:brings?|bring)\s+me\s+out\s+in\s+(?:hives|a rash|spots|welts)|"
    r"^(?P<what2>[\w' -]{2,30}?)\s+(?:gives?|give)\s+me\s+(?:hives|a rash|anaphylaxis)|"
    # the body reacting to a substance is the allergy said from the other side: "I react badly to shellfish"
    # in the present, a standing disposition, and to a bare noun, a substance in general (not "the news")
    r"^i\s+react\s+(?:(?:badly|severely|strongly|really badly)\s+)?to\s+"
    r"(?P<what3>(?!(?:the|a|an|my|your|his|her|their|our|this|that|it|being|people|criticism)\b)"
    r"[\w' -]{2,30}?)"
    r"(?:\s+(?:as well|too))?(?:,.*)?$",
    re.I,
)
_CONDITION_NOUN = {
    "diabetic": "diabetes",
    "asthmatic": "asthma",
    "epileptic": "epilepsy",
    "anaemic": "anaemia",
    "anemic": "anemia",
    "dyslexic": "dyslexia",
    "autistic": "autism",
}
# "My asthma has cleared up", "my migraines are gone": a condition of the user's that has ended
_CLEARED = re.compile(
    r"^my\s+(?P<what>[\w' -]{2,30}?)\s+(?:has|have|is|are)\s+(?:(?:completely|finally|totally)\s+)?"
    r"(?:cleared up|cleared|gone|gone away|been cured|cured|in remission|resolved|stopped)$",
    re.I,
)
# "I've beaten cancer", "I've outgrown my hay fever", "I'm cancer-free": a known condition overcome
_BEATEN = re.compile(
    r"^i\s+(?:have\s+|had\s+)?(?:(?:finally|completely|fully)\s+)?(?:beaten|beat|overcome|overcame|"
    r"recovered from|outgrown|outgrew|grown out of|grew out of)\s+(?:my\s+)?(?P<what>[\w' -]{2,30}?)$|"
    r"^i am\s+(?:now\s+)?(?P<what2>[\w' ]{2,30}?)-free(?:\s+now)?$",
    re.I,
)
_PRONOUN = re.compile(r"^(?:it|them|this|that|these|those|something|everything|anything)$", re.I)
_OUTGREW = re.compile(
    r"^i\s+(?:have\s+|had\s+)?(?:outgrew|outgrown|grew out of|grown out of|got over|gotten over|"
    r"got rid of|gotten rid of|shaken off|shook off)\s+(?:my|the)\s+([\w\s-]+?)\s+allergy",
    re.I,
)


def _items(text: str) -> list[str]:
    """ "peanuts, shellfish and cats" -> the three, each clipped at its first time phrase."""
    text = re.split(r",?\s+(?:so|but|which|because|though|since|when)\b", text, maxsplit=1)[0]
    parts = re.split(r"\s*,\s*(?:and\s+|or\s+)?|\s+(?:and|or|&)\s+", _TRAIL.sub("", text))
    out = []
    for p in parts:
        p = _VALUE_END.split(p, maxsplit=1)[0].strip(" .")
        p = re.sub(
            r"^(?:all|most|some|any|certain|especially|particularly|mainly|mostly|even)\s+", "", p, flags=re.I
        )
        p = re.sub(r"^to\s+", "", p, flags=re.I)  # "to codeine and to avocado": the preposition said again
        if p and len(p.split()) <= 4:
            out.append(p)
    return out


# "Hay fever too, every June": a known condition with an additive and no verb continues the user's
# "I have" of the turn before
_ALSO_CONDITION = re.compile(rf"^(?P<what>{_CONDITIONS})\s*,?\s+(?:too|as well)\b(?:\s*,.*)?$", re.I)


def _health(s: str, said_at: datetime) -> list[RuleLearning]:
    if m := _ALSO_CONDITION.match(s):
        what = m.group("what")
        return _health(f"I have {what[:1].lower()}{what[1:]}", said_at)  # its capital began the sentence
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
            if not _PRONOUN.match(x)  # "allergic to it" with nothing it points to names nothing
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
    if (m := _BEATEN.match(s)) and re.fullmatch(
        rf"(?:{_CONDITIONS})", (m.group("what") or m.group("what2")).lower()
    ):
        what = (m.group("what") or m.group("what2")).lower()
        return [
            RuleLearning(
                f"The user no longer has {what}.", "fact", About("health", f"condition {_key(what)}"), 0.8
            )
        ]
    if m := _CLEARED.match(s):
        what = m.group("what").strip().lower()
        if not re.fullmatch(rf"(?:(?:chronic|mild|severe|bad|cluster|tension)\s+)?(?:{_CONDITIONS})", what):
            return []  # a thing, a person or a passing illness is no condition of the user's kept
        text = f"The user no longer has {what}."
        return [RuleLearning(text, "fact", About("health", f"condition {_key(what)}"), 0.8)]
    if re.match(r"^i am (?:(?:strictly|completely)\s+)?(?:teetotal|tee-total)$", s, re.I):
        return [
            RuleLearning("The user does not drink alcohol.", "fact", About("health", "avoids alcohol"), 0.8)
        ]
    if m := _TREATED.match(s):
        what = _VALUE_END.split(_TRAIL.sub("", m.group(1)), maxsplit=1)[0].strip()
        if allergy := re.fullmatch(r"([\w\s-]+?)\s+allergy", what, re.I):
            what = allergy.group(1)  # "an EpiPen for a tree nut allergy": the allergy it treats
            text = f"The user is allergic to {what}."
            return [RuleLearning(text, "fact", About("health", f"allergy {_key(what)}"), 0.8)]
        if what and len(what.split()) <= 4 and not _PRONOUN.match(what):
            return [
                RuleLearning(f"The user has {what}.", "fact", About("health", f"condition {_key(what)}"), 0.8)
            ]
    if m := _REACTION.match(s):
        what = (m.group("what") or m.group("what2") or m.group("what3")).strip()
        if not _PRONOUN.match(what) and len(what.split()) <= 3:
            return [
                RuleLearning(
                    f"The user is allergic to {what.lower()}.",
                    "fact",
                    About("health", f"allergy {_key(what)}"),
                    0.8,
                )
            ]
    if m := _CONDITION.match(s):
        said = m.group(2) or m.group(6)  # an adjective said of the user ("diabetic") or after "diagnosed"
        if said and (m.group(6) or said.lower().split()[-1] in _CONDITION_NOUN):
            word = said.lower()
            text = f"The user is {word}."
            # the adjective and the noun of a condition are one subject: "diabetic" and "has diabetes"
            key = _CONDITION_NOUN.get(word.split()[-1], word.split()[-1])
        else:
            named = m.group(1) or said or m.group(3) or m.group(4)
            what = _VALUE_END.split(_TRAIL.sub("", named), maxsplit=1)[0].strip()
            text, key = f"The user has {what}.", what.lower()
        return [RuleLearning(text, "fact", About("health", f"condition {_key(key)}"), 0.85)]
    if m := _NONE_NOW.search(s):
        what = {"booze": "alcohol"}.get(m.group("what").lower(), m.group("what").lower())
        return [
            RuleLearning(f"The user avoids {what}.", "fact", About("health", f"avoids {_key(what)}"), 0.8)
        ]
    if (m := _DIET.match(s)) or (m := _SO_DIET.search(s)) or (m := _DROPPED_DIET.search(s)):
        diet = m.group(1).lower()
        return [RuleLearning(f"The user is {diet}.", "fact", About("health", "diet"), 0.85)]
    if m := _AVOIDS.match(s):
        what = m.group(2).lower()
        return [
            RuleLearning(f"The user avoids {what}.", "fact", About("health", f"avoids {_key(what)}"), 0.8)
        ]
    if m := _AVOID.match(s):
        verb, what = m.group(1).lower(), m.group(2).lower()
        return [
            RuleLearning(
                f"The user does not {verb} {what}.", "fact", About("health", f"avoids {_key(what)}"), 0.8
            )
        ]
    return []
