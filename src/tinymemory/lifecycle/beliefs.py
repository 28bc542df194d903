"""The belief build: learnings distilled from a thread's user turns.

1. Read the thread's turns; extract candidate learnings (the LLM when configured, else the rules).
   Everything is computed before anything is written, so a failing model writes nothing.
2. Resolve in conversation order: one subject (its About, else its normalised text) keeps its latest
   value; repeats of the same value merge their evidence and raise confidence.
3. Write only what is new: a learning is skipped when a stored version of the same content already
   cites one of its turns (it was applied before: running twice changes nothing), or when the active
   learning on its subject was said later (a stale thread never overrides a newer correction).
   The rest is stored in one all-or-nothing batch; a new value on a subject supersedes the old one,
   which stays readable with as_of.
4. Forget means forgotten: when the user forgot a version of the same content, only what was said
   after that forget counts. Said only before it, the learning is not derived again; said again later,
   it is learned again, citing (and gaining confidence from) the later turns alone.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime

from tinymemory.api import (
    About,
    GetRequest,
    ItemKind,
    ItemMeta,
    MemoryEngine,
    MetaFilter,
    Namespace,
    NewItem,
    Source,
    content_key,
    item_id,
)
from tinymemory.api.ids import normalise_text
from tinymemory.api.paging import newest
from tinymemory.lifecycle import rules
from tinymemory.lifecycle.jobs import JobReport
from tinymemory.lifecycle.turns import Turn, read_turns
from tinymemory.llm import LLM

MAX_CONFIDENCE = 0.95
GENERATIONS = 16  # versions of one content key looked up to decide "already applied"


@dataclass(frozen=True, slots=True)
class Candidate:
    text: str
    kind: str
    about: About | None
    confidence: float
    evidence: tuple[str, ...]  # turn ids
    said_at: datetime
    event_from: datetime | None = None
    event_to: datetime | None = None

    @property
    def subject(self) -> tuple[str, str, str]:
        if self.about is not None:
            return ("about", self.about.kind, self.about.key)
        return ("text", "", normalise_text(self.text).lower())


async def build_beliefs(
    engine: MemoryEngine,
    *,
    turns_ns: Namespace,
    learnings_ns: Namespace,
    agent_id: str,
    thread_id: str,
    llm: LLM | None = None,
    notes: bool = True,
) -> JobReport:
    """Learn from the thread's user turns (see the module docstring). `notes` keeps, without an LLM, the
    user's first-person statements no rule names a subject for."""
    turns = await read_turns(engine, turns_ns, thread_id)
    user_turns = [t for t in turns if t.role == "user"]
    candidates = await (_llm_candidates(llm, user_turns) if llm else _rule_candidates(user_turns, notes))
    said_at = {t.id: t.said_at for t in user_turns}
    to_store: list[NewItem] = []
    unchanged = 0
    for cand in resolve(candidates):
        due = await _due(engine, _new_item(cand, learnings_ns, agent_id), cand, candidates, said_at)
        if due is None or await _stale(engine, learnings_ns, due):
            unchanged += 1
        else:
            to_store.append(_new_item(due, learnings_ns, agent_id))
    results = await engine.store_many(to_store) if to_store else []
    return JobReport(
        step="beliefs",
        stored=tuple(r.id for r in results if not r.replayed),
        superseded=tuple(s for r in results for s in r.superseded),
        unchanged=unchanged + sum(1 for r in results if r.replayed),
        turns_read=len(turns),
    )


def resolve(candidates: list[Candidate]) -> list[Candidate]:
    """Latest value per subject, evidence merged across repeats; ordered by first appearance."""
    latest: dict[tuple[str, str, str], Candidate] = {}
    for cand in candidates:
        prev = latest.get(cand.subject)
        if prev is not None and _same_value(prev, cand):
            latest[cand.subject] = replace(
                prev,
                evidence=tuple(dict.fromkeys(prev.evidence + cand.evidence)),
                confidence=min(MAX_CONFIDENCE, max(prev.confidence, cand.confidence) + 0.05),
                said_at=max(prev.said_at, cand.said_at),
            )
        else:
            latest.pop(cand.subject, None)  # a new value moves to the end of the order
            latest[cand.subject] = cand
    return list(latest.values())


