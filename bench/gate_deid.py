"""The shared-write gate's de-identification, measured per class on a labelled set of generated sentences.

tests/fixtures/gate/deid_bench.jsonl (written by bench/gate_deid_set.py, seeded) holds sentences of
each class of personal data (cards, IBANs, phones, plain and obfuscated e-mail addresses, street
addresses, national ids, sharers' names in every id form, other people's names with a sensitive detail)
and of facts that must stay published (organisations' role addresses, hotlines and office addresses,
people named in a role, rules about people in general, ordinary numbers). For each row:

- personal: `is_personal(text)` must equal the label;
- scrubbed: after `deidentify(text, subjects, keep_organisational=True)`, none of the row's `gone`
  values survives (no six digits of a number in a row, no word of three or more letters of a name or
  address) and every `kept` value does.

Recall of a personal class is the share of its rows flagged (and scrubbed); for a class that must stay,
the share kept. Precision of `is_personal` is over the whole set. Writes the `gate-deid` section of
docs/benchmarks.md.

    python bench/gate_deid.py [--no-write]
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gate_deid_set import FIXTURE, PERSONAL_CLASSES, STAY_CLASSES
from report import machine_line, table, write_section
from tinymemory.policy.gate.deid import deidentify, is_personal, personal_reason
from tinymemory.policy.gate.deid.text import normalise

EXAMPLES = 4
TARGET_RECALL, TARGET_PRECISION = 1.00, 0.95
EARLIER = (
    "tuning",
    "holdout-1",
    "holdout-2",
    "holdout-3",
)  # the rules of the first round were fixed on these
BATCH4 = "holdout-4"  # held out in the first round (named-sensitive 0.53); tuned the second
TUNING = (*EARLIER, BATCH4)  # every row the rules were fixed on
HONEST = "holdout-5"  # written and committed before the second round's rules; measured once, after them
HISTORY = (
    "How the rules got here, batch by batch (each batch other templates and values, run once before any "
    "fix it led to). `tuning` (120 rows a class), written with the rules: French phone numbers written "
    'with dots were taken for dates, the plural "migraines" was no health word, "FYI Parking is free '
    'for disabled visitors" read as a named person. `holdout-1`: named-sensitive 0.80 ("is expecting a '
    'baby"), phone 0.97 (the dotted form again). `holdout-2`: phone 0.87 ("emergency contact:" read as '
    'an organisation\'s emergency line), named-sensitive 0.70 ("blood thinners", "a criminal record", '
    '"deaf"). `holdout-3`: street-address 0.73 ("Return the ladder to ..." read as a returns '
    "department's address), named-sensitive 0.27 (lupus, a stutter, long covid, a stroke, "
    '"filed for bankruptcy"). `holdout-4`, written after that round\'s rules were frozen: every class '
    '1.00 but named-sensitive 0.53 (a phrase between the name and its verb, "Bruno, our designer, has a '
    'brain tumour"; words outside the list: gout, sickle cell anaemia, "converted to Islam"). The second '
    "round replaced the word list and the name-next-to-its-verb rule: a name is found by sentence "
    "structure (appositives, relative clauses, brackets, places and adverbs between a subject and its "
    "verb; possessives; passive forms; chat handles; lower-case names and ids as subjects), a detail by "
    "general forms of each special category (medical suffixes, drug endings and classes, frames such as "
    '"was diagnosed with", "is on" a bare noun, "has" a bare noun ending the clause, "converted to", '
    '"came out as"), and a role holder\'s organisational act keeps its sensitive words shareable '
    '("Dana Lee runs the first-aid course"). Batches `tuning` to `holdout-4` and the unit tests '
    "(tests/test_gate_deid*.py) tuned those rules (so batch 4's column is a tuning figure now). "
    "`holdout-5` (bench/gate_deid_holdout5.py: named "
    "people's details in 24 sentence shapes and 9 name forms, with 126 details and 30 possessed ones "
    "across every special category, none of them from an earlier batch; people in roles next to "
    "sensitive words; rules about people in general; sharers whose ids cannot be split) was written and "
    "committed before any of the second round's rules, and measured once after they were frozen: its "
    "columns are the honest figures. The same person wrote batch 5 and the rules, so the rules may know "
    "its sentence shapes and role verbs better than a stranger's text (its named-role figure is likely "
    "the more optimistic one); words and phrasings taken from its sentences were left out of the rules "
    "on purpose. Target: 1.00 on every personal class, at least 0.95 on every class that stays. For "
    "comparison, the rules before this benchmark (commit db2224c) on the rows of the first four batches: "
    "card 0.46, IBAN 0.69, obfuscated e-mail 0.06, street address 0.57, national id 0.79, named-sensitive "
    "0.07 flagged personal; sharers' names scrubbed in 0.20 of their rows; precision 0.979."
)
# What keeps batch 5 below the target, from its misses as measured (the rules frozen): written once, here.
BOUNDS = (
    "What bounds `holdout-5`. Of its 42 missed named-sensitive rows, 36 name the person in a way the "
    "rules find (capitalised, lower-case, a handle, an id, with appositives and dashes between) but say "
    "the detail in words outside the rules' forms: a stomach ulcer, remission, haemophilia, a hip "
    'replacement, "fainted because of low blood sugar", "was sectioned", "partially sighted", "is trying '
    'for a baby", "failed a drug test", "drinking is getting out of hand", "a county court judgment", '
    '"pay was cut", "no right to work", "fined for shoplifting", "a shop steward", a Mormon, Roma. 21 of '
    "those 36 are phrasings the rules' author knew from writing batch 5 and kept out of the rules for that "
    "reason (shoplifting, Mormon, shop steward, partially sighted, right to work, pay was cut, trying for a "
    "baby, low blood sugar, drug test). 6 are shapes the rules do not read: a lower-case name ending a "
    'sentence that describes the person first ("The colleague who is a lesbian is thabo smith-jones": a '
    "lower-case word counts as a name only where a subject stands), a lower-case name after a preposition "
    '("About astridh: she was sectioned"), and a hyphenated verb after one ("Did you know marisol '
    'self-harms?"). Of 105 people in roles, 5 were held back: "has the keys to the medicine cabinet" (3: '
    '"has" is no organisational act and "medicine" is a health word), a handle asked for ("Questions '
    'about sick pay go to @viktor") and a lower-case surname taken for a verb ("viktor dubois approves '
    'salary advances"). Every rule about people in general and every sharer with an id that cannot be '
    "split came out right. Rules made of word forms will not reach 1.00 on text they have not seen: "
    "every batch brings a named condition, a denomination or an offence no general form covers, while "
    "the structural rules now find the name whatever stands around it (batch 4's shape misses are gone)."
)
ADVERSARIAL = [("1 ", 50000), ("a@", 50000), ("a dot ", 20000), ("Aa is ", 20000), ("4111 ", 25000)]


@dataclass(frozen=True)
class Outcome:
    row: dict[str, object]
    flagged: bool
    out: str
    leaked: tuple[str, ...]
    lost: tuple[str, ...]

    @property
    def cls(self) -> str:
        return str(self.row["class"])

    @property
    def split(self) -> str:
        return str(self.row["split"])

    @property
    def personal_right(self) -> bool:
        return self.flagged == bool(self.row["personal"])

    @property
    def scrub_right(self) -> bool:
        return not self.leaked and not self.lost


def load_rows() -> list[dict[str, object]]:
    return [json.loads(line) for line in FIXTURE.read_text().splitlines() if line.strip()]


def _digits(s: str) -> str:
    return re.sub(r"[^0-9]", "", s)


def _words(s: str) -> set[str]:
    return {w.casefold() for w in re.findall(r"[^\W_]+", s)}


def leaks(value: str, out: str) -> bool:
    """Whether anything of `value` survives in `out`: six digits of it in a row, or a word of it."""
    value = normalise(value)
    number = _digits(value)
    if len(number) >= 6:
        kept = _digits(out)
        if any(number[i : i + 6] in kept for i in range(len(number) - 5)):
            return True
    words = _words(out)
    return any(w in words for w in _words(value) if _telling(w, short_number=len(number) < 6))


def _telling(word: str, short_number: bool) -> bool:
    """A word of a value worth looking for: a name or street word, or the house number of an address."""
    if word.isdigit():
        return short_number and len(word) >= 2
    return len(word) >= 3 and not any(c.isdigit() for c in word)


def score(rows: list[dict[str, object]]) -> list[Outcome]:
    outcomes = []
    for r in rows:
        text, subjects = str(r["text"]), [str(s) for s in r["subjects"]]  # type: ignore[attr-defined]
        out = deidentify(text, subjects, keep_organisational=True)
        leaked = tuple(v for v in r["gone"] if leaks(str(v), out))  # type: ignore[attr-defined]
        lost = tuple(v for v in r["kept"] if normalise(str(v)) not in out)  # type: ignore[attr-defined]
        outcomes.append(Outcome(r, is_personal(text), out, leaked, lost))
    return outcomes


@dataclass(frozen=True)
class ClassFigures:
    cls: str
    texts: int
    personal: (
        float  # share with is_personal right: recall for a personal class, kept share for one that stays
    )
    scrubbed: float  # share with every gone value gone and every kept value kept


def per_class(outcomes: list[Outcome], splits: tuple[str, ...] | None = None) -> dict[str, ClassFigures]:
    groups: dict[str, list[Outcome]] = defaultdict(list)
    for o in outcomes:
        if splits is None or o.split in splits:
            groups[o.cls].append(o)
    return {
        cls: ClassFigures(
            cls,
            len(rows),
            sum(o.personal_right for o in rows) / len(rows),
            sum(o.scrub_right for o in rows) / len(rows),
        )
        for cls, rows in groups.items()
    }


def precision(outcomes: list[Outcome]) -> float:
    """Of the texts `is_personal` holds back, the share that are personal."""
    flagged = [o for o in outcomes if o.flagged]
    return sum(bool(o.row["personal"]) for o in flagged) / len(flagged) if flagged else 1.0


def misses(outcomes: list[Outcome]) -> list[Outcome]:
    return [o for o in outcomes if not (o.personal_right and o.scrub_right)]


def _timings(rows: list[dict[str, object]]) -> tuple[float, list[tuple[str, float]]]:
    per_text = []
    for r in rows[::5]:
        started = time.perf_counter()
        deidentify(str(r["text"]), [str(s) for s in r["subjects"]], keep_organisational=True)  # type: ignore[attr-defined]
        is_personal(str(r["text"]))
        per_text.append(time.perf_counter() - started)
    adversarial = []
    for unit, repeats in ADVERSARIAL:
        text = unit * repeats
        started = time.perf_counter()
        deidentify(text, ["dana.lee"], keep_organisational=True)
        is_personal(text)
        adversarial.append((f"`{unit!r} * {repeats}`", time.perf_counter() - started))
    return statistics.median(per_text), adversarial


def _pct(x: float) -> str:
    return f"{x:.2f}"


def _cell(figures: dict[str, ClassFigures], cls: str, field: str) -> str:
    return _pct(getattr(figures[cls], field)) if cls in figures else "–"


def section(rows: list[dict[str, object]], outcomes: list[Outcome]) -> list[str]:
    earlier, batch4 = per_class(outcomes, EARLIER), per_class(outcomes, (BATCH4,))
    honest = per_class(outcomes, (HONEST,))
    body = []
    for cls in PERSONAL_CLASSES + STAY_CLASSES:
        expected = "personal" if cls in PERSONAL_CLASSES and cls != "sharer-name" else "stays"
        counts = f"{earlier[cls].texts} + {batch4[cls].texts} + {honest[cls].texts if cls in honest else 0}"
        body.append([f"`{cls}`", expected, counts]
                    + [_cell(f, cls, "personal") for f in (earlier, batch4, honest)]
                    + [_cell(f, cls, "scrubbed") for f in (earlier, batch4, honest)])  # fmt: skip
    n_personal = sum(bool(r["personal"]) for r in rows)
    median, adversarial = _timings(rows)
    wrong = misses(outcomes)
    held = [o for o in outcomes if o.split == HONEST]
    held_personal = [o for o in held if o.row["personal"]]
    lines = [
        "## Shared-write gate: de-identification (`bench/gate_deid.py`)",
        "",
        f"{len(rows)} generated sentences (tests/fixtures/gate/deid_bench.jsonl, bench/gate_deid_set.py, "
        f"seeded), {n_personal} personal and {len(rows) - n_personal} that must stay shareable, in "
        f"{len(PERSONAL_CLASSES) + len(STAY_CLASSES)} classes. Each is checked twice: `is_personal` "
        "(a personal fact is never published) and `deidentify(text, sharers, keep_organisational=True)` "
        "(no six digits of a number in a row and no word of a name or address survive; an organisation's "
        "address, line or office, a role holder's name and an ordinary number do). `sharer-name` rows are "
        "shareable facts that name a sharer (id forms `dana.lee`, `dana_lee`, `dana-lee`, `Dana.Lee@acme`, "
        "`DanaLee`, `DANA.LEE`, `lee.dana`, `Dana Lee`, an e-mail id; in batch 5 ids with nothing to split "
        "on: `jsmith`, `karlaw`, `karlaweiss`), so they must stay but lose the name.",
        "",
        HISTORY,
        "",
        table(
            [
                "class",
                "expected",
                f"texts (tuning to holdout-3 + {BATCH4} + {HONEST})",
                "is_personal right, tuning to holdout-3",
                BATCH4,
                f"**{HONEST}**",
                "scrubbed right, tuning to holdout-3",
                BATCH4,
                f"**{HONEST}**",
            ],
            body,
        ),
        "",
        BOUNDS,
        "",
        f"- `is_personal` over all rows: precision {precision(outcomes):.3f} (of the texts held back, the "
        f"share that are personal), recall "
        f"{sum(o.flagged for o in outcomes if o.row['personal']) / n_personal:.3f}. On {HONEST} alone: "
        f"precision {precision(held):.3f}, recall "
        f"{sum(o.flagged for o in held_personal) / max(1, len(held_personal)):.3f}.",
        f"- Time: median {median * 1e6:.0f} µs per sentence for `deidentify` and `is_personal` together; "
        "100 KB adversarial inputs (both calls): "
        + ", ".join(f"{name} {seconds:.2f} s" for name, seconds in adversarial)
        + f". {machine_line()}.",
    ]
    if wrong:
        lines.append(f"- {len(wrong)} rows wrong, the first {min(len(wrong), EXAMPLES * 6)}:")
        for o in wrong[: EXAMPLES * 6]:
            why = []
            if not o.personal_right:
                why.append(f"is_personal {o.flagged} ({personal_reason(str(o.row['text']))})")
            if o.leaked:
                why.append(f"kept {', '.join(o.leaked)}")
            if o.lost:
                why.append(f"scrubbed {', '.join(o.lost)}")
            lines.append(f'  - `{o.cls}`/{o.split}: "{o.row["text"]}": {"; ".join(why)} -> "{o.out}"')
    else:
        lines.append("- No row wrong.")
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    rows = load_rows()
    outcomes = score(rows)
    lines = section(rows, outcomes)
    print("\n".join(lines))
    if not args.no_write:
        write_section("gate-deid", "\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
