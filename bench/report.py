"""Write one bench's markdown section into docs/benchmarks.md, between its own markers, so each bench
owns its section and re-running one leaves the others alone."""

from __future__ import annotations

import os
import platform
import re
import statistics
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCHMARKS_MD = ROOT / "docs" / "benchmarks.md"
HEADER = """# Benchmarks

Every figure here is written by a script in `bench/` (`make bench` runs them all). The machine has 2
cores and is shared, so figures are medians over repeated runs and comparisons are measured side by side
in one run. Each section names its threads and load. Tests never assert timings.
"""


def write_section(name: str, markdown: str) -> None:
    start, end = f"<!-- {name}:start -->", f"<!-- {name}:end -->"
    block = f"{start}\n{markdown.strip()}\n{end}"
    text = BENCHMARKS_MD.read_text() if BENCHMARKS_MD.exists() else HEADER
    pattern = re.compile(re.escape(start) + r".*?" + re.escape(end), re.S)
    text = (
        pattern.sub(lambda _: block, text) if pattern.search(text) else text.rstrip() + "\n\n" + block + "\n"
    )
    BENCHMARKS_MD.parent.mkdir(parents=True, exist_ok=True)
    BENCHMARKS_MD.write_text(text)


def machine_line() -> str:
    threads = os.environ.get("OMP_NUM_THREADS") or os.environ.get("OPENBLAS_NUM_THREADS") or "default"
    try:
        load = os.getloadavg()[0]
    except OSError:
        load = float("nan")
    return (
        f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"BLAS threads: {threads}, 1-min load at start: {load:.2f}"
    )


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[int(q) - 1]


def table(headers: list[str], rows: list[list[str]]) -> str:
    out = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(out)
