"""AgentMemory: the memory loop of one agent, in four calls.

    session_start()      -> context.md for the agent's part of the tree (a ContextPack)
    pre_turn(message)    -> a budgeted holistic-recall pack for the user's message
    post_turn(thread, user, reply) -> the turns stored in the thread, plus a BackgroundJob
    compact(thread)      -> a BackgroundJob folding old turns into a summary

Writes go to the agent's own nodes of the MemoryLayout; reads never leave `layout.agent_reach`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from tinymemory.api import InvalidRequest, ItemKind, MemoryEngine, MetaFilter, Namespace, Reach, utcnow
from tinymemory.context import ContextPack, ContextSpec, Scope, compile, recall
from tinymemory.lifecycle.beliefs import build_beliefs
from tinymemory.lifecycle.compaction import compact_thread, folded_ids
from tinymemory.lifecycle.jobs import BackgroundJob, JobReport
from tinymemory.lifecycle.layout import MemoryLayout
from tinymemory.lifecycle.turns import count_turns, new_turn
from tinymemory.llm import LLM

# Whole documents are left out of pre-turn packs: their chunks carry the same text, better cut.
PRE_TURN_KINDS = (ItemKind.LEARNING, ItemKind.CHUNK, ItemKind.SUMMARY, ItemKind.CONVERSATION)


@dataclass(frozen=True, slots=True)
class TurnLog:
    """The ids of the stored turns (user first) and the work they made due."""

    turn_ids: tuple[str, ...]
    job: BackgroundJob


class AgentMemory:
    """The memory loop of one agent: `session_start` (its context.md), `pre_turn` (a recall pack for the
    user's message), `post_turn` (log the turns and hand back the belief build) and `compact` (fold old
    turns into a summary). Writes go to the agent's own part of the layout and reads never leave `reach`,
    so a sibling agent's memory stays out.

    `layout` may be a MemoryLayout, a Namespace or a root string (`"team:acme"`); `agent_id` a name or
    its `agent:<name>` segment. Without an LLM, `notes` also keeps the user's first-person statements
    that no rule gives a subject to (see docs/architecture/lifecycle.md, "Memory formation")."""

    def __init__(
        self,
        engine: MemoryEngine,
        agent_id: str,
        *,
        layout: MemoryLayout | Namespace | str | None = None,
        llm: LLM | None = None,
        now: Callable[[], datetime] = utcnow,
        brief_tokens: int = 1_500,
        pack_tokens: int = 800,
        compact_after: int = 40,
        keep_last: int = 20,
        notes: bool = True,
    ) -> None:
        if keep_last < 0 or compact_after <= keep_last:
            raise InvalidRequest("agent memory: `compact_after` must be greater than `keep_last` (>= 0)")
        self.engine = engine
        self.layout = MemoryLayout.of(layout, op="agent memory")
        self.agent_id = self.layout.agent_id(agent_id, op="agent memory")
        self.llm = llm
        self.now = now
        self.brief_tokens = brief_tokens
        self.pack_tokens = pack_tokens
        self.compact_after = compact_after
        self.keep_last = keep_last
        self.notes = notes  # without an LLM, keep first-person statements no rule names a subject for

    @property
    def reach(self) -> Reach:
        """Everything this agent may read: its own subtree, its ancestors, the brain and the shared
        learnings; never a sibling agent's part."""
        return self.layout.agent_reach(self.agent_id)

    async def session_start(self) -> ContextPack:
        """context.md for this agent: its learnings, summaries and the shared ones; never a sibling's."""
        spec = ContextSpec(
            budget_tokens=self.brief_tokens,
            reach=self.layout.context_reach(self.agent_id),
            learnings_reach=self.layout.beliefs_reach(self.agent_id),
            now=self.now,
        )
        return await compile(self.engine, spec)

    async def pre_turn(self, message: str, *, thread_id: str | None = None) -> ContextPack:
        """What to show the model before it answers `message` (turns already summarised are left out)."""
        lay, a = self.layout, self.agent_id
        scopes = (
            Scope(Reach.exact(lay.learnings(a)), 1.0, "learnings"),
            Scope(Reach.of(lay.agent(a)), 0.8, "agent"),
            Scope(Reach.exact(lay.shared_learnings), 0.8, "shared"),
            Scope(Reach.subtree(lay.brain_root), 0.7, "brain"),
            Scope(Reach.exact(lay.conversations(a)), 0.6, "conversations"),
        )
        exclude = await folded_ids(self.engine, lay.conversations(a), thread_id) if thread_id else frozenset()
        return await recall(
            self.engine,
            message,
            scopes,
            budget_tokens=self.pack_tokens,
            filter=MetaFilter(kinds=PRE_TURN_KINDS),
            exclude=exclude,
            now=self.now,
        )

    async def post_turn(self, thread_id: str, user: str, reply: str | None = None) -> TurnLog:
        """Store the user's message (and the reply) as the thread's next turns; hand back the belief
        build (and compaction, once the thread is long enough) as a job."""
        ns = self.layout.conversations(self.agent_id)
        index = await count_turns(self.engine, ns, thread_id)
        at = self.now()
        items = [new_turn(ns, self.agent_id, thread_id, index, "user", user, at)]
        if reply is not None:
            items.append(new_turn(ns, self.agent_id, thread_id, index + 1, "agent", reply, at))
        results = await self.engine.store_many(items)
        steps = [("beliefs", lambda: self._beliefs(thread_id))]
        if index + len(items) >= self.compact_after:
            steps.append(("compaction", lambda: self._compact(thread_id)))
        return TurnLog(tuple(r.id for r in results), BackgroundJob(f"post_turn:{thread_id}", steps))

    def beliefs(self, thread_id: str) -> BackgroundJob:
        """The belief build for one thread on its own (e.g. at session end)."""
        return BackgroundJob(f"beliefs:{thread_id}", [("beliefs", lambda: self._beliefs(thread_id))])

    def compact(self, thread_id: str, *, keep_last: int | None = None) -> BackgroundJob:
        """Fold the thread's older turns now-or-later; beliefs are built first so nothing is missed."""
        keep = self.keep_last if keep_last is None else keep_last
        return BackgroundJob(
            f"compact:{thread_id}",
            [
                ("beliefs", lambda: self._beliefs(thread_id)),
                ("compaction", lambda: self._compact(thread_id, keep, min_fold=1)),
            ],
        )

    async def _beliefs(self, thread_id: str) -> JobReport:
        return await build_beliefs(
            self.engine,
            turns_ns=self.layout.conversations(self.agent_id),
            learnings_ns=self.layout.learnings(self.agent_id),
            agent_id=self.agent_id,
            thread_id=thread_id,
            llm=self.llm,
            notes=self.notes,
        )

    async def _compact(
        self, thread_id: str, keep_last: int | None = None, min_fold: int | None = None
    ) -> JobReport:
        """Without arguments: fold once the thread has `compact_after` open turns, keeping `keep_last`."""
        return await compact_thread(
            self.engine,
            ns=self.layout.conversations(self.agent_id),
            agent_id=self.agent_id,
            thread_id=thread_id,
            keep_last=self.keep_last if keep_last is None else keep_last,
            min_fold=self.compact_after - self.keep_last if min_fold is None else min_fold,
            llm=self.llm,
        )
