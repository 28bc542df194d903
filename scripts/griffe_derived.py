"""A griffe extension for the API reference (mkdocs.yml): sync members derived from async ones.

`tinymemory._sync` builds a sync class's methods at import (`fetch = blocking(AsyncMemory.fetch)`), so
reading the source alone, griffe sees attributes without a docstring or a signature. For each member
built that way this extension puts in its place what griffe finds by importing the class: a method (or
property) with the async member's signature and docstring. Everything else stays read from the source.
"""

from __future__ import annotations

import sys
from typing import Any

import griffe

BUILDERS = ("blocking", "direct", "wrapping", "forwarded")


class DerivedMembers(griffe.Extension):
    """Replace each `name = <builder>(...)` member of a class by its inspected runtime form."""

    def on_class(self, *, cls: griffe.Class, **kwargs: Any) -> None:
        """Swap the built members of `cls` for those of the inspected class."""
        built = [
            name
            for name, member in cls.members.items()
            if isinstance(member, griffe.Attribute)
            and isinstance(member.value, griffe.ExprCall)
            and str(member.value.function) in BUILDERS
        ]
        if not built:
            return
        inspected = griffe.inspect(cls.module.path, import_paths=sys.path)
        runtime = inspected[cls.name]
        for name in built:
            member, static = runtime.members[name], cls.members[name]
            member.lineno, member.endlineno = static.lineno, static.endlineno
            # a property's type is not in what the import shows: it is the `Forwarded[T]` written beside it
            written = static.annotation
            if isinstance(member, griffe.Attribute) and isinstance(written, griffe.ExprSubscript):
                member.annotation = written.slice
            cls.set_member(name, member)
