"""The inspector's pages as HTML: a layout and one function per page, every value escaped by `fill`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from tinymemory.api import MemoryItem, format_rfc3339
from tinymemory.policy import Tier, Tiers
from tinymemory.service.auth import Caller
from tinymemory.service.inspector.edit_rule import edit_link
from tinymemory.service.inspector.history import Versions
from tinymemory.service.inspector.markup import EMPTY, Html, fill, item_url, join, url

STATIC = "/inspector/static/"
SNIPPET_CHARS = 240
TIER_LABELS = {
    Tier.USER_FOR_AGENT: "yours, with this agent",
    Tier.USER: "yours",
    Tier.AGENT: "shared by the agent's users",
    Tier.INSTITUTIONAL: "the workspace's",
}

LAYOUT = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>$title · tinymemory inspector</title>
<link rel="stylesheet" href="${static}inspector.css">
<script src="${static}inspector.js" defer></script>
</head>
<body>
<header class="bar"><a class="brand" href="/">tinymemory inspector</a>$nav</header>
<main>
$body
</main>
</body>
</html>
"""

SEARCH_BOX = """
<form class="search" method="get" action="/search" role="search">
<label for="q" class="hidden">Search memories</label>
<input id="q" name="q" type="search" value="$q" placeholder="Search memories (press /)" maxlength="10000">
<button type="submit">Search</button>
</form>"""
SIGN_OUT = """
<span class="who">$who</span>
<form method="post" action="/signout"><button type="submit" class="link">Sign out</button></form>"""


def layout(title: str, body: Html, nav: Html = EMPTY) -> Html:
    return fill(LAYOUT, title=title, static=STATIC, nav=nav, body=body)


def nav(caller: Caller, q: str = "", *, search: bool = True) -> Html:
    """The bar of a signed-in page: the search box (for a user) and who is signed in."""
    box = fill(SEARCH_BOX, q=q) if search else EMPTY
    return join((box, fill(SIGN_OUT, who=caller.label())))


def when(value: datetime | None) -> str:
    return "" if value is None else format_rfc3339(value)


