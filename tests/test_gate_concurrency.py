"""Two gate jobs at once, in two processes on one SQLite file, publish each fact exactly once; and a
job run again after them changes nothing."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

from engines import make_engine, store_target
from tinymemory.api import ListRequest, MetaFilter, Namespace, Reach
from tinymemory.policy import Identity, MemoryPolicy, PolicyTools

FACTS = (
    ("The Berlin office closes at 6 pm on Fridays.", "On Fridays the Berlin office closes at 18:00."),
    ("Refunds are accepted within 30 days of purchase.", "Within 30 days of purchase, refunds are accepted."),
    ("The VPN must be used on public Wi-Fi.", "On public Wi-Fi the VPN must be used."),
)
POLICY = "gate:\n  enabled: true\n  minDistinctSubjects: 2\n  window: 7d\n"


async def queue(db: Path) -> None:
    policy = MemoryPolicy.from_text(POLICY)
    async with make_engine(db) as engine:
        for first, second in FACTS:
            for user, text in (("alice", first), ("bob", second)):
                tools = PolicyTools.for_identity(
                    engine, Identity("acme", user, "support", verified=True), policy
                )
                out = await tools.call("memory__remember", {"content": text, "share": True})
                assert out["share"] == "queued"


async def published(db: Path) -> list[str]:
    node = Namespace.of(("workspace", "acme"), ("agent", "support"))
    async with make_engine(db, embedder=None) as engine:
        page = await engine.list(ListRequest(filter=MetaFilter(reach=Reach.exact(node)), limit=100))
    return sorted(item.text for item in page.items)


def gate_run(db: Path, policy: Path) -> subprocess.Popen[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TINYMEMORY_")}
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tinymemory",
            "gate",
            "run",
            "--db",
            store_target(db),
            "--policy",
            str(policy),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


def test_two_concurrent_jobs_publish_each_fact_once(tmp_path: Path) -> None:
    db, policy = tmp_path / "gate.db", tmp_path / "policy.yaml"
    policy.write_text(POLICY)
    asyncio.run(queue(db))
    jobs = [gate_run(db, policy), gate_run(db, policy)]
    reports = []
    for job in jobs:
        out, err = job.communicate(timeout=300)
        assert job.returncode == 0, err
        reports.append(json.loads(out))
    texts = asyncio.run(published(db))
    assert len(texts) == len(FACTS), texts
    assert sum(r["published"] for r in reports) >= len(FACTS)  # both may publish: the second is a replay
    again = gate_run(db, policy)
    out, err = again.communicate(timeout=300)
    assert again.returncode == 0, err
    assert json.loads(out)["published"] == 0
    assert asyncio.run(published(db)) == texts
    status = subprocess.run(
        [
            sys.executable,
            "-m",
            "tinymemory",
            "gate",
            "status",
            "--db",
            store_target(db),
            "--policy",
            str(policy),
            "--workspace",
            "acme",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert status.returncode == 0, status.stderr
    [agent] = json.loads(status.stdout)["agents"]
    assert agent["agent"] == "support" and agent["held"] == []
    assert sorted(p["text"] for p in agent["published"]) == texts
    # the job that commits second either replays the publication or, when the first one's shared fact
    # is already visible to it, merges into that fact: both leave each fact published once
    decided = {d["decision"] for d in agent["decisions"]}
    assert decided and decided <= {"published", "merged"}, decided
