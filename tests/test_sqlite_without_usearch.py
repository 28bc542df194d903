"""Without the `ann` extra (usearch), a file past the graph's threshold is still read, by the exact
scan, with one warning that names the extra; `build_index` refuses naming it. Run in a subprocess whose
import system refuses usearch, so the rest of the suite keeps it."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

SCRIPT = textwrap.dedent(
    """
    import asyncio, importlib.abc, json, logging, sys

    class WithoutUsearch(importlib.abc.MetaPathFinder):  # as if the package were not installed
        def __init__(self, inner):
            self.inner = inner

        def find_spec(self, name, path=None, target=None):
            if name == "usearch" or name.startswith("usearch."):
                return None
            return self.inner.find_spec(name, path, target)

    sys.meta_path[:] = [WithoutUsearch(f) for f in sys.meta_path]
    sys.path.insert(0, sys.argv[2])
    records = []

    class Keep(logging.Handler):
        def emit(self, record):
            records.append(record.getMessage())

    logging.getLogger("tinymemory").addHandler(Keep())
    import hashlib
    import numpy as np
    from test_sqlite_support import note
    from tinymemory.api import FetchMode, FetchRequest, MetaFilter, Unsupported
    from tinymemory.engines.sqlite import SqliteEngine, ann

    ann.ANN_MIN_ROWS = 100

    class SeededEmbedder:  # one well-spread unit vector per text: a text's own query finds it first
        name, dim = "seeded-16", 16

        def embed_query(self, text):
            seed = int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "little")
            v = np.random.default_rng(seed).standard_normal(16).astype(np.float32)
            return v / np.linalg.norm(v)

        def embed(self, texts):
            return np.stack([self.embed_query(t) for t in texts])

    async def main():
        async with SqliteEngine(sys.argv[1], embedder=SeededEmbedder()) as engine:
            await engine.store_many([note(f"memory {i}", at="team:t") for i in range(150)])
            hits = []
            for q in ("memory 7", "memory 42"):
                got = await engine.fetch(
                    FetchRequest(q, mode=FetchMode.SEMANTIC, filter=MetaFilter(), limit=5)
                )
                hits.append([h.item.text for h in got.hits])
            try:
                await engine.build_index()
                refused = ""
            except Unsupported as err:
                refused = str(err)
        print(json.dumps({"hits": hits, "refused": refused, "records": records,
                          "usearch": "usearch" in sys.modules}))

    asyncio.run(main())
    """
)


def test_a_large_file_is_read_by_the_exact_scan_with_one_warning(tmp_path: Path) -> None:
    import json

    tests = Path(__file__).resolve().parent
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(tmp_path / "m.db"), str(tests)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert not out["usearch"]
    assert all(len(h) == 5 for h in out["hits"])
    assert "memory 7" in out["hits"][0] and "memory 42" in out["hits"][1]
    warnings = [r for r in out["records"] if "tinymemory[ann]" in r]
    assert len(warnings) == 1, out["records"]
    assert out["refused"].startswith("build_index: the usearch package is not installed")
    assert "tinymemory[ann]" in out["refused"]
