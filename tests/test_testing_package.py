"""`tinymemory.testing` works for a third party: the suite runs from the installed package against a
factory named on the command line, under the engine author's own pytest configuration, and the library
never needs pytest."""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import tinymemory
from tinymemory.testing import suite

TESTS = Path(__file__).resolve().parent
PACKAGE = Path(tinymemory.__file__).resolve().parent
SUITE = Path(suite.__file__).resolve().parent


def run_suite(tmp_path: Path, *args: str, target: str = "tinymemory.testing.suite") -> tuple[int, str]:
    """pytest as an engine author runs it: from their own directory and config, our tests dir on the path
    only so the factory module can be imported."""
    (tmp_path / "pytest.ini").write_text("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")} | {"PYTHONPATH": str(TESTS)}
    command = [
        sys.executable,
        "-m",
        "pytest",
        "-c",
        "pytest.ini",
        "-p",
        "no:cacheprovider",
        "--pyargs",
        target,
    ]
    done = subprocess.run(
        [*command, "-p", "tinymemory.testing.plugin", *args],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    return done.returncode, done.stdout + done.stderr


def counts(output: str) -> dict[str, int]:
    summary = output.strip().splitlines()[-1]
    return {word: int(n) for n, word in re.findall(r"(\d+) (passed|failed|skipped|errors?)", summary)}


def test_a_third_party_runs_the_whole_suite_against_a_named_factory(tmp_path: Path) -> None:
    code, output = run_suite(
        tmp_path, "--tinymemory-engine", "engine_conformance.factories:SQLITE_MEMORY", "-q", "-x"
    )
    assert code == 0, output
    got = counts(output)
    assert got.get("passed", 0) > 50, output
    assert "failed" not in got and "error" not in got and "errors" not in got, output


def test_a_list_of_factories_runs_each_test_once_per_factory(tmp_path: Path) -> None:
    target = "tinymemory.testing.suite.test_cursors"
    spec = "engine_conformance.factories:SQLITE_MEMORY"
    code, one = run_suite(tmp_path, "--tinymemory-engine", spec, "-q", target=target)
    assert code == 0, one
    code, every = run_suite(
        tmp_path, "--tinymemory-engine", "engine_conformance.factories:FACTORIES", "-v", target=target
    )
    assert code == 0, every
    from engine_conformance.factories import FACTORIES

    assert sum(counts(every).values()) == len(FACTORIES) * sum(counts(one).values()) > 0
    assert all(f"[{f.name}]" in every for f in FACTORIES), every


@pytest.mark.parametrize(
    ("spec", "says"),
    [
        ("no-colon", "expected MODULE:ATTR"),
        ("engine_conformance.absent:FACTORY", "cannot import 'engine_conformance.absent'"),
        ("engine_conformance.factories:ABSENT", "has no attribute 'ABSENT'"),
        ("engine_conformance.factories:_EMBEDDER_CACHE", "expected an EngineFactory or a non-empty list"),
    ],
)
def test_a_bad_factory_spec_is_a_usage_error_naming_the_option(tmp_path: Path, spec: str, says: str) -> None:
    code, output = run_suite(tmp_path, "--tinymemory-engine", spec, "-q")
    assert code == pytest.ExitCode.USAGE_ERROR, output
    assert f"--tinymemory-engine {spec}" in output or f"got {spec!r}" in output, output
    assert says in output, output
    assert "Traceback" not in output


def test_without_a_factory_the_suite_says_how_to_give_one(tmp_path: Path) -> None:
    code, output = run_suite(tmp_path, "-q", "-x", target="tinymemory.testing.suite.test_cursors")
    assert code != 0
    assert "no engine factory: pass --tinymemory-engine MODULE:ATTR" in output, output


def test_every_suite_module_is_run_by_our_own_runner() -> None:
    """A suite module without its twin in tests/engine_conformance would silently never run here."""
    shipped = {p.name for p in SUITE.glob("test_*.py")}
    assert len(shipped) > 10
    assert shipped <= {p.name for p in (TESTS / "engine_conformance").glob("test_*.py")}


def test_the_suite_never_imports_the_test_tree() -> None:
    for path in SUITE.rglob("*.py"):
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                assert not node.module.startswith(("tests", "engine_conformance")), path
            if isinstance(node, ast.Import):
                assert not any(a.name.startswith(("tests", "engine_conformance")) for a in node.names), path


def test_only_the_testing_package_imports_itself() -> None:
    importers = []
    for path in PACKAGE.rglob("*.py"):
        if path.relative_to(PACKAGE).parts[0] == "testing":
            continue
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in ast.walk(tree):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            if any(n == "tinymemory.testing" or n.startswith("tinymemory.testing.") for n in names):
                importers.append(path.relative_to(PACKAGE))
    assert importers == []


def test_the_library_and_the_factory_type_load_without_pytest() -> None:
    """Every module outside the suite and plugin imports in a process where pytest is never loaded."""
    script = (
        "import importlib, pkgutil, sys, tinymemory\n"
        "names = [m.name for m in pkgutil.walk_packages(tinymemory.__path__, 'tinymemory.')\n"
        "         if not m.name.startswith('tinymemory.testing.') and not m.name.endswith('__main__')]\n"
        "for name in names:\n"
        "    importlib.import_module(name)\n"
        "assert 'tinymemory.testing' in names and len(names) > 50, names\n"
        "test_runner = ('pytest', '_pytest', 'pytest_asyncio')\n"
        "loaded = sorted(m for m in sys.modules if m.split('.')[0] in test_runner)\n"
        "assert loaded == [], loaded\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
