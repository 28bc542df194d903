"""One declaration per tool argument: its JSON Schema, its reading and its validation come from it.

A tool's arguments are a `Shape` of `Field`s. `Shape.schema()` is what the model is told;
`Shape.read()` refuses unknown keys and reads every field through the engine's own checks
(`api.validate`, naming a wrong value's JSON type), so what a schema promises and what a call accepts
cannot drift apart. Both tool surfaces (the seven memory_ tools in `tools.args`, the memory__ tools in
`policy.arguments`) declare their arguments with these kinds. JSON `null` on an optional field means
"not given".
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any, Generic, TypeVar

from tinymemory.api import InvalidRequest, parse_rfc3339
from tinymemory.api.echo import echo
from tinymemory.api.validate import (
    MAX_FIELD_CHARS,
    check_bool,
    check_ids,
    check_int,
    check_number,
    check_text,
    fail,
    json_type,
)
from tinymemory.tools.strict import Obj, closed, path

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

    def given_in(self, obj: Obj) -> bool:
        """Whether `obj` gives this field: JSON `null` is the same as absent."""
        return obj.get(self.name) is not None

    def _missing(self, tool: str, obj: Obj, where: str) -> bool:
        """True when absent; raises when absent but required."""
        if self.given_in(obj):
            return False
        if self.required:
            raise fail(tool, path(where, self.name), "is required")
        return True

    def _array(
        self, tool: str, obj: Obj, where: str, of: str, *, max_items: int | None = None, got: bool = True
    ) -> tuple[str, list[Any] | tuple[Any, ...]] | None:
        """`(field path, items)` of a given array, None when absent; raises when it is not an array of at
        most `max_items` (`of` names the items in the message, followed by the type `got` when asked)."""
        if self._missing(tool, obj, where):
            return None
        field = path(where, self.name)
        value = obj[self.name]
        if not isinstance(value, list | tuple):
            problem = f"must be an array of {of}"
            raise fail(tool, field, f"{problem}, got {json_type(value)}" if got else problem)
        if max_items is not None and len(value) > max_items:
            raise fail(tool, field, f"has more than {max_items} items")
        return field, value


@dataclass(frozen=True, slots=True, kw_only=True)
class Text(Field[str]):
    """A non-blank string of at most `max_chars` characters."""

    max_chars: int = MAX_FIELD_CHARS

    def schema(self) -> dict[str, Any]:
        return {"type": "string", "description": self.description}

    def read(self, tool: str, obj: Obj, where: str = "") -> str | None:
        if self._missing(tool, obj, where):
            return None
        field = path(where, self.name)
        return check_text(tool, field, obj[self.name], max_chars=self.max_chars, typed=json_type)


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

    def _missing(self, tool: str, obj: Obj, where: str) -> bool:
        """An absent required enum names its choices, so the model can answer with one."""
        if not self.given_in(obj) and self.required and self.choices is not None:
            raise fail(tool, path(where, self.name), f"is required (one of: {', '.join(self.choices)})")
        return Field._missing(self, tool, obj, where)

    def check(self, tool: str, field: str, value: object) -> str:
        if self.choices is not None:
            if not isinstance(value, str) or value not in self.choices:
                raise fail(
                    tool, field, f"`{echo(value)}` is not {self.what} (one of: {', '.join(self.choices)})"
                )
            return value
        text = check_text(tool, field, value, typed=json_type)
        if self.pattern is not None and not self.pattern.fullmatch(text):
            raise fail(tool, field, f"`{echo(text)}` is not {self.what} ({self.pattern_hint})")
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
        if (array := self._array(tool, obj, where, "strings", max_items=self.max_items)) is None:
            return None
        field, value = array
        words = [self.item.check(tool, f"{field}[{i}]", v) for i, v in enumerate(value)]
        return tuple(dict.fromkeys(words))


@dataclass(frozen=True, slots=True, kw_only=True)
class TextList(Field[tuple[str, ...]]):
    """An array of free strings (tags, sources, evidence): each checked like `Text`, then stripped and
    de-duplicated in order; at most `max_items`."""

    max_items: int
    max_chars: int = MAX_FIELD_CHARS

    def schema(self) -> dict[str, Any]:
        return {"type": "array", "description": self.description, "items": {"type": "string"}}

    def read(self, tool: str, obj: Obj, where: str = "") -> tuple[str, ...] | None:
        if (array := self._array(tool, obj, where, "strings", max_items=self.max_items)) is None:
            return None
        field, value = array
        texts = [
            check_text(tool, f"{field}[{i}]", v, max_chars=self.max_chars, typed=json_type)
            for i, v in enumerate(value)
        ]
        return tuple(dict.fromkeys(t.strip() for t in texts))


@dataclass(frozen=True, slots=True, kw_only=True)
class EnumList(Field[tuple[str, ...]]):
    """An array of words from `choices` (no count bound: repeats collapse, and there are few choices).

    `what` names one word in errors ("an item kind"), `plural` the array ("item kinds")."""

    choices: tuple[str, ...]
    what: str
    plural: str

    def schema(self) -> dict[str, Any]:
        items = {"type": "string", "enum": list(self.choices)}
        return {"type": "array", "description": self.description, "items": items}

    def read(self, tool: str, obj: Obj, where: str = "") -> tuple[str, ...] | None:
        if (array := self._array(tool, obj, where, self.plural)) is None:
            return None
        field, value = array
        for v in value:
            if not isinstance(v, str) or v not in self.choices:
                raise fail(tool, field, f"`{echo(v)}` is not {self.what}")
        return tuple(dict.fromkeys(value))


@dataclass(frozen=True, slots=True, kw_only=True)
class Ids(Field[tuple[str, ...]]):
    """1 to `max_items` memory ids, checked by the engines' own id rule (api.validate.check_ids)."""

    max_items: int

    def schema(self) -> dict[str, Any]:
        return {
            "type": "array",
            "description": self.description,
            "items": {"type": "string"},
            "minItems": 1,
            "maxItems": self.max_items,
        }

    def read(self, tool: str, obj: Obj, where: str = "") -> tuple[str, ...] | None:
        if (array := self._array(tool, obj, where, "ids")) is None:
            return None
        field, value = array
        return check_ids(tool, value, field=field, maximum=self.max_items)


