"""Quoting a caller's value inside an error message, safely.

Messages travel as tool output, JSON and terminal text, so a quoted value must be short, must encode as
UTF-8 (a lone surrogate would make the error itself fail to render) and must never raise (the repr of
an int with thousands of digits does).
"""

from __future__ import annotations


def echo(value: object, limit: int = 60) -> str:
    """`value` as short, encodable text: strings as they are, anything else as its repr."""
    try:
        text = value if isinstance(value, str) else repr(value)
    except Exception:  # a huge int's repr raises ValueError; a hostile __repr__ anything
        text = f"<{type(value).__name__}>"
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return text.encode("utf-8", "backslashreplace").decode("utf-8")
