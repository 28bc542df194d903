"""Token estimates: four characters per token, rounded up. Cheap, deterministic and tokenizer-free."""

from __future__ import annotations

CHARS_PER_TOKEN = 4


def estimate_tokens(text: str) -> int:
    """Estimated tokens of `text` (characters / 4, rounded up): cheap and deterministic, so budgets fit the
    same way on every machine without a tokenizer."""
    return -(-len(text) // CHARS_PER_TOKEN)


def chars_for(tokens: int) -> int:
    return max(0, tokens) * CHARS_PER_TOKEN


def one_line(text: str, limit: int) -> str:
    """Collapse whitespace and clip to `limit` characters so one memory renders as one line."""
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    return flat[: max(0, limit - 1)].rstrip() + "…"
