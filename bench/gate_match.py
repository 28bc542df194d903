"""The shared-write gate's "same fact" matcher and personal-fact test, measured on the labelled sets.

For each matcher that can run here (the shipped static-minilm table, the default; full MiniLM when its
weights package is installed; lexical-only word overlap), every pair of tests/fixtures/gate/same_fact.jsonl
is decided at a sweep of thresholds, with the guards and without them. A false merge (a pair labelled
different that the matcher calls the same) would publish a wrong fact, so it is counted apart from a miss
(a paraphrase left unmerged, which only delays publication). The chosen threshold is the lowest with no
false merge; it is what `tinymemory.policy.gate.match` ships. Then `is_personal` on
tests/fixtures/gate/personal.jsonl. Writes the `gate-match` section of docs/benchmarks.md.

    python bench/gate_match.py [--no-write]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from report import table, write_section
from tinymemory.policy.gate.deid import personal_reason
from tinymemory.policy.gate.match import (
    DEFAULT_THRESHOLD,
    LEXICAL_THRESHOLD,
    MEASURED_THRESHOLDS,
    SAFETY_MARGIN,
    FactMatcher,
    facts,
    guard_objection,
    jaccard,
)
from tinymemory.retrieval.embedders import Embedder, MiniLMEmbedder, default_embedder, find_minilm_dir

ROOT = Path(__file__).resolve().parent.parent
SAME_FACT = ROOT / "tests" / "fixtures" / "gate" / "same_fact.jsonl"
PERSONAL = ROOT / "tests" / "fixtures" / "gate" / "personal.jsonl"
SWEEP = [round(0.50 + 0.05 * i, 2) for i in range(10)]
LEXICAL_SWEEP = [round(0.20 + 0.05 * i, 2) for i in range(13)]
EXAMPLES = 6
HOLDOUT = "holdout-2"  # written after the rules were frozen and never used to change them


@dataclass(frozen=True)
class Scored:
    a: str
    b: str
    same: bool
    why: str
    split: str
    exact: bool
    score: float
    objection: str | None

    def merged(self, threshold: float, guards: bool = True) -> bool:
        return self.exact or (self.score >= threshold and (not guards or self.objection is None))


def load_pairs() -> list[dict[str, object]]:
    return [json.loads(line) for line in SAME_FACT.read_text().splitlines() if line.strip()]


def score_pairs(pairs: list[dict[str, object]], similarity: Callable[[str, str], float]) -> list[Scored]:
    out = []
    for p in pairs:
        a, b = str(p["a"]), str(p["b"])
        fa, fb = facts(a), facts(b)
        out.append(
            Scored(
                a,
                b,
                bool(p["same"]),
                str(p["why"]),
                str(p.get("split", "tuning")),
                fa.norm == fb.norm,
                similarity(a, b),
                guard_objection(fa, fb),
            )
        )
    return out


def cosine(embedder: Embedder) -> Callable[[str, str], float]:
    matcher = FactMatcher(embedder)

    def sim(a: str, b: str) -> float:
        va, vb = matcher.vectors([a, b])
        return float(np.dot(va, vb))

    return sim


def lexical(a: str, b: str) -> float:
    return jaccard(facts(a), facts(b))


def errors(rows: list[Scored], threshold: float, guards: bool = True) -> tuple[list[Scored], list[Scored]]:
    false_merges = [r for r in rows if not r.same and r.merged(threshold, guards)]
    misses = [r for r in rows if r.same and not r.merged(threshold, guards)]
    return false_merges, misses


def top_unguarded_negative(rows: list[Scored]) -> float:
    """The highest similarity of a different-fact pair that only the threshold keeps apart."""
    return max((r.score for r in rows if not r.same and not r.exact and r.objection is None), default=0.0)


def chosen_threshold(rows: list[Scored], sweep: list[float]) -> float | None:
    """The lowest threshold of the sweep with no false merge and SAFETY_MARGIN above the most similar
    unguarded different-fact pair: a paraphrase missed costs a delay, a false merge a wrong fact."""
    floor = top_unguarded_negative(rows) + SAFETY_MARGIN
    return next((t for t in sweep if t >= floor - 1e-9 and not errors(rows, t)[0]), None)


def _fmt(value: float | None) -> str:
    return "none" if value is None else f"{value:.2f}"


def example_lines(label: str, rows: list[Scored]) -> list[str]:
    lines = []
    for r in rows[:EXAMPLES]:
        why = r.objection or f"similarity {r.score:.3f}"
        lines.append(f'  - {label} ({r.why}; {why}): "{r.a}" / "{r.b}"')
    if len(rows) > EXAMPLES:
        lines.append(f"  - and {len(rows) - EXAMPLES} more")
    return lines


def matcher_block(name: str, rows: list[Scored], sweep: list[float], shipped: float, kind: str) -> list[str]:
    header = [f"{kind} threshold", "false merges (guards)", "misses (guards)", "false merges (no guards)"]
    body = []
    for t in sweep:
        fm, mi = errors(rows, t)
        fm0, _ = errors(rows, t, guards=False)
        mark = " (shipped)" if abs(t - shipped) < 1e-9 else ""
        body.append([f"{t:.2f}{mark}", str(len(fm)), str(len(mi)), str(len(fm0))])
    tuning = [r for r in rows if r.split != HOLDOUT]
    held = [r for r in rows if r.split == HOLDOUT]
    chosen = chosen_threshold(tuning, sweep)
    safe = next((t for t in sweep if not errors(tuning, t)[0]), None)
    fm, mi = errors(rows, shipped)
    hfm, hmi = errors(held, shipped)
    top_negative = top_unguarded_negative(tuning)
    lines = [
        f"### {name}",
        "",
        table(header, body),
        "",
        f"- Tuning pairs: the most similar different-fact pair no guard stops has {kind} {top_negative:.3f}; "
        f"lowest threshold with no false merge: {_fmt(safe)}; chosen (no false merge and "
        f"{SAFETY_MARGIN:.2f} above that pair): {_fmt(chosen)}; shipped: {shipped:.2f}"
        + ("" if chosen is not None and abs(chosen - shipped) < 1e-9 else " (differs from the chosen one)")
        + ".",
        f"- At the shipped threshold, all {len(rows)} pairs: **{len(fm)} false merges** of "
        f"{sum(not r.same for r in rows)} different-fact pairs, **{len(mi)} misses** of "
        f"{sum(r.same for r in rows)} paraphrases; of them, on the {len(held)} held-out pairs: "
        f"{len(hfm)} false merges, {len(hmi)} misses.",
    ]
    lines += example_lines("false merge", fm) + example_lines("miss", mi)
    return lines


def personal_block() -> list[str]:
    rows = [json.loads(line) for line in PERSONAL.read_text().splitlines() if line.strip()]
    wrong_shared = [r["text"] for r in rows if r["personal"] and personal_reason(r["text"]) is None]
    wrong_held = [r["text"] for r in rows if not r["personal"] and personal_reason(r["text"]) is not None]
    n_personal = sum(bool(r["personal"]) for r in rows)
    lines = [
        "### Personal facts (`is_personal`)",
        "",
        f"{len(rows)} labelled texts ({n_personal} personal, {len(rows) - n_personal} shareable, "
        "tests/fixtures/gate/personal.jsonl): "
        f"{len(wrong_shared)} personal facts taken for shareable (would be published), "
        f"{len(wrong_held)} shareable facts held back as personal. The rules were written against this "
        "set (one miss, a heart condition, was fixed), so it shows what they cover rather than how they "
        "generalise. Personal means an identifier of a person or an account, a first-person statement, or "
        'a sensitive detail of a particular person ("the user", "she"); a rule about people in general '
        '("customers must give their account number to support") is shareable, and a role address '
        '("help@", "support-de@") is the organisation\'s.',
    ]
    lines += [f'  - personal taken for shareable: "{t}"' for t in wrong_shared]
    lines += [f'  - shareable held back: "{t}"' for t in wrong_held]
    return lines


LIBRARIES = """### De-identification: libraries tried offline