def snippet(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= SNIPPET_CHARS else flat[: SNIPPET_CHARS - 1] + "…"


def signin(message: str | None = None) -> Html:
    error = fill('<p class="error" role="alert">$m</p>', m=message) if message else EMPTY
    body = fill(
        """<section class="signin">
<h1>Sign in</h1>
<p>Paste a bearer token the memory service issued you. It is kept in an HttpOnly cookie for this
browser only, and checked again on every page.</p>
$error
<form method="post" action="/signin">
<label for="token">Token</label>
<input id="token" name="token" type="password" autocomplete="off" required autofocus>
<button type="submit">Sign in</button>
</form>
</section>""",
        error=error,
    )
    return layout("Sign in", body)


def no_user(caller: Caller) -> Html:
    """An API key names a workspace but no person: there is no personal memory to show, and the
    inspector does not browse the institutional tier for it either (ingest owns that tier)."""
    body = fill(
        """<section>
<h1>This token names no user</h1>
<p>It is an API key for the workspace <code>$workspace</code>. Memories belong to users, so an API key
has none to browse. Sign out and sign in with a user's token to inspect their memory.</p>
</section>""",
        workspace=caller.workspace,
    )
    return layout("No user", body, nav(caller, search=False))


def _item_row(item: MemoryItem, tiers: Tiers) -> Html:
    tier = tiers.tier_of(item.namespace)
    return fill(
        """<li><a href="$href">$label</a>
<span class="meta">$type · $tier · $observed</span></li>""",
        href=item_url(item.id),
        label=item.meta.title or snippet(item.text) or item.id,
        type=item.meta.learning_kind or item.kind.value,
        tier=tier.value if tier is not None else "",
        observed=when(item.meta.observed_at),
    )


def home(
    caller: Caller,
    tiers: Tiers,
    counts: Mapping[Tier, int],
    chosen: Tier,
    items: Sequence[MemoryItem],
    next_cursor: str | None,
    notice: str | None,
) -> Html:
    tabs = join(
        fill(
            '<li><a href="$href"$current>$name <span class="count">$count</span></a>'
            '<span class="meta">$label</span></li>',
            href=url("/", tier=tier.value),
            current=Html(' aria-current="page"' if tier is chosen else ""),
            name=tier.value,
            count=counts.get(tier, 0),
            label=TIER_LABELS[tier],
        )
        for tier in tiers.present()
    )
    rows = join(_item_row(item, tiers) for item in items) or Html('<li class="empty">Nothing here yet.</li>')
    more = (
        fill(
            '<p><a rel="next" href="$href">Older items →</a></p>',
            href=url("/", tier=chosen.value, cursor=next_cursor),
        )
        if next_cursor
        else EMPTY
    )
    flash = fill('<p class="notice" role="status">$n</p>', n=notice) if notice else EMPTY
    body = fill(
        """$flash<nav class="tiers" aria-label="Tiers"><ul>$tabs</ul></nav>
<section><h1>Newest in $tier</h1><ul class="items">$rows</ul>$more</section>""",
        flash=flash,
        tabs=tabs,
        tier=chosen.value,
        rows=rows,
        more=more,
    )
    return layout("Memory", body, nav(caller))


def search(caller: Caller, q: str, found: Sequence[Mapping[str, Any]]) -> Html:
    if not q:
        body = Html("<h1>Search</h1><p>Type what to look for in the search box.</p>")
        return layout("Search", body, nav(caller))
    from tinymemory.service.inspector.why_pages import (
        relevant,
    )  # here: only these functions are the why part's

    listed = [m for m in found if relevant(m)]  # the relevance cut: why_pages.py
    rows = join(_found_row(m) for m in listed) or Html('<li class="empty">No memory matches.</li>')
    body = fill('<h1>Results for “$q”</h1><ul class="items">$rows</ul>', q=q, rows=rows)
    return layout("Search", body, nav(caller, q))


def _found_row(memory: Mapping[str, Any]) -> Html:
    """One result: its title (or its text) as the link, its text below only when a title stands above
    it (so the text shows once), and why it was returned."""
    from tinymemory.service.inspector.why_pages import why_details

    meta = memory.get("metadata", {})
    text = memory.get("content") or meta.get("content_preview") or ""
    score = meta.get("score")
    title = meta.get("title")
    below = fill('<p class="snippet">$text</p>', text=snippet(text)) if title and text else EMPTY
    return fill(
        """<li><a href="$href">$label</a>
<span class="meta">$type · $tier$score</span>$below$why</li>""",
        href=item_url(str(memory["id"])),
        label=title or snippet(text) or memory["id"],
        type=memory.get("type", ""),
        tier=meta.get("tier", ""),
        score=f" · score {score}" if score is not None else "",
        below=below,
        why=why_details(memory),
    )


def item(
    caller: Caller,
    csrf: str,
    tiers: Tiers,
    found: Versions,
    as_of: datetime | None,
    forgettable: bool,
) -> Html:
    it = found.item
    m = it.meta
    tier = tiers.tier_of(it.namespace)
    facts: list[tuple[str, object]] = [
        ("id", fill("<code>$id</code>", id=it.id)),
        ("kind", it.kind.value),
        ("tier", tier.value if tier is not None else ""),
        ("type", m.learning_kind or ""),
        ("confidence", "" if it.confidence is None else f"{it.confidence:.2f}"),
        ("about", f"{m.about.kind}: {m.about.key}" if m.about is not None else ""),
        ("title", m.title or ""),
        ("observed at", when(m.observed_at)),
        ("valid", f"{when(it.valid_from)} → {when(it.valid_to) or 'now'}"),
    ]
    dl = join(fill("<dt>$k</dt><dd>$v</dd>", k=k, v=v) for k, v in facts if v != "")
    status = EMPTY
    if it.superseded_by is not None:
        status = fill(
            '<p class="notice">A newer version replaced this one: '
            '<a href="$href">see the current version</a>.</p>',
            href=item_url(it.superseded_by),
        )
    if forgettable:
        action = fill(
            """<form method="post" action="$action" class="forget"
data-confirm="Forget this memory and all its versions? It will no longer be recalled.">
<input type="hidden" name="csrf" value="$csrf"><button type="submit" class="danger">Forget</button></form>""",
            action=item_url(it.id) + "/forget",
            csrf=csrf,
        )
    else:
        action = Html('<p class="meta">Shared memory: not yours to forget.</p>')
    # here, not at the top: the edit pages build on this module's layout
    action = join((edit_link(tiers, it), action))
    body = fill(
        """<article class="item">
<h1>$title</h1>
$status
<pre class="content">$text</pre>
<dl class="facts">$dl</dl>
$evidence$refs$relations
$history
$action
</article>""",
        title=m.title or snippet(it.text) or it.id,
        status=status,
        text=it.text,
        dl=dl,
        evidence=_evidence(m.evidence),
        refs=_refs(it),
        relations=_relations(it),
        history=_history(found, as_of),
        action=action,
    )
    return layout(m.title or "Memory", body, nav(caller))


def _evidence(evidence: Sequence[str]) -> Html:
    if not evidence:
        return EMPTY
    rows = join(
        fill('<li><a href="$href"><code>$e</code></a></li>', href=item_url(e), e=e)
        if e.startswith("m_")
        else fill("<li><q>$e</q></li>", e=e)
        for e in evidence
    )
    return fill("<section><h2>Citations</h2><ul>$rows</ul></section>", rows=rows)


def _refs(it: MemoryItem) -> Html:
    if not it.meta.refs:
        return EMPTY
    rows = join(
        fill(
            '<li>$kind <code>$ref</code> <span class="meta">$media $status</span></li>',
            kind=r.kind,
            ref=r.ref,
            media=r.media_type or "",
            status=r.status,
        )
        for r in it.meta.refs
    )
    return fill("<section><h2>References</h2><ul>$rows</ul></section>", rows=rows)


def _relations(it: MemoryItem) -> Html:
    if not it.meta.relations:
        return EMPTY
    rows = join(
        fill('<li>$s <span class="rel">—$t→</span> $o</li>', s=r.subject, t=r.type, o=r.object)
        for r in it.meta.relations
    )
    return fill(
        '<section><h2>Relations</h2><ul>$rows</ul><p><a href="$graph">See as a graph</a></p></section>',
        rows=rows,
        graph=item_url(it.id) + "/graph",
    )


def _history(found: Versions, as_of: datetime | None) -> Html:
    active = found.active_at(as_of) if as_of is not None else None
    rows = []
    for v in reversed(found.chain):  # newest first
        marks = []
        if v.id == found.item.id:
            marks.append("shown")
        if v.valid_to is None:
            marks.append("current")
        if active is not None and v.id == active.id:
            marks.append("active at the asked time")
        rows.append(
            fill(
                """<li class="$cls"><a href="$href">$label</a>
<span class="meta">$valid$marks</span></li>""",
                cls=" ".join(m.split()[0] for m in marks),
                href=item_url(v.id),
                label=snippet(v.text) or v.id,
                valid=f"{when(v.valid_from)} → {when(v.valid_to) or 'now'}",
                marks=f" · {', '.join(marks)}" if marks else "",
            )
        )
    if as_of is None:
        asked = EMPTY
    elif active is None:
        asked = fill('<p class="notice">No version was active at $t.</p>', t=when(as_of))
    else:
        asked = fill(
            '<p class="notice">At $t the active version was <a href="$href">this one</a>.</p>',
            t=when(as_of),
            href=item_url(active.id),
        )
    return fill(
        """<details class="history" open>
<summary>History: $n version$s</summary>
<form method="get" action="$action" class="as-of">
<label for="as_of">Active at (RFC 3339)</label>
<input id="as_of" name="as_of" value="$asof" placeholder="2024-05-08T13:56:00Z" maxlength="64">
<button type="submit">Show</button></form>
$asked
<ol class="versions">$rows</ol>
</details>""",
        n=len(found.chain),
        s="" if len(found.chain) == 1 else "s",
        action=item_url(found.item.id),
        asof=when(as_of),
        asked=asked,
        rows=join(rows),
    )


def problem(title: str, message: str, nav_html: Html = EMPTY) -> Html:
    body = fill(
        '<section><h1>$t</h1><p class="error">$m</p><p><a href="/">Back to your memory</a></p></section>',
        t=title,
        m=message,
    )
    return layout(title, body, nav_html)


NOT_FOUND_MESSAGE = "No memory with this id is visible to you."


def not_found(nav_html: Html = EMPTY) -> Html:
    return problem("Not found", NOT_FOUND_MESSAGE, nav_html)
