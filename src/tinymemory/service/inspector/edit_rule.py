"""What the inspector can correct in place, and the item page's link to the correction form.

A correction is a new version: it is stored with memory__remember under the item's own subject (its
about kind and key), which the engine uses to close the version it replaces. So only a current version
with a subject, in the tier the caller's remember writes to, can be corrected in place.
"""

from __future__ import annotations

from tinymemory.api import ItemKind, MemoryItem
from tinymemory.policy import Tiers
from tinymemory.service.inspector.markup import EMPTY, Html, fill, item_url

NOT_YOURS = "Shared memory is not yours to correct; only your own memories can be corrected."
NO_SUBJECT = (
    "This memory has no subject (about kind and key), so a correction cannot replace it as a new "
    "version. Add the corrected fact with a subject, then forget this one."
)
WOULD_DROP = (
    "This memory carries more than a correction here can keep (citations, references, relations, tags "
    "or dates), so it cannot be corrected in the inspector."
)
OLDER_VERSION = "A newer version replaced this one; correct the current version instead."


def correction_refusal(tiers: Tiers, item: MemoryItem) -> str | None:
    """Why the caller cannot correct `item` in place (None: they can). The caller must be able to see
    it; the rule is the caller's own tiers, as for forgetting, narrowed to what a remember supersedes."""
    own = tiers.own_reach
    if own is None or item.namespace not in own:
        return NOT_YOURS
    if item.superseded_by is not None or not item.is_active:
        return OLDER_VERSION
    if item.meta.about is None:
        return NO_SUBJECT
    if item.kind is not ItemKind.LEARNING or kept_apart(item):
        return WOULD_DROP
    if item.namespace != tiers.write_place:
        tier = tiers.write_tier
        where = tier.value if tier is not None else "no"
        return f"Only memories of the tier you write to ({where}) can be corrected here."
    return None


def kept_apart(item: MemoryItem) -> bool:
    """Whether `item` carries what memory__remember cannot write (citations, references, relations,
    tags, a parent document, event days, host pairs): a correction through it would silently drop them."""
    m = item.meta
    return bool(m.evidence or m.refs or m.relations or m.tags or m.parent or m.extra) or (
        m.event_from is not None or m.event_to is not None
    )


def edit_url(memory_id: str) -> str:
    return item_url(memory_id) + "/edit"


def edit_link(tiers: Tiers, item: MemoryItem) -> Html:
    """The item page's link to the correction form, when the caller may correct the item."""
    if correction_refusal(tiers, item) is not None:
        return EMPTY
    return fill(
        '<p class="edit-link"><a href="$href">Edit (a correction is a new version)</a></p>',
        href=edit_url(item.id),
    )
