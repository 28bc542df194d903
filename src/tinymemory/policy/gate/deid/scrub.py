"""The published copy: every identifier and every sharer replaced by a neutral placeholder."""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence

from tinymemory.policy.gate.deid.identifiers import find_identifiers
from tinymemory.policy.gate.deid.subjects import subject_spans
from tinymemory.policy.gate.deid.text import normalise

_RUNS_OF_SPACES = re.compile(r"[ \t]{2,}")


def deidentify(text: str, subjects: Sequence[str] = (), *, keep_organisational: bool = False) -> str:
    """`text` with every identifier replaced by a neutral placeholder ("[email]", "[phone]", "[card
    number]", "[iban]", "[account number]", "[id number]", "[credential]", "[address]") and each of
    `subjects` (the sharers' ids and names) by "[person]". With `keep_organisational`, an organisation's
    role e-mail address, phone line and office address stay. Idempotent; never raises."""
    s = normalise(text)
    for _ in range(3):  # a replacement can expose a subject's word again only through adjacency; settle
        out = _replace_once(s, subjects, keep_organisational)
        if out == s:
            break
        s = out
    return s


def _replace_once(s: str, subjects: Sequence[str], keep_organisational: bool) -> str:
    edits: list[tuple[int, int, str]] = [
        (span.start, span.end, span.placeholder)
        for span in find_identifiers(s)
        if not (keep_organisational and span.organisational)
    ]
    taken = sorted((a, b) for a, b, _ in edits)
    for start, end in subject_spans(s, subjects):
        if _free(taken, start, end):
            edits.append((start, end, "[person]"))
            bisect.insort(taken, (start, end))
    out = []
    at = 0
    for start, end, repl in sorted(edits):
        out += [s[at:start], repl]
        at = end
    out.append(s[at:])
    return _RUNS_OF_SPACES.sub(" ", "".join(out))


def _free(taken: list[tuple[int, int]], start: int, end: int) -> bool:
    k = bisect.bisect_left(taken, (start, -1))
    return not ((k > 0 and taken[k - 1][1] > start) or (k < len(taken) and taken[k][0] < end))


def contains_identifier(
    text: str, subjects: Sequence[str] = (), *, keep_organisational: bool = False
) -> bool:
    """Whether `text` still carries an identifier `deidentify` would replace, or any of `subjects`:
    the check a published copy must pass."""
    s = normalise(text)
    if any(not (keep_organisational and span.organisational) for span in find_identifiers(s)):
        return True
    return any(True for _ in subject_spans(s, subjects))
