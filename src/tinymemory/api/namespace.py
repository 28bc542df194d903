"""Namespaces (where a memory lives) and reaches (which namespaces a read may touch).

A namespace is a path of `kind:name` segments such as `team:acme/agent:writer`; the root is the empty
path. Hosts fix namespaces and reaches; models never choose them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from enum import StrEnum

from tinymemory.api.echo import echo
from tinymemory.api.errors import InvalidRequest

_KIND = r"[a-z][a-z0-9_-]{0,31}"
_NAME = r"[A-Za-z0-9][A-Za-z0-9._@+=~-]{0,127}"
# Matched with fullmatch: `$` would also accept a trailing newline, mapping `u1\n` onto `u1`.
_SEGMENT_RE = re.compile(rf"({_KIND}):({_NAME})")
MAX_DEPTH = 16
# `+` joins reach terms but may also appear in names, so split only where a new term starts.
_TERM_SPLIT_RE = re.compile(rf"\+(?=\s*(?:(?:exact|inherit|subtree)\(|{_KIND}:))")


@dataclass(frozen=True, slots=True, order=True)
class Segment:
    """One `kind:name` step of a namespace path."""

    kind: str
    name: str

    def __str__(self) -> str:
        return f"{self.kind}:{self.name}"


@dataclass(frozen=True, slots=True, order=True)
class Namespace:
    """A node in the memory tree. `Namespace.root()` is the empty path; `str()` round-trips with `parse()`."""

    segments: tuple[Segment, ...] = ()

    @classmethod
    def root(cls) -> Namespace:
        """The empty path, the top of the tree: memory stored there is visible to every inheriting reach."""
        return cls(())

    @classmethod
    def parse(cls, text: str, *, field: str = "namespace") -> Namespace:
        """Parse `kind:name/kind:name`; the empty string is the root. Raises InvalidRequest naming `field`."""
        if not isinstance(text, str):
            raise InvalidRequest(f"{field}: expected a string like `team:acme/agent:writer`")
        if text == "":
            return cls.root()
        parts = text.split("/")
        if len(parts) > MAX_DEPTH:
            raise InvalidRequest(f"{field}: `{_clip(text)}` is deeper than {MAX_DEPTH} segments")
        segments: list[Segment] = []
        for part in parts:
            match = _SEGMENT_RE.fullmatch(part)
            if match is None:
                raise InvalidRequest(
                    f"{field}: `{_clip(text)}` has a bad segment `{_clip(part)}`"
                    " (expected `kind:name`, kind lowercase [a-z0-9_-], name [A-Za-z0-9._@+=~-])"
                )
            segments.append(Segment(match.group(1), match.group(2)))
        return cls(tuple(segments))

    @classmethod
    def of(cls, *pairs: tuple[str, str]) -> Namespace:
        """Build from (kind, name) pairs, validating each the same way `parse` does."""
        return cls.parse("/".join(f"{k}:{n}" for k, n in pairs))

    def __str__(self) -> str:
        return "/".join(str(s) for s in self.segments)

    def __repr__(self) -> str:
        return f"Namespace({str(self)!r})"

    @property
    def is_root(self) -> bool:
        """True for the empty path."""
        return not self.segments

    @property
    def depth(self) -> int:
        """How many `kind:name` segments the path has (0 for the root)."""
        return len(self.segments)

    def parent(self) -> Namespace | None:
        """The namespace one segment up, or None for the root."""
        return None if self.is_root else Namespace(self.segments[:-1])

    def child(self, kind: str, name: str) -> Namespace:
        """The namespace one segment down, `kind:name` below this one; the segment is checked by the same
        grammar as `parse`."""
        return Namespace.parse(f"{self}/{kind}:{name}" if self.segments else f"{kind}:{name}")

    def ancestors(self) -> tuple[Namespace, ...]:
        """Strict ancestors, nearest first, ending with the root."""
        return tuple(Namespace(self.segments[:i]) for i in range(len(self.segments) - 1, -1, -1))

    def lineage(self) -> tuple[Namespace, ...]:
        """This node and its ancestors, nearest first."""
        return (self, *self.ancestors())

    def is_within(self, other: Namespace) -> bool:
        """True when self equals `other` or lies below it."""
        n = len(other.segments)
        return self.segments[:n] == other.segments

    def get(self, kind: str) -> str | None:
        """The name of the nearest segment of this kind, if any (`workspace`, `agent`, `user`...)."""
        for seg in reversed(self.segments):
            if seg.kind == kind:
                return seg.name
        return None


class ReachMode(StrEnum):
    """How far a reach term extends from its node: the node alone (`exact`), the node and its ancestors
    (`inherit`, an agent's default view), or the node and its descendants (`subtree`, for auditors)."""

    EXACT = "exact"
    INHERIT = "inherit"
    SUBTREE = "subtree"


@dataclass(frozen=True, slots=True)
class ReachTerm:
    """One node plus how far the reach extends from it."""

    namespace: Namespace
    mode: ReachMode

    def contains(self, ns: Namespace) -> bool:
        """True when this term lets a read touch `ns`."""
        if self.mode is ReachMode.EXACT:
            return ns == self.namespace
        if self.mode is ReachMode.INHERIT:
            return self.namespace.is_within(ns)
        return ns.is_within(self.namespace)

    def __str__(self) -> str:
        return f"{self.mode.value}({self.namespace})"


@dataclass(frozen=True, slots=True)
class Reach:
    """The set of namespaces a read may touch: a union of terms. Engines compile it to a query."""

    terms: tuple[ReachTerm, ...]

    @classmethod
    def of(cls, ns: Namespace) -> Reach:
        """The node and all its ancestors: an agent sees its own memory, its team's and the root's."""
        return cls((ReachTerm(ns, ReachMode.INHERIT),))

    @classmethod
    def exact(cls, ns: Namespace) -> Reach:
        """A reach of one node alone, without its ancestors or descendants."""
        return cls((ReachTerm(ns, ReachMode.EXACT),))

    @classmethod
    def subtree(cls, ns: Namespace) -> Reach:
        """The node and every descendant."""
        return cls((ReachTerm(ns, ReachMode.SUBTREE),))

    @classmethod
    def union(cls, *reaches: Reach) -> Reach:
        """The reach covering every namespace any of `reaches` covers (terms kept once, in order)."""
        seen: dict[ReachTerm, None] = {}
        for r in reaches:
            for t in r.terms:
                seen.setdefault(t, None)
        return cls(tuple(seen))

    @classmethod
    def parse(cls, text: str, *, field: str = "reach") -> Reach:
        """Parse `mode(ns)` terms joined by `+`, e.g. `inherit(team:acme/agent:a)+subtree(team:acme)`.

        A bare namespace means `inherit`.
        """
        if not isinstance(text, str) or not text.strip():
            raise InvalidRequest(f"{field}: expected terms like `inherit(team:acme)` joined by `+`")
        terms: list[ReachTerm] = []
        for raw in _TERM_SPLIT_RE.split(text):
            raw = raw.strip()
            if not raw:
                raise InvalidRequest(f"{field}: `{_clip(text)}` has an empty term")
            mode = ReachMode.INHERIT
            inner = raw
            m = re.fullmatch(r"(exact|inherit|subtree)\((.*)\)", raw)
            if m:
                mode = ReachMode(m.group(1))
                inner = m.group(2)
            terms.append(ReachTerm(Namespace.parse(inner, field=field), mode))
        return cls(tuple(terms))

    def contains(self, ns: Namespace) -> bool:
        """True when a read under this reach may touch `ns`."""
        return any(t.contains(ns) for t in self.terms)

    def __contains__(self, ns: object) -> bool:
        return isinstance(ns, Namespace) and self.contains(ns)

    def __iter__(self) -> Iterator[ReachTerm]:
        return iter(self.terms)

    def __str__(self) -> str:
        return "+".join(str(t) for t in self.terms)

    def exact_nodes(self) -> frozenset[Namespace]:
        """Nodes matched exactly (exact terms, and every node of an inherit term's lineage)."""
        out: set[Namespace] = set()
        for t in self.terms:
            if t.mode is ReachMode.EXACT:
                out.add(t.namespace)
            elif t.mode is ReachMode.INHERIT:
                out.update(t.namespace.lineage())
        return frozenset(out)

    def subtree_roots(self) -> frozenset[Namespace]:
        """The nodes of the subtree terms, which engines compile to a prefix range each."""
        return frozenset(t.namespace for t in self.terms if t.mode is ReachMode.SUBTREE)


def reach_contains_all(reach: Reach | None, namespaces: Iterable[Namespace]) -> bool:
    """None means every namespace."""
    return reach is None or all(reach.contains(ns) for ns in namespaces)


def _clip(text: str, limit: int = 80) -> str:
    return echo(text, limit)
