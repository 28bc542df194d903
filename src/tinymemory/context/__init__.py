"""Context for a model: context.md (the session brief) and holistic recall (the pre-turn pack).

Both read through `api.MemoryEngine` only and return a `ContextPack` whose markdown fits a token budget
(four characters per token) and whose every memory line names the id it came from.
"""

from tinymemory.context.contextmd import (
    DEFAULT_BRIEFS,
    DEFAULT_BUDGET_TOKENS,
    Brief,
    ContextSpec,
    compile,
    draft,
    fit_brief,
)
from tinymemory.context.pack import ContextPack, PackItem, PackSection, fit, render
from tinymemory.context.recall import Scope, lineage_scopes, recall
from tinymemory.context.tokens import CHARS_PER_TOKEN, estimate_tokens

__all__ = [
    "CHARS_PER_TOKEN",
    "DEFAULT_BRIEFS",
    "DEFAULT_BUDGET_TOKENS",
    "Brief",
    "ContextPack",
    "ContextSpec",
    "PackItem",
    "PackSection",
    "Scope",
    "compile",
    "draft",
    "estimate_tokens",
    "fit",
    "fit_brief",
    "lineage_scopes",
    "recall",
    "render",
]
