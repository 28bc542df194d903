"""Entity links: memory sharing a rare name with a read's best memories joins its order.

A list question ("Which cities has Jon visited?") is answered by turns of several sessions, and the
rankers find the one worded like the question; another that names the same city ("Paris") often says
nothing else the question asks. A name held by only a few memories of the reach links them: the
memories holding a rare name of the read's best few join the order at their linking memory's score
times a weight, below it. Names are capitalised words inside a sentence (a sentence's first word is
capitalised anyway, and a leading "Ana:" label is the speaker's, not a name the turn mentions); rare
is counted in the read's own reach by the engine (`FetchRanking.link_terms`, `FetchRanking.page`).
Only turns of a thread link (on learnings and documents it cost R@5). Content words in place of
names, and the question's own rare words, were measured and lost recall (docs/benchmarks.md, LoCoMo
levers; docs/architecture/retrieval.md, round six).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache

from tinymemory.retrieval.text import Analyzer

Ranked = list[tuple[int, float]]

# a capitalised word not at the start of the text or of a sentence, and not just after a label's colon
_NAME = re.compile(r"(?<![.!?:]\s)(?<!^)\b[A-Z][a-z]+")


@lru_cache(maxsize=8192)
def names(text: str, analyzer: Analyzer) -> frozenset[str]:
    """The analysed terms of the names a text mentions (cached: the same memories reach many reads)."""
    found = _NAME.findall(text)
    return frozenset(analyzer.index_terms(" ".join(found))) if found else frozenset()


def link_terms(
    order: Ranked, texts: Mapping[int, str | None], asked: Sequence[str], analyzer: Analyzer, top: int
) -> dict[str, float]:
    """Each name of the `top` best memories of `order` that the query does not ask about, as an
    analysed term, with the best score of a memory that mentions it."""
    skip = set(asked)
    best: dict[str, float] = {}
    for key, score in order[:top]:
        for term in names(texts.get(key) or "", analyzer) - skip:
            if score > best.get(term, -1.0):
                best[term] = score
    return best


def holders(rows: Iterable[tuple[str, int]], n: int) -> dict[str, list[int]]:
    """Storage's one read of the link terms' holders, (term, row) pairs in any order, as each term's
    rows, lowest first and `n` at most: `n` past `most` is all `linked` needs to tell a rare term from a
    common one, so which rows a common term keeps does not matter."""
    out: dict[str, list[int]] = {}
    for term, row in sorted(rows):
        held = out.setdefault(term, [])
        if len(held) < n:
            held.append(row)
    return out


def linked(
    order: Ranked,
    terms: Mapping[str, float],
    holding: Mapping[str, Sequence[int]],
    most: int,
    weight: float,
    via: dict[int, str] | None = None,
) -> Ranked:
    """`order` with the memories holding a linking term added at its linking score times `weight`; a
    term held by one memory links nothing, and one held by more than `most` is not rare. A memory
    already ordered keeps its better score; ties keep `order`'s rows first, then the lower key. `via`
    (explain) gets, for each memory whose score a link gave, the term that gave it."""
    best = dict(order)
    place = {key: i for i, (key, _) in enumerate(order)}
    for term, rows in holding.items():
        if term not in terms or not 2 <= len(rows) <= most:
            continue
        score = terms[term] * weight
        for key in rows:
            if score > best.get(key, -1.0):
                best[key] = score
                if via is not None:
                    via[key] = term
    if len(best) == len(order) and all(best[k] == s for k, s in order):
        return order
    return sorted(best.items(), key=lambda kv: (-kv[1], place.get(kv[0], len(place)), kv[0]))
