"""The labelled de-identification set of bench/gate_deid.py: sentences made from templates x values,
seeded, so the same command always writes the same tests/fixtures/gate/deid_bench.jsonl.

Each row: `text`, `class`, `split`, `subjects` (the sharers' ids), `personal` (whether `is_personal`
must say so), `gone` (values that must not survive `deidentify(text, subjects, keep_organisational=True)`)
and `kept` (values that must). The templates differ from the unit tests' (tests/test_gate_deid*.py), so
the set is not the tests again. Split `tuning` was written with the rules and used to fix them; each of
`holdout-1` to `holdout-4` was written after the rules of its day were frozen, measured once, and then
used to fix what it found, so it is tuning now (see bench/gate_deid.py). `holdout-5`
(bench/gate_deid_holdout5.py: named people's sensitive details, people in roles, rules about people in
general, sharers with ids that have no separator) was written and committed before the rules it
measures were changed.

    python bench/gate_deid_set.py          # rewrite the fixture
    python bench/gate_deid_set.py --check  # exit 1 when the fixture is not what the generator writes
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import gate_deid_holdout5 as holdout5

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "tests" / "fixtures" / "gate" / "deid_bench.jsonl"
SEED = 22

Row = dict[str, Any]

PERSONAL_CLASSES = [
    "card",
    "iban",
    "phone",
    "email",
    "email-obfuscated",
    "street-address",
    "national-id",
    "sharer-name",
    "named-sensitive",
]
STAY_CLASSES = ["role-address", "hotline", "office-address", "named-role", "general-rule", "plain-number"]

FIRST = [
    "Dana",
    "Frank",
    "Priya",
    "Jonas",
    "Mei",
    "Olu",
    "Sofia",
    "Mateo",
    "Aylin",
    "Kenji",
    "Ingrid",
    "Tomasz",
    "Chloe",
    "Rahul",
    "Fatima",
    "Lukas",
    "Amara",
    "Henrik",
    "Yara",
    "Diego",
    "Noor",
    "Elif",
    "Bruno",
    "Hana",
]
LAST = [
    "Lee",
    "Okafor",
    "Novak",
    "Schmidt",
    "Tanaka",
    "Silva",
    "Haddad",
    "Kowalski",
    "Brennan",
    "Costa",
    "Lindqvist",
    "Moreau",
    "Petrov",
    "Nakamura",
    "Rossi",
    "Yilmaz",
    "Fischer",
    "Mensah",
    "Garcia",
    "Weber",
]
SPACES = [" ", " ", " ", "\u00a0", "\u2009", "\u202f"]


def _spaced(rng: random.Random, s: str) -> str:
    """Some spellings with the odd spaces people paste (no-break, thin, narrow no-break)."""
    space = rng.choice(SPACES)
    return s.replace(" ", space) if space != " " else s


def row(
    cls: str,
    split: str,
    text: str,
    *,
    personal: bool,
    gone: Sequence[str] = (),
    kept: Sequence[str] = (),
    subjects: Sequence[str] = (),
) -> Row:
    return {
        "text": text,
        "class": cls,
        "split": split,
        "subjects": list(subjects),
        "personal": personal,
        "gone": list(gone),
        "kept": list(kept),
    }


# ------------------------------------------------------------------------------------------------ cards


def luhn_digit(body: str) -> str:
    total = 0
    for i, ch in enumerate(reversed(body)):
        d = int(ch)
        if i % 2 == 0:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return str((10 - total % 10) % 10)


NETWORKS = [  # prefix choices, length, grouping
    (["4"], 16, (4, 4, 4, 4)),
    (["51", "52", "53", "54", "55", "2221", "2720"], 16, (4, 4, 4, 4)),
    (["34", "37"], 15, (4, 6, 5)),
    (["6011", "65"], 16, (4, 4, 4, 4)),
    (["3528", "3589"], 16, (4, 4, 4, 4)),
    (["36"], 14, (4, 6, 4)),
]
CARD_SEPARATORS = [" ", "-", ".", "/", " - ", "\u2009", "\u00a0", "\u202f", "", "\u2013", " . ", "  ", " / "]


def card_number(rng: random.Random, valid: bool) -> tuple[str, tuple[int, ...]]:
    prefixes, length, grouping = rng.choice(NETWORKS)
    body = rng.choice(prefixes)
    body += "".join(rng.choice("0123456789") for _ in range(length - 1 - len(body)))
    check = luhn_digit(body)
    if not valid:
        check = str((int(check) + rng.randint(1, 9)) % 10)
    return body + check, grouping


def grouped(number: str, grouping: tuple[int, ...], sep: str) -> str:
    out, at = [], 0
    for size in grouping:
        out.append(number[at : at + size])
        at += size
    return sep.join(out)


CARD_TEMPLATES = {
    "tuning": [
        "Paid the conference fee with {v} yesterday",
        "Card on file for the hotel: {v}",
        "Please charge {v} for the taxi to the airport",
        "The corporate Visa {v} expires next month",
        "{v} was declined at the check-in desk",
        "Top up the parking account using {v}",
        "Booking confirmed, billed to {v}.",
        "Mastercard number {v}, CVV on the back",
    ],
    "holdout-1": [
        "Reimburse the flowers, they went on {v}",
        "Kreditkarte {v} gültig bis 08/29",
        "Amazon order paid by {v}",
        "use the amex ({v}) for anything over 200 EUR",
    ],
    "holdout-2": [
        "Kartennummer {v}, Ablauf 03/28",
        "charge everything to {v} and send the receipt",
        "{v} / exp 11/27 / cvc 123",
        "Visa for the team lunch: {v}",
    ],
    "holdout-3": [
        "Pay the venue deposit with {v}",
        "Carte bancaire {v}",
        "Corporate card no. {v}",
        "{v} is the card for software subscriptions",
    ],
    "holdout-4": [
        "Pls book it on {v}",
        "Firmenkarte {v}",
        "{v} exp 02/30",
        "card: {v} (Dana's)",
    ],
}


def cards(rng: random.Random, split: str, n: int) -> Iterator[Row]:
    for i in range(n):
        valid = i % 4 != 3  # a quarter with a wrong check digit: a typo'd card is still a card
        number, grouping = card_number(rng, valid)
        sep = CARD_SEPARATORS[i % len(CARD_SEPARATORS)]
        spelled = grouped(number, grouping, sep)
        text = rng.choice(CARD_TEMPLATES[split]).format(v=spelled)
        yield row("card", split, text, personal=True, gone=[number])


# ------------------------------------------------------------------------------------------------ IBANs

IBAN_FORMATS = {  # country: BBAN as a pattern of 9 (digit) and A (letter)
    "DE": "9" * 18,
    "GB": "AAAA" + "9" * 14,
    "FR": "9" * 10 + "AAAAAAAAAAA" + "99",
    "ES": "9" * 20,
    "IT": "A" + "9" * 10 + "9" * 12,
    "NL": "AAAA" + "9" * 10,
    "AT": "9" * 16,
    "CH": "9" * 17,
    "BE": "9" * 12,
    "PL": "9" * 24,
    "SE": "9" * 20,
    "IE": "AAAA" + "9" * 14,
    "PT": "9" * 21,
    "DK": "9" * 14,
    "NO": "9" * 11,
    "FI": "9" * 14,
}


def iban(rng: random.Random, country: str) -> str:
    bban = "".join(
        rng.choice("0123456789") if c == "9" else rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
        for c in IBAN_FORMATS[country]
    )
    numeric = "".join(str(int(c, 36)) for c in bban + country + "00")
    return f"{country}{98 - int(numeric) % 97:02d}{bban}"


IBAN_SEPARATORS = [" ", "-", ".", "\u00a0", "\u2009", "", " - ", "\u202f"]
IBAN_TEMPLATES = {
    "tuning": [
        "Refunds for the trip: transfer to {v}",
        "Wire the deposit to {v} by Thursday",
        "Account for the rent split: {v}",
        "Use {v} for the reimbursement",
        "Bank details {v} (Sparkasse)",
        "The club dues go to {v}.",
    ],
    "holdout-1": [
        "Überweisung bitte an {v}",
        "{v} is where the bonus should land",
        "send the 40 euros for the gift to {v}",
    ],
    "holdout-2": [
        "Konto: {v}",
        "beneficiary account {v}",
        "pay the caterer into {v} before the event",
    ],
    "holdout-3": [
        "Bankverbindung {v}",
        "Refund the ticket to account {v}",
        "IBAN {v} (Dana, private)",
    ],
    "holdout-4": [
        "Spende an {v}",
        "the landlord's account is {v}",
        "IBAN für die Kaution: {v}",
    ],
}


def ibans(rng: random.Random, split: str, n: int) -> Iterator[Row]:
    countries = sorted(IBAN_FORMATS)
    for i in range(n):
        value = iban(rng, countries[i % len(countries)])
        sep = IBAN_SEPARATORS[i % len(IBAN_SEPARATORS)]
        spelled = sep.join(value[k : k + 4] for k in range(0, len(value), 4))
        spelled = spelled.lower() if i % 5 == 4 else spelled
        text = rng.choice(IBAN_TEMPLATES[split]).format(v=spelled)
        yield row("iban", split, text, personal=True, gone=[value])


# ---------------------------------------------------------------------------------------- phone numbers


def _d(rng: random.Random, n: int) -> str:
    return str(rng.randint(1, 9)) + "".join(rng.choice("0123456789") for _ in range(n - 1))


PHONE_FORMATS: list[Callable[[random.Random], str]] = [
    lambda r: f"+49 {_d(r, 2)} {_d(r, 7)}",
    lambda r: f"0{_d(r, 2)} {_d(r, 7)}",
    lambda r: f"0{_d(r, 3)}/{_d(r, 6)}",
    lambda r: f"(0{_d(r, 2)}) {_d(r, 3)}-{_d(r, 4)}",
    lambda r: f"+49 (0){_d(r, 2)} {_d(r, 7)}",
    lambda r: f"0049 {_d(r, 3)} {_d(r, 7)}",
    lambda r: f"+49-{_d(r, 3)}-{_d(r, 7)}",
    lambda r: f"01{r.choice('567')}{r.randint(0, 9)} {_d(r, 8)}",
    lambda r: f"+1 {_d(r, 3)}-{_d(r, 3)}-{_d(r, 4)}",
    lambda r: f"({_d(r, 3)}) {_d(r, 3)}-{_d(r, 4)}",
    lambda r: f"{_d(r, 3)}.{_d(r, 3)}.{_d(r, 4)}",
    lambda r: f"+1.{_d(r, 3)}.{_d(r, 3)}.{_d(r, 4)}",
    lambda r: f"1-{_d(r, 3)}-{_d(r, 3)}-{_d(r, 4)}",
    lambda r: f"+44 20 {_d(r, 4)} {_d(r, 4)}",
    lambda r: f"07{_d(r, 3)} {_d(r, 6)}",
    lambda r: f"+33 {r.randint(1, 9)} {_d(r, 2)} {_d(r, 2)} {_d(r, 2)} {_d(r, 2)}",
    lambda r: f"0{r.randint(1, 9)}.{_d(r, 2)}.{_d(r, 2)}.{_d(r, 2)}.{_d(r, 2)}",
    lambda r: f"+41 {_d(r, 2)} {_d(r, 3)} {_d(r, 2)} {_d(r, 2)}",
    lambda r: f"0{_d(r, 2)} - {_d(r, 3)} {_d(r, 2)} {_d(r, 2)}",
]
PHONE_TEMPLATES = {
    "tuning": [
        "Text {v} when the taxi arrives",
        "The plumber can be reached on {v} until six",
        "Leave a voicemail at {v} if the door is locked",
        "Dana's cell: {v}",
        "{v} (private, evenings only)",
        "WhatsApp {v} for the spare key",
    ],
    "holdout-1": [
        "Handy: {v}",
        "if the babysitter cancels, try {v}",
        "Her new number is {v}, the old one is dead",
    ],
    "holdout-2": [
        "Mobil {v}",
        "call Dana back on {v} before noon",
        "{v}, ask for Olu",
        "emergency contact: {v}",
    ],
    "holdout-3": [
        "Tel. {v}",
        "Olu's landline: {v}",
        "Numéro perso : {v}",
        "the locksmith picks up on {v}",
    ],
    "holdout-4": [
        "Festnetz {v}",
        "the dog sitter: {v}",
        "Priya (mobile) {v}",
        "try her on {v} after 7",
    ],
}
HOTLINE_TEMPLATES = {
    "tuning": [
        "Our customer service line is {v}, Monday to Friday",
        "For lost badges call the front desk on {v}",
        "The IT helpdesk number is {v}",
        "Reception: {v}",
        "Toll-free hotline {v}, open around the clock",
        "The Munich branch can be reached at {v}",
    ],
    "holdout-1": [
        "Outside office hours the emergency line is {v}",
        "Sales team: {v}",
        "Press office {v}",
    ],
    "holdout-2": [
        "Call our service desk on {v}",
        "The clinic's appointment line: {v}",
        "Support hotline (DE): {v}",
    ],
    "holdout-3": [
        "Lost-and-found desk: {v}",
        "Our 24h support number {v}",
        "Billing department {v}",
    ],
    "holdout-4": [
        "Service number for drivers: {v}",
        "The office switchboard: {v}",
        "Our booking hotline is {v}",
    ],
}


def phones(rng: random.Random, split: str, n: int) -> Iterator[Row]:
    for i in range(n):
        value = _spaced(rng, PHONE_FORMATS[i % len(PHONE_FORMATS)](rng))
        text = rng.choice(PHONE_TEMPLATES[split]).format(v=value)
        yield row("phone", split, text, personal=True, gone=[value])


def hotlines(rng: random.Random, split: str, n: int) -> Iterator[Row]:
    for i in range(n):
        value = _spaced(rng, PHONE_FORMATS[i % len(PHONE_FORMATS)](rng))
        text = rng.choice(HOTLINE_TEMPLATES[split]).format(v=value)
        yield row("hotline", split, text, personal=False, kept=[value])


# --------------------------------------------------------------------------------------------- e-mails

DOMAINS = [
    "gmail.com",
    "outlook.de",
    "acme-corp.com",
    "uni-hamburg.de",
    "example.co.uk",
    "mail.acme.io",
    "web.de",
    "proton.me",
    "yahoo.fr",
    "northwind.org",
]


def person_local(rng: random.Random, first: str, last: str) -> str:
    f, la = first.lower(), last.lower()
    return rng.choice(
        [
            f"{f}.{la}",
            f"{f[0]}{la}",
            f"{f}_{la}",
            f"{f}+travel",
            f"{f}.{la}{rng.randint(70, 99)}",
            f"{la}.{f}",
            f"{f}{rng.randint(1, 9)}",
        ]
    )


EMAIL_TEMPLATES = {
    "tuning": [
        "Forward the itinerary to {v}",
        "{v} collects the receipts for the offsite",
        "The caterer's contact is {v}",
        "cc {v} on anything about parking",
        "Old address was {v}, use the new one",
    ],
    "holdout-1": [
        "Mail the photos to {v} after the party",
        "Ansprechpartnerin: {v}",
        "reply-to is {v} for the raffle",
    ],
    "holdout-2": [
        "Reach the photographer at {v}",
        "Kontakt: {v}",
        "{v} wants the minutes by Monday",
    ],
    "holdout-3": [
        "{v} organises the book club",
        "Personal mail {v}",
        "Invite {v} to the retro",
    ],
    "holdout-4": [
        "Angebot bitte an {v}",
        "the new intern is {v}",
        "{v} has the slides",
    ],
}
OBFUSCATIONS: list[Callable[[str, str, str], str]] = [
    lambda loc, dom, tld: f"{loc} at {dom} dot {tld}",
    lambda loc, dom, tld: f"{loc} [at] {dom} [dot] {tld}",
    lambda loc, dom, tld: f"{loc}(at){dom}.{tld}",
    lambda loc, dom, tld: f"{loc} (at) {dom} (dot) {tld}",
    lambda loc, dom, tld: f"{loc} @ {dom}.{tld}",
    lambda loc, dom, tld: f"{loc}@{dom}",
    lambda loc, dom, tld: f"{loc} AT {dom} DOT {tld}",
    lambda loc, dom, tld: f"{loc} {{at}} {dom} {{dot}} {tld}",
    lambda loc, dom, tld: f"{loc}<at>{dom}<dot>{tld}",
    lambda loc, dom, tld: f"{loc} [at] {dom}",
    lambda loc, dom, tld: f"{loc.replace('.', ' dot ')} at {dom} dot {tld}",
    lambda loc, dom, tld: f"{loc} at {dom}.{tld}",
]


def domain_name(domain: str) -> str:
    """The organisation's label of a domain: "acme" of "mail.acme.io", "example" of "example.co.uk"."""
    return max((label for label in domain.split(".")[:-1] if label not in ("mail", "co")), key=len)


