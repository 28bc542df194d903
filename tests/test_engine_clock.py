"""Engines take their time from the clock they are given: stores without `observed_at` and forgets are
stamped by it, so a host (or a test) that moves the clock needs no sleeps."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from tinymemory.api import ForgetRequest, GetRequest, InvalidRequest, ItemKind, ItemMeta, Namespace, NewItem
from tinymemory.engines.sqlite import SqliteEngine

pytestmark = pytest.mark.asyncio

START = datetime(2031, 3, 4, 5, 6, 7, tzinfo=UTC)


class HandClock:
    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> datetime:
        return self.now


def _item(text: str) -> NewItem:
    return NewItem(ItemKind.LEARNING, text, ItemMeta(namespace=Namespace.parse("user:ann")))


async def test_stores_and_forgets_are_stamped_by_the_engines_clock(tmp_path: Path) -> None:
    clock = HandClock()
    async with SqliteEngine(tmp_path / "m.db", embedder=None, clock=clock) as engine:
        first = await engine.store(_item("the first fact"))
        clock.now += timedelta(hours=2)
        second = await engine.store(_item("the second fact"))
        clock.now += timedelta(days=1)
        await engine.forget(ForgetRequest(ids=(first.id,)))
        got = await engine.get(GetRequest(ids=(first.id, second.id)))
    (kept,) = got.items
    assert kept.meta.observed_at == START + timedelta(hours=2)
    assert [(t.id, t.forgotten_at) for t in got.forgotten] == [(first.id, START + timedelta(hours=2, days=1))]


async def test_a_clock_without_a_timezone_is_refused(tmp_path: Path) -> None:
    async with SqliteEngine(tmp_path / "m.db", embedder=None, clock=lambda: datetime(2031, 1, 1)) as engine:
        with pytest.raises(InvalidRequest, match="clock"):
            await engine.store(_item("a fact"))
