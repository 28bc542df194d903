"""Layers import downward only; the tool, context and lifecycle layers never import an engine; the two
engines import nothing of each other, and above the engine core only the factory names one.

Read from the source with `ast`, so a new upward import fails here before it tangles the package.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "src" / "tinymemory"

_BRIDGE_BASE = {"api", "retrieval", "llm", "tools", "policy", "context", "lifecycle", "engines"}
_BRIDGE_BASE |= {"memory", "async_memory", "_loop", "_sync"}

# layer -> the tinymemory layers it may import (itself included)
ALLOWED: dict[str, set[str]] = {
    "api": {"api"},
    "retrieval": {"api", "retrieval"},
    "llm": {"api", "retrieval", "llm"},
    "engines": {"api", "retrieval", "engines"},
    "tools": {"api", "retrieval", "tools"},
    "policy": {"api", "retrieval", "tools", "policy"},
    "adapters": {"api", "tools", "policy", "adapters"},
    "context": {"api", "retrieval", "llm", "tools", "context"},
    "lifecycle": {"api", "retrieval", "llm", "tools", "context", "lifecycle"},
    "testing": {"api", "testing"},  # the conformance suite: speaks only the contract
    # Bridges to other ecosystems: over the facades (memory, async_memory) and the layers below them.
    # They open engines only through the `tinymemory.engines` factory (test below), never one engine.
    "integrations": {*_BRIDGE_BASE, "integrations"},
    "compat": {*_BRIDGE_BASE, "compat"},
    "_version": {"_version"},  # a leaf: the version string alone
    # The facades and the entry points, seen too: each may use what lies below it.
    "_loop": {"_loop"},
    "_sync": {"api", "_loop", "_sync"},
    "async_memory": {*_BRIDGE_BASE - {"memory", "_loop", "_sync"}, "adapters"},
    "memory": {"api", "adapters", "async_memory", "_loop", "_sync", "memory"},
    "service": {*_BRIDGE_BASE - {"memory", "_loop", "_sync"}, "adapters", "service"},
    "cli": {*_BRIDGE_BASE, "adapters", "service", "cli"},
    "__init__": {"api", "memory", "async_memory"},  # the package face re-exports the facades
    "__main__": {"cli"},
}
for _allowed in ALLOWED.values():
    _allowed.add("_version")  # every layer may say which version it is
# The two engines: packages under engines/ that implement the storage interface.
ENGINES = ("sqlite", "postgres")


def layer_of(path: Path) -> str:
    rel = path.relative_to(PACKAGE)
    return rel.parts[0].removesuffix(".py")


def imported_layers(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    found: set[str] = set()
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
        for name in names:
            parts = name.split(".")
            if parts[0] == "tinymemory" and len(parts) > 1:
                found.add(parts[1])
    return found


SOURCES = sorted(PACKAGE.rglob("*.py"))


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_imports_point_down(path: Path) -> None:
    layer = layer_of(path)
    assert layer in ALLOWED, f"{layer} is not a known layer: add it to ALLOWED with its place"
    upward = imported_layers(path) - ALLOWED[layer]
    assert not upward, f"{path.relative_to(PACKAGE)} ({layer}) imports {sorted(upward)}"


def engine_modules_imported(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("tinymemory.engines"))
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("tinymemory.engines"):
            found.add(str(node.module))
    return found


def engine_of(path: Path) -> str | None:
    """The engine package a module belongs to (engines/sqlite/...), or None."""
    rel = path.relative_to(PACKAGE).parts
    return rel[1] if len(rel) > 2 and rel[0] == "engines" and rel[1] in ENGINES else None


def named_engines(path: Path) -> set[str]:
    """The engine packages a module imports (directly or lazily inside a function)."""
    out = set()
    for module in engine_modules_imported(path):
        parts = module.split(".")
        if len(parts) > 2 and parts[2] in ENGINES:
            out.add(parts[2])
    return out


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_engines_import_nothing_of_each_other(path: Path) -> None:
    """An engine is storage under the core: it imports its own package and the shared engine modules,
    never the other engine; nothing outside the engines names one, except the factory (targets.py)."""
    mine = engine_of(path)
    named = named_engines(path) - ({mine} if mine else set())
    if path == PACKAGE / "engines" / "targets.py":
        return  # open_engine: the one place that opens an engine by name
    assert not named, f"{path.relative_to(PACKAGE)} imports the {sorted(named)} engine"


def test_the_engine_check_sees_an_engine_import() -> None:
    """Guard against a check that passes vacuously."""
    assert named_engines(PACKAGE / "engines" / "targets.py") == {"sqlite"}
    assert engine_of(PACKAGE / "engines" / "postgres" / "store.py") == "postgres"
    assert named_engines(PACKAGE / "engines" / "sqlite" / "engine.py") == {"sqlite"}


def test_bridges_open_engines_only_through_the_factory() -> None:
    """integrations/ and compat/ may call `tinymemory.engines.open_engine`, never import one engine."""
    bridges = [p for p in SOURCES if layer_of(p) in ("integrations", "compat")]
    for path in bridges:
        assert engine_modules_imported(path) <= {"tinymemory.engines"}, path.relative_to(PACKAGE)


def test_nothing_below_the_entry_points_imports_the_service() -> None:
    """The service is an entry point over the library: only the CLI (and the service itself) import it."""
    importers = [
        p.relative_to(PACKAGE)
        for p in PACKAGE.rglob("*.py")
        if "service" in imported_layers(p) and layer_of(p) not in ("service", "cli")
    ]
    assert importers == []


def imports_the_package_face(path: Path) -> bool:
    """`from tinymemory import X` or `import tinymemory`: the face re-exports the layers, so a module
    below it that imports it reaches every layer at once."""
    tree = ast.parse(path.read_text(), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "tinymemory" and node.level == 0:
            return True
        if isinstance(node, ast.Import) and any(a.name == "tinymemory" for a in node.names):
            return True
    return False


def test_nothing_below_the_face_imports_it() -> None:
    """The version comes from the leaf `_version`, never from the package face."""
    faces = {"__init__", "__main__"}
    importers = [
        p.relative_to(PACKAGE)
        for p in PACKAGE.rglob("*.py")
        if layer_of(p) not in faces and imports_the_package_face(p)
    ]
    assert importers == []


def test_the_check_sees_imports() -> None:
    """Guard against a check that passes vacuously."""
    assert imported_layers(PACKAGE / "engines" / "sqlite" / "engine.py") >= {"api"}
    assert len(SOURCES) > 30
    assert {layer_of(p) for p in SOURCES} >= {"cli", "service", "__init__", "memory"}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def module_graph() -> dict[str, set[str]]:
    """Module -> the tinymemory modules it imports anywhere in its body (lazy imports inside functions
    included: a cycle hidden in a function is still a cycle). Package faces (`__init__`) are left out:
    they re-export their own submodules by design."""
    paths = {module_name(p): p for p in PACKAGE.rglob("*.py")}
    faces = {module_name(p) for p in PACKAGE.rglob("__init__.py")}
    graph: dict[str, set[str]] = {}
    for name, path in paths.items():
        if name in faces:
            continue
        targets: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if isinstance(node, ast.Import):
                targets.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                targets.add(node.module)
                targets.update(f"{node.module}.{a.name}" for a in node.names)
        graph[name] = {t for t in targets if t in paths and t not in faces and t != name}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (iterative Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_no_import_cycles() -> None:
    """No two modules import each other, directly or round a loop (package faces aside)."""
    assert cycles(module_graph()) == []


def test_the_cycle_check_finds_a_cycle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []
