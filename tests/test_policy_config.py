"""MemoryPolicy: the seed's field names, defaults, and errors that name the field."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from tinymemory.api import InvalidRequest
from tinymemory.policy import BUILTIN_TYPES, MemoryPolicy, Tier

FULL_YAML = """\
apiVersion: memory.example/v1
kind: MemoryPolicy
metadata:
  name: support
spec:
  schema:
    types:
      - name: preference
        description: How the user likes things done.
        tiers: [user, user_for_agent]
      - name: account_fact
        tiers: [user]
      - name: procedure
        tiers: [agent, institutional]
    relations:
      - name: works_on
      - name: led_by
        description: A project and its lead.
  dedup:
    requireAboutForKinds: [preference]
  recall:
    inlineThresholdBytes: 4096
  gate:
    minDistinctSubjects: 3
    window: 72h
    accept:
      userShares: false
  toolGuidance:
    notes: Prefer short memories.
"""


def test_default_policy_is_the_built_in_one() -> None:
    policy = MemoryPolicy.default()
    assert policy.name is None and not policy.has_schema and not policy.has_relations
    assert policy.type_names() == BUILTIN_TYPES and policy.type_names()[0] == "general"
    assert policy.writable_types() == BUILTIN_TYPES
    assert policy.default_type == "general"
    assert policy.relation_names() == () and policy.require_about_for == ()
    assert policy.inline_threshold_bytes == 8192
    assert policy.gate.min_distinct_subjects == 2
    assert policy.gate.window == timedelta(days=7)
    assert policy.gate.accept.user_shares is True
    assert policy.notes is None
    assert MemoryPolicy.default() == policy  # a value


def test_a_full_resource_reads_every_field(tmp_path: Path) -> None:
    path = tmp_path / "policy.yaml"
    path.write_text(FULL_YAML, encoding="utf-8")
    policy = MemoryPolicy.load(path)
    assert policy.name == "support" and policy.has_schema
    assert policy.type_names() == ("preference", "account_fact", "procedure")
    assert policy.writable_types() == ("preference", "account_fact")
    assert policy.writable("procedure", Tier.AGENT) and not policy.writable("procedure", Tier.USER)
    assert policy.default_type == "preference"  # no `general` declared: the first user-writable type
    assert policy.relation_names() == ("works_on", "led_by")
    assert policy.require_about_for == ("preference",)
    assert policy.inline_threshold_bytes == 4096
    assert policy.gate.min_distinct_subjects == 3 and policy.gate.window == timedelta(hours=72)
    assert policy.gate.accept.user_shares is False
    assert policy.notes == "Prefer short memories."


def test_json_and_a_bare_spec_read_the_same(tmp_path: Path) -> None:
    import yaml

    resource = yaml.safe_load(FULL_YAML)
    path = tmp_path / "policy.json"
    path.write_text(json.dumps(resource), encoding="utf-8")
    from_json = MemoryPolicy.load(path)
    assert from_json == MemoryPolicy.from_dict(resource)
    bare = MemoryPolicy.from_dict(resource["spec"])
    assert bare.spec == from_json.spec and bare.name is None


def test_two_workspaces_hold_two_policies() -> None:
    a = MemoryPolicy.from_dict({"recall": {"inlineThresholdBytes": 100}})
    b = MemoryPolicy.from_dict({"recall": {"inlineThresholdBytes": 200}})
    assert (a.inline_threshold_bytes, b.inline_threshold_bytes) == (100, 200) and a != b


def test_types_without_tiers_may_be_written_everywhere() -> None:
    policy = MemoryPolicy.from_dict({"schema": {"types": [{"name": "note"}]}})
    assert all(policy.writable("note", t) for t in Tier)


@pytest.mark.parametrize("window", ["168h", "7d", "1h30m", "90s", "0.5h"])
def test_gate_window_durations(window: str) -> None:
    assert MemoryPolicy.from_dict({"gate": {"window": window}}).gate.window > timedelta(0)


BAD: list[tuple[dict[str, Any], str, str]] = [
    ({"gate": {"minDistinctSubjects": 1}}, "gate.minDistinctSubjects", "greater than or equal to 2"),
    ({"spec": {"gate": {"minDistinctSubjects": 1}}}, "spec.gate.minDistinctSubjects", "2"),
    ({"gate": {"minDistinctSubjects": "3"}}, "gate.minDistinctSubjects", "valid integer"),
    ({"gate": {"minDistinctSubjects": True}}, "gate.minDistinctSubjects", "valid integer"),
    ({"gate": {"window": "a week"}}, "gate.window", "duration"),
    ({"gate": {"window": "0h"}}, "gate.window", "longer than zero"),
    ({"gate": {"window": 3600}}, "gate.window", "duration"),
    ({"gate": {"accept": {"userShares": "no"}}}, "gate.accept.userShares", "boolean"),
    ({"gate": {"accept": {"usershares": False}}}, "gate.accept.usershares", "not a known field"),
    ({"recall": {"inlineThresholdBytes": 10}}, "recall.inlineThresholdBytes", "greater than or equal to 64"),
    ({"recall": {"inlineThresholdBytes": 8192.5}}, "recall.inlineThresholdBytes", "integer"),
    ({"recall": {"inlineThreshold": 8192}}, "recall.inlineThreshold", "not a known field"),
    ({"schema": {"types": [{"name": "Pref"}]}}, "schema.types[0].name", "not a valid name"),
    ({"schema": {"types": [{"tiers": ["user"]}]}}, "schema.types[0].name", "is required"),
    ({"schema": {"types": [{"name": "p", "tiers": ["admin"]}]}}, "schema.types[0].tiers", "not a tier"),
    ({"schema": {"types": [{"name": "p", "tiers": []}]}}, "schema.types[0].tiers", "at least one"),
    ({"schema": {"types": "preference"}}, "schema.types", ""),
    ({"schema": {"types": [{"name": "p"}, {"name": "p"}]}}, "schema.types[1].name", "declared twice"),
    ({"schema": {"relations": [{"name": "works on"}]}}, "schema.relations[0].name", "not a valid name"),
    ({"schema": {"relations": [{"name": "a"}, {"name": "a"}]}}, "schema.relations[1].name", "twice"),
    ({"dedup": {"requireAboutForKinds": ["nope"]}}, "dedup.requireAboutForKinds[0]", "not a declared type"),
    (
        {"schema": {"types": [{"name": "p"}]}, "dedup": {"requireAboutForKinds": ["p", "fact"]}},
        "dedup.requireAboutForKinds[1]",
        "not a declared type",
    ),
    ({"toolGuidance": {"notes": 5}}, "toolGuidance.notes", "valid string"),
    ({"toolGuidance": {"notes": "x" * 8001}}, "toolGuidance.notes", "8000"),
    ({"tool_guidance": {"notes": "x"}}, "tool_guidance", "not a known field"),
    ({"spec": {}, "status": {}}, "status", "not a known field"),
    ({"kind": "AgentRuntime", "spec": {}}, "kind", "not MemoryPolicy"),
    ({"metadata": {"name": 3}, "spec": {}}, "metadata.name", "string"),
]


@pytest.mark.parametrize(("data", "field", "problem"), BAD)
def test_errors_name_the_field(data: dict[str, Any], field: str, problem: str) -> None:
    with pytest.raises(InvalidRequest) as err:
        MemoryPolicy.from_dict(data)
    message = str(err.value)
    assert message.startswith(f"policy: `{field}` "), message
    assert problem in message
    assert message == message.split(":", 1)[0] + ":" + message.split(":", 1)[1]  # one line
    assert "\n" not in message


def test_files_that_are_not_policies(tmp_path: Path) -> None:
    with pytest.raises(InvalidRequest, match=r"^policy: `.*missing.yaml` does not exist"):
        MemoryPolicy.load(tmp_path / "missing.yaml")
    broken = tmp_path / "broken.yaml"
    broken.write_text("schema: [unclosed\n", encoding="utf-8")
    with pytest.raises(InvalidRequest, match=r"^policy: `broken.yaml` is not valid yaml or json"):
        MemoryPolicy.load(broken)
    listing = tmp_path / "list.yaml"
    listing.write_text("- a\n- b\n", encoding="utf-8")
    with pytest.raises(InvalidRequest, match=r"^policy: must be an object, got list"):
        MemoryPolicy.load(listing)
    binary = tmp_path / "bin.yaml"
    binary.write_bytes(b"\xff\xfe\x00")
    with pytest.raises(InvalidRequest, match=r"^policy: `.*bin.yaml` cannot be read"):
        MemoryPolicy.load(binary)


def test_an_empty_spec_is_the_default() -> None:
    assert MemoryPolicy.from_dict({}).spec == MemoryPolicy.default().spec
    assert MemoryPolicy.from_dict({"kind": "MemoryPolicy", "spec": None}).spec == MemoryPolicy.default().spec
