"""MiniLM's WordPiece tokenizer as the static tables use it: the static embedder reads with it and the
distiller builds with it, so it lives below both (no import cycle between them)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported by the load, on the thread that first embeds, not at engine start
    from tokenizers import Tokenizer

UNK_ID = 100  # [UNK] in the MiniLM (bert-base-uncased) vocabulary: the vector of a text with no tokens


def load_tokenizer(path: Path) -> Tokenizer:
    """MiniLM's WordPiece tokenizer (`tokenizer.json`) with padding and truncation off: a sum has no
    length limit."""
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(path))
    tokenizer.no_padding()
    tokenizer.no_truncation()
    return tokenizer
