"""What a share may leave for the gate, and what the gate may show or publish: one place for the
checks, so that queueing, the job and the status view scrub and judge a text alike.

`screen` decides a share: the fact as it is; the fact without the identifiers it carries, when they
alone made it personal and a fact remains without them ("The Madrid office closes at 3 pm; write to
jo@example.org"); or nothing (a first-person statement, a sensitive detail about someone, an address
with nothing around it). `scrub` and `publishable` are what the job applies, with every sharer of the
agent, to each text it compares, publishes or keeps published. docs/architecture/gate.md says why.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from tinymemory.policy.gate.deid import contains_identifier, deidentify, personal_reason
from tinymemory.policy.gate.match import content_words
from tinymemory.policy.identity import Identity


def scrub(text: str, sharers: Sequence[str]) -> str:
    """`text` as the gate compares, publishes and shows it: without any of the agent's sharers and
    without an identifier (an organisation's role address or hotline stays)."""
    return deidentify(text, sharers, keep_organisational=True)


def own_text(identity: Identity, text: str) -> str:
    """`text` as its sharer's candidate holds it: without the sharer and without any identifier but an
    organisation's role address or hotline, which is the fact itself ("write to support@...")."""
    return scrub(text, [identity.user] if identity.user else [])


def publishable(text: str, sharers: Sequence[str]) -> bool:
    """The last check before (and after) a fact reaches every user of the agent."""
    return personal_reason(text) is None and not contains_identifier(text, sharers, keep_organisational=True)


SCRUBBED = "scrubbed"
PERSONAL = "personal"
TOO_LONG = "too_long"
# A fact many users tell the gate in the same words is a sentence or two. A longer share stays the
# user's own: reading it for identifiers costs time in proportion to its length (about 7 s for the
# 1,000,000 characters a memory may hold), on every share and every gate run.
MAX_SHARE_CHARS = 2_000
MIN_FACT_WORDS = 2
_PLACEHOLDER = re.compile(r"\[[a-z]+(?: [a-z]+)*\]")
# What a fact may lose and stay the fact: a way to reach someone ("write to [email]", "call [phone]").
# A card, an IBAN, an account, order, policy or id number, a home address or a credential is what its
# sentence is about ("Order #[account number] was delivered to the wrong door", "Anna lives at
# [address]", "Policy number: [account number] covers the user's car"): such a share stays private.
# Measured on tests/fixtures/gate/personal.jsonl when this was written: with every kind, 4 of its 48
# personal texts would be queued scrubbed, 3 of them about one person or one record; with these two,
# 1 (an organisation's contact for invoices, its address taken out).
_CHANNELS = {"[email]", "[phone]"}
# Words that only name or reach the identifier taken out ("write to [email]", "her IBAN is [iban]"):
# they state no fact of their own.
_ABOUT_IDENTIFIER = {
    "email", "mail", "address", "addresses", "phone", "telephone", "mobile", "cell", "fax", "number",
    "numbers", "nr", "card", "cards", "iban", "bic", "swift", "account", "accounts", "id", "pin",
    "password", "passcode", "code", "login", "username", "contact", "reach", "call", "ring", "text",
    "write", "send", "ask", "ping", "message", "dial", "user", "customer", "client", "person",
}  # fmt: skip


def states_a_fact(text: str) -> bool:
    """Whether `text`, its identifiers replaced by placeholders, still says something of its own: at
    least MIN_FACT_WORDS content words besides the placeholders and the words about them."""
    words = content_words(_PLACEHOLDER.sub(" ", text))
    return sum(1 for w in words if w not in _ABOUT_IDENTIFIER) >= MIN_FACT_WORDS


def screen(identity: Identity, text: str) -> str | None:
    """What `identity`'s share of `text` may leave for the gate. None: the fact as it is (de-identified
    of its sharer). SCRUBBED: the fact without the e-mail addresses and phone numbers it carries,
    when they alone made it personal (no first person, no sensitive detail about someone, no other
    identifier) and a fact remains without them. PERSONAL: nothing; the memory stays the user's own.
    TOO_LONG: nothing, unread (longer than MAX_SHARE_CHARS)."""
    if len(text) > MAX_SHARE_CHARS:
        return TOO_LONG
    if personal_reason(text) is None:
        return None
    bare = deidentify(text, (), keep_organisational=True)  # a sharer's id never hides a personal word
    clean = own_text(identity, text)
    subjects = [identity.user] if identity.user else []
    if (
        set(_PLACEHOLDER.findall(bare)) <= _CHANNELS
        and personal_reason(bare) is None
        and publishable(clean, subjects)
        and states_a_fact(clean)
    ):
        return SCRUBBED
    return PERSONAL
