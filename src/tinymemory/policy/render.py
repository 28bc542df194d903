"""The memory__ tools' results as plain JSON, bounded like every other tool result.

A memory renders as `{id, type, content, confidence?, metadata}`; `metadata` carries its tier, its score
when ranked, hop and via when graph expansion reached it, and what the writer gave (title, summary,
about...). The namespace is never rendered: the tier says all the model needs.

Previews (only when memory__open is offered): a body larger than the policy's inline threshold comes
back with empty content, `metadata.content_preview` (its opening) and `metadata.has_full_body: true`.
A body under the threshold that no longer fits the result's byte budget becomes a preview the same way,
so the bound holds and the model can still open it. Without previews, bodies share the budget the way
seed 000's results do (`truncated` and `bytes` mark a cut). The cutting itself is `tools.preview`'s;
memory__open renders its own answer (`policy/catalog/memory__open.py`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tinymemory.api import MemoryItem, Namespace, format_rfc3339
from tinymemory.policy.identity import Tiers
from tinymemory.tools.preview import (
    ResultBounds,
    fair_share,
    json_size,
    opening,
    preview,
    text_size,
    utf8_size,
)
from tinymemory.tools.render import score as rounded

PREVIEW_OPENING_BYTES = 1024  # the most a content_preview holds (the opening; memory__open has the rest)
PREVIEW_RESERVE_BYTES = 256  # kept for each preview's opening before bodies are inlined
NOT_FOUND_MESSAGE = "no memory with this id is visible in this conversation"


@dataclass(frozen=True, slots=True)
class Row:
    """One memory to render, with what the read found about it."""

    item: MemoryItem
    score: float | None = None
    hop: int | None = None
    via: str | None = None
    why: dict[str, Any] | None = None  # the signals behind its score, when recall was asked to explain


def memory_type(item: MemoryItem) -> str:
    """The type a policy memory was written with; other items (documents, chunks) show their kind."""
    return item.meta.learning_kind or item.kind.value


def tier_name(tiers: Tiers, ns: Namespace) -> str:
    tier = tiers.tier_of(ns)
    return tier.value if tier is not None else "other"  # never expected: reads are confined to the tiers


def metadata(row: Row, tiers: Tiers, tier: str | None = None) -> dict[str, Any]:
    """The metadata of `row`; `tier` when the caller already knows the row's tier name."""
    m = row.item.meta
    out: dict[str, Any] = {"tier": tier if tier is not None else tier_name(tiers, m.namespace)}
    if row.score is not None:
        out["score"] = rounded(row.score)
    if row.hop is not None:
        out["hop"] = row.hop
    if row.via is not None:
        out["via"] = row.via
    if row.why is not None:
        out["why"] = row.why
    for name in ("title", "summary", "category", "purpose", "parent_title"):
        value = getattr(m, name)
        if value is not None:
            out[name] = value
    if m.about is not None:
        out["about_kind"] = m.about.kind
        out["about_key"] = m.about.key
    if m.observed_at is not None:
        out["observed_at"] = format_rfc3339(m.observed_at)
    return out


def metadatas(rows: Sequence[Row], tiers: Tiers) -> list[dict[str, Any]]:
    """The metadata of each row, each namespace's tier found once: the rows of one read share a few
    namespaces (the engine hands out one object per namespace), and finding a tier compares paths."""
    names: dict[int, tuple[Namespace, str]] = {}  # by the namespace object, kept alive beside its name
    out: list[dict[str, Any]] = []
    for r in rows:
        ns = r.item.meta.namespace
        known = names.get(id(ns))
        if known is None or known[0] is not ns:
            known = names[id(ns)] = (ns, tier_name(tiers, ns))
        out.append(metadata(r, tiers, known[1]))
    return out


def entry(row: Row, tiers: Tiers, content: str, extra: dict[str, Any] | None = None) -> dict[str, Any]:
    return _entry(row, metadata(row, tiers), content, extra)


def _entry(row: Row, meta: dict[str, Any], content: str, extra: dict[str, Any] | None) -> dict[str, Any]:
    """The entry of `row` around its rendered `meta` (copied, so one rendering serves several forms)."""
    it = row.item
    out: dict[str, Any] = {"id": it.id, "type": memory_type(it), "content": content}
    if it.confidence is not None:
        out["confidence"] = rounded(it.confidence)
    out["metadata"] = {**meta, **extra} if extra else dict(meta)
    return out


def _preview_marks(opening_text: str) -> dict[str, Any]:
    return {"content_preview": opening_text, "has_full_body": True}


def memories(
    rows: Sequence[Row],
    tiers: Tiers,
    *,
    previews: bool,
    threshold: int,
    bounds: ResultBounds,
    shell: dict[str, Any],
) -> dict[str, Any]:
    """Put `rows` under `shell["memories"]`, keeping the whole result within `bounds.result_bytes`."""
    if previews:
        shell["memories"] = _with_previews(rows, tiers, threshold, bounds, shell)
    else:
        shell["memories"] = _shared(rows, tiers, bounds, shell)
    return shell


def _with_previews(
    rows: Sequence[Row], tiers: Tiers, threshold: int, bounds: ResultBounds, shell: dict[str, Any]
) -> list[dict[str, Any]]:
    metas = metadatas(rows, tiers)
    # measure the result with every memory in its largest form without text: an empty preview
    shell["memories"] = [_entry(r, m, "", _preview_marks("")) for r, m in zip(rows, metas, strict=True)]
    room = bounds.result_bytes - json_size(shell)
    large = [utf8_size(r.item.text) > threshold for r in rows]
    inline_room = room - PREVIEW_RESERVE_BYTES * sum(large)
    inline = [False] * len(rows)
    for i, r in enumerate(rows):  # best ranked first, while they fit
        if large[i]:
            continue
        cost = text_size(r.item.text, max(inline_room, 0))
        if cost <= inline_room:
            inline[i] = True
            inline_room -= cost
            room -= cost
    cut = [i for i in range(len(rows)) if not inline[i]]
    share = fair_share(
        [text_size(rows[i].item.text, PREVIEW_OPENING_BYTES) for i in cut], room, PREVIEW_OPENING_BYTES
    )
    out: list[dict[str, Any]] = []
    for i, r in enumerate(rows):
        if inline[i]:
            out.append(_entry(r, metas[i], r.item.text, None))
        else:
            out.append(_entry(r, metas[i], "", _preview_marks(opening(r.item.text, share))))
    return out


def _shared(
    rows: Sequence[Row], tiers: Tiers, bounds: ResultBounds, shell: dict[str, Any]
) -> list[dict[str, Any]]:
    """No previews: bodies share the budget evenly (as in seed 000), a cut one marked truncated."""

    def marks(size: int) -> dict[str, Any]:
        return {"truncated": True, "bytes": size}

    metas = metadatas(rows, tiers)
    shell["memories"] = [
        _entry(r, m, "", marks(utf8_size(r.item.text))) for r, m in zip(rows, metas, strict=True)
    ]
    room = bounds.result_bytes - json_size(shell)
    cap = bounds.result_bytes
    share = fair_share([text_size(r.item.text, cap) for r in rows], room, cap)
    out: list[dict[str, Any]] = []
    for r, m in zip(rows, metas, strict=True):
        shown = preview(r.item.text, share)
        out.append(_entry(r, m, shown.text, marks(shown.full_bytes) if shown.truncated else None))
    return out


def not_found(memory_id: str) -> dict[str, Any]:
    """The same answer for an id that is unknown, forgotten, out of reach or not an id at all."""
    return {"status": "not_found", "id": memory_id, "message": NOT_FOUND_MESSAGE}
