"""Every runtime dependency in pyproject.toml is imported somewhere in src/ (nothing dead to install)."""

from __future__ import annotations

import ast
import importlib.metadata
import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def declared_runtime_dependencies() -> list[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    names = []
    for requirement in project["dependencies"]:
        match = re.match(r"[A-Za-z0-9._-]+", requirement)
        assert match is not None, requirement
        names.append(match.group(0))
    return names


def imported_top_level_modules() -> set[str]:
    found: set[str] = set()
    for path in (ROOT / "src").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                found.add(node.module.split(".")[0])
    return found


def test_every_runtime_dependency_is_imported() -> None:
    modules_of: dict[str, set[str]] = {}
    for module, dists in importlib.metadata.packages_distributions().items():
        for dist in dists:
            modules_of.setdefault(re.sub(r"[-_.]+", "-", dist).lower(), set()).add(module)
    imported = imported_top_level_modules()
    unused = [
        name
        for name in declared_runtime_dependencies()
        if not modules_of.get(re.sub(r"[-_.]+", "-", name).lower(), set()) & imported
    ]
    assert unused == [], f"declared in pyproject.toml but imported nowhere in src/: {unused}"
