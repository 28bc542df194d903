"""Standing instructions (always, never, from now on, ...) and their withdrawal."""

from __future__ import annotations

import re
from collections.abc import Mapping

from tinymemory.api import About
from tinymemory.lifecycle.rules.english import _STANDING, _key, _singular, _value, third_person
from tinymemory.lifecycle.rules.learning import RuleLearning

# instructions -------------------------------------------------------------------------------------------

_ADDRESSED = re.compile(
    r"^(?:(?:please|kindly)\s+)?(?:(?:i(?:'d| would) like you to|i want you to|i need you to|"
    r"can you|could you|"
    r"make sure (?:to|that you|you)|remember to|be sure to|you should|you must|you need to|try to)\s+)?",
    re.I,
)
_ALWAYS = re.compile(
    r"^(?:from now on,?\s+|going forward,?\s+|in (?:the )?future,?\s+|by default,?\s+)?"
    # an imperative's verb is in its base form: "never went back" tells of the user, orders nothing
    r"(always|never)\s+(?!(?:went|did|was|were|had|got|came|saw|made|took|felt|knew|thought|said|"
    r"left|ate|drank|gave|found|told|became|began|heard|kept|moved|returned|bothered|managed|liked|wanted|"
    r"needed|tried|stopped|recovered|finished|started|looked)\b)(.+)$",
    re.I,
)
_DONT_EVER = re.compile(
    r"^(?:please\s+)?(?:don't|do not)\s+(?:ever\s+)?(.+?)(?:,?\s+(?:ever|ever again|again))?$", re.I
)
_STANDING_LEAD = re.compile(
    r"^(?P<lead>from now on|going forward|in (?:the )?future|by default|from here on(?: out)?|for all future "
    r"(?:answers|replies|chats))\s*,?\s+(.+)$|^(.+?)\s*,?\s+(?P<tail>from now on|going forward|"
    r"in (?:the )?future|by default|from here on(?: out)?)$",
    re.I,
)
# An imperative about the assistant's answers in general ("keep your answers short", "format your replies
# as lists") stands without "always": its object is every answer, not this one
_YOUR_OUTPUT = (
    r"(?:answers?|replies|reply|responses?|messages?|explanations?|summaries|summary|emails?|code samples|"
    r"examples|output)"
)
# the manner every answer is written in: "keep the tone friendly", "make the style plainer"
_MANNER = r"(?:tone|style|register|voice|wording)"
# "Keep answers coming", "keep them rolling": an idiom of encouragement, asking for more of the same, not
# an order about how answers are
_ENCOURAGED = re.compile(
    r"^(?:please\s+)?keep\s+(?:the\s+|your\s+|them\s+|those\s+|these\s+|'em\s+)?(?:[\w-]+\s+){0,2}?"
    r"(?:coming|flowing|rolling|going)\b(?:\s+(?:please|then|guys|folks))?$",
    re.I,
)
# "For code examples, stick to Go": a kind of output fronted with "for" is what the imperative is about
_FOR_OUTPUT = re.compile(
    r"^for\s+(?:all\s+|any\s+|your\s+|the\s+)?(?P<scope>(?:[a-z-]+\s+)?(?:examples|samples|emails|answers|replies|"
    r"code|snippets|summaries|messages|letters|explanations|recipes))"
    r"(?:\s+(?:you|that you)\s+(?:write|send|draft|give me|make)(?:\s+for\s+me)?)?\s*,\s*(?:please\s+)?"
    r"(?P<act>(?!(?:i|we|my|our|you|it|this|that|there)\b)[a-z]+\b.+?)(?:,?\s+please)?$",
    re.I,
)
# "Leave out the disclaimers", "skip the emojis when I ask about code": a kind of thing, as a plural, left
# out of what the assistant writes is a standing "never"
_LEFT_OUT = re.compile(
    r"^(?:please\s+)?(?:leave out|omit|cut out|skip|ditch|lose)\s+(?:the\s+|any\s+|all\s+(?:the\s+)?)?"
    r"(?P<obj>(?:[a-z-]+\s+)?[a-z-]+s)(?:\s+(?:when|whenever|if)\s+(?:i|you)\s+.+)?(?:,?\s+please)?$",
    re.I,
)
# "this time", "for this one": a request about the answer at hand, not a standing one
_THIS_ONCE = re.compile(
    r"\b(?:this time|for now|for this one|just this once|this once|right now|here|"
    r"this (?:one|email|message|answer|reply|question|draft|document))\b",
    re.I,
)
_ABOUT_ANSWERS = re.compile(
    r"^(?:please\s+)?(?:keep|make)\s+(?:the|your)\s+" + _MANNER + r"\b.*$|"
    r"^(?:please\s+)?(?:keep|make|write|format|limit|cap|structure|start|end|sign off|finish|put|give)\s+"
    # a bare plural or one after "any" is every one too: "keep answers short", "sign off any emails ..."
    r"(?:(?:all\s+(?:of\s+)?)?your\s+|any\s+|(?=answers|replies|responses|emails|explanations))"
    r"(?:answers|replies|responses|messages|explanations|summaries|emails|"
    r"examples|code samples)\b.*$|"  # plural: every answer; "make your answer shorter" is about this one
    # an imperative: not a subject with its verb after it ("Spanish would suit me better for your answers")
    r"^(?:please\s+)?(?!(?:i|we|my|our|thanks|thank|cheers|sorry)\b)"
    r"(?![a-z]+\s+(?:would|will|should|could|can|might|must|is|are|was|were|has|have|had|does|did)\b)"
    r"[a-z]+\b.*\s+(?:in|for)\s+(?:all\s+(?:of\s+)?)?your\s+(?:code\s+)?"
    # "use bullet points in your answers", "use Rust for your code examples"
    r"(?:answers|replies|responses|messages|emails|explanations|examples|samples|snippets)$",
    re.I,
)
# "Answer in English again", "please reply in Dutch": the language of answering, named, is every answer's
_ANSWER_IN = re.compile(
    r"^(?:please\s+)?(?P<act>(?:answer|reply|respond|write|talk)(?:\s+to\s+me)?\s+in\s+(?-i:[A-Z][a-z]+))"
    r"(?:\s+again)?(?:,?\s+please)?$",
    re.I,
)
# "Use metric units", "write dates as day/month/year": an imperative of the conventions answers are written
# in (units, spelling, how dates or times are written) holds for every answer; examples after a colon are
# no part of it ("use British spelling: colour, not color")
_CONVENTION = re.compile(
    r"^(?:please\s+)?(?P<act>(?:use|stick to|stick with)\s+(?:[\w-]+\s+){1,2}?"
    r"(?:units|measurements|spelling|date format|time format|notation)|"
    r"(?:write|give|show|format|put)\s+(?:all\s+)?(?:dates|times|temperatures|distances|weights|prices|numbers)"
    # or after a comma, once "please" has closed the imperative ("in ISO format please, year-month-day")
    r"\s+(?:as|in)\s+[^:,;]+?)(?:\s*:.*|\s+please\s*,\s*[^,]+)?(?:,?\s+please)?$",
    re.I,
)
# "And British spelling, not American": a convention set against another, with no verb, is one to use
_CONVENTION_NP = re.compile(
    r"^(?P<np>[\w-]+\s+(?:units|measurements|spelling|date format|time format|notation))\s*,?\s+"
    r"(?:not|rather than|instead of)\s+[\w-]+(?:\s+(?:ones|units|spelling))?(?:,?\s+please)?$",
    re.I,
)
# "Skip the pleasantries and get straight to the answer": an imperative joined to getting to the point
# is about the manner of every answer
_TO_THE_POINT = re.compile(
    r"^(?:please\s+)?(?P<act>(?:skip|cut|drop|lose|ditch|leave out|cut out)\s+the\s+"
    r"[a-z-]+(?:\s+[a-z-]+)?)\s+"
    r"and\s+(?:just\s+)?get\s+(?:straight\s+|right\s+|directly\s+)?to\s+the\s+(?:point|answer|answers)"
    r"(?:,?\s+please)?$",
    re.I,
)
# "At the end of long answers, give me a one-line recap": answers in general, fronted, scope the imperative
_FRONTED_SCOPE = re.compile(
    r"^(?P<scope>(?:at the (?:end|start|beginning|top|bottom) of|in|after)\s+(?:all\s+)?(?:[a-z-]+\s+)?"
    r"(?:answers|replies|responses|emails|explanations))\s*,\s*(?:please\s+)?"
    r"(?P<act>(?!(?:i|we|my|our|you|it|this|that|there)\b)[a-z]+\b.+)$",
    re.I,
)
# what the assistant does when it answers: after a plain "when", its doing must be one of these, not an event
_ANSWERING = (
    r"(?:write|answer|reply|respond|give|explain|suggest|show|format|list|summari[sz]e|quote|recommend|draft|"
    r"code|review|translate|talk|mention|describe|use|cite|refer)"
)
# "Whenever you write SQL, ...", and "When you give me code, ..." with one of the assistant's kinds of answer
_WHENEVER = re.compile(
    rf"^(?:whenever|every time|each time|any time|when(?=\s+you\s+(?:\w+\s+)?{_ANSWERING}\b))\s+(.+?),\s*"
    r"(?:please\s+)?(.+)$",
    re.I,
)
# "Stick to metric units whenever you give measurements", "keep the tone casual when you write to me": an
# imperative bounded by what the assistant does each time stands for every such time
_WHEN_YOU = re.compile(
    r"^(?:please\s+)?(?P<act>(?!(?:i|we|my|our|you|it|this|that|there)\b)[a-z]+\b.+?),?\s+"
    r"(?:(?:whenever|every time|each time|any time)\s+you\s+|(?:when|if ever)\s+you\s+(?=(?:\w+\s+)?"
    rf"{_ANSWERING}\b))(?P<cond>.+)$",
    re.I,
)
# "Don't bother with disclaimers", "don't use emojis": a negative imperative whose object is a bare plural
# (what is meant in general, not a thing at hand) stands as a "never"; where it goes ("in anything you
# write", "to the code") places it and is no part of its subject
_DONT_PLURAL = re.compile(
    r"^(?:please\s+)?(?:don't|do not)\s+(?P<act>(?:bother\s+with|use|add|include|put|give\s+me|send|write|"
    r"start\s+with|end\s+with)\s+(?P<obj>(?:any\s+)?(?:[a-z-]+\s+)?[a-z-]+s(?:\s+or\s+[a-z-]+s)?))"
    r"(?P<where>\s+(?:in|to|into|on)\s+(?:anything|everything|whatever|all|the|your|my)\b.*)?$",
    re.I,
)
_WITHDRAW = re.compile(
    r"^(?:you\s+)?(?:don't|do not|no)\s+(?:need|have)\s+to\s+(.+?)\s+(?:any ?more|from now on)$|"
    r"^no need to\s+(.+?)\s+any ?more$|^(?:you can|feel free to|it's fine to|it is fine to|it's ok to|"
    r"it's okay to)\s+(.+?)\s+again$|^(?:please\s+)?(?:stop|quit)\s+(\w+ing\b.*)$|"
    r"^(?:forget|drop|cancel|ignore)\s+(?:the|my)\s+(?:rule|instruction|request)\s+(?:about|to|of)\s+(.+)$|"
    r"^(?:you can|you may|feel free to)\s+stop\s+(\w+ing\b.*)$|"  # leave off: the instruction is lifted
    # "you no longer have to keep answers short, detail is welcome": the obligation ended; a comment
    # after a comma is not part of what was asked
    r"^(?:you\s+)?no longer\s+(?:need|have)\s+to\s+([^,]+?)(?:,.*)?$",
    re.I,
)
_YOU_SUBJECT = re.compile(
    r"^(?:you|your answers|your replies|answers|replies)\s+(?:should|must|need to)\s+(always|never)?\s*(.+)$",
    re.I,
)


