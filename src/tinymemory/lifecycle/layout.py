"""MemoryLayout: the standard tree under one root namespace, so every part of the lifecycle agrees on
where each kind of memory lives and which reach sees it.

    <root>
    ├── memory:brain
    │   └── source:<name>            documents and their chunks, by source (Brain)
    ├── memory:learnings             learnings shared by every agent under the root
    └── agent:<id>
        ├── memory:conversations     the agent's logged turns and compaction summaries
        └── memory:learnings         what the belief builds learned in the agent's conversations
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tinymemory.api import InvalidRequest, Namespace, Reach


@dataclass(frozen=True, slots=True)
class MemoryLayout:
    """The standard tree under one root namespace: the brain's sources, the shared learnings, and each
    agent's conversations and learnings. Every part of the lifecycle places and reads memory through it, so
    they agree on where things live and which reach sees them."""

    root: Namespace = field(default_factory=Namespace.root)

    def __post_init__(self) -> None:
        # A string root is what the rest of the API takes, so it is read here too (the empty string is
        # the root); anything else is refused before a wrong tree can be written.
        if isinstance(self.root, Namespace):
            return
        if not isinstance(self.root, str):
            raise InvalidRequest(
                "memory layout: `root` must be a Namespace or a string like `team:acme`,"
                f" not {type(self.root).__name__}"
            )
        object.__setattr__(self, "root", Namespace.parse(self.root, field="memory layout: `root`"))

    @classmethod
    def at(cls, root: str) -> MemoryLayout:
        """The layout rooted at the namespace `root` names (e.g. `workspace:acme`)."""
        return cls(Namespace.parse(root, field="layout.root"))

    @classmethod
    def of(cls, value: object, *, op: str) -> MemoryLayout:
        """A constructor's `layout` argument as a layout: None (the root), a MemoryLayout, a Namespace
        or a string naming the root; anything else is refused as InvalidRequest naming `op`'s `layout`."""
        if value is None:
            return cls()
        if isinstance(value, MemoryLayout):
            return value
        if isinstance(value, (Namespace, str)):
            try:
                return cls(value if isinstance(value, Namespace) else Namespace.parse(value, field="x"))
            except InvalidRequest:
                pass
        raise InvalidRequest(f"{op}: `layout` must be a MemoryLayout, a Namespace or a root like `team:acme`")

    def agent_id(self, value: object, *, op: str) -> str:
        """An agent id as given to a constructor: a name (`writer`) or its own segment (`agent:writer`).

        A path or another kind's segment is ambiguous (which part is the root?) and refused, as is a
        name the namespace grammar does not allow, with InvalidRequest naming `op`'s `agent_id`.
        """
        if isinstance(value, str):
            name = value[len("agent:") :] if value.startswith("agent:") else value
            if ":" not in name and "/" not in name:
                try:
                    self.agent(name)
                    return name
                except InvalidRequest:
                    pass
        raise InvalidRequest(
            f"{op}: `agent_id` must be a name like `writer` (letters, digits and ._@+=~-),"
            f" not {_shown(value)}"
        )

    @property
    def brain_root(self) -> Namespace:
        """The node under which every brain source keeps its documents and chunks."""
        return self.root.child("memory", "brain")

    def brain(self, source: str) -> Namespace:
        """The node of one brain source's documents and chunks."""
        return self.brain_root.child("source", source)

    @property
    def shared_learnings(self) -> Namespace:
        """The node of learnings every agent under the root shares."""
        return self.root.child("memory", "learnings")

    def agent(self, agent_id: str) -> Namespace:
        """The node of one agent; the id is checked by the namespace grammar."""
        return self.root.child("agent", agent_id)

    def conversations(self, agent_id: str) -> Namespace:
        """The node of one agent's logged turns and their compaction summaries."""
        return self.agent(agent_id).child("memory", "conversations")

    def learnings(self, agent_id: str) -> Namespace:
        """The node of what one agent's belief builds learned from its conversations."""
        return self.agent(agent_id).child("memory", "learnings")

    def agent_reach(self, agent_id: str) -> Reach:
        """Everything one agent may read: its own subtree, its ancestors, the brain, shared learnings.

        Never a sibling agent's part of the tree.
        """
        return Reach.union(
            Reach.subtree(self.agent(agent_id)),
            Reach.of(self.agent(agent_id)),
            Reach.subtree(self.brain_root),
            Reach.exact(self.shared_learnings),
        )

    def context_reach(self, agent_id: str) -> Reach:
        """What context.md reads for one agent: `agent_reach` without the brain (briefs are about the
        user and the work, and leaving the brain's many chunks out keeps the reads small)."""
        return Reach.union(
            Reach.subtree(self.agent(agent_id)),
            Reach.of(self.agent(agent_id)),
            Reach.exact(self.shared_learnings),
        )

    def beliefs_reach(self, agent_id: str) -> Reach:
        """The learnings that shape one agent's brief: its own and the shared ones."""
        return Reach.union(Reach.exact(self.learnings(agent_id)), Reach.exact(self.shared_learnings))


def _shown(value: object) -> str:
    if isinstance(value, str):
        return f"`{value[:40]}`"
    return type(value).__name__
