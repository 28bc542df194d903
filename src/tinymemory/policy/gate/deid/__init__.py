"""De-identification for the shared-write gate: what a published fact may carry, and what is never shared.

Two jobs, both rules (regular expressions, checksums and small word lists), because no well-kept library
does them offline here (bench/gate_match.py records what was tried; bench/gate_deid.py measures these):

- `is_personal` / `personal_reason` (`personal`): a fact about one person is never published, however many
  users share it. Personal means: an identifier of a person or an account (a private e-mail address, a phone
  number not presented as an organisation's line, a payment card, an IBAN, an account, customer, order or
  national id number, a home address, a credential), a first-person statement ("I", "my", "me"), or a
  sensitive detail (`sensitive`: health, genetics, sex life, gender identity, ethnic origin, beliefs,
  political opinion, union membership, a criminal record, immigration status, money, family, identity,
  home) about a particular person: "the user", "she", "the CEO", or a name (`people`: "Dana Lee has
  diabetes", "Bruno, our designer, has a brain tumour", "@frank is on chemo"). A rule about people in
  general ("customers must give their account number to support", "pregnant employees get 14 weeks of
  leave") is shareable, and so is a named person in a role, even next to a sensitive word ("Dana Lee
  approves every travel request above 500 euros", "Dana runs the first-aid course"): who approves is the
  organisation's fact. When that person is one of the sharers, the published copy does not carry their
  name (next point).
- `deidentify` / `contains_identifier` (`scrub`): the copy that is published carries no e-mail address
  (plain or obfuscated, "jane at gmail dot com"), phone number, card, IBAN, account-like or national id
  number, street address, and nothing of the sharers (their ids and the names in them, in every spelling,
  passed as `subjects`; see the `subjects` module). By default every address and number is replaced; with
  `keep_organisational=True` an organisation's role address ("help@", "support at acme dot com"), a phone
  number presented as a hotline or office line, and an office's address stay, since they are the fact
  itself.

How each kind is recognised, spelling by spelling, is in its module: `numbers` (cards, with the rule for
a wrong check digit; IBANs; phones; national ids), `emails` (and the role-address rule), `addresses`,
`subjects`, `people` (who a text names, and in what role), `sensitive` (the categories of detail). Every
pattern is bounded and every scan looks a bounded way ahead, so the work is linear in the text's length.
"""

from tinymemory.policy.gate.deid.identifiers import find_identifiers
from tinymemory.policy.gate.deid.personal import is_personal, personal_reason
from tinymemory.policy.gate.deid.scrub import contains_identifier, deidentify
from tinymemory.policy.gate.deid.text import Span

__all__ = ["Span", "contains_identifier", "deidentify", "find_identifiers", "is_personal", "personal_reason"]
