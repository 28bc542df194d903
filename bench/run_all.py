"""`make bench`: run every benchmark in turn; each rewrites its own section of docs/benchmarks.md."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
# Each script with the arguments that produce its section of docs/benchmarks.md.
SCRIPTS: list[tuple[str, list[str]]] = [
    ("locomo.py", ["--baselines", "--ablation", "--answers"]),
    ("embedders.py", []),
    ("scale.py", ["--sizes", "10000,100000,1000000"]),
    ("ann.py", []),
    ("coldstart.py", []),
    ("oneshot.py", []),
    ("disk.py", []),
    ("concurrency.py", []),
    ("context_compile.py", []),
    ("formation.py", []),
    ("peers.py", []),
    ("privacy.py", []),
    ("gate_match.py", []),
    ("gate_deid.py", []),
    ("arg_readers.py", []),
    ("service_load.py", []),
    ("core_before_after.py", []),
    ("tenancy.py", []),
    ("writes.py", []),
    ("fixed_cost.py", []),
    ("tenancy_pg.py", []),
    ("langgraph_suite.py", ["--postgres"]),  # needs $TINYMEMORY_LANGGRAPH_REPO, else skips
]


def main() -> int:
    failed = []
    for name, args in SCRIPTS:
        script = HERE / name
        if not script.exists():
            continue
        print(f"== {name}", flush=True)
        started = time.perf_counter()
        code = subprocess.call([sys.executable, str(script), *args])
        print(f"== {name}: exit {code} after {time.perf_counter() - started:.0f} s", flush=True)
        if code != 0:
            failed.append(name)
    if failed:
        print("failed: " + ", ".join(failed), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
