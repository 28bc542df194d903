"""The shared-write gate: shares that enough distinct users corroborate become the agent's knowledge,
de-identified; nothing a tool call does writes shared memory directly.

`queue` builds the candidate a share leaves for the gate, `screen` decides what a share may leave
and what may be shown or published, `match` decides "the same fact", `deid` finds the identifiers and
personal facts, `job` weighs the queue (idempotent, safe to run twice at once) and `status` shows it
to a workspace's admins. docs/architecture/gate.md has the
flow.
"""

from tinymemory.policy.gate.deid import contains_identifier, deidentify, is_personal, personal_reason
from tinymemory.policy.gate.job import GateJob, GateReport, queued_pairs
from tinymemory.policy.gate.match import FactMatcher, normalise, threshold_for
from tinymemory.policy.gate.status import gate_status
from tinymemory.retrieval.embedders import StaticMiniLMEmbedder, shipped_table


def gate_matcher() -> FactMatcher:
    """The matcher the thresholds were measured with: the static table shipped in the package (whatever
    embedder the store searches with), or the lexical rule when the table is missing."""
    embedder = StaticMiniLMEmbedder() if shipped_table() is not None else None
    return FactMatcher(embedder, threshold_for(embedder))


__all__ = [
    "FactMatcher",
    "GateJob",
    "GateReport",
    "contains_identifier",
    "deidentify",
    "gate_matcher",
    "gate_status",
    "is_personal",
    "normalise",
    "personal_reason",
    "queued_pairs",
]
