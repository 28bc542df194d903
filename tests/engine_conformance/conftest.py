"""Hands the SQLite factories to the suite's fixtures (the conftest route of `tinymemory.testing`)."""

from __future__ import annotations

import pytest

from tinymemory.testing import EngineFactory
from tinymemory.testing.plugin import clock, engine, engine_factory

from .factories import FACTORIES

__all__ = ["clock", "engine", "engine_factory", "tinymemory_engine_factory"]


@pytest.fixture(params=FACTORIES, ids=lambda f: f.name)
def tinymemory_engine_factory(request: pytest.FixtureRequest) -> EngineFactory:
    factory: EngineFactory = request.param
    return factory
