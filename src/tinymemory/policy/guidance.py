"""Tool guidance: the five tools' descriptions and schemas, rendered from the effective policy.

Each tool's description and arguments are declared in its module (`policy/catalog/`); this module
renders the registry's tools into one document.

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

from tinymemory.policy.policy import MemoryPolicy
from tinymemory.policy.registry import POLICY_TOOLS
from tinymemory.policy.session import PolicyContext

GUIDANCE_VERSION = 1
WORKSPACE_NOTES = "Notes for this workspace:"
AGENT_NOTES = "Notes for this agent:"


def _clean(notes: str | None) -> str | None:
    return notes.strip() if isinstance(notes, str) and notes.strip() else None


def _with_notes(text: str, workspace: str | None, agent: str | None) -> str:
    if workspace:
        text += f"\n\n{WORKSPACE_NOTES}\n{workspace}"
    if agent:
        text += f"\n\n{AGENT_NOTES}\n{agent}"
    return text


def _tools(context: PolicyContext, workspace: str | None, agent: str | None) -> list[dict[str, Any]]:
    """The registry's tools as guidance entries: each one's spec, its description followed by the notes."""
    specs = POLICY_TOOLS.specs(context)
    return [
        {
            "name": s.name,
            "description": _with_notes(s.description, workspace, agent),
            "parameters": s.parameters,
        }
        for s in specs
    ]


def render_guidance(
    policy: MemoryPolicy | None = None,
    workspace_notes: str | None = None,
    agent_notes: str | None = None,
    *,
    previews: bool = True,
    gateway: bool = False,
) -> dict[str, Any]:
    """The guidance for `policy` (the built-in default when None).

    `workspace_notes` defaults to the policy's `toolGuidance.notes`; `agent_notes` are the agent's own
    (a gateway serving no particular agent leaves them out). `previews=False` renders memory__recall
    for a runtime that does not offer memory__open. `gateway` renders the tools as the MCP gateway
    declares them (memory__remember takes `agent`, see `PolicyContext.gateway`).
    """
    effective = policy if policy is not None else MemoryPolicy.default()
    workspace = _clean(workspace_notes) or effective.notes
    agent = _clean(agent_notes)
    context = PolicyContext(effective, previews=previews, gateway=gateway)
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
        "tools": _tools(context, workspace, agent),
    }


def fallback_guidance() -> dict[str, Any]:
    """Short built-in descriptions and no enums, for when no guidance can be had. It still states the
    update rule and exposes about_kind, about_key, purpose, title, summary, share and the graph fields."""
    context = PolicyContext(MemoryPolicy.default(), fallback=True)
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
        "tools": _tools(context, None, None),
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