- presidio-analyzer 2.2.366: installs from the package index with spaCy 3.8, but its default engine
  downloads a spaCy model at start (the models are not published on the package index) and fails without
  network. With a blank spaCy pipeline it runs offline and its pattern recognisers find e-mails, phones
  (through `phonenumbers`), Luhn-checked cards and checksummed IBANs, but no names, addresses or health
  details (those need the model); tldextract tries a network fetch on first use; spaCy and its stack add
  some hundreds of MB. Not adopted.
- scrubadub 2.0.1 (the newest release on the index): offline it replaced e-mails and phone numbers, but
  missed a spaced card number, an IBAN and a street address; its name detection needs NLTK or spaCy data
  that is not on the index; it pulls scikit-learn and scipy. Not adopted.
- Chosen: rules in `tinymemory.policy.gate.deid` (regular expressions, the Luhn and IBAN mod-97 checks
  the libraries also use, small word lists), tested on the labelled set and by property tests; no new
  dependency. A personal fact is never published, so de-identification is the second line, not the only
  one."""


def build_matchers() -> list[tuple[str, Callable[[str, str], float] | None, float, str]]:
    out: list[tuple[str, Callable[[str, str], float] | None, float, str]] = []
    static = default_embedder()
    if static is not None:
        shipped = MEASURED_THRESHOLDS.get(static.name, DEFAULT_THRESHOLD)
        out.append((f"Default embedder `{static.name}` (cosine)", cosine(static), shipped, "cosine"))
    model_dir = find_minilm_dir()
    if model_dir is not None:
        mini = MiniLMEmbedder(model_dir)
        shipped = MEASURED_THRESHOLDS.get(mini.name, DEFAULT_THRESHOLD)
        out.append((f"Full MiniLM `{mini.name}` (cosine)", cosine(mini), shipped, "cosine"))
    out.append(
        (
            "Lexical only, no embedder (Jaccard of normalised content words)",
            None,
            LEXICAL_THRESHOLD,
            "Jaccard",
        )
    )
    return out


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    pairs = load_pairs()
    n_same = sum(bool(p["same"]) for p in pairs)
    lines = [
        "## Shared-write gate: the same fact, personal facts (`bench/gate_match.py`)",
        "",
        f"{len(pairs)} labelled pairs of facts an agent's users share "
        f"(tests/fixtures/gate/same_fact.jsonl): {n_same} paraphrases that must merge (word order, "
        "synonyms, time, number and currency forms, casing, filler) and "
        f"{len(pairs) - n_same} that must not (numbers, antonyms, negation, places and products, weekdays, "
        "a swapped word, unrelated). A pair merges when the normalised texts are equal, or its similarity "
        "reaches the threshold and no guard objects (numbers, negation, contrast classes, names, swapped "
        "or added words). A false merge publishes a wrong fact; a miss only waits for more users.",
        "",
        "The rules and thresholds were tuned on most of the set, so its zeros say little alone. Two batches "
        "were written after the rules were frozen. The first (`holdout-1`, 35 pairs) found 1 false merge "
        'for each embedder and 2 lexically ("prints in colour" / "in black and white", "encrypted" / '
        '"backed up") and a miss ("works from 8 to 4" / "hours are 8 to 4"); the guards were widened '
        '(colours as an enumeration, a swapped verb with its particle, rates compared after "per") and the '
        f"batch joined the tuning pairs. The second (`{HOLDOUT}`) has changed no rule: its figures below "
        "are the honest test.",
        "",
    ]
    for name, sim, shipped, kind in build_matchers():
        rows = score_pairs(pairs, sim or lexical)
        sweep = LEXICAL_SWEEP if sim is None else SWEEP
        block = matcher_block(name, rows, sweep, shipped, kind)
        lines += [*block, ""]
        print("\n".join(block), flush=True)
    personal = personal_block()
    lines += [*personal, "", LIBRARIES]
    print("\n".join(personal))
    if not args.no_write:
        write_section("gate-match", "\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
