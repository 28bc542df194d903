"""Property tests of the strict RFC 3339 reader and the aware-datetime rule."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tinymemory.api import InvalidRequest, format_rfc3339, parse_rfc3339
from tinymemory.api.timeutil import ensure_utc

instants = st.datetimes(min_value=datetime(1, 1, 2), max_value=datetime(9999, 12, 30), timezones=st.just(UTC))
offsets = st.integers(min_value=-(23 * 60 + 59), max_value=23 * 60 + 59).map(lambda m: timedelta(minutes=m))


def _date(d: datetime) -> str:
    return f"{d.year:04d}-{d.month:02d}-{d.day:02d}"


def _clock(d: datetime) -> str:
    return f"{d.hour:02d}:{d.minute:02d}:{d.second:02d}"


def _offset_text(delta: timedelta) -> str:
    total = int(delta.total_seconds() // 60)
    sign = "-" if total < 0 else "+"
    h, m = divmod(abs(total), 60)
    return f"{sign}{h:02d}:{m:02d}"


@given(instants, offsets, st.sampled_from(["T", "t", " "]))
def test_any_explicit_offset_reads_as_the_same_instant(
    instant: datetime, offset: timedelta, sep: str
) -> None:
    local = instant.astimezone(timezone(offset))
    text = f"{_date(local)}{sep}{_clock(local)}.{local.microsecond:06d}{_offset_text(offset)}"
    parsed = parse_rfc3339(text, field="observed_after")
    assert parsed == instant
    assert parsed.tzinfo is UTC


@given(instants)
def test_format_then_parse_round_trips(instant: datetime) -> None:
    text = format_rfc3339(instant)
    assert text.endswith("Z")
    assert parse_rfc3339(text, field="t") == instant


@given(instants, st.integers(min_value=0, max_value=999))
def test_nanoseconds_are_truncated_to_microseconds(instant: datetime, nanos: int) -> None:
    text = f"{_date(instant)}T{_clock(instant)}.{instant.microsecond:06d}{nanos:03d}z"
    assert parse_rfc3339(text, field="t") == instant


@given(instants)
def test_a_naive_timestamp_is_refused_naming_the_field(instant: datetime) -> None:
    text = f"{_date(instant)}T{_clock(instant)}"
    with pytest.raises(InvalidRequest) as err:
        parse_rfc3339(text, field="filter.observed_before")
    assert str(err.value).startswith("filter.observed_before: ")


@given(st.text(max_size=40) | st.integers() | st.none() | st.floats())
def test_garbage_is_refused_naming_the_field(value: object) -> None:
    try:
        parsed = parse_rfc3339(value, field="refers_to.from")
    except InvalidRequest as err:
        assert str(err).startswith("refers_to.from: ")
    else:  # the only strings that get through are real RFC 3339 timestamps
        assert isinstance(value, str)
        assert parsed.tzinfo is UTC


@pytest.mark.parametrize(
    "bad",
    [
        "2024-05-08",
        "2024-05-08T13:56Z",
        "2024-02-30T00:00:00Z",
        "2024-05-08T25:00:00Z",
        "2024-05-08T13:56:00+2400",
        "2024-05-08T13:56:00+24:00",
        "yesterday",
        " 2024-05-08T13:56:00Z",
        "2024-05-08T13:56:00Z\n",
    ],
)
def test_malformed_examples_are_refused(bad: str) -> None:
    with pytest.raises(InvalidRequest) as err:
        parse_rfc3339(bad, field="as_of")
    assert str(err.value).startswith("as_of: ")


@given(st.datetimes(min_value=datetime(1, 1, 2), max_value=datetime(9999, 12, 30)))
def test_ensure_utc_refuses_naive_datetimes(naive: datetime) -> None:
    with pytest.raises(InvalidRequest) as err:
        ensure_utc(naive, field="meta.observed_at")
    assert "meta.observed_at" in str(err.value)
    assert ensure_utc(naive.replace(tzinfo=UTC), field="x") == naive.replace(tzinfo=UTC)