def _instruction(s: str) -> RuleLearning | None:
    if _ENCOURAGED.match(s):
        return None
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
    if body != s and _WITHDRAW.match(body):
        return _instruction(body)  # "can you stop using emojis": the request is the imperative inside it
    if m := re.match(
        r"^(?:please\s+)?(?:don't|do not)\s+(?!(?:worry|mind|bother)\b)(.+?)\s+any ?more$", body, re.I
    ):
        # "please don't summarise at the end any more": an imperative ended from here on is a "never"
        action = _value(m.group(1))
        if not action or re.search(r"\b(?:it|that|this|them)$", action, re.I):
            return None  # "don't mention it any more" points at something said, not a kind of answer
        return _standing(f"Never {third_person(action)}.", action)
    if m := _YOU_SUBJECT.match(body):
        if not (m.group(1) or _STANDING.search(s)):
            return None
        word = (m.group(1) or "always").lower()
        rest = _strip_standing(m.group(2))
        return _standing(f"{word.capitalize()} {third_person(rest)}.", rest)
    if m := _ALWAYS.match(body) if not re.match(r"^never\s+mind\b", body, re.I) else None:
        word, rest = m.group(1).lower(), _strip_standing(m.group(2))
        if not rest:
            return None
        return _standing(f"{word.capitalize()} {third_person(rest)}.", rest, 0.9)
    if m := _STANDING_LEAD.match(body):
        rest = _value(m.group(2) or m.group(3))
        lead = (m.group("lead") or m.group("tail")).lower()
        if dont := _DONT_EVER.match(rest):
            action = _strip_standing(dont.group(1))
            return _standing(f"Never {third_person(action)}.", action)
        if w := re.match(
            rf"^i\s+(?:want|would like|need|prefer|would prefer)\s+"
            rf"(?P<what>(?:[\w-]+\s+){{0,3}}{_YOUR_OUTPUT})$",
            rest,
            re.I,
        ):
            # "I want short answers from now on": what the user wants of every answer is an instruction
            what = w.group("what")
            noun = what.split()[-1]
            return RuleLearning(
                f"{lead.capitalize()}, {what}.",
                "instruction",
                About("instruction", _instruction_key(f"keep {noun}")),
                0.85,
            )
        if re.match(r"^(?:i|we|my|our)\b", rest, re.I):
            return None  # "from now on I ..." is about the user, not an instruction
        rest = _ADDRESSED.sub("", rest, count=1).strip()
        # "switch to replying in English from now on": the way switched to is the imperative itself
        if sw := re.match(r"^(?:switch|change|move|go back)\s+(?:over\s+)?to\s+(\w+ing\b.*)$", rest, re.I):
            rest = _base_phrase(sw.group(1))
        if m.group("tail"):
            rest = rest[:1].lower() + rest[1:]  # the imperative's verb began the sentence
        return _standing(f"{lead.capitalize()}, {third_person(rest)}.", rest)  # the user's own words
    if ((m := _ANSWER_IN.match(body)) or (m := _CONVENTION.match(body))) and not _THIS_ONCE.search(body):
        act = _value(m.group("act"))
        return _standing(f"{act[:1].upper()}{act[1:]}.", act)
    if (m := _TO_THE_POINT.match(body)) and not _THIS_ONCE.search(body):
        act = _value(m.group("act"))
        return _standing(f"{_value(body)[:1].upper()}{_value(body)[1:]}.", act)
    if m := _CONVENTION_NP.match(body):
        # the first word keeps its capital only as a proper adjective: "British spelling", "metric units"
        first, _, rest = m.group("np").partition(" ")
        proper = re.search(r"(?:ish|an|ese|ch)$", first)
        np = f"{first if proper else first.lower()} {rest}"
        return _standing(f"Use {np}.", f"use {np}")
    if (m := _FOR_OUTPUT.match(body)) and not _THIS_ONCE.search(body):
        act, scope = _value(m.group("act")), m.group("scope").lower()
        # the subject is the kind of output and the verb, up to the value (a proper name, a quotation)
        verb = re.split(r"\s+(?=['\"]|(?-i:[A-Z]))", act, maxsplit=1)[0]
        text = f"For {scope}, {third_person(act)}."
        return RuleLearning(text, "instruction", About("instruction", _key(f"{scope} {verb}")), 0.85)
    if (m := _LEFT_OUT.match(body)) and not _THIS_ONCE.search(body):
        action = f"include {m.group('obj').lower()}"
        return _standing(f"Never {action}.", action)
    if (m := _FRONTED_SCOPE.match(body)) and not _THIS_ONCE.search(body):
        act, scope = _value(m.group("act")), m.group("scope").lower()
        return _standing(f"{third_person(act[:1].upper() + act[1:])} {scope}.", act)
    if _ABOUT_ANSWERS.match(body) and not _THIS_ONCE.search(body):
        rest = _value(body)
        return _standing(f"{rest[:1].upper()}{rest[1:]}.", rest)
    # "whenever you're ready, ..." sets no condition: it is a request at the assistant's convenience
    if (m := _WHENEVER.match(body)) and not re.match(
        r"^(?:you(?:'re| are) ready|you (?:have|get) (?:a )?(?:time|chance|moment|minute|sec|second)|you can|"
        r"you like|you want)\b",
        m.group(1),
        re.I,
    ):
        rest = _value(m.group(2))
        if re.match(r"^(?:i|we|my|our)\b", rest, re.I):
            return None
        cond = _value(m.group(1))
        # "..., always include comments": the "always" is what "whenever" already says, not the subject
        bare = re.sub(r"^always\s+", "", rest, flags=re.I)
        return _standing(f"Whenever {third_person(cond)}, {third_person(rest)}.", bare, scope=cond)
    if (m := _WHEN_YOU.match(body)) and not _THIS_ONCE.search(body) and not _QUESTION_WORD.match(body):
        act, cond = _value(m.group("act")), _value(m.group("cond"))
        said = f"{act[:1].upper()}{act[1:]} whenever you {cond}."
        return _standing(third_person(said), act)
    if m := re.match(r"^no more\s+(?P<obj>(?:[a-z-]+\s+)?[a-z-]+s)(?:,?\s+please)?$", body, re.I):
        # "No more emojis, please": a kind of thing refused from here on
        return _standing(f"Never use {m.group('obj')}.", f"use {m.group('obj')}")
    if (m := _DONT_PLURAL.match(body)) and not re.search(r"\b(?:this|these|those|that)\b", body, re.I):
        action = m.group("act")
        return _standing(f"Never {third_person(action + (m.group('where') or ''))}.", action)
    if body is not s and (dont := _DONT_EVER.match(body)) and re.search(r"\bever\b", s, re.I):
        action = _strip_standing(dont.group(1))
        return _standing(f"Never {third_person(action)}.", action)
    if (dont := _DONT_EVER.match(s)) and re.search(r"\bever\b", s, re.I):
        action = _strip_standing(dont.group(1))
        return _standing(f"Never {third_person(action)}.", action)
    return None