def obfuscate(form: Callable[[str, str, str], str], local: str, domain: str) -> str:
    """`local@domain` written with `form`; a form that spells " dot " spells every dot of the domain."""
    name, _, tld = domain.partition(".")
    return form(local, name, tld.replace(".", " dot ") if " dot " in form("a", "b", "c") else tld)


def emails(rng: random.Random, split: str, n: int) -> Iterator[Row]:
    for _ in range(n):
        first, last = rng.choice(FIRST), rng.choice(LAST)
        local, domain = person_local(rng, first, last), rng.choice(DOMAINS)
        value = f"{local}@{domain}"
        value = value.upper() if rng.random() < 0.1 else value
        text = rng.choice(EMAIL_TEMPLATES[split]).format(v=value)
        yield row("email", split, text, personal=True, gone=[local, domain_name(domain)])


def obfuscated_emails(rng: random.Random, split: str, n: int) -> Iterator[Row]:
    for i in range(n):
        first, last = rng.choice(FIRST), rng.choice(LAST)
        local, domain = person_local(rng, first, last), rng.choice(DOMAINS)
        form = OBFUSCATIONS[i % len(OBFUSCATIONS)]
        if form is OBFUSCATIONS[-1] and not any(c in local for c in "._+0123456789"):
            local = f"{local}.{last.lower()}"  # "x at domain.tld" is an address when x looks like a mailbox
        text = rng.choice(EMAIL_TEMPLATES[split]).format(v=obfuscate(form, local, domain))
        gone = [max(re.split(r"[._+0-9]", local), key=len), domain_name(domain)]
        yield row("email-obfuscated", split, text, personal=True, gone=gone)


