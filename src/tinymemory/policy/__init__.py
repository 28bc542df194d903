"""tinymemory.policy: seed 003's policy-driven memory tools over any MemoryEngine.

A verified identity gets five tools (memory__remember, memory__recall, memory__open, memory__list,
memory__forget) whose tiers, enums, previews and descriptions follow a `MemoryPolicy`.
"""

from tinymemory.policy.identity import PERSONAL_TIERS, Identity, Tier, Tiers
from tinymemory.policy.policy import BUILTIN_TYPES, DEFAULT_TYPE, MemoryPolicy

__all__ = [
    "BUILTIN_TYPES",
    "DEFAULT_TYPE",
    "PERSONAL_TIERS",
    "Identity",
    "MemoryPolicy",
    "Tier",
    "Tiers",
]