_INSTEAD = re.compile(r"^(?:please\s+)?(.+?),?\s+instead(?:\s+of\s+.+?)?(?:,?\s+please)?$", re.I)


def _swapped(s: str, known: Mapping[str, About]) -> RuleLearning | None:
    """ "Use American spelling instead": an imperative with "instead" replaces the standing instruction
    the thread holds on its subject ("use spelling"); with none held it is a one-off request."""
    m = _INSTEAD.match(s)
    if not m:
        return None
    action = _value(_ADDRESSED.sub("", m.group(1), count=1))
    if not action or re.match(r"^(?:i|we|my|our|you|it|that|this)\b", action, re.I):
        return None
    about = known.get(known_slot(_instruction_key(action)))
    if about is None:
        # "indent with spaces instead" after "always indent code with tabs": the one instruction held on
        # the same verb is the one replaced; with two or more it is unclear which, so none is
        verb = _instruction_key(action).split()[0]
        same = {a for k, a in known.items() if k.startswith(known_slot("")) and a.key.split()[:1] == [verb]}
        about = same.pop() if len(same) == 1 else None
    if about is None:
        return None
    return RuleLearning(f"From now on, {third_person(action)}.", "instruction", about, 0.85)


# "Never mind the bullet points", "forget what I said about metric units": an instruction dropped by
# the words of its subject
_DROP = re.compile(
    r"^(?:never mind|forget|drop|scrap|ignore|disregard|no (?:more )?need for)\s+"
    r"(?:what i said about|the (?:bit|part|rule|"
    r"instruction|request|thing) about|about)?\s*(?:the\s+|my\s+)?(.+)$",
    re.I,
)


