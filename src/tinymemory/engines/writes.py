"""What one stored item becomes, decided once for every engine: a replay, or a new version that closes
what it corrects and supersedes.

An engine looks up the rows the rules read (the active version of the content key, the next
generation, the active versions of the same `about` in the namespace) in its own way, hands them here
as `Prior`s with a handle of its own (a rowid, a batch row), and writes what comes back.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Generic, TypeVar

from tinymemory.api.ids import item_id
from tinymemory.api.items import About, NewItem
from tinymemory.api.requests import StoreResult
from tinymemory.engines.rows import item_values
from tinymemory.engines.versions import Pending, carry_over, corrects

H = TypeVar("H")


@dataclass(frozen=True, slots=True)
class Prior(Generic[H]):
    """A stored version the rules read: the engine's handle on it, its id and when it became valid."""

    handle: H
    id: str
    valid_from: int


@dataclass(frozen=True, slots=True)
class NewVersion(Generic[H]):
    """The version to write: the item as stored (corrections keep what the caller left out), its id and
    generation, the versions it closes (the corrected one first) and its column values."""

    item: NewItem
    id: str
    generation: int
    closing: list[Prior[H]]
    values: dict[str, Any]

    def ends(self, old: Prior[H]) -> int:
        """When a closed version stops being valid: where this one begins, never before its own start
        (a correction observed out of order still wins, and the old interval is then empty)."""
        return max(int(self.values["valid_from"]), old.valid_from)

    @property
    def result(self) -> StoreResult:
        return StoreResult(id=self.id, replayed=False, superseded=tuple(c.id for c in self.closing))


def decide(
    p: Pending,
    now: datetime,
    active: tuple[Prior[H], Mapping[str, Any]] | None,
    next_generation: Callable[[], int],
    same_about: Callable[[About, str], Sequence[Prior[H]]],
) -> StoreResult | NewVersion[H]:
    """The version rules for one item. `active`: the active version of its content key with its
    correctable columns, if any; `next_generation()`: the key's next generation (called only when a
    version is written); `same_about(about, namespace)`: the active versions of that about key, newest
    first. An item without `observed_at` is observed at `now`."""
    item = p.item
    corrected: list[Prior[H]] = []
    if active is not None:
        prior, fields = active
        if not corrects(fields, item):
            return StoreResult(id=prior.id, replayed=True)
        corrected = [prior]
        item = carry_over(item, fields)
    meta = item.meta
    generation = next_generation()
    new_id = item_id(p.ckey, generation)
    closing = list(corrected)
    if meta.about is not None and item.supersede:
        taken = {c.id for c in corrected}
        closing += [r for r in same_about(meta.about, str(meta.namespace)) if r.id not in taken]
    values = item_values(
        item, item_id=new_id, ckey=p.ckey, generation=generation, observed_at=meta.observed_at or now
    )
    values["supersedes"] = closing[0].id if closing else None
    return NewVersion(item, new_id, generation, closing, values)


class Cascade:
    """What one forget takes: the chosen rows and, transitively, every row citing one of them as
    evidence (a learning or a summary derived from a turn). An engine reads the citing rows of
    `frontier` until it is empty, handing each answer to `add`."""

    def __init__(self, rows: Sequence[tuple[int, str]]) -> None:
        self.chosen: dict[int, str] = dict(rows)
        self.derived: list[str] = []  # ids forgotten with the chosen rows, in the order found
        self._seen: set[str] = set()
        self.frontier: list[str] = [i for _, i in rows]

    def add(self, citing: Sequence[tuple[int, str]]) -> None:
        """The (rowid, id) rows citing the frontier; the new ones become the next frontier."""
        found = [(r, i) for r, i in citing if r not in self.chosen]
        for r, i in found:
            self.chosen[r] = i
            if i not in self._seen:  # one id in two tenants of a reach is one id forgotten
                self._seen.add(i)
                self.derived.append(i)
        self.frontier = [i for _, i in found]
