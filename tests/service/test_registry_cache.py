"""The registry's short-lived copy: this process's writes show at once, another process's within the
copy's lifetime, never later."""

from __future__ import annotations

from pathlib import Path

from engines import make_engine
from tinymemory.service.registry import AgentRegistry


async def test_own_writes_show_at_once_and_others_after_the_copy_expires(tmp_path: Path) -> None:
    now = [0.0]
    async with make_engine(tmp_path / "r.db", embedder=None) as engine:
        mine = AgentRegistry(engine, clock=lambda: now[0])
        other = AgentRegistry(engine)  # another process's registry over the same store
        assert await mine.cached("acme", "helper") is None
        await mine.put("acme", "helper", notes="v1")
        assert (await mine.cached("acme", "helper")).notes == "v1"  # type: ignore[union-attr]
        await other.put("acme", "helper", notes="v2")
        assert (await mine.cached("acme", "helper")).notes == "v1"  # type: ignore[union-attr]
        now[0] += AgentRegistry.CACHE_SECONDS + 0.1
        assert (await mine.cached("acme", "helper")).notes == "v2"  # type: ignore[union-attr]
        await mine.delete("acme", "helper")
        assert await mine.cached("acme", "helper") is None
