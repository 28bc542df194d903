"""The share-gate page as HTML: the gate's rules, then per agent what it holds (distinct users against
the threshold), what it published and the decisions it took. It renders the `GateStatus` the gate's API
answers and nothing else, so it can show no sharer and no text the gate did not scrub."""

from __future__ import annotations

from collections.abc import Sequence

from tinymemory.service.auth import Caller
from tinymemory.service.inspector.markup import EMPTY, Html, fill, join
from tinymemory.service.inspector.pages import layout, moment_of, nav
from tinymemory.service.models import GateAgent, GateDecision, GateGroup, GatePublished, GateStatus

DECISIONS = {
    "published": "published: enough users shared it",
    "merged": "merged: evidence for a published fact",
    "rejected": "rejected: no one else shared it within the window",
    "withdrawn": "withdrawn: its sharer corrected their copy",
    "personal": "held back: personal even when scrubbed",
}
UNITS = (("d", 86400), ("h", 3600), ("m", 60), ("s", 1))


def window_text(seconds: int) -> str:
    """A window in the policy's own duration syntax (`7d`, `1h30m`)."""
    parts = []
    for unit, size in UNITS:
        count, seconds = divmod(seconds, size)
        if count:
            parts.append(f"{count}{unit}")
    return "".join(parts) or "0s"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _held(group: GateGroup) -> Html:
    expiry = (
        Html("expired: rejected at the next run")
        if group.expired
        else fill("expires $at", at=moment_of(group.expires_at))
    )
    return fill(
        """<li><p class="gate-text">$text</p>
<meter min="0" max="$needed" value="$count" class="gate-meter">$count of $needed</meter>
<span class="gate-count">$count of $needed users</span>
<span class="meta">$shares · first shared $first · $expiry</span></li>""",
        text=group.text,
        needed=group.needed,
        count=group.distinct_subjects,
        shares=_plural(len(group.candidates), "share"),
        first=moment_of(group.first_shared_at),
        expiry=expiry,
    )


def _published(fact: GatePublished) -> Html:
    return fill(
        """<li><p class="gate-text">$text</p>
<span class="meta">$purpose · <code>$id</code></span></li>""",
        text=fact.text,
        purpose=fact.purpose or "",
        id=fact.id,
    )


def _decision(decision: GateDecision) -> Html:
    return fill(
        """<tr><td>$at</td><td class="decision-$kind">$label</td><td><code>$candidate</code></td>
<td><code>$fact</code></td></tr>""",
        at=moment_of(decision.at),
        kind=decision.decision,
        label=DECISIONS.get(decision.decision, decision.decision),
        candidate=decision.candidate,
        fact=decision.fact or "",
    )


def _listed(items: Sequence[Html], empty: str) -> Html:
    return join(items) or fill('<li class="empty">$e</li>', e=empty)


def _agent(agent: GateAgent) -> Html:
    decisions = (
        fill(
            """<table class="gate-table"><thead><tr><th>when</th><th>decision</th><th>candidate</th>
<th>fact key</th></tr></thead><tbody>$rows</tbody></table>""",
            rows=join(_decision(d) for d in agent.decisions),
        )
        if agent.decisions
        else Html('<p class="meta">No decision yet.</p>')
    )
    return fill(
        """<section class="gate-agent" aria-labelledby="agent-$name">
<h2 id="agent-$name">Agent <code>$name</code>
<span class="count">$held held · $published published</span></h2>
<section class="gate-held"><h3>Held</h3><ul class="items">$held_rows</ul></section>
<section class="gate-published"><h3>Published</h3><ul class="items">$published_rows</ul></section>
<section class="gate-decisions"><h3>Recent decisions</h3>$decisions</section>
</section>""",
        name=agent.agent,
        held=len(agent.held),
        published=len(agent.published),
        held_rows=_listed([_held(g) for g in agent.held], "Nothing held."),
        published_rows=_listed([_published(p) for p in agent.published], "Nothing published yet."),
        decisions=decisions,
    )


def gate(caller: Caller, status: GateStatus) -> Html:
    off = (
        EMPTY
        if status.enabled
        else Html('<p class="notice">The gate is off in this workspace\'s policy: shares stay private.</p>')
    )
    agents = join(_agent(a) for a in status.agents) or Html(
        '<p class="empty">No share has reached the gate in this workspace yet.</p>'
    )
    body = fill(
        """<section class="gate-summary">
<h1>The share gate</h1>
<p class="meta">Workspace <code>$workspace</code>. Texts are shown as the gate keeps them: scrubbed of
every sharer and identifier; sharers only as counts.</p>
$off
<dl class="facts">
<dt>gate</dt><dd>$enabled</dd>
<dt>users' shares</dt><dd>$accept</dd>
<dt>publishes at</dt><dd>$needed distinct users</dd>
<dt>window</dt><dd>$window: a fact not backed by enough users within it is rejected</dd>
</dl>
</section>
$agents""",
        workspace=status.workspace,
        off=off,
        enabled="on" if status.enabled else "off",
        accept="accepted" if status.accept_user_shares else "kept private",
        needed=status.min_distinct_subjects,
        window=window_text(status.window_seconds),
        agents=agents,
    )
    return layout("Share gate", body, nav(caller))
