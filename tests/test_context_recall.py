"""Holistic recall: several scopes in one read, deduplicated, weighted, budgeted, failure-tolerant."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engines import make_engine
from tinymemory.api import ItemKind, ItemMeta, MetaFilter, Namespace, NewItem, Reach
from tinymemory.context import Scope, estimate_tokens, lineage_scopes, recall
from tinymemory.engines.sqlite import SqliteEngine

NOW = datetime(2026, 3, 1, tzinfo=UTC)
AGENT = Namespace.parse("team:acme/agent:writer")
TEAM = Namespace.parse("team:acme")
SIBLING = Namespace.parse("team:acme/agent:spy")


@pytest.fixture
async def engine(tmp_path: Path) -> AsyncIterator[SqliteEngine]:
    eng = make_engine(tmp_path / "m.db", embedder=None)
    for ns, text, kind in [
        (AGENT, "The writer agent drafts the release notes for the parser.", ItemKind.LEARNING),
        (AGENT, "Release notes go out every Friday.", ItemKind.CONVERSATION),
        (TEAM, "The team ships the parser release on Friday.", ItemKind.LEARNING),
        (Namespace.root(), "Company policy: release notes need a reviewer.", ItemKind.CHUNK),
        (SIBLING, "Secret: the spy agent's release notes are private.", ItemKind.LEARNING),
    ]:
        await eng.store(NewItem(kind, text, ItemMeta(namespace=ns, observed_at=NOW)))
    yield eng
    await eng.close()


async def test_lineage_scopes_read_own_node_team_and_root_never_a_sibling(engine: SqliteEngine) -> None:
    pack = await recall(engine, "release notes", lineage_scopes(AGENT), now=lambda: NOW)
    texts = [i.text for i in pack.items]
    assert any("writer agent" in t for t in texts)
    assert any("team ships" in t for t in texts)
    assert any("Company policy" in t for t in texts)
    assert not any("spy" in t for t in texts)
    assert [s.title for s in pack.sections] == ["Learnings", "Documents", "Conversation"]
    assert pack.markdown.startswith("---\n")
    assert 'query: "release notes"' in pack.markdown
    assert pack.tokens == estimate_tokens(pack.markdown) <= pack.budget_tokens


async def test_overlapping_scopes_are_deduplicated_and_weights_rank(engine: SqliteEngine) -> None:
    team_first = (Scope(Reach.subtree(TEAM), 1.0, "team"), Scope(Reach.of(AGENT), 0.1, "agent"))
    pack = await recall(engine, "release", team_first, filter=MetaFilter(kinds=(ItemKind.LEARNING,)))
    ids = [i.id for i in pack.items]
    assert len(ids) == len(set(ids))
    assert pack.refs == tuple(ids)
    labels = {i.text: i.scope for i in pack.items}
    assert labels["Secret: the spy agent's release notes are private."] == "team"


async def test_a_failing_scope_is_skipped(engine: SqliteEngine) -> None:
    bad = Scope("not a reach", 1.0, "broken")  # type: ignore[arg-type]
    pack = await recall(engine, "release", (bad, *lineage_scopes(AGENT)))
    assert pack.skipped == ("broken",)
    assert pack.items


async def test_exclude_leaves_ids_out(engine: SqliteEngine) -> None:
    first = await recall(engine, "release", lineage_scopes(AGENT))
    gone = first.items[0].id
    again = await recall(engine, "release", lineage_scopes(AGENT), exclude=frozenset({gone}))
    assert gone not in again.refs


async def test_nothing_found_is_an_empty_pack(engine: SqliteEngine) -> None:
    pack = await recall(engine, "zeppelin", lineage_scopes(AGENT))
    assert pack.is_empty and pack.markdown == "" and pack.tokens == 0


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(budget=st.integers(min_value=1, max_value=400))
async def test_any_budget_is_respected(engine: SqliteEngine, budget: int) -> None:
    pack = await recall(engine, "release notes parser Friday", None, budget_tokens=budget)
    assert pack.tokens <= budget
