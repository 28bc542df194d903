"""One declaration per tool argument: its JSON Schema, its reading and its validation come from it.

A tool's arguments are a `Shape` of `Field`s. `Shape.schema()` is what the model is told;
`Shape.read()` refuses unknown keys and reads every field through the same strict readers as every
other tool (`tools.args`), so what a schema promises and what a call accepts cannot drift apart. JSON
`null` on an optional field means "not given".
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Generic, TypeVar

from tinymemory.api import parse_rfc3339
from tinymemory.api.validate import MAX_FIELD_CHARS
from tinymemory.tools.args import (
    Obj,
    check_text,
    clip,
    closed,
    fail,
    path,
    read_int,
    read_number,
    read_str,
    type_name,
)

T = TypeVar("T")


@dataclass(frozen=True, slots=True, kw_only=True)
class Field(Generic[T]):
    """A named argument. Subclasses say what it holds; `read` returns None when it is absent (or null)."""

    name: str
    description: str
    required: bool = False

    def schema(self) -> dict[str, Any]:
        raise NotImplementedError

    def read(self, tool: str, obj: Obj, where: str = "") -> T | None:
        raise NotImplementedError

    def _missing(self, tool: str, obj: Obj, where: str) -> bool:
        """True when absent; raises when absent but required."""
        if obj.get(self.name) is not None:
            return False
        if self.required:
            raise fail(tool, path(where, self.name), "is required")
        return True


@dataclass(frozen=True, slots=True, kw_only=True)
class Text(Field[str]):
    """A non-blank string of at most `max_chars` characters."""

    max_chars: int = MAX_FIELD_CHARS

    def schema(self) -> dict[str, Any]:
        return {"type": "string", "description": self.description}

    def read(self, tool: str, obj: Obj, where: str = "") -> str | None:
        return read_str(tool, obj, self.name, where, required=self.required, max_chars=self.max_chars)


@dataclass(frozen=True, slots=True, kw_only=True)
class Token(Field[str]):
    """One word from `choices` (an enum), or, without choices, any word matching `pattern`.

    `what` names the kind of word in errors ("a memory type")."""

    what: str
    choices: tuple[str, ...] | None = None
    pattern: re.Pattern[str] | None = None
    pattern_hint: str = ""

    def schema(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": "string", "description": self.description}
        if self.choices is not None:
            out["enum"] = list(self.choices)
        return out

    def check(self, tool: str, field: str, value: object) -> str:
        if self.choices is not None:
            if not isinstance(value, str) or value not in self.choices:
                raise fail(
                    tool, field, f"`{clip(value)}` is not {self.what} (one of: {', '.join(self.choices)})"
                )
            return value
        text = check_text(tool, field, value, max_chars=MAX_FIELD_CHARS)
        if self.pattern is not None and not self.pattern.fullmatch(text):
            raise fail(tool, field, f"`{clip(text)}` is not {self.what} ({self.pattern_hint})")
        return text

    def read(self, tool: str, obj: Obj, where: str = "") -> str | None:
        if self._missing(tool, obj, where):
            return None
        return self.check(tool, path(where, self.name), obj[self.name])


@dataclass(frozen=True, slots=True, kw_only=True)
class TokenList(Field[tuple[str, ...]]):
    """An array of `item` words, de-duplicated in order, at most `max_items`."""

    item: Token
    max_items: int = 64

    def schema(self) -> dict[str, Any]:
        items: dict[str, Any] = {"type": "string"}
        if self.item.choices is not None:
            items["enum"] = list(self.item.choices)
        return {"type": "array", "description": self.description, "items": items}

    def read(self, tool: str, obj: Obj, where: str = "") -> tuple[str, ...] | None:
        if self._missing(tool, obj, where):
            return None
        field = path(where, self.name)
        value = obj[self.name]
        if not isinstance(value, list | tuple):
            raise fail(tool, field, f"must be an array of strings, got {type_name(value)}")
        if len(value) > self.max_items:
            raise fail(tool, field, f"has more than {self.max_items} items")
        words = [self.item.check(tool, f"{field}[{i}]", v) for i, v in enumerate(value)]
        return tuple(dict.fromkeys(words))


@dataclass(frozen=True, slots=True, kw_only=True)
class Integer(Field[int]):
    low: int
    high: int

    def schema(self) -> dict[str, Any]:
        return {"type": "integer", "description": self.description, "minimum": self.low, "maximum": self.high}

    def read(self, tool: str, obj: Obj, where: str = "") -> int | None:
        if self._missing(tool, obj, where):
            return None
        value = read_int(tool, obj, self.name, where)
        assert value is not None
        if not self.low <= value <= self.high:
            raise fail(
                tool, path(where, self.name), f"must be between {self.low} and {self.high}, got {clip(value)}"
            )
        return value


@dataclass(frozen=True, slots=True, kw_only=True)
class Number(Field[float]):
    low: float
    high: float

    def schema(self) -> dict[str, Any]:
        return {"type": "number", "description": self.description, "minimum": self.low, "maximum": self.high}

    def read(self, tool: str, obj: Obj, where: str = "") -> float | None:
        if self._missing(tool, obj, where):
            return None
        return read_number(tool, obj, self.name, where, low=self.low, high=self.high)


@dataclass(frozen=True, slots=True, kw_only=True)
class Boolean(Field[bool]):
    def schema(self) -> dict[str, Any]:
        return {"type": "boolean", "description": self.description}

    def read(self, tool: str, obj: Obj, where: str = "") -> bool | None:
        if self._missing(tool, obj, where):
            return None
        value = obj[self.name]
        if not isinstance(value, bool):
            raise fail(tool, path(where, self.name), f"must be true or false, got {type_name(value)}")
        return value


@dataclass(frozen=True, slots=True, kw_only=True)
class Timestamp(Field[datetime]):
    """An RFC 3339 instant with an explicit offset, read into UTC."""

    def schema(self) -> dict[str, Any]:
        return {"type": "string", "description": self.description, "format": "date-time"}

    def read(self, tool: str, obj: Obj, where: str = "") -> datetime | None:
        if self._missing(tool, obj, where):
            return None
        return parse_rfc3339(obj[self.name], field=path(where, self.name), op=tool)


class Values:
    """What `Shape.read` found, looked up by field so each value keeps its type."""

    __slots__ = ("_values",)

    def __init__(self, values: Mapping[str, object]) -> None:
        self._values = dict(values)

    def __getitem__(self, field: Field[T]) -> T | None:
        value = self._values.get(field.name)
        return value  # type: ignore[return-value]

    def given(self, field: Field[Any]) -> bool:
        return self._values.get(field.name) is not None


@dataclass(frozen=True, slots=True)
class Shape:
    """A closed object of fields: its schema and its reader."""

    fields: tuple[Field[Any], ...]
    description: str | None = None

    def names(self) -> tuple[str, ...]:
        return tuple(f.name for f in self.fields)

    def schema(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": "object"}
        if self.description:
            out["description"] = self.description
        out["properties"] = {f.name: f.schema() for f in self.fields}
        out["required"] = [f.name for f in self.fields if f.required]
        out["additionalProperties"] = False
        return out

    def read(self, tool: str, obj: object, where: str = "") -> Values:
        """Refuse unknown keys, then read every field in declaration order (the first error wins)."""
        checked = closed(tool, obj, self.names(), where)
        return Values({f.name: f.read(tool, checked, where) for f in self.fields})
