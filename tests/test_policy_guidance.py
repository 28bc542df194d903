"""Tool guidance rendered from a policy: golden files, notes layers, enums, the fallback and merging.

A change to the rendered text fails here until the golden files are regenerated on purpose:
    BLESS_TOOL_CONTRACTS=1 .venv/bin/pytest tests/test_policy_guidance.py
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from engines import make_engine
from tinymemory.policy import (
    POLICY_TOOL_NAMES,
    Identity,
    MemoryPolicy,
    PolicyTools,
    fallback_guidance,
    render_guidance,
    with_fallback,
)

GOLDEN = Path(__file__).parent / "fixtures" / "guidance"
SPEC: dict[str, Any] = {
    "schema": {
        "types": [
            {"name": "preference", "tiers": ["user", "user_for_agent"]},
            {"name": "account_fact", "tiers": ["user"]},
            {"name": "procedure", "tiers": ["agent", "institutional"]},
        ],
        "relations": [{"name": "works_on"}, {"name": "reports_to"}],
    },
    "dedup": {"requireAboutForKinds": ["preference", "account_fact"]},
    "recall": {"inlineThresholdBytes": 4096},
}
POLICY = MemoryPolicy.from_dict(
    {
        "kind": "MemoryPolicy",
        "metadata": {"name": "support-desk"},
        "spec": {**SPEC, "toolGuidance": {"notes": "Never remember payment card numbers."}},
    }
)
PLAIN = MemoryPolicy.from_dict(SPEC)  # the same policy without notes
AGENT_NOTES = "Remember which product line the user works with."


def cases() -> dict[str, dict[str, Any]]:
    return {
        "default": render_guidance(),
        "policy": render_guidance(POLICY, None, AGENT_NOTES),
        "fallback": fallback_guidance(),
    }


@pytest.mark.parametrize("name", ["default", "policy", "fallback"])
def test_golden(name: str) -> None:
    now = cases()[name]
    path = GOLDEN / f"{name}.json"
    if os.environ.get("BLESS_TOOL_CONTRACTS") == "1":
        path.write_text(json.dumps(now, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    assert now == json.loads(path.read_text(encoding="utf-8")), (
        f"the {name} guidance changed; if on purpose, regenerate with "
        "BLESS_TOOL_CONTRACTS=1 .venv/bin/pytest tests/test_policy_guidance.py"
    )


def test_guidance_is_plain_json() -> None:
    for doc in cases().values():
        assert json.loads(json.dumps(doc)) == doc
        assert [t["name"] for t in doc["tools"]] == list(POLICY_TOOL_NAMES)


def props(doc: dict[str, Any], tool: str) -> dict[str, Any]:
    by_name = {t["name"]: t for t in doc["tools"]}
    schema: dict[str, Any] = by_name[tool]["parameters"]["properties"]
    return schema


def description(doc: dict[str, Any], tool: str) -> str:
    return str({t["name"]: t for t in doc["tools"]}[tool]["description"])


def test_enums_follow_the_policy() -> None:
    doc = render_guidance(POLICY)
    assert props(doc, "memory__remember")["type"]["enum"] == ["preference", "account_fact"]
    assert props(doc, "memory__recall")["kinds"]["items"]["enum"] == [
        "preference",
        "account_fact",
        "procedure",
    ]
    assert props(doc, "memory__recall")["types"]["items"]["enum"] == [
        "preference",
        "account_fact",
        "procedure",
    ]
    assert props(doc, "memory__recall")["relation_types"]["items"]["enum"] == ["works_on", "reports_to"]
    assert "preference, account_fact" in description(doc, "memory__remember")
    assert "4096 bytes" in description(doc, "memory__recall")
    assert (
        doc["require_about_for"] == ["preference", "account_fact"] and doc["inline_threshold_bytes"] == 4096
    )


def test_without_a_schema_kinds_and_relation_types_are_free_strings() -> None:
    doc = render_guidance()
    assert props(doc, "memory__remember")["type"]["enum"][0] == "general"  # the built-in set
    assert props(doc, "memory__recall")["kinds"]["items"] == {"type": "string"}
    assert props(doc, "memory__recall")["relation_types"]["items"] == {"type": "string"}
    assert "8192 bytes" in description(doc, "memory__recall")
    typed_only = render_guidance(MemoryPolicy.from_dict({"schema": {"types": [{"name": "note"}]}}))
    assert props(typed_only, "memory__recall")["kinds"]["items"]["enum"] == ["note"]
    assert props(typed_only, "memory__recall")["relation_types"]["items"] == {"type": "string"}


def test_notes_follow_the_derived_text_workspace_then_agent() -> None:
    plain = render_guidance(
        POLICY.__class__.from_dict({**POLICY.spec.model_dump(by_alias=True, exclude={"tool_guidance"})})
    )
    doc = render_guidance(POLICY, None, AGENT_NOTES)
    for tool in POLICY_TOOL_NAMES:
        text = description(doc, tool)
        derived = description(plain, tool)
        assert text.startswith(derived)
        assert text[len(derived) :] == (
            "\n\nNotes for this workspace:\nNever remember payment card numbers."
            f"\n\nNotes for this agent:\n{AGENT_NOTES}"
        )
    # the gateway serves no agent: only the workspace's notes
    gateway = render_guidance(POLICY)
    assert "Notes for this agent:" not in json.dumps(gateway)
    assert description(gateway, "memory__list").endswith(
        "Notes for this workspace:\nNever remember payment card numbers."
    )
    # explicit workspace notes stand for the policy's
    other = render_guidance(POLICY, "Be brief.", None)
    assert description(other, "memory__open").endswith("Notes for this workspace:\nBe brief.")
    assert render_guidance(None, "  ", "")["notes"] == {"workspace": None, "agent": None}


def test_the_share_field_says_what_may_be_shared() -> None:
    for doc in (render_guidance(), render_guidance(POLICY), fallback_guidance()):
        share = props(doc, "memory__remember")["share"]["description"]
        assert "useful to every user of the agent" in share and "never personal facts" in share


def test_fallback_has_no_enums_but_keeps_every_field_and_the_update_rule() -> None:
    doc = fallback_guidance()
    assert "enum" not in json.dumps(doc)
    remember = props(doc, "memory__remember")
    for name in ("about_kind", "about_key", "purpose", "title", "summary", "share"):
        assert name in remember
    recall = props(doc, "memory__recall")
    for name in ("seed_name", "relation_types", "max_hops", "as_of", "kinds"):
        assert name in recall
    assert "about_kind and about_key" in description(doc, "memory__remember")
    assert "replaces the earlier memory" in description(doc, "memory__remember")
    assert doc["source"] == "fallback" and doc["inline_threshold_bytes"] is None


def test_served_guidance_keeps_fallback_fields_it_does_not_mention() -> None:
    served = render_guidance(POLICY)
    old = json.loads(json.dumps(served))
    old["tools"] = [t for t in old["tools"] if t["name"] != "memory__open"]  # an older service
    recall = next(t for t in old["tools"] if t["name"] == "memory__recall")
    for name in ("seed_name", "relation_types", "max_hops", "as_of"):
        del recall["parameters"]["properties"][name]
    merged = with_fallback(old)
    assert [t["name"] for t in merged["tools"]] == list(POLICY_TOOL_NAMES)
    fallback = fallback_guidance()
    assert description(merged, "memory__recall") == description(served, "memory__recall")
    assert (
        props(merged, "memory__recall")["kinds"] == props(served, "memory__recall")["kinds"]
    )  # its enum kept
    for name in ("seed_name", "relation_types", "max_hops", "as_of"):
        assert props(merged, "memory__recall")[name] == props(fallback, "memory__recall")[name]
    assert next(t for t in merged["tools"] if t["name"] == "memory__open") == next(
        t for t in fallback["tools"] if t["name"] == "memory__open"
    )
    assert merged["policy"] == "support-desk"
    assert with_fallback(None) == fallback
    assert with_fallback({"tools": "nope"}) == fallback
    assert (
        with_fallback({"tools": [{"name": "memory__list", "description": 3}]})["tools"] == fallback["tools"]
    )


async def test_policy_tools_present_the_rendered_guidance(tmp_path: Path) -> None:
    async with make_engine(tmp_path / "m.db", embedder=None) as engine:
        identity = Identity("acme", "dana", "helper", verified=True)
        t = PolicyTools.for_identity(engine, identity, POLICY, AGENT_NOTES)
        doc = render_guidance(POLICY, None, AGENT_NOTES)
        assert [s.to_dict() for s in t.specs()] == doc["tools"]
        served = PolicyTools.for_identity(engine, identity, POLICY, guidance=render_guidance(POLICY))
        assert [s.to_dict() for s in served.specs()] == render_guidance(POLICY)["tools"]
        unreachable = PolicyTools.for_identity(engine, identity, POLICY, guidance={})
        assert [s.to_dict() for s in unreachable.specs()] == fallback_guidance()["tools"]
