"""pytest plugin serving the conformance suite's fixtures from the engine factories it is given.

Factories come from `--tinymemory-engine module:attr` (repeatable; the attribute is an `EngineFactory`
or a list of them), which parametrizes `tinymemory_engine_factory` over them. Without the option, a
conftest supplies them by defining its own `tinymemory_engine_factory` fixture, parametrized over its
factories. The suite's tests ask for `engine` (a fresh engine from the current factory),
`engine_factory` (the factory itself, after its `requires` and `skip_unless` checks) and `clock` (the
time the test shares with its engine).
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from tinymemory.api import MemoryEngine
from tinymemory.testing import EngineFactory, SuiteClock

OPTION = "--tinymemory-engine"
_FACTORIES = pytest.StashKey[list[EngineFactory]]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("tinymemory", "tinymemory engine conformance suite")
    group.addoption(
        OPTION,
        action="append",
        default=[],
        metavar="MODULE:ATTR",
        help="an EngineFactory, or a list of them, to run the conformance suite against (repeatable)",
    )


def load_factories(spec: str) -> list[EngineFactory]:
    """The factories named by `module:attr`; a usage error naming the option when the spec is wrong."""
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name or not attr:
        raise pytest.UsageError(f"{OPTION}: expected MODULE:ATTR, got {spec!r}")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise pytest.UsageError(f"{OPTION} {spec}: cannot import {module_name!r}: {exc}") from exc
    value: object = module
    for part in attr.split("."):
        if not hasattr(value, part):
            raise pytest.UsageError(f"{OPTION} {spec}: {module_name!r} has no attribute {attr!r}")
        value = getattr(value, part)
    found = list(value) if isinstance(value, list | tuple) else [value]
    if not found or not all(isinstance(f, EngineFactory) for f in found):
        raise pytest.UsageError(
            f"{OPTION} {spec}: expected an EngineFactory or a non-empty list of them, "
            f"got {type(value).__name__}"
        )
    return [f for f in found if isinstance(f, EngineFactory)]


def pytest_configure(config: pytest.Config) -> None:
    specs: list[str] = config.getoption("tinymemory_engine") or []
    config.stash[_FACTORIES] = [f for spec in specs for f in load_factories(spec)]


@pytest.hookimpl(tryfirst=True)
def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Parametrizes over the option's factories. Added as a mark, before pytest applies marks and fixture
    params, so the option takes precedence over a conftest's parametrized fixture instead of clashing."""
    factories = metafunc.config.stash.get(_FACTORIES, [])
    if factories and "tinymemory_engine_factory" in metafunc.fixturenames:
        ids = [f.name for f in factories]
        metafunc.definition.add_marker(
            pytest.mark.parametrize("tinymemory_engine_factory", factories, ids=ids)
        )


@pytest.fixture
def tinymemory_engine_factory() -> EngineFactory:
    """Stands in until factories are given; a run without any fails here, saying how to give them."""
    pytest.fail(
        f"no engine factory: pass {OPTION} MODULE:ATTR, or define a `tinymemory_engine_factory` "
        "fixture parametrized over your factories",
        pytrace=False,
    )


@pytest.fixture
def engine_factory(tinymemory_engine_factory: EngineFactory) -> EngineFactory:
    """The current factory, skipped when what it requires is missing on this machine."""
    factory = tinymemory_engine_factory
    if factory.requires and importlib.util.find_spec(factory.requires) is None:
        pytest.skip(f"{factory.name}: `{factory.requires}` is not installed")
    if factory.skip_unless is not None and not factory.skip_unless():
        pytest.skip(f"{factory.name}: not available on this machine")
    return factory


@pytest.fixture
def clock(engine_factory: EngineFactory) -> SuiteClock:
    """The test's clock: manual when the factory hands it to its engines, else the system's."""
    return SuiteClock(manual=engine_factory.takes_clock)


@pytest_asyncio.fixture
async def engine(
    engine_factory: EngineFactory, clock: SuiteClock, tmp_path: Path
) -> AsyncIterator[MemoryEngine]:
    """A fresh, empty engine from the current factory, on the test's clock if it takes one; closed after
    the test."""
    opening = (
        engine_factory.open(tmp_path, clock=clock)
        if engine_factory.takes_clock
        else engine_factory.open(tmp_path)
    )
    async with opening as opened:
        yield opened
