"""The gate's de-identification: the labelled personal/shareable set, each kind of identifier, the
sharers' own identifiers, and properties over generated text."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from tinymemory.policy.gate.deid import (
    contains_identifier,
    deidentify,
    find_identifiers,
    is_personal,
    personal_reason,
)

PERSONAL = Path(__file__).parent / "fixtures" / "gate" / "personal.jsonl"
ROWS: list[dict[str, object]] = [json.loads(line) for line in PERSONAL.read_text().splitlines() if line]


def test_the_labelled_set_is_large_and_has_both_kinds() -> None:
    assert len(ROWS) >= 80
    personal = sum(bool(r["personal"]) for r in ROWS)
    assert 30 <= personal <= len(ROWS) - 30


@pytest.mark.parametrize("row", ROWS, ids=lambda r: str(r["text"])[:50])
def test_each_labelled_text(row: dict[str, object]) -> None:
    text, personal = str(row["text"]), bool(row["personal"])
    assert is_personal(text) is personal, personal_reason(text)
    assert (personal_reason(text) is not None) is personal


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("My account number is 48213377.", "account number"),
        ("I was diagnosed with type 2 diabetes last year", "first-person health detail"),
        ("My wife is pregnant", "first-person family detail"),
        ("I earn 4,500 euros a month", "first-person finances detail"),
        ("My address is 12 Baker Street, London", "street address of a person"),
        ("My email is jane.doe@gmail.com", "e-mail address of a person"),
        ("Call me on 0151 23456789", "phone number of a person"),
        ("IBAN DE89 3704 0044 0532 0130 00", "bank account number (IBAN)"),
        ("Card 4111 1111 1111 1111", "payment card number"),
        ("SSN 078-05-1120", "government id number"),
        ("The wifi password is Guest2024", "credential"),
        ("The user is allergic to penicillin", "health detail of a person"),
        ("Our son has ADHD", "family detail of a person"),
        ("I like the new canteen", "first-person statement"),
    ],
)
def test_reasons_say_why(text: str, reason: str) -> None:
    assert personal_reason(text) == reason


def test_the_organisational_address_rule() -> None:
    """A role address (help@, support-de@) is the organisation's; any other address is a person's."""
    assert not is_personal("The support e-mail is help@example.com")
    assert not is_personal("German support: support-de@example.com")
    assert is_personal("The support contact is jane.doe@example.com")
    assert not is_personal("Customers must give their account number to support")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Mail jane.doe@gmail.com today", "Mail [email] today"),
        ("Call +49 170 1234567 or (030) 123-4567", "Call [phone] or [phone]"),
        ("Card 4111-1111-1111-1111 on file", "Card [card number] on file"),
        ("IBAN DE89370400440532013000.", "IBAN [iban]."),
        ("Customer number: 99281734", "Customer number: [account number]"),
        ("Order #55123 is late", "Order #[account number] is late"),
        ("She lives at 45 Oak Avenue, Apt 3", "She lives at [address]"),
        ("Send it to Friedrichstraße 12a, Berlin", "Send it to [address], Berlin"),
        ("SSN 078-05-1120", "SSN [id number]"),
        ("My PIN is 4821", "My [credential]"),
    ],
)
def test_deidentify_replaces_each_kind(text: str, expected: str) -> None:
    assert deidentify(text) == expected
    assert contains_identifier(text)
    assert not contains_identifier(expected)


@pytest.mark.parametrize(
    "text",
    [
        "The office closes at 18:00 on 2024-05-01",
        "Refunds within 30 days; orders over 1,000 EUR need approval",
        "The 2023-2024 report and the 01.05.2024 deadline",
        "Opening hours 09:00-17:00, 4-6 business days",
        "Version 2.14.3 ships with 256 MB",
    ],
)
def test_ordinary_numbers_are_not_identifiers(text: str) -> None:
    assert find_identifiers(text) == []
    assert deidentify(text) == text


def test_keep_organisational_keeps_the_fact_and_only_that() -> None:
    text = "Support: help@example.com or +49 30 1234567; escalate to jane.doe@example.com"
    kept = deidentify(text, keep_organisational=True)
    assert kept == "Support: help@example.com or +49 30 1234567; escalate to [email]"
    assert not contains_identifier(kept, keep_organisational=True)
    assert contains_identifier(kept)
    assert deidentify(text) == "Support: [email] or [phone]; escalate to [email]"
    office = "The Berlin office is at Friedrichstraße 120"
    assert deidentify(office, keep_organisational=True) == office
    assert deidentify("I live at Friedrichstraße 120", keep_organisational=True) == "I live at [address]"


def test_the_sharers_identifiers_are_removed() -> None:
    subjects = ["u-4821", "Jane Doe", "jdoe@example.org"]
    text = "u-4821 (Jane Doe, jdoe@example.org) said the office closes at 6; JANE agreed, doe too"
    out = deidentify(text, subjects)
    assert out == "[person] ([person], [email]) said the office closes at 6; [person] agreed, [person] too"
    assert contains_identifier(text, subjects)
    assert not contains_identifier(out, subjects)
    assert deidentify("Annual leave is 25 days", ["Ann"]) == "Annual leave is 25 days", "not inside words"
    assert deidentify(out, subjects) == out, "idempotent"


emails = st.builds(
    lambda local, domain, tld: f"{local}@{domain}.{tld}",
    st.from_regex(r"[a-z][a-z0-9]{0,8}(?:\.[a-z0-9]{1,8})?", fullmatch=True),
    st.from_regex(r"[a-z][a-z0-9-]{0,10}[a-z0-9]", fullmatch=True),
    st.sampled_from(["com", "org", "de", "io", "co.uk"]),
)
_three = st.integers(0, 999)
_four = st.integers(0, 9999)
phones = st.one_of(
    st.builds(lambda cc, area, rest: f"+{cc} {area} {rest}", st.integers(1, 99), st.integers(10, 999),
              st.integers(100000, 99999999)),
    st.builds(lambda a, b, c: f"({a:03d}) {b:03d}-{c:04d}", _three, _three, _four),
    st.builds(lambda a, b: f"0{a} {b}", st.integers(100, 9999), st.integers(100000, 99999999)),
    st.builds(lambda a, b, c: f"{a:03d}-{b:03d}-{c:04d}", st.integers(100, 999), _three, _four),
)  # fmt: skip
subjects = st.lists(
    st.from_regex(r"(?:u-[0-9]{2,6}|[A-Z][a-z]{2,9}(?: [A-Z][a-z]{2,9})?)", fullmatch=True), max_size=3
)


@given(st.text(), st.lists(st.text(max_size=20), max_size=3))
@example("+" * 50 + "1" * 50, [""])
@example("1 " * 200, ["["])
@settings(max_examples=300, deadline=None)
def test_deidentify_never_raises_and_is_idempotent(text: str, given_subjects: list[str]) -> None:
    out = deidentify(text, given_subjects)
    assert isinstance(out, str)
    assert deidentify(out, given_subjects) == out
    is_personal(text)
    contains_identifier(text, given_subjects)


@given(st.text(max_size=40), emails, phones, st.text(max_size=40), subjects)
@settings(max_examples=300, deadline=None)
def test_given_emails_phones_and_subjects_never_survive(
    before: str, email: str, phone: str, after: str, names: list[str]
) -> None:
    text = f"{before} ; write to {email} ; call {phone} ; {' and '.join(names)} ; {after}"
    out = deidentify(text, names)
    assert email not in out
    assert phone not in out
    assert not contains_identifier(out, names)
    assert is_personal(text), "a person's address or number makes the text personal"
