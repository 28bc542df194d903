"""Who said a memory, wherever the host put it: the one home of "the speaker" for ranking.

Hosts record a conversation's speaker in different places: as the memory's `source` (`Source("user",
"Ana")`, or a kind alone), as a tag (`speaker:Ana`, or a participant's name as a plain tag on a turn),
as a role or name in the host's own metadata pairs (`("speaker", "Ana")`, mem0's `mem0.actor_id`), or
only as the transcript's leading label (`Ana: I painted a sunrise`). `speakers` reads every one of them
from what a candidate row already carries (its indexed text, its source and its `extra` column), so the
reranker's speaker feature is the same whichever placement a host chose. Pure functions of the row, so
they are cached: the same memories reach the pools of many reads.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from functools import lru_cache

# Keys (or tag prefixes) that name who said a memory; a dotted or colon-joined key counts by its last
# part (mem0's `mem0.actor_id`, a host's `chat.speaker`).
SPEAKER_KEYS = frozenset(
    {"speaker", "name", "role", "actor", "actor_id", "author", "sender", "from", "participant", "user_name"}
)
# A leading transcript label: up to three capitalised words, or a chat role, then a colon and a space
# (not a URL's `https://`, not a clock's `10:30`).
_LABEL = re.compile(
    r"\s*((?:[A-Z][\w'’.-]*(?: [A-Z][\w'’.-]*){0,2})|(?i:user|assistant|agent|human|system|ai|bot))"
    r"\s?:(?!//)\s"
)
# A plain tag that reads as a person's name (capitalised words only), counted on a turn of a thread.
_NAME_TAG = re.compile(r"[A-Z][\w'’.-]*(?: [A-Z][\w'’.-]*){0,2}")
_WORD = re.compile(r"\w+", re.UNICODE)
_KEY_SPLIT = re.compile(r"[.:/]")


def speaker_name(source: str) -> str:
    """The name a source goes by: its id, or for a `kind:name` source the part after the last colon."""
    return source.rsplit(":", 1)[-1]


@lru_cache(maxsize=8192)
def label_of(text: str) -> str | None:
    """The speaker a transcript line names before its first colon (`Ana: ...`), if it has one."""
    m = _LABEL.match(text)
    return m.group(1) if m else None


def _key(key: str) -> str:
    return _KEY_SPLIT.split(key)[-1].casefold()


@lru_cache(maxsize=8192)
def from_extra(extra: str | None, turn: bool) -> frozenset[str]:
    """The speakers an `extra` column holds: speaker-like metadata pairs, `speaker:Ana`-style tags and,
    on a turn of a thread (`turn`), plain tags that read as a name."""
    if not extra or extra == "{}":
        return frozenset()
    try:
        doc = json.loads(extra)
    except ValueError:
        return frozenset()
    if not isinstance(doc, dict):
        return frozenset()
    out: set[str] = set()
    for pair in doc.get("extra", ()):
        if isinstance(pair, list) and len(pair) == 2 and _key(str(pair[0])) in SPEAKER_KEYS:
            out.add(str(pair[1]))
    for tag in doc.get("tags", ()):
        tag = str(tag)
        head, sep, rest = tag.partition(":")
        if sep and head.casefold() in SPEAKER_KEYS and rest.strip():
            out.add(rest.strip())
        elif turn and _NAME_TAG.fullmatch(tag):
            out.add(tag)
    return frozenset(v for v in out if v.strip())


@lru_cache(maxsize=8192)
def speakers(text: str, source: str | None, extra: str | None = None, turn: bool = False) -> frozenset[str]:
    """Every name a memory's speaker goes by: its source's name, the speaker its metadata or tags give
    and its text's leading label."""
    names = set(from_extra(extra, turn))
    if source:
        names.add(speaker_name(source))
    label = label_of(text)
    if label:
        names.add(label)
    return frozenset(names)


def query_words(query: str) -> frozenset[str]:
    """The query's words as speaker names are matched against (case-folded whole words)."""
    return frozenset(w.casefold() for w in _WORD.findall(query))


@lru_cache(maxsize=8192)
def _name_words(name: str) -> tuple[str, ...]:
    return tuple(w.casefold() for w in _WORD.findall(name))


def is_named(name: str, words: frozenset[str]) -> bool:
    """Whether a query (its `query_words`) names a speaker: the name's first word (a given name: "Ana"
    names "Ana Lopez") as a whole word, in any case."""
    parts = _name_words(name)
    return bool(parts) and parts[0] in words


def named(query: str, names: Iterable[str]) -> set[str]:
    """The names the query names (`is_named`)."""
    words = query_words(query)
    return {n for n in names if n and is_named(n, words)}
