"""Held-out batch 5 of the de-identification set: a named person's sensitive detail in varied sentence
structures and vocabulary, and facts that must stay published although they name a person in a role or
use a sensitive word in a rule about people in general.

Written (templates, vocabulary, names) before the rules of this round were changed, and committed before
them, so the figures bench/gate_deid.py reports for it measure text the rules were not fitted to. Its
names, detail words and sentence shapes are new: none of the earlier batches' (bench/gate_deid_set.py)
is reused. The details cover the special categories of personal data (health, genetics, sex life and
orientation, gender identity, religion and belief, ethnic origin, political opinion, union membership),
criminal records, immigration status and money.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from typing import Any

SPLIT = "holdout-5"
Row = dict[str, Any]
RowFactory = Callable[..., Row]

FIRST = [
    "Siobhan",
    "Oksana",
    "Thabo",
    "Xiaoling",
    "Giulia",
    "Mehmet",
    "Anneke",
    "Raj",
    "Zainab",
    "Pedro",
    "Ewa",
    "Kwame",
    "Ines",
    "Sven",
    "Leila",
    "Ciaran",
    "Nadia",
    "Viktor",
    "Aiko",
    "Bartek",
    "Marisol",
    "Dmitri",
    "Femi",
    "Astrid",
]
LAST = [
    "O'Brien",
    "Nguyen",
    "Abebe",
    "Kaur",
    "Dubois",
    "Jankowski",
    "Ferreira",
    "Hughes",
    "Mwangi",
    "Lindgren",
    "Öztürk",
    "Papadopoulos",
    "MacLeod",
    "Sato",
    "Herrera",
    "Smith-Jones",
    "van der Berg",
    "Quinn",
]

# What a person writes after someone's name: the detail as a verb phrase.
DETAILS = [
    # health: conditions, treatments, procedures
    "has leukaemia",
    "has multiple sclerosis",
    "has Parkinson's",
    "has been diagnosed with endometriosis",
    "was diagnosed with prostate cancer in the spring",
    "has shingles",
    "has glaucoma and cannot drive at night",
    "has psoriasis",
    "has a heart condition",
    "has coeliac disease",
    "has haemophilia",
    "has tinnitus",
    "has kidney stones",
    "has hepatitis C",
    "has a pacemaker",
    "has arthritis in both hands",
    "has fibromyalgia",
    "has chronic fatigue syndrome",
    "has tuberculosis",
    "had a melanoma removed",
    "has a stomach ulcer",
    "has sleep apnoea",
    "is recovering from a heart attack",
    "is being treated for a thyroid problem",
    "is waiting for a hip replacement",
    "had a mastectomy",
    "is having a hysterectomy next month",
    "is in remission",
    "had a seizure in the office",
    "fainted because of low blood sugar",
    "is on steroids for her back",
    "takes lithium",
    "is on beta blockers",
    "wears an insulin pump",
    "needs a kidney transplant",
    "carries the BRCA gene",
    "tested positive for Huntington's",
    "has a rare genetic disorder",
    "is on immunosuppressants after the transplant",
    "got the results of her biopsy",
    # mental health and addiction
    "has PTSD from the army",
    "has OCD",
    "suffers from panic attacks",
    "has an eating disorder",
    "was sectioned last year",
    "self-harms",
    "attempted suicide in 2022",
    "is burnt out and signed off work",
    "has schizophrenia",
    "sees a counsellor every week",
    "is being treated for depression",
    "has severe social anxiety",
    "has early-onset dementia",
    "is a recovering addict",
    "goes to AA meetings",
    "has a gambling problem",
    "failed a drug test",
    # disability
    "is partially sighted",
    "uses a wheelchair",
    "is hard of hearing",
    "has dyslexia",
    "is on the autism spectrum",
    "has a learning disability",
    # pregnancy, fertility, sexual health
    "is twelve weeks pregnant",
    "is trying for a baby",
    "is having fertility treatment",
    "is going through the menopause",
    "had a stillbirth",
    "froze her eggs",
    "has chlamydia",
    "is infertile",
    # sex life, orientation, gender identity
    "is a lesbian",
    "came out as gay last year",
    "is trans and transitioning this summer",
    "is non-binary",
    "is dating someone in Finance",
    "is having an affair",
    "is asexual",
    "came out as bi",
    # religion and belief, ethnic origin
    "converted to Catholicism",
    "became a Buddhist",
    "is a Jehovah's Witness and refuses blood transfusions",
    "is an atheist",
    "fasts during Ramadan",
    "is Hindu",
    "left the church",
    "is a Mormon",
    "is an Orthodox Jew",
    "is Roma",
    "is of Kurdish origin",
    # political opinion, union membership
    "is a member of the Communist Party",
    "voted Leave",
    "campaigns for the far right",
    "donates to the Labour party",
    "was an activist with Extinction Rebellion",
    "is a union member",
    "joined the union last month",
    "is a shop steward for Unite",
    "is in the IG Metall union",
    # criminal records
    "has a conviction for drink driving",
    "was arrested last weekend",
    "served two years in prison",
    "is on probation",
    "is under investigation for fraud",
    "was charged with assault",
    "has a suspended sentence",
    "was fined for shoplifting",
    # immigration status
    "is an undocumented migrant",
    "is here on a refugee visa",
    "has no right to work here",
    "overstayed her visa",
    "applied for asylum",
    "is still waiting for a residence permit",
    "came here as a refugee from Syria",
    # money
    "earns 64k",
    "has a salary of 120,000 dollars",
    "is paid 4,200 a month",
    "is behind on rent",
    "has payday loans",
    "had her car repossessed",
    "has a county court judgment",
    "was declared insolvent",
    "has a terrible credit score",
    "has her wages garnished",
    "has 30,000 in student debt",
    "asked for an advance because she is broke",
]

# What a person writes after "<name>'s": the detail as the subject of its own clause.
POSSESSED = [
    "chemotherapy starts on Monday",
    "cancer has spread",
    "diagnosis is bipolar disorder",
    "HIV status must stay private",
    "pregnancy is not public yet",
    "therapist says she needs rest",
    "psychiatric assessment is next week",
    "asylum claim was refused",
    "visa runs out in June and she may have to leave",
    "criminal record came up in the background check",
    "salary is 95,000",
    "debts are being handled by a court",
    "surgery went well",
    "transition is going well",
    "epilepsy medication makes her tired",
    "seizures are getting worse",
    "IVF cycle failed",
    "conviction was overturned",
    "union dues are taken from payroll",
    "drinking is getting out of hand",
    "tumour is benign",
    "blood test showed diabetes",
    "miscarriage was last week",
    "stay in rehab ends in May",
    "pay was cut to 3,000 a month",
    "dementia is getting worse",
    "autism assessment came back positive",
    "mental breakdown was in March",
    "biopsy results are due on Friday",
    "work permit was revoked",
]

# Sentence shapes around a name and a verb-phrase detail; {p} is a pronoun.
VERB_FORMS = [
    "{n} {d}",
    "{n}, our new intern, {d}",
    "{n}, who sits next to me, {d}",
    "{n} from the warehouse {d}",
    "{n} in accounts {d}",
    "{n} (marketing) {d}",
    "{n} - the new hire - {d}",
    "I heard {n} {d}",
    "Between you and me, {n} {d}",
    "Keep this quiet: {n} {d}",
    "{n} confided that {p} {d}",
    "{n} says {p} {d}",
    "Turns out {n} {d}",
    "Did you know {n} {d}?",
    "{n} apparently {d}",
    "{n} probably {d}",
    "The colleague who {d} is {n}",
    "About {n}: {p} {d}",
    "{n} told HR that {p} {d}",
    "Not for the newsletter: {n} {d}",
]
POSSESSIVE_FORMS = [
    "{n}'s {x}",
    "Note that {n}'s {x}",
    "FYI {n}'s {x}",
    "{n}'s {x}, so go easy on the deadlines",
]


def _name(rng: random.Random) -> str:
    """A person as a colleague writes them: full name, first name, a title and surname, lower case, a
    chat handle or an account id that has no separator to split on."""
    first, last = rng.choice(FIRST), rng.choice(LAST)
    plain = last.replace("'", "").replace(" ", "").replace("-", "").lower()
    return rng.choice(
        [
            f"{first} {last}",
            f"{first} {last}",
            first,
            first,
            f"{rng.choice(['Mr', 'Ms', 'Dr', 'Prof.'])} {last}",
            f"{first.lower()} {last.lower()}",
            first.lower(),
            f"@{first.lower()}.{plain}",
            f"@{first.lower()}",
            f"{first[0].lower()}{plain}",
            f"{first.lower()}{plain[0]}",
        ]
    )


def _sentence(form: str, **values: str) -> str:
    """A sentence starts with a capital, unless it starts with the name as the writer spelled it."""
    text = form.format(**values)
    return text if text.startswith(values["n"]) else text[0].upper() + text[1:]


def named_sensitive(rng: random.Random, n: int, row: RowFactory) -> Iterator[Row]:
    for i in range(n):
        name, pronoun = _name(rng), rng.choice(["she", "he"])
        if i % 5 == 4:
            text = _sentence(rng.choice(POSSESSIVE_FORMS), n=name, x=rng.choice(POSSESSED))
        else:
            text = _sentence(rng.choice(VERB_FORMS), n=name, d=rng.choice(DETAILS), p=pronoun)
        yield row("named-sensitive", SPLIT, text, personal=True)


# Named people in an organisational role, many next to a word that is sensitive elsewhere.
ROLE_FACTS = [
    "{n} runs the first-aid course",
    "{n} organises the blood donation day",
    "{n} is our mental health first aider",
    "{n}, the HR partner, answers questions about maternity leave",
    "Questions about sick pay go to {n}",
    "{n} chairs the LGBTQ+ network",
    "{n} leads the network for disabled staff",
    "{n} approves salary advances",
    "{n} processes the payroll on the 25th",
    "{n} handles visa sponsorship for new hires",
    "{n} from Legal checks the criminal record certificates of new drivers",
    "{n} manages the prayer room bookings",
    "{n} is the contact for the pension scheme",
    "{n} gives the diabetes awareness talk on Thursday",
    "{n} coordinates the flu vaccination day",
    "{n} wrote the new policy on fertility leave",
    "{n}, our occupational health nurse, sees staff on Tuesdays",
    "{n} is the safeguarding lead",
    "Ask {n} for the ergonomic chair form",
    "{n} has the keys to the medicine cabinet",
    "{n} teaches the Tuesday yoga class",
    "{n} is the fire marshal and first aider on floor 3",
    "{n} is our contact at the immigration lawyers",
    "{n} signs off on workplace adjustments for disabilities",
    "{n}, who manages payroll, sends out the salary slips",
    "{n}, our benefits lead, explains the health insurance on Monday",
    "{n} is hosting the Pride month quiz",
    "{n} is the new head of diversity and inclusion",
    "{n} leads the wellbeing programme",
    "{n} presents the results of the salary survey",
    "{n} was appointed treasurer of the social club",
    "{n} collects donations for the cancer charity run",
    "The union's questions about the new rota go to {n} in HR",
    "{n} books the interpreters for deaf visitors",
    "{n} is the named contact for whistleblowing reports",
]


def named_roles(rng: random.Random, n: int, row: RowFactory) -> Iterator[Row]:
    for i in range(n):
        name = _name(rng) if i % 4 else f"{rng.choice(FIRST)} {rng.choice(LAST)}"
        text = _sentence(ROLE_FACTS[i % len(ROLE_FACTS)], n=name)
        yield row("named-role", SPLIT, text, personal=False, kept=[name])


# Rules about people in general: sensitive words, nobody in particular.
GENERAL_RULES = [
    "Employees with diabetes may take extra breaks",
    "Staff with epilepsy can ask for a risk assessment of their workstation",
    "Anyone who is pregnant can ask for a risk assessment",
    "Colleagues going through IVF get five days of paid leave",
    "People with a criminal record can still apply for most roles",
    "Union members can attend union meetings during working hours",
    "Employees on a work visa must renew it 60 days before it expires",
    "Employees can swap public holidays for their own religious festivals",
    "Trans employees can update their name in every system",
    "Salaries are paid on the last working day of the month",
    "Salary advances are limited to one month's pay",
    "Those who fast during Ramadan may start and finish earlier",
    "Anyone having chemotherapy may work from home",
    "Workers with a disability get an extra day of leave",
    "Employees with cancer are protected from dismissal",
    "Mental health days do not need a doctor's note",
    "Staff can get free HIV tests at the health fair",
    "Menopause support is available through occupational health",
    "A doctor's certificate is needed after three days of illness",
    "Anyone who feels burnt out can speak to the counsellor",
    "Refugees on the internship programme get a language course",
    "New fathers get four weeks of paternity leave",
    "Staff in debt can get free advice from the money helpline",
    "Employees who are arrested must inform HR within 24 hours",
    "Everyone with a heart condition should skip the stairs challenge",
    "The quiet room can be used by anyone having a panic attack",
    "Pregnant staff should not lift boxes over 10 kilos",
    "Colleagues with hearing aids can sit at the front",
    "Our health plan covers therapy for depression and anxiety",
    "Gender-neutral toilets are on every floor",
    "Political campaigning is not allowed in the office",
    "The union has a noticeboard next to the canteen",
    "All drivers need a clean criminal record check",
    "Vaccination records are kept by occupational health only",
    "Sick notes go to HR, not to your manager",
    "The company matches donations to cancer charities",
    "Staff taking antidepressants do not need to tell their manager",
    "Those with a gluten intolerance can order a special meal",
    "Anyone with asthma should keep an inhaler at their desk",
    "People recovering from surgery can ask for a phased return",
]


def general_rules(rng: random.Random, n: int, row: RowFactory) -> Iterator[Row]:
    for i in range(n):
        rule = GENERAL_RULES[i % len(GENERAL_RULES)]
        text = rule
        if i >= len(GENERAL_RULES):  # said again as people do: with a prefix or a tail
            text = rng.choice(["Reminder: ", "Per HR, ", "Note: ", ""]) + text
            text += rng.choice(["", ".", " (see the handbook)"])
        if i >= 2 * len(GENERAL_RULES):  # and typed in a chat, all lower case
            text, rule = text.lower(), rule.lower()
        yield row("general-rule", SPLIT, text, personal=False, kept=[rule])


# Shareable facts that name a sharer whose id has no separator to split on.
SHARER_FACTS = [
    "{m} renews the software licences in January",
    "Parcels for the team are collected by {m}",
    "{m} keeps the spare monitor cables",
    "Ask {m} before changing the build pipeline",
    "{m} is the owner of the release checklist",
]


def sharer_names(rng: random.Random, n: int, row: RowFactory) -> Iterator[Row]:
    for i in range(n):
        first, last = rng.choice(FIRST), rng.choice(LAST)
        plain = last.replace("'", "").replace(" ", "").replace("-", "").lower()
        # each id with the mentions it can be told from: its surname, or its first name
        uid, said = [
            (f"{first[0].lower()}{plain}", rng.choice([f"{first} {last}", f"{first[0]}. {last}"])),
            (f"{first.lower()}{plain[0]}", rng.choice([f"{first} {last}", first, f"{first} {last[0]}."])),
            (f"{first.lower()}{plain}", rng.choice([f"{first} {last}", first])),
        ][i % 3]
        text = SHARER_FACTS[i % len(SHARER_FACTS)].format(m=said)
        gone = [w for w in (first, last) if w in text]
        yield row("sharer-name", SPLIT, text, personal=False, gone=gone, subjects=[uid])


SIZES = {"named-sensitive": 300, "named-role": 105, "general-rule": 120, "sharer-name": 60}
GENERATORS: dict[str, Callable[[random.Random, int, RowFactory], Iterator[Row]]] = {
    "named-sensitive": named_sensitive,
    "named-role": named_roles,
    "general-rule": general_rules,
    "sharer-name": sharer_names,
}
