"""Street addresses and post boxes, in the orders people write them.

- Number first: "12 Baker Street", "221B Baker Street", "12, baker street", "Flat 3, 45 Oak Avenue, Apt 3".
  Lower-case street names count too, unless a word between the number and the street word is an
  ordinary one ("2 days by road", "5 minutes down the road").
- A street word first: "12 rue de la Paix", "Calle Mayor 5", "Via Roma 10".
- A glued street word, number after: "Hauptstraße 5", "Berliner Straße 12", "Hauptstr. 5",
  "Keizersgracht 123", "Am Kupfergraben 6a".
- "PO Box 1234", "Postfach 12 34".

Whether an address is an organisation's (its office, warehouse, store) is decided by the sentence
around it (`text.Sentences`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from tinymemory.policy.gate.deid.text import Sentences, Span

_SUFFIX = (
    r"street|st\.?|avenue|ave\.?|road|rd\.?|boulevard|blvd\.?|lane|ln\.?|drive|dr\.?|way|court|ct\.?|"
    r"place|pl\.?|square|sq\.?|terrace|crescent|parkway|highway|hwy\.?|mews|grove|gardens"
)
_ORDINARY = (
    r"the|a|an|by|to|on|of|in|at|for|from|and|or|with|down|up|along|via|per|more|less|than|this|that|"
    r"these|those|our|your|their|his|her|its|my|every|each|all|any|some|same|other|next|last|first|"
    r"second|third|few|many|several|extra|new|old|minutes?|hours?|days?|weeks?|months?|years?|km|miles?|"
    r"meters?|metres?|times|steps|lanes?|way|ways|one|two|three|four|five|main entrance"
)
_WORD = rf"(?!(?i:{_ORDINARY})\b)[^\W\d_][\w'-]{{0,30}}\.?"
_UNIT = r"(?:,?[ ]?(?i:apt|apartment|flat|unit|suite|#)\.?[ ]?[0-9A-Za-z]{1,5}(?![\w]))"
_NUMBER_FIRST = re.compile(
    rf"(?<![\w.,/:-])(?:(?i:flat|apt|apartment|unit|suite)\.?[ ]?[0-9A-Za-z]{{1,5}},?[ ]{{1,2}})?"
    rf"[0-9]{{1,5}}(?:[A-Za-z](?![A-Za-z]))?(?:[-/][0-9]{{1,4}})?,?[ ]{{1,2}}"
    rf"(?:{_WORD}[ ]{{1,2}}){{1,3}}(?i:{_SUFFIX})(?![\w]){_UNIT}?"
)
_LEADING_TYPE = (
    r"rue|avenue|av\.|boulevard|bd|chemin|place|allée|allee|impasse|quai|calle|avenida|avda\.|plaza|paseo|"
    r"carrer|via|viale|piazza|corso|largo|rua|travessa|ulica|ul\."
)
_PARTICLE = r"(?:de|la|le|les|du|des|del|di|da|dos|das|do|d'|l')"
_NAME = r"[A-ZÀ-ÖØ-Þ][\w'-]{1,30}"
_TYPE_AFTER_NUMBER = re.compile(
    rf"(?<![\w.,/:-])[0-9]{{1,5}}(?:[A-Za-z]|bis|ter)?,?[ ]{{1,2}}(?i:{_LEADING_TYPE})[ ]"
    rf"(?:{_PARTICLE}[ ]?){{0,3}}{_NAME}(?:[ ]{_NAME}){{0,2}}"
)
_TYPE_BEFORE_NUMBER = re.compile(
    rf"(?<![\w])(?=[A-ZÀ-ÖØ-Þ])(?i:{_LEADING_TYPE})[ ](?:{_PARTICLE}[ ]?){{0,3}}{_NAME}(?:[ ]{_NAME}){{0,2}}"
    rf",?[ ]{{1,2}}[0-9]{{1,4}}[a-zA-Z]?(?![\w])"
)
_GLUED = re.compile(  # a word and a number; `_glued_street` decides whether the word is a street's
    r"(?<![\w])(?:(?P<first>[A-ZÄÖÜ][\w'-]{0,30})[ ])?(?P<street>[^\W\d_][\w-]{0,30}\.?)[ ]?"
    r"[0-9]{1,4}(?:[ ]?[a-zA-Z](?![\w]))?(?![\w])"
)
_GLUED_SUFFIXES = (
    "strasse", "str", "str.", "weg", "gasse", "allee", "platz", "damm", "ufer", "chaussee", "gracht",
    "straat", "laan", "plein", "kade", "steeg", "graben", "pfad", "steig",
)  # fmt: skip
_PO_BOX = re.compile(
    r"\b(?:p\.?[ ]?o\.?[ ]?box|post office box|postfach)[ ]{1,2}[0-9]{1,6}(?:[ ][0-9]{2,4})?\b", re.I
)


def address_spans(v: str, sentences: Sentences) -> Iterator[Span]:
    """Every street address and post box of the view `v`, flagged organisational by its sentence."""
    for pattern in (_NUMBER_FIRST, _TYPE_AFTER_NUMBER, _TYPE_BEFORE_NUMBER, _PO_BOX):
        for m in pattern.finditer(v):
            yield Span(m.start(), m.end(), "address", sentences.organisational_address(m.start()))
    for m in _GLUED.finditer(v):
        street = m.group("street").casefold()
        if street.endswith(_GLUED_SUFFIXES):
            # "Berliner Straße 12" is one name; of "Visit Hauptstraße 5" only the street is.
            start = m.start() if m.group("first") and street in _GLUED_SUFFIXES else m.start("street")
            yield Span(start, m.end(), "address", sentences.organisational_address(start))
