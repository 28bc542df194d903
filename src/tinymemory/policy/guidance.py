"""Tool guidance: the five tools' descriptions and schemas, rendered from the effective policy.

`render_guidance` returns a plain JSON document, so a memory service can serve it and an agent runtime
or a gateway can present it unchanged. The derived text comes first; the workspace's notes (the
policy's `toolGuidance.notes`) and then the agent's notes follow it under their own headings, in every
tool's description, and never replace it. `fallback_guidance` is what a runtime uses when no guidance
can be had; `with_fallback` completes served guidance with the fallback's tools and fields.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from tinymemory.policy.arguments import (
    MEMORY_FORGET,
    MEMORY_LIST,
    MEMORY_OPEN,
    MEMORY_RECALL,
    MEMORY_REMEMBER,
    POLICY_TOOL_NAMES,
    SHARE_RULE,
    PolicyArgs,
)
from tinymemory.policy.policy import MemoryPolicy

GUIDANCE_VERSION = 1
WORKSPACE_NOTES = "Notes for this workspace:"
AGENT_NOTES = "Notes for this agent:"
UPDATE_RULE = (
    "To correct a fact, remember it again with the same about_kind and about_key: the new version "
    "replaces the earlier one in place. Use memory__forget only when a fact should be removed entirely."
)


def _remember(policy: MemoryPolicy) -> str:
    text = (
        "Create or update a durable memory: a stable fact, a preference, or something the user asked "
        "you to remember. " + UPDATE_RULE
    )
    required = policy.require_about_for
    if required:
        text += f" about_kind and about_key are required for these types: {', '.join(required)}."
    return text + " " + SHARE_RULE


def _recall(policy: MemoryPolicy, previews: bool) -> str:
    text = (
        "Search the memories visible in this conversation: the user's own, those the agent shares with "
        "all its users, and the workspace's. Results are ranked; each carries its tier and score in its "
        "metadata. With seed_name, memories relating that entity to others are added, each with hop and "
        "via in its metadata. as_of reads memory as it stood at an earlier instant."
    )
    if previews:
        text += (
            f" A memory whose body is larger than {policy.inline_threshold_bytes} bytes comes back as a "
            "preview: its content is empty, metadata.content_preview holds its opening and "
            "metadata.has_full_body is true. Read the whole body with memory__open."
        )
    return text


DESCRIPTIONS_OPEN = (
    "Read the whole body of a memory that memory__recall returned as a preview (metadata.has_full_body), "
    "by its id. Answers status opened with the content, or status not_found."
)
DESCRIPTIONS_LIST = (
    "Browse the memories in this conversation's scope, newest first, optionally of one type, with a "
    "cursor for more."
)
DESCRIPTIONS_FORGET = (
    "Forget one of the user's own memories entirely, with its earlier versions (a soft delete): it is no "
    "longer recalled, listed or opened. It is not the way to correct a fact: remember the fact again with "
    "the same about_kind and about_key instead."
)

FALLBACK_DESCRIPTIONS: dict[str, str] = {
    MEMORY_REMEMBER: (
        "Save or update a durable memory. Reusing about_kind and about_key replaces the earlier memory "
        "in place; use memory__forget only to remove a fact."
    ),
    MEMORY_RECALL: (
        "Search memory. seed_name, relation_types and max_hops follow relations between entities; as_of "
        "reads memory at an earlier instant. A long memory may come back as a preview "
        "(metadata.has_full_body): read it with memory__open."
    ),
    MEMORY_OPEN: "Read the whole body of a memory that memory__recall returned as a preview.",
    MEMORY_LIST: "Browse memories in the current scope.",
    MEMORY_FORGET: "Forget a memory by id (a soft delete). Not the way to correct a fact.",
}


def _clean(notes: str | None) -> str | None:
    return notes.strip() if isinstance(notes, str) and notes.strip() else None


def _with_notes(text: str, workspace: str | None, agent: str | None) -> str:
    if workspace:
        text += f"\n\n{WORKSPACE_NOTES}\n{workspace}"
    if agent:
        text += f"\n\n{AGENT_NOTES}\n{agent}"
    return text


def render_guidance(
    policy: MemoryPolicy | None = None,
    workspace_notes: str | None = None,
    agent_notes: str | None = None,
    *,
    previews: bool = True,
) -> dict[str, Any]:
    """The guidance for `policy` (the built-in default when None).

    `workspace_notes` defaults to the policy's `toolGuidance.notes`; `agent_notes` are the agent's own
    (a gateway serving no particular agent leaves them out). `previews=False` renders memory__recall
    for a runtime that does not offer memory__open.
    """
    effective = policy if policy is not None else MemoryPolicy.default()
    workspace = _clean(workspace_notes) or effective.notes
    agent = _clean(agent_notes)
    args = PolicyArgs.declare(effective)
    descriptions = {
        MEMORY_REMEMBER: _remember(effective),
        MEMORY_RECALL: _recall(effective, previews),
        MEMORY_OPEN: DESCRIPTIONS_OPEN,
        MEMORY_LIST: DESCRIPTIONS_LIST,
        MEMORY_FORGET: DESCRIPTIONS_FORGET,
    }
    return {
        "version": GUIDANCE_VERSION,
        "source": "policy" if policy is not None else "default",
        "policy": effective.name,
        "types": list(effective.writable_types()),
        "kinds": list(effective.type_names()) if effective.has_schema else None,
        "relation_types": list(effective.relation_names()) if effective.has_relations else None,
        "require_about_for": list(effective.require_about_for),
        "inline_threshold_bytes": effective.inline_threshold_bytes,
        "notes": {"workspace": workspace, "agent": agent},
        "tools": [
            {
                "name": name,
                "description": _with_notes(descriptions[name], workspace, agent),
                "parameters": args.shape(name).schema(),
            }
            for name in POLICY_TOOL_NAMES
        ],
    }


def fallback_guidance() -> dict[str, Any]:
    """Short built-in descriptions and no enums, for when no guidance can be had. It still states the
    update rule and exposes about_kind, about_key, purpose, title, summary, share and the graph fields."""
    args = PolicyArgs.declare(MemoryPolicy.default(), enums=False)
    return {
        "version": GUIDANCE_VERSION,
        "source": "fallback",
        "policy": None,
        "types": None,
        "kinds": None,
        "relation_types": None,
        "require_about_for": [],
        "inline_threshold_bytes": None,
        "notes": {"workspace": None, "agent": None},
        "tools": [
            {
                "name": name,
                "description": FALLBACK_DESCRIPTIONS[name],
                "parameters": args.shape(name).schema(),
            }
            for name in POLICY_TOOL_NAMES
        ],
    }


def _tool(value: object) -> dict[str, Any] | None:
    """A served tool entry, when it has the shape the runtime needs."""
    if not isinstance(value, Mapping):
        return None
    name, description, parameters = value.get("name"), value.get("description"), value.get("parameters")
    if not isinstance(name, str) or not isinstance(description, str) or not isinstance(parameters, Mapping):
        return None
    if not isinstance(parameters.get("properties", {}), Mapping):
        return None
    return {"name": name, "description": description, "parameters": copy.deepcopy(dict(parameters))}


def with_fallback(served: object) -> dict[str, Any]:
    """Served guidance completed by the fallback: a tool it covers keeps its text and schema plus every
    fallback field it does not mention; a tool it leaves out (or serves malformed) is the fallback's.
    None (or anything that is not a guidance document) gives the fallback itself."""
    fallback = fallback_guidance()
    if not isinstance(served, Mapping) or not isinstance(served.get("tools"), list):
        return fallback
    by_name = {t["name"]: t for t in (_tool(v) for v in served["tools"]) if t is not None}
    tools: list[dict[str, Any]] = []
    for base in fallback["tools"]:
        mine = by_name.get(base["name"])
        if mine is None:
            tools.append(base)
            continue
        params = mine["parameters"]
        props = dict(params.get("properties", {}))
        for name, schema in base["parameters"]["properties"].items():
            props.setdefault(name, schema)
        params["properties"] = props
        params.setdefault("type", "object")
        params.setdefault("required", base["parameters"]["required"])
        params["additionalProperties"] = False
        tools.append({"name": mine["name"], "description": mine["description"], "parameters": params})
    out = {key: copy.deepcopy(value) for key, value in served.items() if key != "tools"}
    return {**fallback, **out, "tools": tools}
