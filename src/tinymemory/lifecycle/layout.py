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

from tinymemory.api import Namespace, Reach


@dataclass(frozen=True, slots=True)
class MemoryLayout:
    """The standard tree under one root namespace: the brain's sources, the shared learnings, and each
    agent's conversations and learnings. Every part of the lifecycle places and reads memory through it, so
    they agree on where things live and which reach sees them."""

    root: Namespace = field(default_factory=Namespace.root)

    @classmethod
    def at(cls, root: str) -> MemoryLayout:
        """The layout rooted at the namespace `root` names (e.g. `workspace:acme`)."""
        return cls(Namespace.parse(root, field="layout.root"))

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
