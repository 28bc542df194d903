"""What the memory__ tools' argument declarations share: the word fields whose enums a policy decides,
the one-id arguments of memory__open and memory__forget, and the base every declaration has. The
fields both tool surfaces take (`limit`, `cursor`) are `tools.args`'s.

Each tool declares its own arguments in its module (`policy/catalog/`), once per policy: enums come from
the policy (remember's type: the types a user write accepts; recall's types and kinds: every declared
type; relation_types: the declared relations). Without a policy schema, kinds and relation types are
free words of the name grammar, since institutional ingestion may write types and relations the built-in
schema does not name. The fallback's declarations (`PolicyContext.fallback`) have no enums.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from tinymemory.api.validate import MAX_ID_CHARS
from tinymemory.policy.policy import NAME_RE
from tinymemory.tools.fields import Field, Shape, Text, Token, TokenList

NAME_HINT = "lowercase letters, digits and _, starting with a letter"
# Each declaration's shape, made on its first call and kept with the declaration it belongs to (so its
# id names it while the entry lives), before the memo starts over.
_SHAPES: dict[int, tuple[Declared, Shape]] = {}
MAX_SHAPES = 4096


class Declared:
    """A tool's argument declaration: a dataclass of fields, in the order the schema lists them (a field
    a context does not offer is None, and absent from the shape)."""

    __slots__ = ()

    def shape(self) -> Shape:
        """The fields as a closed shape: the reader of a call and the JSON Schema the model sees. A
        declaration never changes, so its shape is made once (every call of the tool reads with it)."""
        known = _SHAPES.get(id(self))
        if known is not None and known[0] is self:
            return known[1]
        declared = (getattr(self, f.name) for f in fields(self))  # type: ignore[arg-type]
        found: list[Field[Any]] = [f for f in declared if f is not None]
        shape = Shape(tuple(found))
        if len(_SHAPES) >= MAX_SHAPES:
            _SHAPES.clear()
        _SHAPES[id(self)] = (self, shape)
        return shape

    def schema(self) -> dict[str, Any]:
        return self.shape().schema()


def word(what: str, choices: tuple[str, ...] | None, *, name: str, description: str) -> Token:
    """One word: from `choices` when the policy names them, else any word of the name grammar."""
    return Token(
        name=name,
        description=description,
        what=what,
        choices=choices,
        pattern=NAME_RE,
        pattern_hint=NAME_HINT,
    )


def words(what: str, choices: tuple[str, ...] | None, *, name: str, description: str) -> TokenList:
    item = word(what, choices, name=name, description=description)
    return TokenList(name=name, description=description, item=item, max_items=64)


@dataclass(frozen=True, slots=True)
class IdArgs(Declared):
    """One memory named by its id (memory__open, memory__forget)."""

    memory_id: Text

    @classmethod
    def declare(cls, purpose: str) -> IdArgs:
        return cls(Text(name="memory_id", description=purpose, required=True, max_chars=MAX_ID_CHARS))
