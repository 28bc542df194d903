"""`tinymemory retention run|status` over a real store: a dry run counts per tier and category and
changes nothing; a run forgets and purges what is past its time; bad input is a JSON error."""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from engines import make_engine, store_target
from tinymemory.api import GetRequest, ItemKind, ItemMeta, Namespace, NewItem, utcnow
from tinymemory.cli import main

POLICY = """\
kind: MemoryPolicy
metadata: {name: acme}
spec:
  retention:
    default: 2w
    categories: {memory:health: 30d}
    tiers: {agent: {default: 12h}}
"""


def put(path: Path, namespace: str, text: str, age: timedelta, category: str | None = None) -> str:
    """A memory observed `age` ago (as an import of older data writes it)."""

    async def go() -> str:
        async with make_engine(path) as engine:
            meta = replace(
                ItemMeta(Namespace.parse(namespace)),
                learning_kind="general",
                category=category,
                observed_at=utcnow() - age,
            )
            return (await engine.store(NewItem(ItemKind.LEARNING, text, meta, 0.8))).id

    return asyncio.run(go())


def alive(path: Path, ids: list[str]) -> set[str]:
    async def go() -> set[str]:
        async with make_engine(path) as engine:
            return {i.id for i in (await engine.get(GetRequest(ids=tuple(ids)))).items}

    return asyncio.run(go())


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, Any]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, json.loads(out) if code == 0 else json.loads(err.strip().splitlines()[-1])


def test_retention_run_and_status(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "m.db"
    policy = tmp_path / "policy.yaml"
    policy.write_text(POLICY)
    old_health = put(db, "workspace:acme/user:dana", "old health note", timedelta(days=31), "memory:health")
    new_health = put(db, "workspace:acme/user:dana", "new health note", timedelta(days=20), "memory:health")
    old_plain = put(db, "workspace:acme/user:dana/agent:helper", "old plain note", timedelta(days=15))
    shared = put(db, "workspace:acme/agent:helper", "a shared fact", timedelta(days=1))
    other = put(db, "team:elsewhere", "not a tier", timedelta(days=400))
    target = store_target(db)
    ids = [old_health, new_health, old_plain, shared, other]

    code, dry = cli(capsys, "retention", "run", "--dry-run", "--db", target, "--policy", str(policy))
    assert code == 0 and dry["dry_run"] is True
    assert dry["expired"] == {"agent/(none)": 1, "user/memory:health": 1, "user_for_agent/(none)": 1}
    assert alive(db, ids) == set(ids)

    code, status = cli(
        capsys, "retention", "status", "--workspace", "acme", "--db", target, "--policy", str(policy)
    )
    assert code == 0 and status["expired"] == dry["expired"]
    assert status["rules"] == {
        "default": "14d",
        "categories": {"memory:health": "30d"},
        "tiers": {"agent": {"default": "12h", "categories": {}}},
    }

    code, done = cli(capsys, "retention", "run", "--db", target, "--policy", str(policy))
    assert code == 0 and done["erased"]["memories"] == 3
    assert alive(db, ids) == {new_health, other}

    code, again = cli(capsys, "retention", "run", "--db", target, "--policy", str(policy))
    assert code == 0 and again["expired"] == {}


def test_retention_refuses_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("spec: {retention: {categories: {memory:health: 30y}}}\n")
    code, error = cli(capsys, "retention", "run", "--db", str(tmp_path / "m.db"), "--policy", str(bad))
    assert code == 2 and "`spec.retention.categories.memory:health`" in error["message"]
    code, error = cli(capsys, "retention", "status", "--db", str(tmp_path / "m.db"))
    assert code == 2 and "--workspace" in error["message"]
    code, error = cli(capsys, "retention", "run", "--db", str(tmp_path / "no" / "x.db"))
    assert code == 2 and error["message"].startswith("retention run: no store at")


@pytest.mark.parametrize(
    ("argv", "starts", "field"),
    [
        (["run", "--workspace", "bad/name"], "retention run:", "`--workspace`"),
        (["run", "--workspace", ""], "retention run:", "`--workspace`"),
        (["status", "--workspace", "workspace:acme"], "retention status:", "`--workspace`"),
        (["run", "--policy", "{missing}"], "retention run:", "`--policy`"),
        (
            ["status", "--workspace", "acme", "--policy", "{bad}"],
            "retention status:",
            "`spec.retention.default`",
        ),
        (["run", "--dry-run=yes"], "retention run:", "--dry-run"),
        (["run", "--bogus"], "retention run:", "--bogus"),
        (["frobnicate"], "retention:", "ACTION"),
        ([], "retention:", "ACTION"),
    ],
)
def test_bad_retention_arguments_are_json_errors_that_change_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], starts: str, field: str
) -> None:
    db = tmp_path / "m.db"
    policy = tmp_path / "policy.yaml"
    policy.write_text(POLICY)
    (tmp_path / "bad.yaml").write_text("spec: {retention: {default: -3d}}\n")
    due = put(db, "workspace:acme/user:dana", "old health note", timedelta(days=31), "memory:health")
    args = [a.format(missing=tmp_path / "nope.yaml", bad=tmp_path / "bad.yaml") for a in argv]
    if args and args[0] in ("run", "status"):
        args += ["--db", store_target(db)] + ([] if "--policy" in args else ["--policy", str(policy)])
    code, error = cli(capsys, "retention", *args)
    assert code == 2 and error["error"] == "invalid_request", error
    assert error["message"].startswith(starts) and field in error["message"], error["message"]
    assert "Traceback" not in error["message"]
    assert alive(db, [due]) == {due}  # nothing was erased
