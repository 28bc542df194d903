"""`add`'s `messages` argument read the way mem0 reads it: a string is one user message, a dict is one
message, a list holds message dicts; system messages are skipped. Unlike mem0, a malformed message is
refused (naming it) rather than skipped, so nothing is lost without a word."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from tinymemory.api.echo import echo
from tinymemory.api.validate import MAX_TEXT_CHARS
from tinymemory.compat.mem0.errors import invalid, stored_text

MAX_LABEL_CHARS = 256


@dataclass(frozen=True, slots=True)
class Message:
    """One message to remember: its role, its text and the speaker's name (mem0's actor_id)."""

    role: str
    content: str
    name: str | None = None


def read_messages(op: str, messages: object) -> list[Message]:
    """The non-system messages, in order. Raises InvalidInput for any other shape."""
    if isinstance(messages, str):
        raw: list[object] = [{"role": "user", "content": messages}]
    elif isinstance(messages, Mapping):
        raw = [messages]
    elif isinstance(messages, list | tuple):
        raw = list(messages)
    else:
        raise invalid(
            op, "messages", f"must be a str, a dict or a list of dicts, got {type(messages).__name__}"
        )
    out: list[Message] = []
    for i, m in enumerate(raw):
        where = f"messages[{i}]" if not isinstance(messages, str | Mapping) else "messages"
        if not isinstance(m, Mapping):
            raise invalid(op, where, f"must be a dict with `role` and `content`, got {type(m).__name__}")
        role, content, name = m.get("role"), m.get("content"), m.get("name")
        if not isinstance(role, str) or not role.strip():
            raise invalid(op, f"{where}.role", "must be a non-empty string such as `user` or `assistant`")
        if not isinstance(content, str):
            raise invalid(
                op, f"{where}.content", "must be a string (images and other parts are not supported)"
            )
        if name is not None and (not isinstance(name, str) or not name.strip()):
            raise invalid(op, f"{where}.name", "must be a non-empty string when given")
        _label(op, f"{where}.role", role)
        if name is not None:
            _label(op, f"{where}.name", name)
        if role == "system":
            continue
        if not content.strip():
            raise invalid(op, f"{where}.content", "must not be empty")
        content_field = "messages" if isinstance(messages, str) else f"{where}.content"
        if len(content) > MAX_TEXT_CHARS:
            raise invalid(op, content_field, f"is longer than {MAX_TEXT_CHARS} characters")
        stored_text(op, content_field, content)
        out.append(Message(role, content, name))
    return out


def _label(op: str, field: str, value: str) -> None:
    """A role or a speaker's name: short printable text, kept beside the memory."""
    if len(value) > MAX_LABEL_CHARS:
        raise invalid(op, field, f"is longer than {MAX_LABEL_CHARS} characters")
    if not value.isprintable():
        raise invalid(op, field, f"`{echo(value, 40)}` must hold printable characters only")
    stored_text(op, field, value)