def _dropped(s: str, known: Mapping[str, About]) -> RuleLearning | None:
    """The one standing instruction the thread holds whose subject has every word the clause drops, as
    withdrawn; none when no instruction, or more than one, fits."""
    m = _DROP.match(s)
    # the words of the noun phrase dropped, without what places it: "the recap at the end" is the recap
    phrase = (
        re.split(r"\s+(?:at|in|on|of|from|for|after|before)\s+", _value(m.group(1)), maxsplit=1)[0]
        if m
        else ""
    )
    # a noun in either number names the same thing: "the recaps" drops "give me a recap"
    words = {_singular(w) for w in _key(phrase).split()} if m else set()
    if not words or words == {"general"}:
        return None
    held = {
        a
        for k, a in known.items()
        if k.startswith(known_slot("")) and words <= {_singular(w) for w in a.key.split()}
    }
    if len(held) != 1:
        return None
    return RuleLearning(
        f"No longer a standing instruction: {_value(m.group(1)) if m else ''}.",
        "instruction",
        held.pop(),
        0.85,
    )


def known_slot(key: str) -> str:
    """Where a thread's `known` names hold the standing instruction of subject `key` (for "use X
    instead"): a key no lowercased name can take."""
    return f"instruction {key}"


def _standing(text: str, action: str, confidence: float = 0.85, scope: str | None = None) -> RuleLearning:
    """A standing instruction learned from `text`, its subject keyed by the `action` it governs and, for
    one bounded by a condition ("whenever you write SQL, ..."), by what the condition names: the same
    action under two conditions is two instructions."""
    key = _instruction_key(action)
    if scope:
        named = re.sub(r"^(?:you|i)\s+\w+\s+", "", scope, flags=re.I)  # "you write SQL" names SQL
        key = f"{_key(named)} {key}"[:80]
    return RuleLearning(text, "instruction", About("instruction", key), confidence)