ROLES = [
    "support",
    "help",
    "billing",
    "refunds",
    "sales",
    "info",
    "hr",
    "press",
    "jobs",
    "returns",
    "support-de",
    "help.desk",
    "invoices",
    "privacy",
    "reception",
]
ROLE_TEMPLATES = {
    "tuning": [
        "Damaged goods: email {v} with a photo",
        "Invoices are processed by {v}",
        "Press enquiries go to {v}",
        "Questions about a refund? Write to {v}",
        "Applications are sent to {v}",
    ],
    "holdout-1": [
        "For data requests contact {v}",
        "Bei Fragen zur Rechnung: {v}",
        "Shipping problems are handled at {v}",
    ],
    "holdout-2": [
        "Complaints: {v}",
        "The ticket system reads mail sent to {v}",
        "Write to {v} to cancel a booking",
    ],
    "holdout-3": [
        "Security incidents: report to {v}",
        "Newsletter sign-ups go through {v}",
        "Careers page questions: {v}",
    ],
    "holdout-4": [
        "Feedback is welcome at {v}",
        "Send vendor invoices to {v}",
        "Ask {v} about orders",
    ],
}
ORG_DOMAINS = ["acme.com", "northwind.de", "globex.co.uk", "initech.io", "umbrella.fr"]


