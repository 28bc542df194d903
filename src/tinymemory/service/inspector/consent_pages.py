"""The inspector's privacy views: a memory's category, retention deadline and consent state (on its
page), and `/consent`, where a signed-in user sees the categories that need consent, grants or
withdraws it, downloads everything held about them and can have all of it forgotten.

What they show comes from the policy layer (`MemoryPolicy.retention_for`, `policy.retention.deadline`,
`policy.consent`), the same rules the retention job and memory__remember apply."""

from __future__ import annotations

from typing import Any

from tinymemory.api import MemoryEngine, MemoryItem
from tinymemory.policy import Identity, MemoryPolicy, Tier
from tinymemory.policy.consent import GRANTED, choices
from tinymemory.policy.policy import normal_category
from tinymemory.policy.retention import deadline
from tinymemory.service.auth import Caller
from tinymemory.service.inspector.markup import EMPTY, Html, fill, join
from tinymemory.service.inspector.pages import layout, moment, moment_of, nav

STATES = {"granted": "granted", "withdrawn": "withdrawn", "none": "not given"}


async def privacy_facts(
    engine: MemoryEngine, policy: MemoryPolicy, identity: Identity, item: MemoryItem, tier: Tier | None
) -> list[tuple[str, object]]:
    """The rows a memory's page adds: its category, when retention removes it, the consent it needs."""
    cat = normal_category(item.meta.category)
    rows: list[tuple[str, object]] = [("category", cat or "")]
    if tier is not None:
        due = deadline(policy, tier, item)
        rows.append(("kept until", moment(due) if due is not None else "forgotten (no retention limit)"))
    if cat is not None and policy.needs_consent(cat):
        current = (await choices(engine, identity)).get(cat) if identity.user else None
        state = current.state if current is not None else "none"
        rows.append(("consent", f"needed: {STATES.get(state, state)}"))
    elif cat is not None:
        rows.append(("consent", "not needed"))
    return rows


def _choice_form(category: str, state: str, csrf: str) -> Html:
    action, label, css = (
        ("/consent/withdraw", "Withdraw consent", "danger")
        if state == GRANTED
        else ("/consent/grant", "Give consent", "")
    )
    confirm = (
        ' data-confirm="Withdraw consent? Every memory of this category is forgotten for good."'
        if state == GRANTED
        else ""
    )
    return fill(
        """<form method="post" action="$action" class="consent"$confirm>
<input type="hidden" name="csrf" value="$csrf"><input type="hidden" name="category" value="$category">
<button type="submit" class="$css">$label</button></form>""",
        action=action,
        csrf=csrf,
        category=category,
        css=css,
        label=label,
        confirm=Html(confirm),
    )


def consent(caller: Caller, status: dict[str, Any], csrf: str, notice: str | None = None) -> Html:
    """The privacy page: each category needing consent with the caller's choice and its button, the
    export link and the forget-me form."""
    rows = join(
        fill(
            "<tr><td><code>$category</code></td><td>$state</td><td>$at</td><td>$form</td></tr>",
            category=r["category"],
            state=STATES.get(r["state"], r["state"]),
            at=moment_of(r["at"]),
            form=_choice_form(r["category"], r["state"], csrf),
        )
        for r in status["categories"]
    )
    table = (
        fill(
            """<p>Memories of these categories are kept only while you consent. Withdrawing forgets every
memory of the category you own, for good.</p>
<table class="consent"><thead><tr><th>Category</th><th>Your choice</th><th>Since</th>
<th></th></tr></thead><tbody>$rows</tbody></table>""",
            rows=rows,
        )
        if status["categories"]
        else Html("<p>No category of this workspace needs your consent.</p>")
    )
    shown = fill('<p class="notice">$n</p>', n=notice) if notice else EMPTY
    body = fill(
        """<article class="privacy">
<h1>Privacy</h1>
$notice
<section><h2>Consent</h2>
$table</section>
<section><h2>Your data</h2>
<p><a href="/consent/export" download>Download everything held about you</a> (JSON lines).</p>
<form method="post" action="/consent/forget-me" class="forget"
data-confirm="Forget everything you own, in every tier? This cannot be undone.">
<input type="hidden" name="csrf" value="$csrf"><input type="hidden" name="confirm" value="true">
<button type="submit" class="danger">Forget me</button></form></section>
</article>""",
        notice=shown,
        table=table,
        csrf=csrf,
    )
    return layout("Privacy", body, nav(caller))