_QUESTION_WORD = re.compile(r"^(?:what|why|how|when|where|who|which|tell me|let me know)\b", re.I)


def _strip_standing(text: str) -> str:
    out = _STANDING.sub("", _value(text))
    return _value(" ".join(out.split()).strip(" ,"))


def _instruction_key(action: str) -> str:
    """The subject of an instruction: its verb phrase, with "in <X>" values folded ("answer in French"
    and "answer in Spanish" are one subject, so the later one wins)."""
    action = re.sub(r"^(?:please|to|you|kindly)\s+", "", action.strip(), flags=re.I)
    # the scope "in your answers" is where every instruction applies, not what it is about
    action = re.sub(
        r"\s+in\s+(?:all\s+(?:of\s+)?)?your\s+(?:answers|replies|responses|messages|explanations)$",
        "",
        action,
    )
    # a proper adjective before a noun is the value, not the subject: "use British spelling" and "use
    # American spelling" are one subject
    action = re.sub(
        r"(?<=\s)[A-Z][\w-]*\s+(?=(?!(?:for|in|on|at|to|with|when|and|or|instead|of|from|by|as|if)\b)[a-z])",
        "",
        action,
    )
    # a proper name used for a kind of output is the value: "use Rust for your code examples" and "use Go
    # for your code examples" are one subject
    action = re.sub(r"(?<=\s)(?-i:[A-Z][\w+#-]*)\s+(?=for\s+(?:all\s+(?:of\s+)?)?your\b)", "", action)
    # what the assistant's answers should be like is the value: "keep your answers under 100 words" and
    # "keep answers that short" are one subject, "keep answers"
    output = (
        rf"^(\w+(?:\s+off)?)\s+(?:all\s+(?:of\s+)?)?(?:your\s+|the\s+|any\s+)?({_YOUR_OUTPUT}|{_MANNER})\b"
    )
    if o := re.match(output, action, re.I):
        return _key(f"{o.group(1)} {o.group(2)}")
    m = re.match(r"^(.+?\s(?:in|using))\s+\S+(?:\s+\S+)?$", action, re.I)
    return _key(m.group(1)) if m else _key(action)


def _base_phrase(text: str) -> str:
    """ "using emojis" -> "use emojis": a leading gerund back to its base form."""
    m = re.match(r"^(\w+)ing\b(.*)$", text, re.I)
    if not m:
        return text
    stem, rest = m.group(1), m.group(2)
    if len(stem) > 3 and stem[-1] == stem[-2] and stem[-1] not in "lsz":  # "adding" keeps "add"
        stem = stem[:-1]
    elif re.search(r"[bcdfgkpstz]l$", stem):
        stem += "e"  # "cycling" -> "cycle", "juggling" -> "juggle"
    elif (
        len(stem) >= 2
        and stem[-1] not in "aeiouwxy"
        and stem[-2] in "aeiou"
        and (len(stem) < 3 or stem[-3] not in "aeiou")
        and not re.search(r"(?:er|en|on|el|it|ol|et)$", stem)
    ):
        stem += "e"
    return stem + rest
