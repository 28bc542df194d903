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
fails and why it is left failing (PRIVATE: tests of LangGraph's private helpers or SQLite internals).

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

# Tests TinyMemoryStore is not meant to pass: they check LangGraph's private helpers or SQLite internals.
PRIVATE: dict[str, str] = {
    "test_nonnull_migrations": "SqliteStore.MIGRATIONS, its own schema",
    "test_vector_store_initialization": "reads SqliteStore's vector table through `store.conn`",
    "test_sql_injection_vulnerability": "SqliteStore's refusal of a filter key it cannot put in SQL",
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


def run(suite_dir: Path, tiny: bool, engine: str, report: Path, python: str = sys.executable) -> Outcome:
    env = dict(os.environ)
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
    return PRIVATE.get(base, "not yet")


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
        engines = ["sqlite", "postgres"] if args.postgres else ["sqlite"]
        rows: list[str] = []
        failures: list[str] = []
        totals = {"ref": [0, 0, 0], **{e: [0, 0] for e in engines}}
        for suite in SUITES:
            ref = run(work / suite, False, "sqlite", work / f"{suite}-ref.xml", args.reference_python)
            totals["ref"][0] += len(ref.passed)
            totals["ref"][1] += ref.total
            totals["ref"][2] += len(ref.skipped)
            cells = [f"{len(ref.passed)} of {ref.total} ({len(ref.skipped)} skipped)"]
            for engine in engines:
                tiny = run(work / suite, True, engine, work / f"{suite}-{engine}.xml")
                totals[engine][0] += len(tiny.passed)
                totals[engine][1] += tiny.total
                cells.append(f"{len(tiny.passed)} of {tiny.total}")
                failures += [f"- {engine}, {suite}/{t}: {why(t)}" for t in tiny.failed]
                print(f"{suite} {engine}: {len(tiny.passed)}/{tiny.total}", flush=True)
            print(f"{suite} reference: {len(ref.passed)}/{ref.total}", flush=True)
            rows.append(f"| {suite} | {REFERENCE[suite]} | " + " | ".join(cells) + " |")
        header = "| suite | reference store | reference passes | " + " | ".join(
            f"TinyMemoryStore ({e}) passes" for e in engines
        )
        total_cells = [f"{totals['ref'][0]} of {totals['ref'][1]} ({totals['ref'][2]} skipped)"] + [
            f"{totals[e][0]} of {totals[e][1]}" for e in engines
        ]
        lines = [
            "## LangGraph's store suites",
            "",
            f"LangGraph's own store tests (langchain-ai/langgraph at `{COMMIT}`: "
            + ", ".join(f"`{SUITES[s][0]}/{t}`" for s in SUITES for t in SUITES[s][1])
            + ") run unchanged against TinyMemoryStore by `bench/langgraph_suite.py`, which rebinds the"
            " suites' store class to TinyMemoryStore on a real SQLite file"
            + (" and on PostgreSQL" if args.postgres else "")
            + "; the index configs reach it as the suites wrote them (`dims`, `embed`, `fields` or"
            " `text_fields`). The reference column is the same suite on the store it was written for.",
            "",
            header + " |",
            "|---|---|---|" + "---|" * len(engines),
            *rows,
            "| all | | " + " | ".join(total_cells) + " |",
            "",
            "TinyMemoryStore's failures, and why each is left:"
            if failures
            else "TinyMemoryStore fails none.",
            "",
            *failures,
            "",
            machine_line(),
        ]
        section = "\n".join(lines)
        print(section)
        if not args.no_write:
            write_section(SECTION, section)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
