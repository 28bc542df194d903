"""LangGraph's own store suites run against TinyMemoryStore and against LangGraph's stores, side by side.

The suites are LangGraph's code, so they are not in this repository: give the script a checkout of
langchain-ai/langgraph (or its bare git directory, read at the pinned commit), e.g.

    python bench/langgraph_suite.py ../langgraph            # a checkout at COMMIT
    python bench/langgraph_suite.py ../langgraph.git        # a git directory: files read at COMMIT
    python bench/langgraph_suite.py ../langgraph --postgres # TinyMemoryStore on PostgreSQL too

`make bench` runs it with $TINYMEMORY_LANGGRAPH_REPO (and skips it when that is unset).

It copies the suites (SUITES) into a temporary folder and runs each twice with pytest in a subprocess:
once as LangGraph wrote it (InMemoryStore, SqliteStore, AsyncSqliteStore: the reference), once with
`langgraph_suite_plugin.py`, which rebinds those class names to TinyMemoryStore opened on a real SQLite
file (or on a fresh PostgreSQL database with --postgres). Counts come from pytest's JUnit XML. The result
is the `langgraph-suite` section of docs/benchmarks.md, with the name of every test TinyMemoryStore
fails and why it is left failing (LEFT).

Needs, beside the dev install: langgraph-checkpoint-sqlite (the SQLite reference and the suites' own
imports), pytest-mock, and pytest-retry (the suites' `flaky` marker; without it the marker does nothing).
SqliteStore's vector search loads the sqlite-vec extension, which a Python built without loadable
sqlite3 extensions cannot do: `--reference-python` runs the reference on another interpreter that has
them (and those packages).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

from report import machine_line, write_section

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
COMMIT = "f09cfe8"  # langchain-ai/langgraph, the commit the counts in docs/benchmarks.md are from
SECTION = "langgraph-suite"

# suite -> (its folder in the langgraph repository, the test files run, the helper files they import)
SUITES: dict[str, tuple[str, tuple[str, ...], tuple[str, ...]]] = {
    "checkpoint": ("libs/checkpoint/tests", ("test_store.py",), ("__init__.py", "embed_test_utils.py")),
    "checkpoint-sqlite": (
        "libs/checkpoint-sqlite/tests",
        ("test_store.py", "test_async_store.py", "test_ttl.py"),
        ("__init__.py",),
    ),
}
REFERENCE = {"checkpoint": "InMemoryStore", "checkpoint-sqlite": "SqliteStore / AsyncSqliteStore"}

# Tests TinyMemoryStore is not meant to pass, and why: SqliteStore's private schema and connection.
LEFT: dict[str, str] = {
    "test_nonnull_migrations": "checks SqliteStore.MIGRATIONS, its own schema",
    "test_vector_store_initialization": "passes up to its last step, which reads SqliteStore's vector"
    " table through `store.conn`",
}


@dataclass
class Outcome:
    passed: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)

    @property
    def total(self) -> int:
        return len(self.passed) + len(self.failed) + len(self.skipped)


def extract(source: Path, into: Path) -> None:
    """Copy the suites from a checkout, or from a git directory at COMMIT, into `into/<suite>/tests`."""
    is_git = (source / "HEAD").is_file() and (source / "objects").is_dir()
    for suite, (folder, tests, helpers) in SUITES.items():
        dest = into / suite / "tests"
        dest.mkdir(parents=True)
        for name in tests + helpers:
            if is_git:
                text = subprocess.run(
                    ["git", "-C", str(source), "show", f"{COMMIT}:{folder}/{name}"],
                    check=True,
                    capture_output=True,
                    text=True,
                ).stdout
                (dest / name).write_text(text)
            else:
                shutil.copyfile(source / folder / name, dest / name)
        (into / suite / "pytest.ini").write_text(
            "[pytest]\nasyncio_mode = auto\nasyncio_default_fixture_loop_scope = function\n"
        )


def run(
    suite_dir: Path, tiny: bool, engine: str, report: Path, python: str = sys.executable, store: str = "tiny"
) -> Outcome:
    env = dict(os.environ)
    env["TINYMEMORY_LANGGRAPH_SUITE_STORE"] = store
    paths = [str(suite_dir), str(HERE), str(ROOT / "tests"), env.get("PYTHONPATH", "")]
    env["PYTHONPATH"] = os.pathsep.join(p for p in paths if p)
    env["TINYMEMORY_LANGGRAPH_SUITE_ENGINE"] = engine
    cmd = [python, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--junitxml={report}", "tests"]
    if tiny:
        cmd[3:3] = ["-p", "langgraph_suite_plugin"]
    subprocess.run(cmd, cwd=suite_dir, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return parse(report)


def parse(report: Path) -> Outcome:
    out = Outcome()
    for case in ET.parse(report).getroot().iter("testcase"):
        module = (case.get("classname") or "").rpartition(".")[2]
        name = f"{module}::{case.get('name')}"
        if case.find("skipped") is not None:
            out.skipped.append(name)
        elif case.find("failure") is not None or case.find("error") is not None:
            out.failed.append(name)
        else:
            out.passed.append(name)
    return out


def why(test: str) -> str:
    base = test.partition("::")[2].partition("[")[0]
    return LEFT.get(base, "not yet")


def cell(out: Outcome) -> str:
    skipped = f" ({len(out.skipped)} skipped)" if out.skipped else ""
    return f"{len(out.passed)} of {out.total}{skipped}"


def measure(work: Path, engines: list[str], reference_python: str) -> str:
    """Every suite on its reference store, on InMemoryStore and on TinyMemoryStore per engine."""
    columns = ["reference", "InMemoryStore", *(f"TinyMemoryStore, {e}" for e in engines)]
    results: dict[str, dict[str, Outcome]] = {}
    for suite in SUITES:
        here = work / suite
        got = {"reference": run(here, False, "sqlite", work / f"{suite}-ref.xml", reference_python)}
        # the checkpoint suite is InMemoryStore's own; the SQLite suites get it in their store's place
        if suite == "checkpoint":
            got["InMemoryStore"] = got["reference"]
        else:
            got["InMemoryStore"] = run(here, True, "sqlite", work / f"{suite}-mem.xml", store="inmemory")
        for engine in engines:
            got[f"TinyMemoryStore, {engine}"] = run(here, True, engine, work / f"{suite}-{engine}.xml")
        results[suite] = got
        print(suite, {k: cell(v) for k, v in got.items()}, flush=True)
    rows = [
        f"| {suite} | {REFERENCE[suite]} | " + " | ".join(cell(got[c]) for c in columns) + " |"
        for suite, got in results.items()
    ]
    total = {c: Outcome() for c in columns}
    for got in results.values():
        for c in columns:
            total[c].passed += got[c].passed
            total[c].failed += got[c].failed
            total[c].skipped += got[c].skipped
    rows.append("| all | | " + " | ".join(cell(total[c]) for c in columns) + " |")
    failing: dict[tuple[str, str], list[str]] = {}
    for suite, got in results.items():
        for engine in engines:
            for test in got[f"TinyMemoryStore, {engine}"].failed:
                failing.setdefault((suite, test), []).append(engine)
    notes = []
    for (suite, test), on in sorted(failing.items()):
        also = "" if test in results[suite]["reference"].passed else " (the reference fails it too)"
        notes.append(f"- `{suite}/{test}` ({', '.join(on)}): {why(test)}{also}")
    suites = ", ".join(f"`{SUITES[s][0]}/{t}`" for s in SUITES for t in SUITES[s][1])
    return "\n".join(
        [
            "## LangGraph's store suites",
            "",
            f"LangGraph's own store tests (langchain-ai/langgraph at `{COMMIT}`: {suites}), run unchanged by"
            " `bench/langgraph_suite.py`. For TinyMemoryStore it rebinds the suites' store class (each"
            " fixture builds its store through it) to TinyMemoryStore on a real SQLite file, or on a fresh"
            " PostgreSQL database; the index and TTL configs reach the store exactly as the suites wrote"
            " them (`dims`, `embed`, `fields` or `text_fields`). The reference column is each suite on the"
            " store it was written for; the InMemoryStore column puts LangGraph's in-memory store in the"
            " SQLite suites' place the same way (it has no TTL, so the TTL tests skip there)."
            + (
                " The reference ran on a second Python whose sqlite3 loads extensions (SqliteStore's"
                " vector search loads sqlite-vec), with the same LangGraph packages."
                if reference_python != sys.executable
                else ""
            ),
            "",
            "| suite | reference store | " + " | ".join(columns) + " |",
            "|---|---|" + "---|" * len(columns),
            *rows,
            "",
            "Tests TinyMemoryStore fails, and why each is left:" if notes else "TinyMemoryStore fails none.",
            "",
            *notes,
            "",
            machine_line(),
        ]
    )


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "langgraph",
        type=Path,
        nargs="?",
        default=os.environ.get("TINYMEMORY_LANGGRAPH_REPO") or None,
        help="a langgraph checkout, or its git directory ($TINYMEMORY_LANGGRAPH_REPO by default)",
    )
    parser.add_argument("--postgres", action="store_true", help="also run TinyMemoryStore on PostgreSQL")
    parser.add_argument(
        "--reference-python",
        default=sys.executable,
        help="the Python that runs the reference stores (SqliteStore's vector search needs an sqlite3"
        " that loads extensions), with langgraph-checkpoint-sqlite, pytest-asyncio and pytest-mock",
    )
    parser.add_argument("--no-write", action="store_true", help="print the section, leave docs alone")
    args = parser.parse_args()
    if args.langgraph is None:  # `make bench` without LangGraph's sources: nothing to run
        print("langgraph_suite: skipped (give a langgraph checkout or set TINYMEMORY_LANGGRAPH_REPO)")
        return 0
    work = Path(tempfile.mkdtemp(prefix="tinymemory-lg-"))
    try:
        extract(args.langgraph.resolve(), work)
        section = measure(
            work, ["sqlite", "postgres"] if args.postgres else ["sqlite"], args.reference_python
        )
        print(section)
        if not args.no_write:
            write_section(SECTION, section)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