@dataclass(frozen=True, slots=True, kw_only=True)
class Integer(Field[int]):
    """An integer in [low, high]; `default` (if any) is what an absent value reads as."""

    low: int
    high: int
    default: int | None = None

    def schema(self) -> dict[str, Any]:
        return {"type": "integer", "description": self.description, "minimum": self.low, "maximum": self.high}

    def read(self, tool: str, obj: Obj, where: str = "") -> int | None:
        if self._missing(tool, obj, where):
            return self.default
        value = obj[self.name]
        if isinstance(value, float) and math.isfinite(value) and value.is_integer():
            value = int(value)  # JSON has one number type: 5.0 is the integer 5
        return check_int(tool, path(where, self.name), value, low=self.low, high=self.high, typed=json_type)


@dataclass(frozen=True, slots=True, kw_only=True)
class Number(Field[float]):
    low: float
    high: float

    def schema(self) -> dict[str, Any]:
        return {"type": "number", "description": self.description, "minimum": self.low, "maximum": self.high}

    def read(self, tool: str, obj: Obj, where: str = "") -> float | None:
        if self._missing(tool, obj, where):
            return None
        field = path(where, self.name)
        return check_number(tool, field, obj[self.name], low=self.low, high=self.high, typed=json_type)


@dataclass(frozen=True, slots=True, kw_only=True)
class Boolean(Field[bool]):
    def schema(self) -> dict[str, Any]:
        return {"type": "boolean", "description": self.description}

    def read(self, tool: str, obj: Obj, where: str = "") -> bool | None:
        if self._missing(tool, obj, where):
            return None
        return check_bool(tool, path(where, self.name), obj[self.name], typed=json_type)


@dataclass(frozen=True, slots=True, kw_only=True)
class Timestamp(Field[datetime]):
    """An RFC 3339 instant with an explicit offset, read into UTC."""

    def schema(self) -> dict[str, Any]:
        return {"type": "string", "description": self.description, "format": "date-time"}

    def read(self, tool: str, obj: Obj, where: str = "") -> datetime | None:
        if self._missing(tool, obj, where):
            return None
        return parse_rfc3339(obj[self.name], field=path(where, self.name), op=tool)


_DATE_RE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")  # fullmatch: `$` would allow a trailing newline


