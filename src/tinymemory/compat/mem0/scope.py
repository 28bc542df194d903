"""mem0's session ids (user_id, agent_id, run_id) as tinymemory namespaces, reaches and filters.

A memory added with `user_id=u, agent_id=a, run_id=r` lives at `<root>/user:u/agent:a/run:r` (the
ids given, in that order), and also carries `agent_id` and `run_id` (as `thread_id`) in its metadata.
A read naming ids sees the subtree of the leading ids it names, narrowed by the others as metadata
filters: `user_id=alice` reads `user:alice` and everything below it and nothing else, so one user
never sees another's memories. A read naming no user (say `agent_id` alone) spans the root's subtree
narrowed by the agent, which is what mem0 does too.

Ids that are not valid namespace names are encoded reversibly (`x~` then `~XX` escapes), so any id
mem0 accepts has a place in the tree.
"""

from __future__ import annotations

import string
from dataclasses import dataclass

from tinymemory.api import MetaFilter, Namespace, Reach
from tinymemory.api.echo import echo
from tinymemory.compat.mem0.errors import invalid

SOURCE = "mem0"  # the source kind of every memory this API writes; reads see only these
ENTITY_KEYS = ("user_id", "agent_id", "run_id")
_KINDS = {"user_id": "user", "agent_id": "agent", "run_id": "run"}
_SAFE = frozenset(string.ascii_letters + string.digits + "._@+=-")
_ALNUM = frozenset(string.ascii_letters + string.digits)
_ENCODED = "x~"
MAX_NAME = 128


def check_entity_id(op: str, name: str, value: object) -> str | None:
    """mem0's rule for an id: None is absent; ints become strings; surrounding blanks are trimmed;
    empty or containing whitespace is refused."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise invalid(op, name, f"must be a string, got {type(value).__name__}")
    text = str(value).strip()
    if not text:
        raise invalid(op, name, "cannot be empty or whitespace-only; provide a valid identifier")
    if any(c.isspace() for c in text):
        raise invalid(
            op, name, f"`{echo(text)}` cannot contain whitespace; provide an identifier without spaces"
        )
    if "\x00" in text or not text.isprintable():
        raise invalid(op, name, f"`{echo(text)}` must hold printable characters only")
    return text


def encode_name(value: str) -> str:
    """A namespace segment name for `value`: as is when it is one already, else `x~` plus the value
    with every other character as `~XX` bytes (a plain name never holds `~`, so decoding is exact)."""
    if value[0] in _ALNUM and all(c in _SAFE for c in value):
        return value
    escaped = "".join(c if c in _SAFE else "".join(f"~{b:02X}" for b in c.encode("utf-8")) for c in value)
    return _ENCODED + escaped


def decode_name(name: str) -> str:
    """The id `encode_name` made `name` from."""
    if not name.startswith(_ENCODED):
        return name
    body, out, i = name[len(_ENCODED) :], bytearray(), 0
    while i < len(body):
        if body[i] == "~":
            out.append(int(body[i + 1 : i + 3], 16))
            i += 3
        else:
            out.extend(body[i].encode("ascii"))
            i += 1
    return out.decode("utf-8")


@dataclass(frozen=True, slots=True)
class Scope:
    """The session ids of one call; at least one is set when it came from `Scope.of`."""

    user_id: str | None = None
    agent_id: str | None = None
    run_id: str | None = None

    @classmethod
    def of(
        cls,
        op: str,
        user_id: object = None,
        agent_id: object = None,
        run_id: object = None,
        *,
        missing: str = "is missing: at least one of `user_id`, `agent_id` or `run_id` must be provided",
    ) -> Scope:
        """Checked ids; refuses a call naming none of them, as mem0 does (saying `missing`)."""
        scope = cls.maybe(op, user_id, agent_id, run_id)
        if scope.is_empty:
            raise invalid(op, "user_id", missing)
        return scope

    @classmethod
    def maybe(cls, op: str, user_id: object = None, agent_id: object = None, run_id: object = None) -> Scope:
        """Checked ids, possibly none (the whole root)."""
        return cls(
            check_entity_id(op, "user_id", user_id),
            check_entity_id(op, "agent_id", agent_id),
            check_entity_id(op, "run_id", run_id),
        )

    @property
    def is_empty(self) -> bool:
        """No id is set: the call spans the whole root."""
        return self.user_id is None and self.agent_id is None and self.run_id is None

    def _pairs(self) -> list[tuple[str, str | None]]:
        return [("user_id", self.user_id), ("agent_id", self.agent_id), ("run_id", self.run_id)]

    def namespace(self, op: str, root: Namespace) -> Namespace:
        """Where a memory with these ids lives (every id given, in the fixed order)."""
        return self._path(op, root, [(k, v) for k, v in self._pairs() if v is not None])

    def reach(self, op: str, root: Namespace) -> Reach:
        """The subtree of the leading ids named (all of the root's when no user is named)."""
        leading: list[tuple[str, str | None]] = []
        for key, value in self._pairs():
            if value is None:
                break
            leading.append((key, value))
        return Reach.subtree(self._path(op, root, leading))

    def read_filter(self, op: str, root: Namespace) -> MetaFilter:
        """This API's memories within the scope: the reach, plus the ids past the leading run as
        metadata (an agent named without a user, a run named without an agent)."""
        return MetaFilter(
            reach=self.reach(op, root), sources=(SOURCE,), agent_id=self.agent_id, thread_id=self.run_id
        )

    def _path(self, op: str, root: Namespace, pairs: list[tuple[str, str | None]]) -> Namespace:
        ns = root
        for key, value in pairs:
            assert value is not None
            name = encode_name(value)
            if len(name) > MAX_NAME:
                raise invalid(
                    op, key, f"`{echo(value)}` is too long (at most {MAX_NAME} characters once encoded)"
                )
            ns = ns.child(_KINDS[key], name)
        return ns

    @classmethod
    def from_namespace(cls, ns: Namespace, root: Namespace) -> Scope:
        """The ids of a memory from where it lives (the inverse of `namespace`)."""
        found: dict[str, str] = {}
        for seg in ns.segments[root.depth :]:
            for key, kind in _KINDS.items():
                if seg.kind == kind:
                    found[key] = decode_name(seg.name)
        return cls(found.get("user_id"), found.get("agent_id"), found.get("run_id"))

    def as_dict(self) -> dict[str, str]:
        """The ids that are set, keyed as mem0 names them."""
        return {k: v for k, v in self._pairs() if v is not None}
