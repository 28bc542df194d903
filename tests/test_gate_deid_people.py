"""A named person's sensitive detail in the shapes people write it, and the facts that name a person or a
sensitive word and must stay published (tinymemory.policy.gate.deid: `people`, `sensitive`, `personal`).

The sentences are this file's own (neither the benchmark's batches nor its held-out batch 5): the
shapes of issue 22's misses (a phrase between the name and the verb, possessives, passive forms, a
word outside any list, lower-case names, handles, ids with no separator) and each category of
sensitive detail written with words the rules do not list one by one.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from tinymemory.policy.gate.deid import contains_identifier, deidentify, is_personal, personal_reason


@pytest.mark.parametrize(
    "text",
    [
        # something between the name and its verb
        "Bruno, our designer, has a brain tumour",
        "Tariq, who runs the night shift, has gastritis",
        "Lena (finance) was diagnosed with sarcoidosis",
        "Oscar - the new analyst - is on medication for his heart",
        "Grace from the front desk is on warfarin",
        "Paul in logistics was admitted to hospital last night",
        "Mr Osei, our driver, has epilepsy",
        "Between us, Lucia is pregnant",
        # possessives and passive forms
        "Maya's diagnosis came back as lymphoma",
        "Nico's chemo starts next week",
        "Ruth's surgery is on Friday",
        "Victor Hale's HIV test was positive",
        "Ivan was arrested for fraud in 2019",
        "Ana was convicted of theft",
        "Arjun was sentenced to community service",
        "Hedda was deported last year",
        # the detail before the name
        "The person with the heart condition is Victor Hale",
        # lower-case names, handles, ids that cannot be split
        "frank has gout",
        "fyi omar is on chemo",
        "@frank.miller has a heart condition",
        "@nina was diagnosed with diabetes",
        "jsmith is in rehab",
        "heads up: tkowalski had a stroke",
    ],
)
def test_a_named_persons_detail_in_any_shape_is_personal(text: str) -> None:
    assert is_personal(text), text


@pytest.mark.parametrize(
    ("text", "category"),
    [
        ("Ben has gout", "health"),  # a bare noun that ends the clause after "has"
        ("Eva has a carcinoma on the left arm", "health"),  # -oma
        ("Omar had an appendectomy", "health"),  # -ectomy
        ("Jules has Addison's disease", "health"),
        ("Mila is anaemic", "health"),  # -aemic
        ("Rosa has rheumatoid arthritis", "health"),
        ("Nils is on warfarin and bleeds easily", "health"),  # "is on" and a bare noun
        ("Ines is on sick leave with pneumonia", "health"),
        ("Luis had a hernia operation", "health"),
        ("Theo is on antidepressants", "health"),
        ("Leo is in therapy", "health"),
        ("Zoe is expecting twins", "health"),
        ("Kai is going through IVF", "health"),
        ("Jan has an eating disorder", "health"),
        ("Kim is partially deaf", "health"),
        ("Dora carries a hereditary gene for it", "genetic"),
        ("Pia is gay", "sex life"),
        ("Clara came out as trans", "sex life"),
        ("Remy is transitioning", "gender identity"),
        ("Tom is of Armenian descent", "ethnic origin"),
        ("Hugo converted to Judaism last year", "beliefs"),
        ("Ola is a Sikh", "beliefs"),
        ("Iris is a member of the Socialist party", "political opinion"),
        ("Sam joined the union in May", "union membership"),
        ("Ugo is a trade unionist", "union membership"),
        ("Ivo has a conviction for burglary", "criminal record"),
        ("Ruben is seeking asylum", "immigration status"),
        ("Tess has no residence permit", "immigration status"),
        ("Nora earns 70k a year", "finances"),
        ("Felix is behind on the mortgage", "finances"),
    ],
)
def test_each_category_is_found_from_general_forms(text: str, category: str) -> None:
    assert personal_reason(text) == f"{category} detail of a named person"


@pytest.mark.parametrize(
    "text",
    [
        # a named person in a role, next to a word that is sensitive elsewhere
        "Dana Lee runs the first-aid course",
        "Tariq plans the hearing test day for the factory floor",
        "Lena signs the expense reports for the oncology ward",
        "Oscar is the safety officer for the chemistry lab",
        "Omar was appointed head of the dental clinic",
        "Omar takes care of the vaccination records",
        "Jules presents the results of the staff survey on stress",
        "Clara audits the pension fund every quarter",
        "Maya's team builds the patient records software",
        "For questions about parental leave, talk to Grace",
        "Ask Paul about the cycle-to-work scheme",
        "Expense claims are approved by Ben",
        # rules about people in general
        "Employees with diabetes may take extra breaks",
        "Anyone with epilepsy should tell the first aider",
        "Pregnant staff can park near the entrance",
        "Therapy is covered by the health plan",
        "People on a work visa must carry their permit",
        "Union members meet on Thursdays",
        "The canteen serves halal and kosher meals",
        "The quiet room is for anyone having a migraine",
        "Visitors with a pacemaker must not pass the scanner",
        "parking is free for disabled visitors",
        "overtime is paid at 150 percent",
        "finance approves salary advances",
        "facilities has a first-aid kit with insulin",
        # a name and a verb, nothing sensitive
        "Priya is on call this weekend",
        "Sven is on holiday until Monday",
        "Hana has access to the finance share",
        "Berlin has the largest office",
    ],
)
def test_a_role_or_a_rule_with_a_sensitive_word_stays_shareable(text: str) -> None:
    assert not is_personal(text), personal_reason(text)


def test_a_role_does_not_hide_a_detail_in_the_next_clause() -> None:
    assert not is_personal("Dana runs the first-aid course")
    assert is_personal("Dana runs the first-aid course and has epilepsy")
    assert is_personal("Dana runs the first-aid course; Frank has gout")
    assert is_personal("Dana, who has epilepsy, runs the first-aid course")


@pytest.mark.parametrize(
    ("text", "user_id", "gone"),
    [
        ("John Smith approves the travel budget", "jsmith", ["John", "Smith"]),
        ("J. Smith approves the travel budget", "jsmith", ["Smith"]),
        ("Ask Smith about the travel budget", "jsmith", ["Smith"]),
        ("Karla W. keeps the projector", "karlaw", ["Karla"]),
        ("Karla keeps the projector", "karlaw", ["Karla"]),
        ("Karla Weiss keeps the projector", "karlaw", ["Karla", "Weiss"]),
        ("Karla keeps the projector", "karlaweiss", ["Karla"]),
        ("Anouk van Dijk orders the toner", "anoukvandijk", ["Anouk", "Dijk"]),
        ("Ask Sean O'Neill for a badge", "soneill", ["Sean", "Neill"]),
    ],
)
def test_a_sharer_whose_id_cannot_be_split_loses_the_name_it_is_written_from(
    text: str, user_id: str, gone: list[str]
) -> None:
    out = deidentify(text, [user_id], keep_organisational=True)
    for word in gone:
        assert word not in out, (user_id, out)
    assert "[person]" in out
    assert not contains_identifier(out, [user_id])


def test_an_unsplittable_id_leaves_other_names_and_sentence_openers() -> None:
    assert deidentify("Dana Lee approves the budget", ["jsmith"]) == "Dana Lee approves the budget"
    assert deidentify("The team meets on Mondays", ["theodora"]) == "The team meets on Mondays"


ADVERSARIAL = [  # (unit, repeats): each about 100 KB, aimed at the name and detail scans
    ("Aa, ", 25000),
    ("Aa's ", 20000),
    ("@a ", 35000),
    ("aa has ", 15000),
    ("Aa van ", 15000),
    ("A. ", 35000),
    ("Aa (b) ", 15000),
    ("Aa - b - ", 12000),
    ("has a ", 17000),
    ("so ", 35000),
    ("Ask Aa ", 15000),
    ("Aa runs HIV ", 9000),
    ("Aa has gout ", 9000),
    ("is on chemo ", 9000),
    ("Aa Bb ", 17000),
    ("J. Smith ", 11000),
    ("a.b ", 25000),
    ("a_b.", 25000),
    ("Aa.b has ", 11000),
]


def test_adversarial_names_and_details_finish() -> None:
    """Each input through every public call in a child process: a scan that went quadratic or a pattern
    that backtracked would run past the (generous) timeout."""
    code = (
        "from tinymemory.policy.gate.deid import deidentify, is_personal, contains_identifier\n"
        f"for unit, repeats in {ADVERSARIAL!r}:\n"
        "    text = unit * repeats\n"
        "    deidentify(text, ['Aa.Bb', 'jsmith'])\n"
        "    is_personal(text)\n"
        "    contains_identifier(text, ['jsmith'])\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)
