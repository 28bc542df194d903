"""Question decomposition without a model: a question about two named things asked as one per thing.

"What movies have both Joanna and Nate seen?" is answered by a turn of Joanna's and one of Nate's, and
one read ranks whichever name its rankers favour: the speaker feature fires for both, the words of the
question match one side best. Asked once per name ("What movies have both Joanna seen?", "... Nate
seen?") each read finds its own side, and the pipeline merges the reads (`pipeline.merge_reads`).

Two text rules, nothing learned: two capitalised words joined by "and", "or" or "&" (names, places,
titles) give one question per word, the rest of the question kept as it is; two clauses joined by
"and"/"or" where the second starts with a question word ("Where did Ana go, and what did she buy?")
give one question per clause, when each has three words or more. Anything else is not split. The
rules read only the question.
"""

from __future__ import annotations

import re

# two capitalised words joined by and/or/& ("Joanna and Nate", "Rome or Paris")
_PAIR = re.compile(r"\b([A-Z][a-z]+) (?:and|or|&) ([A-Z][a-z]+)\b")
# ", and what ..." / " or where ...": a second question inside the first
_CLAUSE = re.compile(r",? (?:and|or) (?=(?:what|when|where|who|whom|whose|how|which|why) )", re.IGNORECASE)
# words that are capitalised at a sentence's start but name nothing
_NOT_NAMES = frozenset(
    {"what", "when", "where", "who", "how", "which", "why", "did", "does", "do", "is", "are", "was", "were",
     "has", "have", "the", "and", "or", "i", "can", "could", "would", "should", "will"}
)  # fmt: skip
MAX_PARTS = 4
MIN_CLAUSE_WORDS = 3  # "what" or "how much" alone is no question of its own


def sub_questions(question: str) -> tuple[str, ...]:
    """The sub-questions of a question about two named things or of two joined questions, in the order
    they appear; empty when the question is not of either shape (then it is read once, as it is)."""
    parts: list[str] = []
    pair = _PAIR.search(question)
    if pair and not {w.lower() for w in pair.groups()} & _NOT_NAMES:
        head, tail = question[: pair.start()], question[pair.end() :]
        parts += [head + name + tail for name in pair.groups()]
    clauses = [c.strip() for c in _CLAUSE.split(question)]
    if len(clauses) > 1 and all(len(c.split()) >= MIN_CLAUSE_WORDS for c in clauses):
        parts += clauses
    unique = [p for p in dict.fromkeys(parts) if p != question]
    return tuple(unique[:MAX_PARTS])
