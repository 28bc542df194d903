"""The inspector's forms for adding a memory and correcting one (what can be corrected: edit_rule.py)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from tinymemory.api import MemoryItem
from tinymemory.api.validate import MAX_TEXT_CHARS
from tinymemory.policy import Tier
from tinymemory.policy.catalog.memory__remember import (
    MAX_ABOUT_KEY_CHARS,
    MAX_ABOUT_KIND_CHARS,
    MAX_CATEGORY_CHARS,
    MAX_TITLE_CHARS,
)
from tinymemory.service.auth import Caller
from tinymemory.service.inspector import pages
from tinymemory.service.inspector.edit_rule import edit_url
from tinymemory.service.inspector.markup import EMPTY, Html, fill, item_url, join

# The form fields a person sets, in the order memory__remember declares them; `csrf` comes beside them.
TEXT_FIELDS = ("content", "type", "category", "about_kind", "about_key", "title", "summary")
SUBJECT_FIELDS = ("about_kind", "about_key")


def posted(value: str) -> str:
    """A posted value as typed: a browser sends a text area's line breaks as CR LF, which would make an
    unchanged text look corrected."""
    return value.replace("\r\n", "\n")


@dataclass(frozen=True, slots=True)
class Draft:
    """What the form shows: the values entered (or the item's, when correcting)."""

    values: Mapping[str, str]

    @classmethod
    def of_form(cls, fields: Mapping[str, str]) -> Draft:
        return cls({name: posted(fields.get(name, "")) for name in TEXT_FIELDS})

    @classmethod
    def of_item(cls, item: MemoryItem) -> Draft:
        m = item.meta
        about = m.about
        return cls(
            {
                "content": item.text,
                "type": m.learning_kind or "",
                "category": m.category or "",
                "about_kind": about.kind if about is not None else "",
                "about_key": about.key if about is not None else "",
                "title": m.title or "",
                "summary": m.summary or "",
            }
        )

    def corrected(self, fields: Mapping[str, str]) -> Draft:
        """This draft with the posted fields a correction may change (never its subject)."""
        changed = {k: posted(v) for k, v in fields.items() if k in TEXT_FIELDS and k not in SUBJECT_FIELDS}
        return Draft({**self.values, **changed})

    def get(self, name: str) -> str:
        return self.values.get(name, "")


@dataclass(frozen=True, slots=True)
class Choices:
    """What the caller may write: the tier a remember lands in and the types that tier accepts."""

    tier: Tier
    types: Sequence[str]
    default_type: str


def _type_select(choices: Choices, chosen: str) -> Html:
    selected = chosen if chosen in choices.types else choices.default_type
    options = join(
        fill(
            '<option value="$t"$sel>$t</option>',
            t=t,
            sel=Html(" selected" if t == selected else ""),
        )
        for t in choices.types
    )
    return fill('<select id="type" name="type">$options</select>', options=options)


def _text_input(name: str, label: str, value: str, limit: int, hint: str = "") -> Html:
    return fill(
        """<div class="field"><label for="$name">$label</label>
<input id="$name" name="$name" value="$value" maxlength="$limit"$described>$hint</div>""",
        name=name,
        label=label,
        value=value,
        limit=limit,
        described=fill(' aria-describedby="$name-hint"', name=name) if hint else EMPTY,
        hint=fill('<span class="meta" id="$name-hint">$hint</span>', name=name, hint=hint) if hint else EMPTY,
    )


def _subject(draft: Draft, locked: bool) -> Html:
    """The about kind and key: free on a new memory, fixed on a correction (they name what it replaces)."""
    if locked:
        return fill(
            """<div class="field"><span class="label">Subject</span>
<p><code>$kind: $key</code>
<span class="meta">the correction replaces the version with this subject</span></p></div>""",
            kind=draft.get("about_kind"),
            key=draft.get("about_key"),
        )
    return join(
        (
            _text_input(
                "about_kind",
                "About (kind)",
                draft.get("about_kind"),
                MAX_ABOUT_KIND_CHARS,
                "Optional, with the key: e.g. person, project, preference. A memory with a subject can "
                "be corrected later as a new version.",
            ),
            _text_input("about_key", "About (key)", draft.get("about_key"), MAX_ABOUT_KEY_CHARS),
        )
    )


def _form(action: str, csrf: str, choices: Choices, draft: Draft, *, locked: bool, submit: str) -> Html:
    return fill(
        """<form method="post" action="$action" class="memory-form">
<input type="hidden" name="csrf" value="$csrf">
<div class="field"><label for="content">Content</label>
<textarea id="content" name="content" rows="6" maxlength="$max_text" required autofocus>$content</textarea>
</div>
<div class="field"><label for="type">Type</label>$types</div>
$subject
$title
$summary
$category
<p class="meta">Saved to your <strong>$tier</strong> tier ($tier_label).</p>
<div class="actions"><button type="submit">$submit</button> <a href="$cancel">Cancel</a></div>
</form>""",
        action=action,
        csrf=csrf,
        max_text=MAX_TEXT_CHARS,
        content=draft.get("content"),
        types=_type_select(choices, draft.get("type")),
        subject=_subject(draft, locked),
        title=_text_input(
            "title", "Title", draft.get("title"), MAX_TITLE_CHARS, "Optional; for long content."
        ),
        summary=_text_input("summary", "Summary", draft.get("summary"), MAX_TEXT_CHARS),
        category=_text_input(
            "category",
            "Consent category",
            draft.get("category"),
            MAX_CATEGORY_CHARS,
            "Optional; used by retention and consent rules, e.g. memory:health.",
        ),
        tier=choices.tier.value,
        tier_label=pages.TIER_LABELS[choices.tier],
        submit=submit,
        cancel=action.removesuffix("/edit") if locked else "/",
    )


def _error(message: str | None) -> Html:
    return fill('<p class="error" role="alert">$m</p>', m=message) if message else EMPTY


def new_memory(caller: Caller, csrf: str, choices: Choices, draft: Draft, error: str | None = None) -> Html:
    body = fill(
        '<section class="edit"><h1>Add a memory</h1>$error$form</section>',
        error=_error(error),
        form=_form("/new", csrf, choices, draft, locked=False, submit="Save"),
    )
    return pages.layout("Add a memory", body, pages.nav(caller))


def correct_memory(
    caller: Caller, csrf: str, item: MemoryItem, choices: Choices, draft: Draft, error: str | None = None
) -> Html:
    body = fill(
        """<section class="edit"><h1>Correct a memory</h1>
<p>Saving stores the correction as a new version; this one stays readable in the item's history.</p>
$error$form</section>""",
        error=_error(error),
        form=_form(edit_url(item.id), csrf, choices, draft, locked=True, submit="Save correction"),
    )
    return pages.layout("Correct a memory", body, pages.nav(caller))


def cannot_correct(caller: Caller, item: MemoryItem, reason: str) -> Html:
    current = item.superseded_by
    link = (
        fill('<p><a href="$href">See the current version</a></p>', href=item_url(current))
        if current is not None
        else fill('<p><a href="$href">Back to the memory</a></p>', href=item_url(item.id))
    )
    body = fill(
        '<section><h1>Cannot correct this memory</h1><p class="error">$m</p>$link</section>',
        m=reason,
        link=link,
    )
    return pages.layout("Cannot correct", body, pages.nav(caller))
