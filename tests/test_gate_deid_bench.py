"""The de-identification benchmark's labelled set, as a regression test: every personal class found and
scrubbed, every fact that must stay kept, on the rows the rules were fixed on (batches `tuning` to
`holdout-4`); on held-out batch 5, no class below what bench/gate_deid.py measured once the rules were
frozen (docs/benchmarks.md)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
from gate_deid import HONEST, TARGET_PRECISION, TARGET_RECALL, TUNING, load_rows, per_class, precision, score
from gate_deid_holdout5 import SIZES as HELD_OUT_SIZES
from gate_deid_set import FIXTURE, PERSONAL_CLASSES, STAY_CLASSES, dumps, generate

OUTCOMES = score(load_rows())
# Batch 5's figures, measured once after the rules were frozen: 258 of 300 named people's details found
# (the misses are words outside the rules' forms, and lower-case names ending a sentence), 100 of 105
# people in roles kept. Any class below these or the targets there is a regression.
HONEST_FLOOR = {"named-sensitive": 0.86, "named-role": 0.95}


def test_the_fixture_is_what_the_generator_writes() -> None:
    assert FIXTURE.read_text() == dumps(generate()), "run python bench/gate_deid_set.py"


def test_the_set_has_every_class_and_split() -> None:
    tuning, held = per_class(OUTCOMES, TUNING), per_class(OUTCOMES, (HONEST,))
    for cls in PERSONAL_CLASSES + STAY_CLASSES:
        assert tuning[cls].texts >= 150, cls
    assert {cls: f.texts for cls, f in held.items()} == HELD_OUT_SIZES
    assert held["named-sensitive"].texts >= 300


@pytest.mark.parametrize("cls", PERSONAL_CLASSES)
def test_every_personal_class_is_found_and_scrubbed(cls: str) -> None:
    figures = per_class(OUTCOMES, TUNING)[cls]
    wrong = [o.row["text"] for o in OUTCOMES if o.cls == cls and o.split in TUNING and not o.scrub_right]
    wrong += [o.row["text"] for o in OUTCOMES if o.cls == cls and o.split in TUNING and not o.personal_right]
    assert figures.personal >= TARGET_RECALL and figures.scrubbed >= TARGET_RECALL, wrong[:5]


@pytest.mark.parametrize("cls", STAY_CLASSES)
def test_every_fact_that_must_stay_is_kept(cls: str) -> None:
    figures = per_class(OUTCOMES, TUNING)[cls]
    assert figures.personal >= TARGET_PRECISION and figures.scrubbed >= TARGET_PRECISION, cls


@pytest.mark.parametrize("cls", sorted(HELD_OUT_SIZES))
def test_the_held_out_batch_does_not_regress(cls: str) -> None:
    figures = per_class(OUTCOMES, (HONEST,))[cls]
    floor = HONEST_FLOOR.get(cls, TARGET_RECALL if cls in PERSONAL_CLASSES else TARGET_PRECISION)
    assert figures.personal >= floor and figures.scrubbed >= floor, (cls, figures)


def test_what_is_held_back_is_personal() -> None:
    assert precision(OUTCOMES) >= TARGET_PRECISION
