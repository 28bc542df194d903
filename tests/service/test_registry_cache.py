"""The registry's short-lived copy: this process's writes show at once, another process's within the
copy's lifetime, never later."""

from __future__ import annotations

from pathlib import Path

from engines import make_engine
from tinymemory.service.fleet import Fleet
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


async def test_writes_of_another_worker_of_the_same_service_show_at_once(tmp_path: Path) -> None:
    """The workers of one `serve --workers N` share the fleet's change counter, so a change made through
    one drops the others' copies before their next lookup."""
    fleet = Fleet.create()
    try:
        async with make_engine(tmp_path / "r.db", embedder=None) as engine:
            mine = AgentRegistry(engine, clock=lambda: 0.0, changes=fleet.registry_changes())
            other = AgentRegistry(engine, changes=fleet.registry_changes())
            await other.put("acme", "helper", notes="v1")
            assert (await mine.cached("acme", "helper")).notes == "v1"  # type: ignore[union-attr]
            await other.put("acme", "helper", notes="v2")
            assert (await mine.cached("acme", "helper")).notes == "v2"  # type: ignore[union-attr]
            await other.delete("acme", "helper")
            assert await mine.cached("acme", "helper") is None
    finally:
        fleet.remove()
