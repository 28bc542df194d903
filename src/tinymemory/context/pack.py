"""ContextPack: the budgeted, sectioned, id-traced result of holistic recall and of context.md.

Fitting a pack to a budget removes items in an explicit drop order (the caller decides what goes
first), and re-renders until the whole document, frontmatter included, fits.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime

from tinymemory.api import ItemKind, format_rfc3339
from tinymemory.context.tokens import chars_for, estimate_tokens


@dataclass(frozen=True, slots=True)
class PackItem:
    """One rendered memory: its line text and the ids it traces to."""

    id: str
    kind: ItemKind
    text: str
    score: float = 0.0
    scope: str = ""  # label of the scope term that found it (holistic recall)

    @property
    def line(self) -> str:
        """The memory as one Markdown list line ending in its id, so a model can cite what it used."""
        return f"- {self.text} [{self.id}]"


@dataclass(frozen=True, slots=True)
class PackSection:
    """One titled section of a pack (for example a tier or a kind of memory) and its lines, best first."""

    title: str
    items: tuple[PackItem, ...] = ()


@dataclass(frozen=True, slots=True)
class ContextPack:
    """Sections of memory lines with frontmatter; `markdown` is what a host injects."""

    sections: tuple[PackSection, ...]
    generated_at: datetime
    engine: str
    budget_tokens: int
    title: str = "Context"
    query: str | None = None
    dropped: int = 0  # items removed to fit the budget
    skipped: tuple[str, ...] = field(default=())  # titles of sections that failed and were left out

    @property
    def items(self) -> tuple[PackItem, ...]:
        """Every item of every section, in order."""
        return tuple(i for s in self.sections for i in s.items)

    @property
    def refs(self) -> tuple[str, ...]:
        """The ids of the memories in the pack, each once, in order: what the injected context traces back
        to."""
        return tuple(dict.fromkeys(i.id for i in self.items))

    @property
    def markdown(self) -> str:
        """The pack rendered as a Markdown document with frontmatter, ready for a host to inject into a
        prompt; empty for an empty pack."""
        return render(self)

    @property
    def tokens(self) -> int:
        """The rendered document's estimated size in tokens, which the budget was fitted to."""
        return estimate_tokens(self.markdown)

    @property
    def is_empty(self) -> bool:
        """True when no section holds an item (the pack then renders as the empty string)."""
        return not self.items

    def __str__(self) -> str:
        return self.markdown


def _body(pack: ContextPack) -> str:
    lines = [f"# {pack.title}"]
    for section in pack.sections:
        if not section.items:
            continue
        lines.append("")
        lines.append(f"## {section.title}")
        lines.extend(item.line for item in section.items)
    return "\n".join(lines) + "\n"


def render(pack: ContextPack) -> str:
    """Frontmatter + body. An empty pack renders as the empty string.

    `tokens` counts the whole document including itself, so it is solved as a small fixed point.
    """
    if pack.is_empty:
        return ""
    body = _body(pack)
    refs = ", ".join(pack.refs)
    head = [
        "---",
        f"generated_at: {format_rfc3339(pack.generated_at)}",
        f"engine: {pack.engine}",
    ]
    if pack.query is not None:
        head.append(f"query: {_yaml_str(pack.query)}")
    tokens = 0
    text = ""
    for _ in range(4):
        lines = [*head, f"tokens: {tokens}", f"refs: [{refs}]", "---", ""]
        text = "\n".join(lines) + body
        new = estimate_tokens(text)
        if new == tokens:
            break
        tokens = new
    return text


def _yaml_str(text: str) -> str:
    flat = " ".join(text.split())[:200]
    return '"' + flat.replace("\\", "\\\\").replace('"', '\\"') + '"'


def fit(pack: ContextPack, drop_order: Sequence[tuple[int, int]]) -> ContextPack:
    """Drop the fewest items, taken from the front of `drop_order` (section index, item index), so
    that the whole document fits the budget.

    Each drop shortens the text (a line and perhaps a ref go), so the shortest fitting prefix of the
    order is found by binary search: a handful of renders, whatever the pack size.
    """
    limit = chars_for(pack.budget_tokens)
    if len(render(pack)) <= limit:
        return pack
    lo, hi = 1, len(drop_order)  # the answer lies in [lo, hi]; dropping everything always fits
    while lo < hi:
        mid = (lo + hi) // 2
        if len(render(_without(pack, set(drop_order[:mid])))) <= limit:
            hi = mid
        else:
            lo = mid + 1
    fitted = _without(pack, set(drop_order[:lo]))
    if len(render(fitted)) <= limit:
        return fitted
    everything = {(s, i) for s, sec in enumerate(pack.sections) for i in range(len(sec.items))}
    return _without(pack, everything)


def _without(pack: ContextPack, removed: set[tuple[int, int]]) -> ContextPack:
    sections = tuple(
        replace(sec, items=tuple(it for i, it in enumerate(sec.items) if (s, i) not in removed))
        for s, sec in enumerate(pack.sections)
    )
    return replace(pack, sections=sections, dropped=pack.dropped + len(removed))


def trailing_order(pack: ContextPack) -> list[tuple[int, int]]:
    """Last section first, each from its last item: the context.md trimming order."""
    order: list[tuple[int, int]] = []
    for s in range(len(pack.sections) - 1, -1, -1):
        order.extend((s, i) for i in range(len(pack.sections[s].items) - 1, -1, -1))
    return order