def _same_value(a: Candidate, b: Candidate) -> bool:
    return normalise_text(a.text).lower() == normalise_text(b.text).lower()


async def _rule_candidates(turns: list[Turn], notes: bool) -> list[Candidate]:
    out: list[Candidate] = []
    known: dict[str, About] = {}  # names bound to a pet or a relative ("Rex died"), instructions held
    held: dict[About, str] = {}  # each subject's latest text, oldest first ("Boeing, not Airbus")
    for turn in turns:
        for found in rules.extract(turn.text, turn.said_at, notes=notes, known=known, held=held):
            if found.about is not None:
                held.pop(found.about, None)
                held[found.about] = found.text
            if found.named and found.about is not None:
                known[found.named.lower()] = found.about
            if found.kind == "instruction" and found.about is not None:
                known[rules.known_slot(found.about.key)] = found.about  # for "use X instead"
            out.append(
                Candidate(
                    found.text,
                    found.kind,
                    found.about,
                    found.confidence,
                    (turn.id,),
                    turn.said_at,
                    found.event_from,
                    found.event_to,
                )
            )
    return out


async def _llm_candidates(llm: LLM, turns: list[Turn]) -> list[Candidate]:
    if not turns:
        return []
    extracted = await llm.extract([t.text for t in turns])
    out: list[tuple[int, Candidate]] = []
    for learning in extracted:
        cited = [turns[i] for i in learning.turns] or [turns[-1]]
        about = (
            About(learning.about_kind, learning.about_key)
            if learning.about_kind and learning.about_key
            else None
        )
        first = min(turns.index(t) for t in cited)
        out.append(
            (
                first,
                Candidate(
                    learning.text,
                    learning.kind,
                    about,
                    learning.confidence,
                    tuple(t.id for t in cited),
                    max(t.said_at for t in cited),
                ),
            )
        )
    out.sort(key=lambda pair: pair[0])
    return [c for _, c in out]


def _new_item(c: Candidate, ns: Namespace, agent_id: str) -> NewItem:
    return NewItem(
        ItemKind.LEARNING,
        c.text,
        ItemMeta(
            namespace=ns,
            source=Source("beliefs", agent_id),
            agent_id=agent_id,
            learning_kind=c.kind,
            evidence=c.evidence,
            about=c.about,
            observed_at=c.said_at,
            event_from=c.event_from,
            event_to=c.event_to,
        ),
        confidence=round(c.confidence, 4),
    )


async def _due(
    engine: MemoryEngine,
    item: NewItem,
    cand: Candidate,
    candidates: list[Candidate],
    said_at: dict[str, datetime],
) -> Candidate | None:
    """What to store for `cand`: None when a version of it is active or already cites its turns, or
    when the user forgot it after its turns were said; else the candidate rebuilt from what was said
    after the latest forget (the whole candidate if its content was never forgotten)."""
    key = content_key(item)
    versions = await engine.get(GetRequest(ids=tuple(item_id(key, g) for g in range(GENERATIONS))))
    cited = set(cand.evidence)
    if any(v.is_active or cited & set(v.meta.evidence) for v in versions.items):
        return None
    if not versions.forgotten:
        return cand
    forgot = max(t.forgotten_at for t in versions.forgotten)
    later = [
        replace(c, evidence=tuple(e for e in c.evidence if said_at.get(e, c.said_at) > forgot))
        for c in candidates
        if c.subject == cand.subject and _same_value(c, cand) and c.said_at > forgot
    ]
    fresh = resolve(later)
    return fresh[0] if fresh else None


async def _stale(engine: MemoryEngine, ns: Namespace, cand: Candidate) -> bool:
    if cand.about is None:
        return False
    active = await newest(engine, MetaFilter(namespace=ns, kinds=(ItemKind.LEARNING,), about=cand.about))
    return (
        active is not None and active.meta.observed_at is not None and active.meta.observed_at > cand.said_at
    )
