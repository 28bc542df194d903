"""Brain ingestion, with no LLM and no network: a small folder of documents goes in, re-ingest is a
replay, an edit replaces one document's chunks, and an agent's pre-turn pack cites the chunks.

Run: python examples/brain.py
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
from pathlib import Path

from tinymemory.engines.sqlite import SqliteEngine
from tinymemory.lifecycle import AgentMemory, Brain, MemoryLayout

DOCS = {
    "handbook/onboarding.md": "# Onboarding\n\nWelcome aboard.\n\n## Laptop\n\n"
    "Pick up your laptop from IT on day one. ![desk map](../img/desk.png)\n\n"
    "## Accounts\n\nRequest repository access from your lead.\n",
    "handbook/holidays.html": "<html><head><title>Holidays</title></head><body><h1>Holidays</h1>"
    "<p>Everyone gets 25 days of paid leave.</p>"
    "<h2>Booking</h2><p>Book leave in the HR portal.</p></body></html>",
    "notes/standup.txt": "Standup is at 9:30 every weekday.\n\nKeep updates under two minutes.\n",
}


async def main(work: Path) -> None:
    folder = work / "docs"
    for rel, text in DOCS.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(text, encoding="utf-8")
    (folder / "img").mkdir(exist_ok=True)
    (folder / "img" / "desk.png").write_bytes(b"\x89PNG\r\n\x1a\n")

    layout = MemoryLayout.at("team:demo")
    async with SqliteEngine(work / "brain.db", embedder=None) as engine:
        brain = Brain(engine, layout)
        first = await brain.ingest_folder(folder, source="handbook")
        print(f"first ingest: stored {sorted(first.stored)}, {first.chunks} chunks")
        again = await brain.ingest_folder(folder, source="handbook")
        print(f"second ingest: unchanged {len(again.unchanged)}, stored {len(again.stored)}")
        (folder / "notes/standup.txt").write_text("Standup moved to 10:00 every weekday.\n", encoding="utf-8")
        edited = await brain.ingest_folder(folder, source="handbook")
        print(f"after an edit: replaced {edited.replaced}")

        agent = AgentMemory(engine, "helper", layout=layout)
        pack = await agent.pre_turn("When is standup and how do I book leave?")
        print(pack.markdown)


if __name__ == "__main__":
    if len(sys.argv) > 1:
        asyncio.run(main(Path(sys.argv[1])))
    else:
        with tempfile.TemporaryDirectory() as tmp:
            asyncio.run(main(Path(tmp)))
