"""The sync facade's context and brain methods over a real SQLite file: context.md, holistic recall,
ingest of files, folders and text, and the default reach that reads what was ingested."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from tinymemory import InvalidRequest, ItemKind, Memory, Namespace, Reach
from tinymemory.async_memory import default_reach, lineage_scopes
from tinymemory.context import Brief, ContextPack
from tinymemory.lifecycle import MemoryLayout

AGENT = "team:acme/agent:writer"
SIBLING = "team:acme/agent:critic"
LINE = re.compile(r"^- .+ \[(m_[0-9a-f]{24})\]$")

HANDBOOK = {
    "onboarding.md": "# Onboarding\n\nNew hires get a laptop on day one. The VPN needs a hardware key.\n",
    "travel/expenses.md": "# Expenses\n\nTravel expenses are filed within 30 days in the finance portal.\n",
    "travel/flights.md": "# Flights\n\nBook economy for flights under six hours; business above that.\n",
}


def write_folder(root: Path) -> Path:
    for name, text in HANDBOOK.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    (root / ".hidden.md").write_text("# Hidden\n\nnever ingested\n", encoding="utf-8")
    return root


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "mem.db"


@pytest.fixture
def mem(db: Path) -> Iterator[Memory]:
    with Memory(db, namespace=AGENT, embedder=None) as m:
        yield m


def memory_lines(pack: ContextPack) -> list[str]:
    return [line for line in pack.markdown.splitlines() if line.startswith("- ")]


# -- context.md ------------------------------------------------------------------------------------


def test_context_md_briefs_the_learnings_in_reach(db: Path) -> None:
    with Memory(db, namespace="team:acme", embedder=None) as team:
        shared = team.store("The team always writes in British English", learning_kind="instruction")
    with Memory(db, namespace=SIBLING, embedder=None) as critic:
        critic.store("The critic prefers long footnotes", learning_kind="preference")
    with Memory(db, namespace=AGENT, embedder=None) as mem:
        assert mem.context_md().refs == (shared.id,)  # nothing of its own yet: the team's only
        ids = [
            mem.store("Dana prefers short paragraphs and active voice", learning_kind="preference").id,
            mem.store("Dana is the editor of the quarterly report", learning_kind="fact").id,
            mem.store("The launch meeting is on Friday at ten", learning_kind="event").id,
        ]
        pack = mem.context_md()
    assert isinstance(pack, ContextPack)
    assert pack.markdown.startswith("---\n") and "# Context" in pack.markdown
    assert str(pack) == pack.markdown
    lines = memory_lines(pack)
    assert all(LINE.match(line) for line in lines)
    assert set(pack.refs) == {*ids, shared.id}  # its own and its ancestors', never the sibling's
    assert "footnotes" not in pack.markdown
    assert "## Preferences and standing instructions" in pack.markdown


def test_context_md_fits_its_budget_and_takes_briefs(mem: Memory) -> None:
    for i in range(30):
        mem.store(f"Dana noted fact number {i} about the quarterly report and its many sections")
    full = mem.context_md()
    small = mem.context_md(budget_tokens=120)
    assert small.tokens <= 120 < full.tokens and small.dropped > 0
    assert set(small.refs) < set(full.refs)
    assert len(mem.context_md(learnings_limit=5).refs) <= 5 + 4 * 5
    custom = mem.context_md(briefs=[Brief("Reports", "quarterly report", limit=3)])
    assert "## Reports" in custom.markdown and "## Active work" not in custom.markdown


# -- holistic recall -------------------------------------------------------------------------------


def test_recall_context_weighs_the_own_node_above_its_ancestors(db: Path) -> None:
    with Memory(db, namespace="team:acme", embedder=None) as team:
        team_note = team.store("The style guide says: oxford comma in every list")
    with Memory(db, namespace=SIBLING, embedder=None) as critic:
        critic.store("The critic says: never use the oxford comma in a list")
    with Memory(db, namespace=AGENT, embedder=None) as mem:
        own = mem.store("The writer says: use the oxford comma in every list")
        pack = mem.recall_context("oxford comma in a list")
    assert pack.query == "oxford comma in a list"
    assert [item.id for item in pack.items] == [own.id, team_note.id]  # the sibling's is out of reach
    assert [item.scope for item in pack.items] == [AGENT, "team:acme"]
    assert pack.markdown.splitlines()[pack.markdown.splitlines().index("## Learnings") + 1].endswith(
        f"[{own.id}]"
    )


def test_recall_context_with_an_explicit_reach_reads_it_as_one_scope(db: Path) -> None:
    with Memory(db, namespace=SIBLING, embedder=None) as critic:
        theirs = critic.store("The critic keeps a list of banned words")
    auditor = Reach.subtree(Namespace.parse("team:acme"))
    with Memory(db, namespace="team:acme", reach=auditor, embedder=None) as audit:
        pack = audit.recall_context("banned words", kinds=["learning"])
    assert pack.refs == (theirs.id,)
    assert pack.items[0].scope == str(auditor)


def test_recall_context_budget_and_filters(mem: Memory) -> None:
    for i in range(20):
        mem.store(f"Budget line {i}: the print run costs more than the proofreading", tags=[f"t{i % 2}"])
    full = mem.recall_context("print run proofreading costs", limit=20)
    tight = mem.recall_context("print run proofreading costs", limit=20, budget_tokens=100)
    assert tight.tokens <= 100 and 0 < len(tight.items) < len(full.items)
    assert set(tight.refs) <= set(full.refs)
    tagged = mem.recall_context("print run proofreading costs", limit=20, tags_any=["t0"])
    assert len(tagged.items) == 10
    assert mem.recall_context("nothing matches zebra xylophone").markdown == ""


# -- the brain ---------------------------------------------------------------------------------------


def test_ingest_a_folder_then_fetch_and_recall_from_it(mem: Memory, tmp_path: Path) -> None:
    folder = write_folder(tmp_path / "handbook")
    report = mem.ingest(folder, source="handbook")
    assert sorted(report.stored) == sorted(HANDBOOK) and report.failed == []
    assert report.chunks == 3
    hits = mem.fetch("when are travel expenses filed", kinds=["chunk"]).hits
    assert hits and "30 days" in hits[0].item.text
    assert hits[0].item.meta.namespace == Namespace.parse(f"{AGENT}/memory:brain/source:handbook")
    assert hits[0].item.meta.file_path == "travel/expenses.md"
    pack = mem.recall_context("which class for long flights")
    assert "business" in pack.markdown
    assert {i.kind for i in pack.items} <= {ItemKind.CHUNK, ItemKind.LEARNING}  # no whole documents
    assert all(i.kind is ItemKind.DOCUMENT for i in mem.list(kinds=["document"]).items)
    assert "never ingested" not in str(mem.list(limit=50))

    again = mem.ingest(folder, source="handbook")
    assert sorted(again.unchanged) == sorted(HANDBOOK) and again.chunks == 0
    (folder / "onboarding.md").write_text("# Onboarding\n\nNew hires get a tablet on day two.\n")
    changed = mem.ingest(folder / "onboarding.md", source="handbook")
    assert changed.replaced == ["onboarding.md"] and changed.chunks == 1
    assert "tablet" in mem.fetch("what do new hires get", kinds=["chunk"]).hits[0].item.text


def test_ingest_text_then_fetch(mem: Memory) -> None:
    text = "# Office\n\nThe office closes at six on Fridays; the last one out sets the alarm."
    report = mem.ingest_text(text, name="office.md", source="notes", title="Office hours")
    assert report.stored == ["office.md"] and report.chunks == 1
    assert mem.ingest_text(text, name="office.md", source="notes").unchanged == ["office.md"]
    doc = mem.list(kinds=["document"]).items[0]
    assert doc.meta.title == "Office hours"
    assert "alarm" in mem.fetch("who sets the alarm", kinds=["chunk"]).hits[0].item.text
    plain = mem.ingest_text("plain words about the kettle", name="kettle.txt", media_type="text/plain")
    assert plain.stored == ["kettle.txt"]


def test_ingested_documents_stay_in_their_branch(db: Path, tmp_path: Path) -> None:
    """A sibling never reads an agent's documents; a team's documents are read by every agent below."""
    with Memory(db, namespace=AGENT, embedder=None) as writer:
        writer.ingest_text("# Draft\n\nThe secret title is Blue Harbour.", name="draft.md")
    with Memory(db, namespace="team:acme", embedder=None) as team:
        team.ingest_text("# Policy\n\nEvery draft is reviewed by two people.", name="policy.md")
    with Memory(db, namespace=SIBLING, embedder=None) as critic:
        assert critic.fetch("secret title Blue Harbour").hits == ()
        assert "Blue Harbour" not in critic.recall_context("secret title Blue Harbour").markdown
        found = critic.tools().call("memory_fetch", {"query": "secret title Blue Harbour"})
        assert "Blue Harbour" not in str(found)
        assert "two people" in critic.recall_context("who reviews a draft").markdown
    with Memory(db, namespace=AGENT, embedder=None) as writer:
        assert "Blue Harbour" in writer.recall_context("secret title Blue Harbour").markdown
        gone = writer.forget(file_path="draft.md")
        assert len(gone.forgotten) == 2  # the document and its chunk
        assert writer.fetch("secret title Blue Harbour").hits == ()


def test_default_reach_is_the_lineage_and_its_brains() -> None:
    ns = Namespace.parse(AGENT)
    reach = default_reach(ns)
    for node in ns.lineage():
        assert reach.contains(node)
        assert reach.contains(MemoryLayout(node).brain("any"))  # the layout's place, spelt the same
    assert not reach.contains(Namespace.parse(SIBLING))
    assert not reach.contains(Namespace.parse(f"{SIBLING}/memory:brain/source:docs"))
    assert not reach.contains(Namespace.parse(f"{AGENT}/memory:conversations"))
    scopes = lineage_scopes(ns)
    assert [s.label for s in scopes] == [AGENT, "team:acme", "root"]
    assert [s.weight for s in scopes] == pytest.approx([1.0, 0.7, 0.49])
    probes = [*ns.lineage(), *(MemoryLayout(n).brain("x") for n in ns.lineage())]
    probes += [Namespace.parse(p) for p in (SIBLING, f"{SIBLING}/memory:brain", f"{AGENT}/memory:learnings")]
    for probe in probes:  # the scopes of a holistic read cover the default reach, no more
        assert reach.contains(probe) == any(s.reach is not None and s.reach.contains(probe) for s in scopes)


def test_the_default_embedder_serves_ingest_and_holistic_recall(tmp_path: Path) -> None:
    folder = write_folder(tmp_path / "handbook")
    with Memory(tmp_path / "mem.db", namespace=AGENT) as mem:
        assert mem.descriptor.embedder is not None
        mem.ingest(folder)
        mem.store("Dana books aisle seats on every flight", learning_kind="preference")
        hits = mem.fetch("reimbursement deadline for travel costs", mode="semantic", kinds=["chunk"]).hits
        assert hits[0].item.meta.file_path == "travel/expenses.md"
        pack = mem.recall_context("seat on a plane", mode="hybrid")
        assert "aisle" in pack.markdown


# -- bad input ---------------------------------------------------------------------------------------

BAD: list[tuple[str, tuple[object, ...], dict[str, object], str]] = [
    ("context_md", (), {"budget_tokens": 0}, "context_md: `budget_tokens`"),
    ("context_md", (), {"budget_tokens": "5"}, "context_md: `budget_tokens`"),
    ("context_md", (), {"learnings_limit": 5000}, "context_md: `learnings_limit`"),
    ("context_md", (), {"briefs": "about"}, "context_md: `briefs`"),
    ("context_md", (), {"briefs": ["about"]}, r"context_md: `briefs\[0\]`"),
    ("context_md", (), {"briefs": [Brief("x", " ")]}, r"context_md: `briefs\[0\].question`"),
    ("context_md", (), {"briefs": [Brief("x", "q", limit=0)]}, r"context_md: `briefs\[0\].limit`"),
    ("context_md", (), {"bogus": 1}, "context_md: `bogus` is not a known argument"),
    ("context_md", (1500,), {}, "context_md: takes 0 positional"),
    ("recall_context", (), {}, "recall_context: `query` is required"),
    ("recall_context", ("",), {}, "recall_context: `query`"),
    ("recall_context", (5,), {}, "recall_context: `query`"),
    ("recall_context", ("q",), {"budget_tokens": -1}, "recall_context: `budget_tokens`"),
    ("recall_context", ("q",), {"limit": 0}, "recall_context: `limit`"),
    ("recall_context", ("q",), {"mode": "bogus"}, "recall_context: `mode`"),
    ("recall_context", ("q",), {"time_hint": "today"}, "recall_context: `time_hint`"),
    ("recall_context", ("q",), {"kinds": ["memo"]}, "recall_context: `filter.kinds`"),
    ("recall_context", ("q",), {"namespace": "team:x"}, "recall_context: `namespace` is fixed"),
    ("recall_context", ("q",), {"bogus": 1}, "recall_context: `bogus` is not a known argument"),
    ("ingest", (), {}, "ingest: `path` is required"),
    ("ingest", ("no/such/folder",), {}, "ingest: `path` `no/such/folder` does not exist"),
    ("ingest", (5,), {}, "ingest: `path`"),
    ("ingest", (".",), {"source": "bad name"}, "ingest: `source`"),
    ("ingest", (".",), {"source": 5}, "ingest: `source`"),
    ("ingest_text", ("text",), {}, "ingest_text: `name` is required"),
    ("ingest_text", ("",), {"name": "a.md"}, "ingest_text: `text`"),
    ("ingest_text", (b"bytes",), {"name": "a.md"}, "ingest_text: `text`"),
    ("ingest_text", ("text",), {"name": ""}, "ingest_text: `name`"),
    ("ingest_text", ("text",), {"name": "a.md", "title": 5}, "ingest_text: `title`"),
    (
        "ingest_text",
        ("text",),
        {"name": "a.pdf", "media_type": "application/pdf"},
        "ingest_text: `media_type`",
    ),
    ("ingest_text", ("text",), {"name": "a.md", "source": "a/b"}, "ingest_text: `source`"),
]


@pytest.mark.parametrize(("method", "args", "kwargs", "expected"), BAD, ids=[f"{b[0]}-{b[3]}" for b in BAD])
def test_bad_arguments_name_the_method_and_write_nothing(
    mem: Memory, method: str, args: tuple[object, ...], kwargs: dict[str, object], expected: str
) -> None:
    with pytest.raises(InvalidRequest, match=f"^{expected}"):
        getattr(mem, method)(*args, **kwargs)
    assert mem.list(limit=5).items == ()


def test_an_unreadable_file_is_refused_naming_ingest(mem: Memory, tmp_path: Path) -> None:
    odd = tmp_path / "table.xyz"
    odd.write_text("a,b\n")
    with pytest.raises(Exception, match=r"^ingest: `path` `table.xyz` has no document type") as info:
        mem.ingest(odd)
    assert info.type.__name__ == "Unsupported"
    folder = tmp_path / "mixed"
    folder.mkdir()
    (folder / "ok.md").write_text("# Ok\n\nfine text here")
    (folder / "bad.md").write_bytes(b"\xff\xfe not utf-8")
    report = mem.ingest(folder)
    assert report.stored == ["ok.md"] and [p for p, _ in report.failed] == ["bad.md"]
