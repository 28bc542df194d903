"""The inspector's pages as HTML: a layout and one function per page, every value escaped by `fill`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from tinymemory.api import MemoryItem, format_rfc3339, utcnow
from tinymemory.policy import Tier, Tiers
from tinymemory.service.auth import Caller
from tinymemory.service.errors import Forbidden
from tinymemory.service.inspector.edit_rule import edit_link
from tinymemory.service.inspector.history import Filters, Versions, agent_of
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
<link rel="icon" href="${static}favicon.svg" type="image/svg+xml">
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
LINKS = """
<nav class="links" aria-label="Pages"><a href="/new">New memory</a> <a href="/dashboard">Dashboard</a>
<a href="/agents">By agent</a> <a href="/consent">Privacy</a>$gate</nav>"""
SIGN_OUT = """
<span class="who">$who</span>
<form method="post" action="/signout"><button type="submit" class="link">Sign out</button></form>"""


def layout(title: str, body: Html, nav: Html = EMPTY) -> Html:
    return fill(LAYOUT, title=title, static=STATIC, nav=nav, body=body)


def nav(caller: Caller, q: str = "", *, search: bool = True) -> Html:
    """The bar of a signed-in page: the search box (for a user) and who is signed in."""
    box = fill(SEARCH_BOX, q=q) if search else EMPTY
    links = fill(LINKS, gate=Html(' <a href="/gate">Share gate</a>') if may_gate(caller) else EMPTY)
    return join((box, links if caller.is_user else EMPTY, fill(SIGN_OUT, who=caller.label())))


def may_gate(caller: Caller) -> bool:
    """Whether the caller may administer the share gate: the gate routes' own check."""
    try:
        caller.need_institutional("gate")
    except Forbidden:
        return False
    return True


def when(value: datetime | None) -> str:
    """The exact time as RFC 3339 text, to the second (for form fields and titles)."""
    return "" if value is None else format_rfc3339(value.astimezone(UTC).replace(microsecond=0))


def friendly(value: datetime, now: datetime | None = None) -> str:
    """A short human phrase for `value`: "today 14:05", "yesterday", "3 days ago", else "12 Mar 2025"."""
    now = (now or utcnow()).astimezone(UTC)
    value = value.astimezone(UTC)
    days = (now.date() - value.date()).days
    if days == 0:
        return f"today {value:%H:%M}"
    if days == 1:
        return "yesterday"
    if 1 < days < 7:
        return f"{days} days ago"
    return f"{value.day} {value:%b %Y}"


def moment(value: datetime | None) -> Html:
    """A time as pages show it: the friendly phrase in `<time>`, the exact time in its title."""
    if value is None:
        return EMPTY
    exact = when(value)
    return fill('<time datetime="$iso" title="$iso">$text</time>', iso=exact, text=friendly(value))


def moment_of(text: str | None) -> Html:
    """`moment` of a time the API answered as RFC 3339 text; text that does not parse is shown as is."""
    if not text:
        return EMPTY
    try:
        return moment(datetime.fromisoformat(text))
    except ValueError:
        return fill("$t", t=text)


def span(start: datetime, end: datetime | None) -> Html:
    return fill("$a → $b", a=moment(start), b=moment(end) if end is not None else "now")


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


def _item_row(item: MemoryItem, tiers: Tiers, n: int, pickable: bool) -> Html:
    tier = tiers.tier_of(item.namespace)
    label = item.meta.title or snippet(item.text) or item.id
    pick = (
        fill(
            '<input type="checkbox" id="pick-$n" name="id" value="$id" form="bulk">'
            '<label for="pick-$n" class="hidden">Select $label</label> ',
            n=n,
            id=item.id,
            label=label,
        )
        if pickable
        else EMPTY
    )
    agent = agent_of(item)
    return fill(
        """<li>$pick<a href="$href">$label</a>
<span class="meta">$type · $tier$agent · $observed</span></li>""",
        pick=pick,
        href=item_url(item.id),
        label=label,
        type=item.meta.learning_kind or item.kind.value,
        tier=tier.value if tier is not None else "user_for_agent",
        agent=f" · agent {agent}" if agent is not None else "",
        observed=moment(item.meta.observed_at),
    )


FILTER_FORM = """<form method="get" action="$action" class="filters">
<fieldset><legend>Filter</legend>
$hidden
<label for="f-type">Type</label><input id="f-type" name="type" value="$type" maxlength="200"
 placeholder="fact, preference, conversation…">
<label for="f-source">Source</label><input id="f-source" name="source" value="$source" maxlength="200"
 placeholder="agent, user, import…">
<label for="f-tag">Tag</label><input id="f-tag" name="tag" value="$tag" maxlength="200">
<label for="f-from">From</label><input id="f-from" name="from" type="date" value="$from">
<label for="f-to">To</label><input id="f-to" name="to" type="date" value="$to">
<button type="submit">Apply</button> <a href="$clear">Clear</a>
</fieldset></form>"""


def _filter_form(action: str, keep: Mapping[str, str | None], filters: Filters) -> Html:
    hidden = join(
        fill('<input type="hidden" name="$k" value="$v">', k=k, v=v) for k, v in keep.items() if v is not None
    )
    q = filters.query()
    return fill(
        FILTER_FORM,
        action=action,
        hidden=hidden,
        clear=url(action, **keep),
        **{k: v or "" for k, v in q.items()},
    )


