"""Time hints: a stable partition that never drops anything."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from hypothesis import given
from hypothesis import strategies as st

from tinymemory.api import ItemKind, ItemMeta, MemoryItem, TimeHint
from tinymemory.retrieval.temporal import matches_hint, partition_by_hint, partition_items, span_of

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


def test_partition_is_stable_and_keeps_everything() -> None:
    ranked = [mem(0, DAY - timedelta(days=5)), mem(1, DAY), mem(2, DAY - timedelta(days=9)), mem(3, DAY)]
    out = partition_items(ranked, HINT, lambda m: m)
    assert [m.id for m in out] == ["m1", "m3", "m0", "m2"]
    assert partition_items(ranked, None, lambda m: m) == ranked


@given(st.lists(st.booleans(), max_size=30))
def test_partition_by_hint_properties(flags: list[bool]) -> None:
    ranked = list(enumerate(flags))
    out = partition_by_hint(ranked, HINT, lambda r: r[1])
    assert sorted(out) == ranked
    inside = [r for r in out if r[1]]
    assert out[: len(inside)] == inside
    assert [r for r in out if not r[1]] == [r for r in ranked if not r[1]]