@dataclass(frozen=True, slots=True, kw_only=True)
class Day(Field[date]):
    """A calendar day, YYYY-MM-DD (no zone: the caller decides whose day it is)."""

    def schema(self) -> dict[str, Any]:
        return {"type": "string", "description": self.description, "format": "date"}

    def read(self, tool: str, obj: Obj, where: str = "") -> date | None:
        if self._missing(tool, obj, where):
            return None
        field = path(where, self.name)
        value = obj[self.name]
        if not isinstance(value, str) or not _DATE_RE.fullmatch(value):
            raise fail(tool, field, f"`{echo(value)}` is not a date (YYYY-MM-DD)")
        try:
            return date.fromisoformat(value)
        except ValueError:
            raise fail(tool, field, f"`{echo(value)}` is not a date (YYYY-MM-DD)") from None


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

    def must(self, field: Field[T]) -> T:
        """The value of a field that is required or has a default, so reading always found one."""
        value = self[field]
        assert value is not None, field.name
        return value


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

    def closed(self, tool: str, obj: object, where: str = "") -> Obj:
        """`obj` as an object holding only this shape's fields (for tools that read field by field)."""
        return closed(tool, obj, self.names(), where)

    def read(self, tool: str, obj: object, where: str = "") -> Values:
        """Refuse unknown keys, then read every field in declaration order (the first error wins)."""
        checked = self.closed(tool, obj, where)
        return Values({f.name: f.read(tool, checked, where) for f in self.fields})


def keep(tool: str, values: Values, where: str) -> Values:
    """An `Object`'s build when the tool wants the nested values themselves."""
    return values


@dataclass(frozen=True, slots=True, kw_only=True)
class Object(Field[T]):
    """A nested closed object of `fields`; `build` turns what was read into the value the tool uses
    (a MetaFilter, a day range...) and may refuse combinations no single field can see."""

    fields: tuple[Field[Any], ...]
    build: Callable[[str, Values, str], T]

    def shape(self) -> Shape:
        return Shape(self.fields, self.description)

    def schema(self) -> dict[str, Any]:
        return self.shape().schema()

    def read(self, tool: str, obj: Obj, where: str = "") -> T | None:
        if self._missing(tool, obj, where):
            return None
        field = path(where, self.name)
        return self.build(tool, self.shape().read(tool, obj[self.name], field), field)


@dataclass(frozen=True, slots=True, kw_only=True)
class ObjectList(Field[tuple[Values, ...]]):
    """An array of `min_items` to `max_items` closed objects of `fields` (conversation turns).

    The schema states `minItems` only: `max_items` is a bound on reading that the frozen contract does
    not show. `what` names the array in errors ("{role, text} objects"), `unit` one item ("turns")."""

    fields: tuple[Field[Any], ...]
    min_items: int
    max_items: int
    what: str
    unit: str

    def schema(self) -> dict[str, Any]:
        return {
            "type": "array",
            "description": self.description,
            "items": Shape(self.fields).schema(),
            "minItems": self.min_items,
        }

    def read(self, tool: str, obj: Obj, where: str = "") -> tuple[Values, ...] | None:
        if (array := self._array(tool, obj, where, self.what, got=False)) is None:
            return None
        field, value = array
        if not self.min_items <= len(value) <= self.max_items:
            raise fail(
                tool,
                field,
                f"must hold between {self.min_items} and {self.max_items} {self.unit}, got {len(value)}",
            )
        shape = Shape(self.fields)
        return tuple(shape.read(tool, v, f"{field}[{i}]") for i, v in enumerate(value))


@dataclass(frozen=True, slots=True)
class OneOf:
    """Exactly one of `fields` must be given (a rule a portable schema cannot state: the descriptions
    say it, the reading enforces it)."""

    fields: tuple[Field[Any], ...]

    def which(self, tool: str, obj: Obj) -> Field[Any]:
        given = [f for f in self.fields if f.given_in(obj)]
        if len(given) != 1:
            names = [f"`{f.name}`" for f in self.fields]
            choices = f"{', '.join(names[:-1])} or {names[-1]}"
            got = "none" if not given else ", ".join(f"`{f.name}`" for f in given)
            raise InvalidRequest(f"{tool}: give exactly one of {choices} (got {got})")
        return given[0]
