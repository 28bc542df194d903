"""Relations found at ingestion: the rule-based extractor on real sentences, Brain attaching them to
chunks (so graph expansion walks documents), and the LLM path against a real local HTTP server."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path

import pytest

from chat_server import LocalChatServer, reply
from engines import make_engine
from tinymemory.api import (
    ExpandRequest,
    ItemKind,
    ListRequest,
    MetaFilter,
    Reach,
    Relation,
    Unavailable,
)
from tinymemory.engines.sqlite import SqliteEngine
from tinymemory.lifecycle import Brain, MemoryLayout
from tinymemory.lifecycle.relations import RELATION_TYPES, parse_relations, rule_relations
from tinymemory.llm import LLM, LLMConfig

LAYOUT = MemoryLayout.at("team:acme")
BRAIN = MetaFilter(reach=Reach.subtree(LAYOUT.brain_root))


def triples(text: str) -> list[tuple[str, str, str]]:
    return [(r.subject, r.type, r.object) for r in rule_relations(text)]


TEAM_PAGE = """# Platform team

Dana Whitfield works on Project Atlas.

Eve Moreau leads Project Atlas and reports to Frank Li, our head of engineering.
In March, Gus and Hana joined; Gus and Hana work on the Billing Service.

## Structure

- The Billing Service is part of the Payments Platform.
- **Frank Li** is the director of the Platform Group.
- Acme Corp owns Orbit Labs.
- Kim is a member of the Security Guild; she manages the on-call rota.
"""


def test_rules_read_the_common_shapes() -> None:
    assert triples(TEAM_PAGE) == [
        ("Dana Whitfield", "works_on", "Project Atlas"),
        ("Eve Moreau", "leads", "Project Atlas"),
        ("Gus", "works_on", "Billing Service"),
        ("Hana", "works_on", "Billing Service"),
        ("Billing Service", "part_of", "Payments Platform"),
        ("Frank Li", "leads", "Platform Group"),
        ("Acme Corp", "owns", "Orbit Labs"),
        ("Kim", "member_of", "Security Guild"),
    ]
    # "Eve ... and reports to Frank Li": the second verb has no name of its own before it, so the
    # rules say nothing rather than guess; the pronoun before "manages" is skipped the same way


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "Dana works on Atlas and Eve leads Zephyr.",
            [("Dana", "works_on", "Atlas"), ("Eve", "leads", "Zephyr")],
        ),
        ("Yesterday Dana reports to Eve.", [("Dana", "reports_to", "Eve")]),
        ("Eve is the manager of Dana.", [("Eve", "manages", "Dana")]),
        ("Eve is the tech lead for Project Atlas.", [("Eve", "leads", "Project Atlas")]),
        ("Zoe is the CEO of Acme Corp.", [("Zoe", "leads", "Acme Corp")]),
        (
            "Dana, Gus and Eve work on Atlas.",
            [("Dana", "works_on", "Atlas"), ("Gus", "works_on", "Atlas"), ("Eve", "works_on", "Atlas")],
        ),
        ("Dana now maintains the Ingest Pipeline.", [("Dana", "maintains", "Ingest Pipeline")]),
        (
            "The Radar Team belongs to Department of Research.",
            [("Radar Team", "part_of", "Department of Research")],
        ),
        # what the rules refuse: negations, pronouns, lowercase things, unknown roles, self-loops
        ("Dana no longer works on Atlas. Dana does not lead Zephyr.", []),
        ("She works on Atlas. They report to Eve.", []),
        ("Dana manages the budget and owns a car.", []),
        ("Eve is the favourite of Dana.", []),
        ("Atlas is part of ATLAS.", []),
    ],
)
def test_rules_on_single_sentences(text: str, expected: list[tuple[str, str, str]]) -> None:
    assert triples(text) == expected


def test_rule_types_are_valid_relation_types_and_long_text_stays_fast() -> None:
    from tinymemory.api.relations import is_relation_type

    assert all(is_relation_type(t) for t in RELATION_TYPES)
    # a long run of capitalised words (a table of names) is linear work, not quadratic
    assert triples("Aaa " * 5000 + "works on Bbb") == [("Aaa Aaa Aaa Aaa Aaa Aaa", "works_on", "Bbb")]


@pytest.fixture
async def engine(tmp_path: Path) -> AsyncIterator[SqliteEngine]:
    eng = make_engine(tmp_path / "m.db", embedder=None)
    yield eng
    await eng.close()


async def test_ingested_chunks_carry_their_relations_and_expand_walks_them(engine: SqliteEngine) -> None:
    # small chunks, so the sentences land in different memories and the walk crosses chunks
    brain = Brain(engine, LAYOUT, chunk_chars=100, overlap_chars=0)
    await brain.ingest_text(TEAM_PAGE, source="wiki", name="team.md")
    stored = (await engine.list(ListRequest(filter=BRAIN, limit=100))).items
    (doc,) = [i for i in stored if i.kind is ItemKind.DOCUMENT]
    assert doc.meta.relations == ()  # the chunks assert them, not the whole document
    got = await engine.expand(ExpandRequest("dana whitfield", max_hops=2, filter=BRAIN))
    assert [(h.hop, h.via) for h in got.hits] == [
        (1, "Dana Whitfield -works_on-> Project Atlas"),
        (2, "Dana Whitfield -works_on-> Project Atlas <-leads- Eve Moreau"),
    ]
    assert [h.item.text for h in got.hits] == [
        "Dana Whitfield works on Project Atlas.",
        "Eve Moreau leads Project Atlas and reports to Frank Li, our head of engineering.",
    ]
    frank = await engine.expand(ExpandRequest("Frank Li", filter=BRAIN))
    assert [h.via for h in frank.hits] == ["Frank Li -leads-> Platform Group"]


async def test_a_changed_document_drops_the_old_relations(engine: SqliteEngine) -> None:
    brain = Brain(engine, LAYOUT)
    await brain.ingest_text("Dana works on Project Atlas.", source="wiki", name="dana.md")
    assert [h.via for h in (await engine.expand(ExpandRequest("Dana", filter=BRAIN))).hits] == [
        "Dana -works_on-> Project Atlas"
    ]
    again = await brain.ingest_text("Dana works on Project Atlas.", source="wiki", name="dana.md")
    assert again.unchanged == ["dana.md"]
    await brain.ingest_text("Dana works on Project Zephyr.", source="wiki", name="dana.md")
    assert [h.via for h in (await engine.expand(ExpandRequest("Dana", filter=BRAIN))).hits] == [
        "Dana -works_on-> Project Zephyr"
    ]


async def test_relations_can_be_switched_off(engine: SqliteEngine) -> None:
    await Brain(engine, LAYOUT, relations=False).ingest_text(
        "Dana works on Atlas.", source="wiki", name="d.md"
    )
    assert (await engine.expand(ExpandRequest("Dana", filter=BRAIN))).hits == ()


# -- the LLM path ---------------------------------------------------------------------------------------


class ChatServer(LocalChatServer):
    """A chat-completions server on 127.0.0.1; `answer` turns the user message into the reply."""

    def __init__(self) -> None:
        self.answer: Callable[[str], str] = lambda _: '{"relations": []}'
        super().__init__(lambda request: reply(self.answer(request.user)))


@pytest.fixture
def server() -> Iterator[ChatServer]:
    s = ChatServer()
    yield s
    s.close()


@pytest.fixture
async def llm(server: ChatServer) -> AsyncIterator[LLM]:
    client = LLM(LLMConfig(server.url, "tiny-model", timeout=5))
    yield client
    await client.aclose()


async def test_the_llm_finds_relations_the_rules_cannot(
    engine: SqliteEngine, server: ChatServer, llm: LLM
) -> None:
    text = "Since spring, the Atlas effort has been in Dana's hands, with Eve as her sponsor."
    server.answer = lambda _: json.dumps(
        {
            "relations": [
                {"text": 0, "subject": "Dana", "type": "leads", "object": "Atlas"},
                {"text": 0, "subject": "Eve", "type": "sponsors", "object": "Dana"},
                {"text": 0, "subject": "Mallory", "type": "leads", "object": "Atlas"},  # not in the text
            ]
        }
    )
    assert triples(text) == []
    await Brain(engine, LAYOUT, llm=llm).ingest_text(text, source="wiki", name="atlas.md")
    got = await engine.expand(ExpandRequest("Dana", filter=BRAIN))
    assert got.hits[0].item.meta.relations == (
        Relation("Dana", "leads", "Atlas"),
        Relation("Eve", "sponsors", "Dana"),
    )
    assert server.requests[0].json["messages"][1]["content"] == f"[0] {text}"


@pytest.mark.parametrize(
    ("reply", "message"),
    [
        ("not json", "not valid json"),
        ('{"edges": []}', "no `relations` list"),
        (
            '{"relations": [{"text": 5, "subject": "Dana", "type": "leads", "object": "Atlas"}]}',
            "`relations[0].text`",
        ),
        (
            '{"relations": [{"text": 0, "subject": "Dana", "type": "Leads It", "object": "Atlas"}]}',
            "`relations[0].type`",
        ),
        (
            '{"relations": [{"text": 0, "subject": "", "type": "leads", "object": "Atlas"}]}',
            "`relations[0].subject`",
        ),
    ],
)
async def test_a_bad_llm_answer_fails_the_ingest_before_anything_is_written(
    engine: SqliteEngine, server: ChatServer, llm: LLM, reply: str, message: str
) -> None:
    server.answer = lambda _: reply
    with pytest.raises(Unavailable, match="llm relations") as err:
        await Brain(engine, LAYOUT, llm=llm).ingest_text("Dana leads Atlas.", source="wiki", name="d.md")
    assert message in str(err.value)
    assert (await engine.list(ListRequest(filter=BRAIN))).items == ()


def test_parse_relations_reads_a_fenced_answer_per_text() -> None:
    fenced = '```json\n{"relations": [{"text": 1, "subject": "Eve", "type": "owns", "object": "Orbit"}]}\n```'
    assert parse_relations(fenced, ["Dana leads Atlas.", "Eve owns  ORBIT now."]) == [
        (),
        (Relation("Eve", "owns", "Orbit"),),
    ]
