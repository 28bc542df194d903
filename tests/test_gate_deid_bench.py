"""The de-identification benchmark's labelled set, as a regression test: every personal class found and
scrubbed, every fact that must stay kept, on the rows the rules were fixed on; on the held-out batch,
no class below what bench/gate_deid.py measured when the rules were frozen (docs/benchmarks.md)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
from gate_deid import HONEST, TARGET_PRECISION, TARGET_RECALL, TUNING, load_rows, per_class, precision, score
from gate_deid_set import FIXTURE, PERSONAL_CLASSES, STAY_CLASSES, dumps, generate

OUTCOMES = score(load_rows())
# The held-out batch's figures when the rules were frozen: a named person's sensitive detail depends on
# a word list, and the batch has words it lacks. Any other class below 1.00 there is a regression.
HONEST_FLOOR = {"named-sensitive": 0.53}


def test_the_fixture_is_what_the_generator_writes() -> None:
    assert FIXTURE.read_text() == dumps(generate()), "run python bench/gate_deid_set.py"


def test_the_set_has_every_class_and_split() -> None:
    tuning, held = per_class(OUTCOMES, TUNING), per_class(OUTCOMES, (HONEST,))
    for cls in PERSONAL_CLASSES + STAY_CLASSES:
        assert tuning[cls].texts >= 150 and held[cls].texts >= 30, cls


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


@pytest.mark.parametrize("cls", PERSONAL_CLASSES + STAY_CLASSES)
def test_the_held_out_batch_does_not_regress(cls: str) -> None:
    figures = per_class(OUTCOMES, (HONEST,))[cls]
    floor = HONEST_FLOOR.get(cls, TARGET_RECALL if cls in PERSONAL_CLASSES else TARGET_PRECISION)
    assert figures.personal >= floor and figures.scrubbed >= floor, (cls, figures)


def test_what_is_held_back_is_personal() -> None:
    assert precision(OUTCOMES) >= TARGET_PRECISION
