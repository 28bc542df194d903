"""Time hints: which memory a window matches, and a lift that puts it first and never drops anything."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from hypothesis import given
from hypothesis import strategies as st

from tinymemory.api import ItemKind, ItemMeta, MemoryItem, TimeHint
from tinymemory.retrieval.temporal import lift, matches_hint, span_of

DAY = datetime(2024, 5, 8, tzinfo=UTC)
HINT = TimeHint(DAY, DAY + timedelta(days=1))


def mem(
    i: int, observed: datetime, ev_from: datetime | None = None, ev_to: datetime | None = None
) -> MemoryItem:
    meta = ItemMeta(observed_at=observed, event_from=ev_from, event_to=ev_to)
    return MemoryItem(f"m{i}", ItemKind.LEARNING, f"text {i}", meta, None, valid_from=observed)


def test_event_range_wins_over_observed_at() -> None:
    recorded_monday_about_tuesday = mem(1, DAY - timedelta(days=1), DAY + timedelta(hours=9))
    recorded_tuesday_about_sunday = mem(2, DAY + timedelta(hours=1), DAY - timedelta(days=2))
    assert matches_hint(recorded_monday_about_tuesday, HINT)
    assert not matches_hint(recorded_tuesday_about_sunday, HINT)


def test_window_is_half_open_and_ranges_overlap() -> None:
    assert matches_hint(mem(1, DAY), HINT)
    assert not matches_hint(mem(2, HINT.end), HINT)
    spanning = mem(3, DAY, DAY - timedelta(days=3), DAY + timedelta(days=3))
    assert matches_hint(spanning, HINT)
    assert span_of(None, DAY, None) == (DAY, DAY)
    assert span_of(None, None, None) is None


@given(st.lists(st.tuples(st.booleans(), st.floats(0.0, 1.0)), max_size=30))
def test_lift_is_stable_keeps_everything_and_survives_a_sort(rows: list[tuple[bool, float]]) -> None:
    ranked = sorted(enumerate(rows), key=lambda r: -r[1][1])
    out = lift([(key, score) for key, (_, score) in ranked], lambda key: rows[key][0])
    assert sorted(k for k, _ in out) == list(range(len(rows)))
    inside = [k for k, (f, _) in ranked if f]
    assert [k for k, _ in out[: len(inside)]] == inside  # the chosen first, in their order
    assert [k for k, _ in out[len(inside) :]] == [k for k, (f, _) in ranked if not f]
    assert [k for k, _ in sorted(out, key=lambda kv: -kv[1])] == [k for k, _ in out]  # a sort keeps it