def _listing(
    path: str,
    keep: Mapping[str, str | None],
    filters: Filters,
    items: Sequence[MemoryItem],
    next_cursor: str | None,
    tiers: Tiers,
    csrf: str,
    pickable: bool,
) -> Html:
    """The filters, the listed rows (with checkboxes where the caller may forget), paging that keeps
    the filters, the export link, and the bulk-forget form."""
    query = {**keep, **filters.query()}
    rows = join(_item_row(item, tiers, n, pickable) for n, item in enumerate(items))
    rows = rows or Html('<li class="empty">Nothing here yet.</li>')
    more = (
        fill(
            '<p><a rel="next" href="$href">Older items →</a></p>', href=url(path, **query, cursor=next_cursor)
        )
        if next_cursor
        else EMPTY
    )
    bulk = (
        fill(
            """<form method="post" action="/forget" id="bulk" class="bulk"
data-confirm="Forget the selected memories and all their versions? They will no longer be recalled.">
<input type="hidden" name="csrf" value="$csrf">
<button type="submit" class="danger">Forget selected</button></form>""",
            csrf=csrf,
        )
        if pickable and items
        else EMPTY
    )
    export = fill(
        '<p><a href="$href" download>Export these (JSON lines)</a></p>', href=url("/export", **query)
    )
    return fill(
        '$form<ul class="items">$rows</ul>$more$bulk$export',
        form=_filter_form(path, keep, filters),
        rows=rows,
        more=more,
        bulk=bulk,
        export=export,
    )


def home(
    caller: Caller,
    tiers: Tiers,
    counts: Mapping[Tier, int],
    chosen: Tier,
    filters: Filters,
    items: Sequence[MemoryItem],
    next_cursor: str | None,
    notice: str | None,
    csrf: str,
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
    listing = _listing(
        "/", {"tier": chosen.value}, filters, items, next_cursor, tiers, csrf, chosen in tiers.own()
    )
    flash = fill('<p class="notice" role="status">$n</p>', n=notice) if notice else EMPTY
    body = fill(
        """$flash<nav class="tiers" aria-label="Tiers"><ul>$tabs</ul></nav>
<section><h1>Newest in $tier</h1>$listing</section>""",
        flash=flash,
        tabs=tabs,
        tier=chosen.value,
        listing=listing,
    )
    return layout("Memory", body, nav(caller))


def agents(
    caller: Caller,
    tiers: Tiers,
    agent: str | None,
    filters: Filters,
    items: Sequence[MemoryItem],
    next_cursor: str | None,
    csrf: str,
) -> Html:
    """The user's per-agent memories, grouped by agent; one agent when a token or `agent` names it."""
    groups: dict[str, list[MemoryItem]] = {}
    for it in items:
        name = agent_of(it)
        if name is not None:
            groups.setdefault(name, []).append(it)
    scoped = tiers.user_for_agent is not None
    keep = {"view": "agents", "agent": agent}
    pick = fill(
        """<form method="get" action="/agents" class="agent-pick">
<label for="f-agent">Agent</label><input id="f-agent" name="agent" value="$agent" maxlength="200">
<button type="submit">Show</button> <a href="/agents">All agents</a></form>""",
        agent=agent or "",
    )
    names = join(
        fill(
            '<li><a href="$href">$name</a> <span class="count">$n</span></li>',
            href=url("/agents", agent=a),
            name=a,
            n=len(g),
        )
        for a, g in sorted(groups.items())
    )
    listing = _listing("/agents", keep, filters, items, next_cursor, tiers, csrf, scoped)
    title = f"With agent {caller.agent}" if scoped else (f"With agent {agent}" if agent else "By agent")
    body = fill(
        """<section><h1>$title</h1>$pick
<nav class="agents" aria-label="Agents on this page"><ul>$names</ul></nav>$listing</section>""",
        title=title,
        pick=EMPTY if scoped else pick,
        names=names,
        listing=listing,
    )
    return layout("By agent", body, nav(caller))


def forgot(caller: Caller, forgotten: Sequence[str], refused: Sequence[tuple[str, str]]) -> Html:
    """What a bulk forget did: the ids forgotten and, for each refused id, why."""
    done = join(fill("<li><code>$id</code></li>", id=i) for i in forgotten)
    bad = join(fill("<li><code>$id</code>: $why</li>", id=i, why=w) for i, w in refused)
    body = fill(
        """<section><h1>Forget selected</h1>
<p class="notice" role="status">Forgotten: $n.</p><ul>$done</ul>
$refused<p><a href="/">Back to your memory</a></p></section>""",
        n=len(forgotten),
        done=done,
        refused=fill('<h2>Not forgotten</h2><ul class="error">$bad</ul>', bad=bad) if refused else EMPTY,
    )
    return layout("Forget selected", body, nav(caller))


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
    privacy: Sequence[tuple[str, object]] = (),
) -> Html:
    """A memory's page. `privacy`: its category, retention deadline and consent rows
    (`consent_pages.privacy_facts`)."""
    it = found.item
    m = it.meta
    tier = tiers.tier_of(it.namespace)
    facts: list[tuple[str, object]] = [
        ("id", fill("<code>$id</code>", id=it.id)),
        ("kind", it.kind.value),
        ("tier", tier.value if tier is not None else ""),
        ("type", m.learning_kind or ""),
        *privacy,
        ("confidence", "" if it.confidence is None else f"{it.confidence:.2f}"),
        ("about", f"{m.about.kind}: {m.about.key}" if m.about is not None else ""),
        ("title", m.title or ""),
        ("observed at", moment(m.observed_at)),
        ("valid", span(it.valid_from, it.valid_to)),
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
                valid=span(v.valid_from, v.valid_to),
                marks=f" · {', '.join(marks)}" if marks else "",
            )
        )
    if as_of is None:
        asked = EMPTY
    elif active is None:
        asked = fill('<p class="notice">No version was active at $t.</p>', t=moment(as_of))
    else:
        asked = fill(
            '<p class="notice">At $t the active version was <a href="$href">this one</a>.</p>',
            t=moment(as_of),
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
