"""tinymemory.policy: seed 003's policy-driven memory tools over any MemoryEngine.

A verified identity gets five tools (memory__remember, memory__recall, memory__open, memory__list,
memory__forget) whose tiers, enums, previews and descriptions follow a `MemoryPolicy`. Like
`tinymemory.tools`, this package imports no tool runtime (see `tinymemory.adapters`) and no engine.
"""

from tinymemory.policy.consent import consent_status, grant_consent, withdraw_consent
from tinymemory.policy.erasure import ErasureReport, erase, forget_me
from tinymemory.policy.guidance import fallback_guidance, render_guidance, with_fallback
from tinymemory.policy.identity import PERSONAL_TIERS, Identity, Tier, Tiers
from tinymemory.policy.policy import BUILTIN_TYPES, DEFAULT_TYPE, MemoryPolicy
from tinymemory.policy.registry import (
    MEMORY_FORGET,
    MEMORY_LIST,
    MEMORY_OPEN,
    MEMORY_RECALL,
    MEMORY_REMEMBER,
    POLICY_READ_TOOLS,
    POLICY_TOOL_NAMES,
    POLICY_TOOLS,
)
from tinymemory.policy.retention import RetentionJob, RetentionReport
from tinymemory.policy.session import MediaProbe, PolicyCatalog, PolicyContext, PolicySession, PolicyTool
from tinymemory.policy.tools import PolicyTools, Registration, log_refused
from tinymemory.policy.user_export import export_user

__all__ = [
    "BUILTIN_TYPES",
    "DEFAULT_TYPE",
    "MEMORY_FORGET",
    "MEMORY_LIST",
    "MEMORY_OPEN",
    "MEMORY_RECALL",
    "MEMORY_REMEMBER",
    "PERSONAL_TIERS",
    "POLICY_READ_TOOLS",
    "POLICY_TOOLS",
    "POLICY_TOOL_NAMES",
    "ErasureReport",
    "Identity",
    "MediaProbe",
    "MemoryPolicy",
    "PolicyCatalog",
    "PolicyContext",
    "PolicySession",
    "PolicyTool",
    "PolicyTools",
    "Registration",
    "RetentionJob",
    "RetentionReport",
    "Tier",
    "Tiers",
    "consent_status",
    "erase",
    "export_user",
    "fallback_guidance",
    "forget_me",
    "grant_consent",
    "log_refused",
    "render_guidance",
    "with_fallback",
    "withdraw_consent",
]