def role_addresses(rng: random.Random, split: str, n: int) -> Iterator[Row]:
    for i in range(n):
        role, domain = rng.choice(ROLES), rng.choice(ORG_DOMAINS)
        if i % 3 == 0:
            value = f"{role}@{domain}"
        elif i % 3 == 1:
            value = obfuscate(OBFUSCATIONS[(i // 3) % len(OBFUSCATIONS)], role, domain)
        else:
            value = f"{role}@{domain.split('.')[0]}"
        text = rng.choice(ROLE_TEMPLATES[split]).format(v=value)
        yield row("role-address", split, text, personal=False, kept=[value])


# ------------------------------------------------------------------------------------- street addresses

STREETS_EN = [
    "Baker Street",
    "Elm Road",
    "Maple Avenue",
    "Church Lane",
    "Station Road",
    "Kings Way",
    "Oak Drive",
    "Harbour Court",
    "Victoria Square",
    "Mill Lane",
    "park terrace",
    "high street",
]
STREETS_DE = [
    "Lindenstraße",
    "Goethestr.",
    "Schillerstrasse",
    "Berliner Straße",
    "Am Kupfergraben",
    "Rosenweg",
    "Bahnhofstr",
    "Kastanienallee",
    "Marktplatz",
    "Prinsengracht",
]
STREETS_ROMANCE = [
    "rue des Lilas",
    "Calle de Alcalá",
    "Via Garibaldi",
    "Avenida da Liberdade",
    "Rue Oberkampf",
]


def street_address(rng: random.Random, i: int) -> str:
    kind = i % 6
    if kind in (0, 1):
        number = f"{rng.randint(1, 250)}{rng.choice(['', '', 'a', 'B'])}"
        unit = rng.choice(["", "", ", Apt 4", ", Flat 2"])
        return f"{number} {rng.choice(STREETS_EN)}{unit}"
    if kind == 2:
        return f"Flat {rng.randint(1, 9)}, {rng.randint(1, 99)} {rng.choice(STREETS_EN)}"
    if kind in (3, 4):
        return f"{rng.choice(STREETS_DE)} {rng.randint(1, 120)}{rng.choice(['', '', 'a', ' b'])}"
    street = rng.choice(STREETS_ROMANCE)
    if street.startswith("rue") or street.startswith("Rue"):
        return f"{rng.randint(1, 90)} {street}"
    return f"{street} {rng.randint(1, 90)}"


ADDRESS_TEMPLATES = {
    "tuning": [
        "Deliver the birthday cake to {v}",
        "Pick the twins up from {v} at seven",
        "Mail the signed lease to {v}",
        "The spare bike is kept at {v}",
        "New place: {v}, third bell from the top",
    ],
    "holdout-1": [
        "Wohnung: {v}, 2. OG",
        "the party is at {v} on Saturday",
        "Frank stays at {v} during the week",
    ],
    "holdout-2": [
        "Dana's new flat is at {v}",
        "Send the wedding invitation to {v}",
        "Babysitter address: {v}",
    ],
    "holdout-3": [
        "Home address on file: {v}",
        "Frank moved into {v} last month",
        "Return the borrowed ladder to {v}",
    ],
    "holdout-4": [
        "Key handover at {v}",
        "Grandma Rosa lives at {v}",
        "Please deliver to {v} (back door)",
    ],
}
OFFICE_TEMPLATES = {
    "tuning": [
        "Our Hamburg office is at {v}",
        "The warehouse moved to {v}",
        "Visitors report to reception at {v}",
        "Returns are accepted at our store on {v}",
        "Company headquarters: {v}",
    ],
    "holdout-1": [
        "The new showroom opens at {v} in March",
        "Our branch at {v} closes at 6 pm",
        "Deliveries for the factory go to {v}",
    ],
    "holdout-2": [
        "Our Lisbon office: {v}",
        "The lab is located at {v}",
        "Parcels for the studio go to {v}",
    ],
    "holdout-3": [
        "The Madrid office is at {v}",
        "Our Paris site: {v}",
        "Training takes place at our campus, {v}",
    ],
    "holdout-4": [
        "The Vienna branch is at {v}",
        "Our warehouse: {v}",
        "The company moved its HQ to {v}",
    ],
}


def addresses(rng: random.Random, split: str, n: int) -> Iterator[Row]:
    for i in range(n):
        value = street_address(rng, i)
        text = rng.choice(ADDRESS_TEMPLATES[split]).format(v=value)
        street = re.sub(r"^Flat [0-9]+, |, (?:Apt|Flat) [0-9]+$", "", value)  # "flat" may be the sentence's
        yield row("street-address", split, text, personal=True, gone=[street])


def offices(rng: random.Random, split: str, n: int) -> Iterator[Row]:
    for i in range(n):
        value = street_address(rng, i)
        if value.startswith("Flat"):
            value = value.split(", ", 1)[1]
        value = value.split(", ")[0]
        text = rng.choice(OFFICE_TEMPLATES[split]).format(v=value)
        yield row("office-address", split, text, personal=False, kept=[value])


# ---------------------------------------------------------------------------------------- national ids


def ssn(rng: random.Random) -> str:
    area = rng.choice([n for n in range(1, 900) if n != 666])
    return f"{area:03d}{rng.randint(1, 99):02d}{rng.randint(1, 9999):04d}"


def ni_number(rng: random.Random) -> str:
    first, second = rng.choice("ABCEGHJKLMNOPRSTWXYZ"), rng.choice("ABCEGHJKLMNPRSTWXYZ")
    return f"{first}{second}{rng.randint(0, 999999):06d}{rng.choice('ABCD')}"


def steuer_id(rng: random.Random) -> str:
    body = str(rng.randint(1, 9)) + "".join(rng.choice("0123456789") for _ in range(9))
    product = 10
    for ch in body:
        total = (int(ch) + product) % 10 or 10
        product = (total * 2) % 11
    return body + str((11 - product) % 10)


def national_id(rng: random.Random, i: int) -> tuple[str, str]:
    """(the spelled value, the label a person writes before it)."""
    kind = i % 4
    if kind == 0:
        v = ssn(rng)
        sep = rng.choice(["-", " ", "."])
        return f"{v[:3]}{sep}{v[3:5]}{sep}{v[5:]}", rng.choice(["SSN", "Social Security", ""])
    if kind == 1:
        v = ni_number(rng)
        spelled = rng.choice(
            [v, f"{v[:2]} {v[2:4]} {v[4:6]} {v[6:8]} {v[8]}", f"{v[:2]}-{v[2:4]}-{v[4:6]}-{v[6:8]}-{v[8]}"]
        )
        return spelled, rng.choice(["NI number", "National Insurance", ""])
    if kind == 2:
        v = steuer_id(rng)
        return rng.choice([v, f"{v[:2]} {v[2:5]} {v[5:8]} {v[8:]}"]), rng.choice(["Steuer-ID", "tax id", ""])
    v = f"756{rng.randint(0, 9999):04d}{rng.randint(0, 9999):04d}{rng.randint(0, 99):02d}"
    return rng.choice([f"{v[:3]}.{v[3:7]}.{v[7:11]}.{v[11:]}", v]), rng.choice(["AHV", "AHV-Nr.", ""])


NATIONAL_ID_TEMPLATES = {
    "tuning": [
        "Payroll needs {label} {v} before the first payslip",
        "Tax form filled in with {label} {v}",
        "Copy of the ID shows {label} {v}",
        "{label} {v} is on the onboarding sheet",
    ],
    "holdout-1": [
        "the accountant asked for {label} {v}",
        "{label}: {v} (keep safe)",
    ],
    "holdout-2": [
        "{label} {v} belongs to the new hire",
        "Onboarding checklist: {label} {v}",
    ],
    "holdout-3": [
        "{label} {v} must be on the contract",
        "HR still needs {label} {v}",
    ],
    "holdout-4": [
        "{label} {v} needed for the visa",
        "Payroll form: {label} {v}",
    ],
}


def national_ids(rng: random.Random, split: str, n: int) -> Iterator[Row]:
    for i in range(n):
        value, label = national_id(rng, i)
        text = (
            rng.choice(NATIONAL_ID_TEMPLATES[split]).format(v=value, label=label).replace("  ", " ").strip()
        )
        yield row("national-id", split, text, personal=True, gone=[value])


# ------------------------------------------------------------------------------------ sharers' names


def user_id(rng: random.Random, first: str, last: str, i: int) -> str:
    f, la = first.lower(), last.lower()
    forms = [
        f"{f}.{la}",
        f"{f}_{la}",
        f"{f}-{la}",
        f"{first}.{last}@acme",
        f"{first}{last}",
        f"{f}.{la}".upper(),
        f"{la}.{f}",
        f"{first} {last}",
        f"{f}.{la}@northwind.de",
    ]
    return forms[i % len(forms)]


def mention(rng: random.Random, first: str, last: str) -> str:
    return rng.choice(
        [
            f"{first} {last}",
            first,
            last,
            first.upper(),
            f"{first.lower()}.{last.lower()}",
            f"{last}, {first}",
            f"{first}'s team",
            f"{first} {last[0]}.",
            f"{first}{last}",
        ]
    )


SHARER_TEMPLATES = {
    "tuning": [
        "{m} signs off the quarterly budget",
        "Ask {m} for the VPN setup guide",
        "{m} keeps the key to the server room",
        "Holiday requests are approved by {m}",
        "{m} hosts the onboarding session on Mondays",
        "The fire warden on floor 3 is {m}",
    ],
    "holdout-1": [
        "{m} orders the office supplies every Friday",
        "Expense reports above 300 EUR go to {m}",
        "the projector in room 2 is booked through {m}",
    ],
    "holdout-2": [
        "{m} is the first aider on the 4th floor",
        "Budget questions go to {m}",
        "{m} maintains the build server",
    ],
    "holdout-3": [
        "{m} approves every travel request above 500 euros",
        "{m} hands out the key cards",
        "Ping {m} for access to the finance share",
    ],
    "holdout-4": [
        "{m} runs the coffee machine rota",
        "{m} is the go-to person for SAP",
        "Badge requests: ask {m}",
    ],
}


def sharer_names(rng: random.Random, split: str, n: int) -> Iterator[Row]:
    for i in range(n):
        first, last = rng.choice(FIRST), rng.choice(LAST)
        uid = user_id(rng, first, last, i)
        said = mention(rng, first, last)
        subjects = [uid]
        text = rng.choice(SHARER_TEMPLATES[split]).format(m=said)
        named = [first, last]
        if i % 7 == 6:  # two sharers of one group, both named
            other = rng.choice([f for f in FIRST if f != first])
            subjects.append(user_id(rng, other, rng.choice(LAST), i + 3))
            text += f"; {other} covers when they are away"
            named.append(other)
        gone = [w for w in named if w.casefold() in text.casefold()]
        yield row("sharer-name", split, text, personal=False, gone=gone, subjects=subjects)


# ----------------------------------------------------------------------------------- other people

DETAILS = {
    "tuning": [
        "has been diagnosed with type 1 diabetes",
        "is pregnant with her second child",
        "takes antidepressants",
        "is recovering from chemotherapy",
        "earns 85,000 a year",
        "is going through a divorce",
        "is a practising Muslim",
        "has epilepsy",
        "is on sick leave until March",
        "had knee surgery last week",
        "is in rehab",
        "has ADHD",
        "is HIV positive",
        "suffers from migraines",
        "was born in 1987",
        "is 52 years old",
        "owes the bank 20,000 euros",
        "is gay",
        "voted for the Greens",
        "has asthma",
    ],
    "holdout-1": [
        "was hospitalised after the accident",
        "has a chronic lung condition",
        "is expecting a baby in May",
        "has a mortgage on the flat",
        "is Jewish and does not work on Saturdays",
        "lives with his parents",
        "needs insulin at lunch",
        "is bipolar",
        "earns less than the interns",
    ],
    "holdout-2": [
        "has breast cancer",
        "is on maternity leave",
        "had a miscarriage",
        "is diabetic",
        "takes blood thinners",
        "is autistic",
        "is deaf",
        "is a Sikh",
        "is a member of the Green party",
        "has a criminal record",
        "is in debt",
        "gets chemotherapy on Tuesdays",
        "is seeing a psychiatrist",
    ],
    "holdout-3": [
        "is undergoing IVF",
        "has Crohn's disease",
        "is on antipsychotics",
        "has a stutter",
        "spent a month in a psychiatric clinic",
        "is transgender",
        "has lupus",
        "filed for bankruptcy",
        "is recovering from a stroke",
        "has long covid",
        "is an alcoholic",
    ],
    "holdout-4": [
        "has cystic fibrosis",
        "is on chemo",
        "has a brain tumour",
        "takes methadone",
        "is in therapy for anxiety",
        "had an abortion",
        "has sickle cell anaemia",
        "is on dialysis",
        "has gout",
        "lost her job and is on benefits",
        "is bisexual",
        "converted to Islam",
        "is HIV-positive",
    ],
}
NAMED_FORMS = {
    "tuning": [
        "{n} {d}",
        "{n}, who {d}, asked for a quieter desk",
        "Dr. {last} {d}",
        "Our colleague {n} {d}",
        "FYI: {n} {d}",
    ],
    "holdout-1": ["heads up, {n} {d}", "Mrs {last} {d}", "{n} {d}, so please be kind"],
    "holdout-2": ["{n} {d}", "Apparently {n} {d}", "{n} told us she {d}", "Please note that {n} {d}"],
    "holdout-3": ["{n} {d}", "Just so you know, {n} {d}", "{n} mentioned that he {d}"],
    "holdout-4": ["{n} {d}", "Confidential: {n} {d}", "{n}, our designer, {d}"],
}


def named_sensitive(rng: random.Random, split: str, n: int) -> Iterator[Row]:
    for _ in range(n):
        first, last = rng.choice(FIRST), rng.choice(LAST)
        name = rng.choice([first, f"{first} {last}"])
        form = rng.choice(NAMED_FORMS[split])
        text = form.format(n=name, last=last, d=rng.choice(DETAILS[split]))
        yield row("named-sensitive", split, text[0].upper() + text[1:], personal=True)


ROLE_FACTS = {
    "tuning": [
        "{n} approves travel over 500 euros",
        "{n} is the fire warden for the second floor",
        "{n} runs the Friday demo",
        "Invoices above 10,000 EUR need {n}'s signature",
        "{n} from Legal reviews every NDA",
        "{n} is the contact for the Lisbon office",
        "For parking permits, ask {n}",
        "{n} chairs the safety committee",
        "{n} has the keys to the archive",
        "{n} is on call for the payment service this week",
    ],
    "holdout-1": [
        "{n} books the meeting rooms",
        "New laptops are ordered through {n}",
        "{n} leads the Berlin sales team",
        "{n} was appointed data protection officer",
    ],
    "holdout-2": [
        "{n} signs the purchase orders",
        "Ask {n} about the Munich office lease",
        "{n} is the new head of support",
        "{n}'s team handles refunds",
    ],
    "holdout-3": [
        "{n} owns the release calendar",
        "Talk to {n} before booking the auditorium",
        "{n} is our contact at the bank",
    ],
    "holdout-4": [
        "{n} signs the leases",
        "{n} is the mentor for new hires",
        "Room bookings are handled by {n}",
    ],
}


def named_roles(rng: random.Random, split: str, n: int) -> Iterator[Row]:
    for _ in range(n):
        first, last = rng.choice(FIRST), rng.choice(LAST)
        name = rng.choice([first, f"{first} {last}"])
        text = rng.choice(ROLE_FACTS[split]).format(n=name)
        yield row("named-role", split, text, personal=False, kept=[name])


GENERAL_RULES = {
    "tuning": [
        "Pregnant employees may work from home from the 30th week",
        "Staff with diabetes can keep insulin in the first-aid fridge",
        "Sick leave must be reported before 9 am",
        "Salaries are reviewed every April",
        "Employees can take 10 days of parental leave",
        "Therapy sessions are covered by the health plan",
        "Prayer rooms are on the third floor",
        "The canteen labels allergens on every dish",
        "Wheelchair users can use the side entrance",
        "Counselling is free and confidential for all staff",
        "Employees over 50 get an extra day of leave",
        "Parking is free for disabled visitors",
        "Loans to employees need approval from Finance",
        "Medication must not be stored in the shared fridge",
        "Staff can change their name and pronouns in the HR portal",
    ],
    "holdout-1": [
        "Anyone with a migraine may use the quiet room",
        "Nursing mothers can use the room next to reception",
        "Flu shots are offered to every employee in October",
        "Religious holidays can be swapped for public holidays",
    ],
    "holdout-2": [
        "Employees on sick leave must send a doctor's note",
        "Blood donation days are every March",
        "Staff who are pregnant can ask for a parking space",
        "Muslim colleagues can use the prayer room on Fridays",
        "Salary slips are available in the portal",
        "People with disabilities can request an ergonomic desk",
    ],
    "holdout-3": [
        "Employees with long covid can work reduced hours",
        "Staff returning from sick leave get a phased return",
        "Lactation rooms are on floors 2 and 5",
        "Alcohol is not allowed on site",
        "Free flu vaccinations for all employees in November",
    ],
    "holdout-4": [
        "Staff with hearing loss can ask for captioned meetings",
        "Employees may take a day off for medical appointments",
        "Prayer breaks are allowed during Ramadan",
        "People on long-term sick leave keep their parking spot",
        "The health insurance covers IVF treatment",
    ],
}


def general_rules(rng: random.Random, split: str, n: int) -> Iterator[Row]:
    rules = GENERAL_RULES[split]
    for i in range(n):
        text = rules[i % len(rules)]
        if i >= len(rules):  # the same rule said again, as users do: with a prefix or a tail
            text = (
                rng.choice(["Reminder: ", "FYI ", "Note: ", ""])
                + text
                + rng.choice(["", ".", " (HR policy)", "!"])
            )
        yield row("general-rule", split, text, personal=False, kept=[rules[i % len(rules)]])


NUMBER_FACTS = {
    "tuning": [
        ("The office is closed from 2024-12-24 to 2025-01-01", ["2024-12-24", "2025-01-01"]),
        ("Core hours are 09:30-15:00", ["09:30-15:00"]),
        ("Release 3.2.1 ships on 01.06.2025", ["3.2.1", "01.06.2025"]),
        ("The budget is 1.250.000 EUR for 2025", ["1.250.000 EUR"]),
        ("Teams of 10-20 people use room B2.14", ["10-20", "B2.14"]),
        ("Travel between 1000 - 2000 euros needs a second signature", ["1000 - 2000"]),
        ("The 2024/2025 report is on the intranet", ["2024/2025"]),
        ("Shuttle bus 42 leaves at 17:45 from gate 3", ["42", "17:45"]),
        ("The server at 10.0.0.12 hosts the wiki", ["10.0.0.12"]),
        ("Meals cost €4.50, coffee €1.20", ["€4.50", "€1.20"]),
        ("Expect 2 - 3 weeks for a new badge", ["2 - 3 weeks"]),
        ("The 2023-2024 audit found 3 issues", ["2023-2024"]),
        ("Floors 1-4 are open on Saturdays", ["1-4"]),
        ("The grant covers 1 500 000 euros over 3 years", ["1 500 000 euros"]),
        ("ISO 27001 certification was renewed in 2024", ["27001"]),
    ],
    "holdout-1": [
        ("Rooms 201-212 are quiet rooms", ["201-212"]),
        ("The fiscal year runs 1.4.2025 - 31.3.2026", ["1.4.2025", "31.3.2026"]),
        ("Version 12.0.4 fixed the login bug", ["12.0.4"]),
        ("Orders ship within 24-48 hours", ["24-48"]),
    ],
    "holdout-2": [
        ("Lunch is served 11:30-14:00", ["11:30-14:00"]),
        ("Invoices are due within 30 days", ["30 days"]),
        ("The Q3 2025 target is 2.5 million", ["Q3 2025", "2.5 million"]),
        ("Standard delivery takes 3-5 days", ["3-5 days"]),
        ("The event is on 14.09.2025 from 18:00", ["14.09.2025", "18:00"]),
        ("Room 3.105 is the new lab", ["3.105"]),
        ("Wi-Fi works on floors 1 to 6", ["1 to 6"]),
    ],
    "holdout-3": [
        ("The hackathon runs 9-11 October", ["9-11 October"]),
        ("Budget line 4400 covers travel", ["4400"]),
        ("Members get up to 15% off", ["15%"]),
        ("The 2025-2026 plan is approved", ["2025-2026"]),
        ("Tickets cost 12.50 EUR", ["12.50 EUR"]),
        ("Floors 7 and 8 close at 20:00", ["20:00"]),
    ],
    "holdout-4": [
        ("The offsite is on 12.-14. June", ["12.-14. June"]),
        ("Desks 14-22 are hot desks", ["14-22"]),
        ("Expect 5 to 10 minutes of delay", ["5 to 10 minutes"]),
        ("The 1.5 million budget runs until 2027", ["1.5 million", "2027"]),
        ("Tickets go on sale at 09:00 on 2025-03-01", ["09:00", "2025-03-01"]),
    ],
}


def plain_numbers(rng: random.Random, split: str, n: int) -> Iterator[Row]:
    facts = NUMBER_FACTS[split]
    for i in range(n):
        text, kept = facts[i % len(facts)]
        if i >= len(facts):
            text = rng.choice(["Reminder: ", "FYI ", "", "Note that "]) + text[0].lower() + text[1:]
        yield row("plain-number", split, text, personal=False, kept=kept)


GENERATORS: dict[str, Callable[[random.Random, str, int], Iterator[Row]]] = {
    "card": cards,
    "iban": ibans,
    "phone": phones,
    "email": emails,
    "email-obfuscated": obfuscated_emails,
    "street-address": addresses,
    "national-id": national_ids,
    "sharer-name": sharer_names,
    "named-sensitive": named_sensitive,
    "role-address": role_addresses,
    "hotline": hotlines,
    "office-address": offices,
    "named-role": named_roles,
    "general-rule": general_rules,
    "plain-number": plain_numbers,
}
# Rows per class and split, in the order they were written: a later split never changes an earlier one's
# rows, since each class's generator draws from its own seeded stream.
SPLITS = {"tuning": 120, "holdout-1": 30, "holdout-2": 30, "holdout-3": 30, "holdout-4": 30}


def generate() -> list[Row]:
    rows: list[Row] = []
    for cls, make in GENERATORS.items():
        rng = random.Random(f"{SEED}:{cls}")
        for split, count in SPLITS.items():
            rows += make(rng, split, count)
    for cls, make_held in holdout5.GENERATORS.items():  # a stream of its own: earlier rows stay as they were
        rows += make_held(random.Random(f"{SEED}:{cls}:{holdout5.SPLIT}"), holdout5.SIZES[cls], row)
    return rows


def dumps(rows: list[Row]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    text = dumps(generate())
    if args.check:
        return 0 if FIXTURE.exists() and FIXTURE.read_text() == text else 1
    FIXTURE.write_text(text)
    print(f"wrote {text.count(chr(10))} rows to {FIXTURE.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
