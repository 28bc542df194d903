"""The agent memory loop, end to end, with no LLM and no network.

Two sessions with one agent: the user introduces themselves and states a preference, then corrects
it. Each turn is logged, the belief build runs after it, and the next session's brief (context.md)
shows what the agent now believes. Run: python examples/agent_loop.py
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
from pathlib import Path

from tinymemory.engines.sqlite import SqliteEngine
from tinymemory.lifecycle import AgentMemory, MemoryLayout

SESSIONS = [
    [
        ("Hi! My name is Ada and I work at the Analytical Engine project.", "Nice to meet you, Ada."),
        ("I prefer tea. Always answer in British English.", "Noted: tea, and British English."),
        ("I have a design review on Friday.", "Good luck with the review."),
    ],
    [
        ("Actually, I prefer coffee now.", "Coffee it is."),
        ("What do you know about me?", "Let me check my notes."),
    ],
]


def reply_from(pack_markdown: str, message: str) -> str:
    """A stand-in for the model: a real host sends the pack and the message to its LLM."""
    return f"(model answers {message!r} with {pack_markdown.count(chr(10) + '- ')} memories in view)"


async def main(db: Path) -> None:
    async with SqliteEngine(db, embedder=None) as engine:
        memory = AgentMemory(engine, "assistant", layout=MemoryLayout.at("team:demo"))
        for number, script in enumerate(SESSIONS, start=1):
            brief = await memory.session_start()
            print(f"=== session {number}: context.md ({brief.tokens} tokens) ===")
            print(brief.markdown or "(empty: nothing learned yet)")
            thread = f"session-{number}"
            for user, reply in script:
                pack = await memory.pre_turn(user, thread_id=thread)
                print(f"user: {user}\n  {reply_from(pack.markdown, user)}")
                log = await memory.post_turn(thread, user, reply)
                reports = await log.job  # a host may instead queue the job and run it later
                for r in reports:
                    if r.stored:
                        print(f"  [{r.step}] stored {len(r.stored)}, superseded {len(r.superseded)}")
        final = await memory.session_start()
        print("=== next session: context.md ===")
        print(final.markdown)


if __name__ == "__main__":
    if len(sys.argv) > 1:
        asyncio.run(main(Path(sys.argv[1])))
    else:
        with tempfile.TemporaryDirectory() as tmp:
            asyncio.run(main(Path(tmp) / "agent.db"))
