"""Finding relations between named entities in ingested text: rules without a model, the LLM with one.

The rules read plain English sentences of a few shapes ("Dana works on Project Atlas", "Eve leads the
Platform Team", "Project Atlas is part of the Apollo Program", "Eve is the manager of Dana") and keep
only what they are sure of: both ends must be capitalised names, a pronoun or a negation ("Dana no
longer works on ...") yields nothing, and the relation type comes from a small fixed table. A
sentence that names several subjects or objects ("Dana and Gus work on Atlas and Zephyr") yields an
edge for each pair.

With an LLM configured the model finds the relations instead; its answer is validated strictly (any
defect raises `Unavailable`, so ingestion fails before writing anything), and an edge whose names do
not occur in the text is dropped rather than trusted.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from tinymemory.api import Relation, Unavailable
from tinymemory.api.relations import MAX_ENTITY_CHARS, entity_key, is_relation_type
from tinymemory.llm import LLM, answer_list

# verb phrases (present tense, singular and plural) -> relation type
VERBS: tuple[tuple[str, str], ...] = (
    (r"(?:works|work|is working|are working) on", "works_on"),
    (r"(?:leads|lead|is leading|are leading|heads|head|runs|run)", "leads"),
    (r"(?:manages|manage|is managing|are managing)", "manages"),
    (r"(?:reports|report) to", "reports_to"),
    (r"(?:is|are) (?:a |an )?(?:part|subsidiary|division) of", "part_of"),
    (r"(?:belongs|belong) to", "part_of"),
    (r"(?:owns|own)", "owns"),
    (r"(?:maintains|maintain)", "maintains"),
    (r"(?:is|are) (?:a |an )?members? of", "member_of"),
)

# "X is the <role> of Y": role -> relation type (X <type> Y)
ROLES: dict[str, str] = {
    "lead": "leads",
    "leader": "leads",
    "head": "leads",
    "director": "leads",
    "chair": "leads",
    "ceo": "leads",
    "manager": "manages",
    "owner": "owns",
    "maintainer": "maintains",
    "founder": "founded",
    "co-founder": "founded",
    "cofounder": "founded",
    "member": "member_of",
}

RELATION_TYPES: tuple[str, ...] = tuple(dict.fromkeys([t for _, t in VERBS] + list(ROLES.values())))

# capitalised words that start a sentence or stand for someone without naming them
_NOT_NAMES = frozenset(
    (  # noqa: SIM905 - a word list reads best as words
        "a an the this that these those it its he she they we i you his her their our my your who which "
        "what there here then now also currently still today yesterday tomorrow meanwhile since when if "
        "and but so as at in on for from by with after before while however moreover"
    ).split()
)

# Names and lists are bounded (six words, eight names) so a long run of capitalised words costs linear
# time, not quadratic.
_TOKEN = r"[A-Z0-9][\w'’&+-]{0,63}"
_NAME = rf"{_TOKEN}(?:\s+(?:of\s+)?{_TOKEN}){{0,5}}"
# one name, or a list that ends with "and": "Dana", "Dana and Gus", "Dana, Gus and Eve" (a comma alone
# does not make a list, so "In March, Dana works on ..." starts at Dana)
_NAMES = rf"{_NAME}(?:(?:\s*,\s*{_NAME}){{0,6}}\s*,?\s+and\s+{_NAME})?"
_ADVERB = r"(?:(?:also|now|currently|still|officially)\s+)?"
_DET = r"(?:(?:the|a|an|our|their)\s+)?"
_SPLIT_LIST = re.compile(r"\s*,\s*(?:and\s+)?|\s+and\s+")
_SENTENCES = re.compile(r"(?<=[.!?;:])\s+|\n+")
_MARKUP = re.compile(r"[*`_]{1,3}|^\s*(?:[-+>#]+|\d+[.)])\s*")

# an object list stops before a name that starts the next clause ("... on Atlas and Eve leads Zephyr")
_CLAUSE = "|".join(verb for verb, _ in VERBS) + "|is|are|was|were|has|have"
_OBJECTS = rf"(?P<o>{_NAMES})(?![\w'’&+-])(?!\s+{_ADVERB}(?:{_CLAUSE})\b)"
# a subject list starts the sentence (or follows a comma); mid-sentence only one name is a subject,
# so "... on Atlas and Eve leads Zephyr" makes Eve, not "Atlas and Eve", the leader
_SUBJECTS = rf"(?<![\w'’-])(?P<s>(?:^|(?<=,\s)){_NAMES}|{_NAME})"
_VERB_PATTERNS = tuple(
    (re.compile(rf"{_SUBJECTS}\s+{_ADVERB}{verb}\s+{_DET}{_OBJECTS}"), kind) for verb, kind in VERBS
)
_ROLE_PATTERN = re.compile(
    rf"{_SUBJECTS}\s+(?:is|are|remains|remain)\s+{_ADVERB}(?:the|a|an|our|their)\s+"
    rf"(?:[a-z]+\s+)?(?P<role>[A-Za-z-]+?)s?\s+(?:of|for)\s+{_DET}{_OBJECTS}"
)


def _names(listed: str) -> list[str]:
    """A list of names as written; leading sentence words trimmed, pronouns and empty names dropped."""
    out: list[str] = []
    for part in _SPLIT_LIST.split(listed):
        words = part.split()
        while words and words[0].lower() in _NOT_NAMES:
            words = words[1:]
        name = " ".join(words)
        if name and len(name) <= MAX_ENTITY_CHARS and name.lower() not in _NOT_NAMES:
            out.append(name)
    return out


def _edges(subjects: str, kind: str, objects: str) -> list[Relation]:
    return [
        Relation(s, kind, o)
        for s in _names(subjects)
        for o in _names(objects)
        if entity_key(s) != entity_key(o)
    ]


def rule_relations(text: str) -> tuple[Relation, ...]:
    """The relations the rules find in `text`, in order of appearance, each once."""
    found: dict[tuple[str, str, str], Relation] = {}
    for line in text.splitlines():
        for sentence in (s.strip() for s in _SENTENCES.split(_MARKUP.sub(" ", line))):
            hits: list[tuple[int, list[Relation]]] = []
            for pattern, kind in _VERB_PATTERNS:
                hits += [(m.start(), _edges(m["s"], kind, m["o"])) for m in pattern.finditer(sentence)]
            for m in _ROLE_PATTERN.finditer(sentence):
                role = ROLES.get(m["role"].lower())
                if role is not None:
                    hits.append((m.start(), _edges(m["s"], role, m["o"])))
            for _, edges in sorted(hits, key=lambda h: h[0]):
                for r in edges:
                    found.setdefault((entity_key(r.subject), r.type, entity_key(r.object)), r)
    return tuple(found.values())


# -- the LLM path -------------------------------------------------------------------------------------

LLM_BATCH = 8  # texts per request

_PROMPT = (
    "Find relations between named entities (people, teams, projects, organisations, products) in each "
    "numbered text. Only relations the text states as currently true. Reply with JSON only: "
    '{"relations": [{"text": text number, "subject": name as written, "type": a lowercase '
    'identifier such as works_on, leads, manages, reports_to, part_of, owns, member_of, "object": '
    'name as written}]}. Reply {"relations": []} when there are none.'
)


async def llm_relations(llm: LLM, texts: Sequence[str]) -> list[tuple[Relation, ...]]:
    """The relations of each text, found by the model in batches of LLM_BATCH texts."""
    out: list[tuple[Relation, ...]] = []
    for start in range(0, len(texts), LLM_BATCH):
        batch = list(texts[start : start + LLM_BATCH])
        numbered = "\n\n".join(f"[{i}] {t}" for i, t in enumerate(batch))
        content = await llm.chat(
            [{"role": "system", "content": _PROMPT}, {"role": "user", "content": numbered}],
            op="llm relations",
        )
        out += parse_relations(content, batch)
    return out


def parse_relations(content: str, texts: Sequence[str]) -> list[tuple[Relation, ...]]:
    """Read the model's JSON (optionally fenced) into one tuple of relations per text.

    A malformed answer raises Unavailable; an edge naming something the text does not contain is
    dropped (the model paraphrased or invented it)."""
    items = answer_list(content, "relations", "llm relations")
    keyed = [entity_key(t) for t in texts]
    per_text: list[dict[tuple[str, str, str], Relation]] = [{} for _ in texts]
    for i, raw in enumerate(items):
        field = f"relations[{i}]"
        if not isinstance(raw, dict):
            raise Unavailable(f"llm relations: `{field}` is not an object")
        n = raw.get("text")
        if isinstance(n, bool) or not isinstance(n, int) or not 0 <= n < len(texts):
            raise Unavailable(f"llm relations: `{field}.text` must be a text number below {len(texts)}")
        names = []
        for end in ("subject", "object"):
            value = raw.get(end)
            if not isinstance(value, str) or not value.strip() or len(value) > MAX_ENTITY_CHARS:
                raise Unavailable(f"llm relations: `{field}.{end}` must be a short non-empty string")
            names.append(" ".join(value.split()))
        kind = raw.get("type")
        if not is_relation_type(kind):
            raise Unavailable(f"llm relations: `{field}.type` must be a lowercase identifier")
        assert isinstance(kind, str)
        subject, obj = names
        s_key, o_key = entity_key(subject), entity_key(obj)
        if s_key == o_key or s_key not in keyed[n] or o_key not in keyed[n]:
            continue
        per_text[n].setdefault((s_key, kind, o_key), Relation(subject, kind, obj))
    return [tuple(found.values()) for found in per_text]
