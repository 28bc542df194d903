"""Compaction: the older turns of a thread folded into one summary memory that cites them.

The turns stay stored and readable by id; the summary's evidence lists them, which is how later reads
(and later compactions) know they are folded. With an LLM the summary is written by the model; without
one it is extractive: the opening sentence of each folded turn, with its role, within a size bound.
"""

from __future__ import annotations

import re

from tinymemory.api import ItemKind, ItemMeta, MemoryEngine, MetaFilter, Namespace, NewItem, Source
from tinymemory.api.paging import list_all
from tinymemory.lifecycle.jobs import JobReport
from tinymemory.lifecycle.turns import Turn, read_turns
from tinymemory.llm import LLM

SUMMARY_CHARS = 1_500
LINE_CHARS = 160


async def folded_ids(engine: MemoryEngine, ns: Namespace, thread_id: str) -> frozenset[str]:
    summaries = await list_all(
        engine, MetaFilter(namespace=ns, thread_id=thread_id, kinds=(ItemKind.SUMMARY,))
    )
    return frozenset(e for s in summaries for e in s.meta.evidence)


async def compact_thread(
    engine: MemoryEngine,
    *,
    ns: Namespace,
    agent_id: str,
    thread_id: str,
    keep_last: int = 20,
    min_fold: int = 10,
    llm: LLM | None = None,
) -> JobReport:
    """Fold every unfolded turn but the last `keep_last`, when at least `min_fold` of them are due."""
    turns = await read_turns(engine, ns, thread_id)
    folded = await folded_ids(engine, ns, thread_id)
    open_turns = [t for t in turns if t.id not in folded]
    due = open_turns[: max(0, len(open_turns) - keep_last)]
    if len(due) < max(1, min_fold):
        return JobReport("compaction", unchanged=1 if folded else 0, turns_read=len(turns))
    lines = [f"{t.role}: {' '.join(t.text.split())}" for t in due]
    text = await llm.summarise(lines) if llm else extractive_summary(due)
    first, last = due[0].index, due[-1].index
    header = f"Summary of turns {first}-{last} of thread {thread_id}: "
    result = await engine.store(
        NewItem(
            ItemKind.SUMMARY,
            header + text,
            ItemMeta(
                namespace=ns,
                source=Source("compaction", agent_id),
                thread_id=thread_id,
                agent_id=agent_id,
                evidence=tuple(t.id for t in due),
                observed_at=due[-1].said_at,
                extra=(("turns", f"{first}-{last}"),),
            ),
            identity=f"{thread_id}:summary:{first}-{last}",
        )
    )
    return JobReport(
        "compaction",
        stored=() if result.replayed else (result.id,),
        unchanged=1 if result.replayed else 0,
        turns_read=len(turns),
    )


def extractive_summary(turns: list[Turn]) -> str:
    """Each turn's first sentence, clipped; user lines are kept first when space runs out."""

    def first_sentence(text: str) -> str:
        flat = " ".join(text.split())
        m = re.search(r"[.!?](?=\s)", flat)
        flat = flat[: m.end()] if m else flat
        return flat if len(flat) <= LINE_CHARS else flat[: LINE_CHARS - 1] + "…"

    lines = [f"{t.role}: {first_sentence(t.text)}" for t in turns]
    text = " | ".join(lines)
    if len(text) > SUMMARY_CHARS:
        text = " | ".join(line for line in lines if line.startswith("user:"))
    return text if len(text) <= SUMMARY_CHARS else text[: SUMMARY_CHARS - 1] + "…"
