"""Every identifier in a text, from each detector, with overlaps resolved to the longest."""

from __future__ import annotations

import bisect
from collections.abc import Iterable

from tinymemory.policy.gate.deid.addresses import address_spans
from tinymemory.policy.gate.deid.emails import email_spans
from tinymemory.policy.gate.deid.numbers import number_spans
from tinymemory.policy.gate.deid.text import Sentences, Span, view


def find_identifiers(text: str) -> list[Span]:
    """Every identifier in `text` (normalised by the caller, see `text.normalise`), earliest first,
    overlaps resolved to the longest."""
    v = view(text)
    sentences = Sentences(v)
    return _resolve([*email_spans(v), *number_spans(v, sentences), *address_spans(v, sentences)])


def _resolve(spans: Iterable[Span]) -> list[Span]:
    """Keep the longest of overlapping spans (a card number is not also a phone number); of two equally
    long, the one found first (the detectors run from the most specific)."""
    starts: list[int] = []
    chosen: list[Span] = []  # sorted by start, pairwise disjoint
    for span in sorted(spans, key=lambda s: -(s.end - s.start)):
        k = bisect.bisect_left(starts, span.start)
        if (k > 0 and chosen[k - 1].end > span.start) or (k < len(chosen) and chosen[k].start < span.end):
            continue
        starts.insert(k, span.start)
        chosen.insert(k, span)
    return chosen
