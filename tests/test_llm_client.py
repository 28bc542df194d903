"""The optional LLM against a real local server speaking chat completions, and its failure modes:
every failure is api.Unavailable, and a job that needs the model fails without writing anything."""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from chat_server import ChatRequest, LocalChatServer, reply
from tinymemory.api import About, Hit, ItemKind, ListRequest, MetaFilter, Unavailable
from tinymemory.engines.sqlite import SqliteEngine
from tinymemory.lifecycle import AgentMemory, MemoryLayout
from tinymemory.llm import LLM, LLMAnswerer, LLMConfig, parse_extraction


class FakeServer(LocalChatServer):
    """A chat-completions server on 127.0.0.1 whose next answers the test scripts."""

    def __init__(self) -> None:
        self.mode = "ok"
        self.content = "hello"
        super().__init__(self._respond)

    def _respond(self, request: ChatRequest) -> tuple[int, bytes]:
        summarising = "Summarise" in request.system
        if self.mode == "slow":
            time.sleep(2.0)
        if self.mode == "500" or (self.mode == "500-on-summary" and summarising):
            return 500, b'{"error": "boom"}'
        if self.mode == "garbage":
            return 200, b"{not json"
        if self.mode == "shape":
            return 200, b'{"choices": []}'
        return reply(self.content)


@pytest.fixture
def server() -> Iterator[FakeServer]:
    s = FakeServer()
    yield s
    s.close()


@pytest.fixture
async def llm(server: FakeServer) -> AsyncIterator[LLM]:
    # long enough for a loaded machine's answer, short against the slow mode's 2 s
    client = LLM(LLMConfig(server.url, "tiny-model", api_key="sk-test", timeout=1.5))
    yield client
    await client.aclose()


@pytest.fixture
async def engine(tmp_path: Path) -> AsyncIterator[SqliteEngine]:
    eng = SqliteEngine(tmp_path / "m.db", embedder=None)
    yield eng
    await eng.close()


async def test_chat_round_trip(server: FakeServer, llm: LLM) -> None:
    server.content = "  four  "
    assert await llm.chat([{"role": "user", "content": "2+2?"}]) == "four"
    sent = server.requests[-1]
    assert sent.path == "/v1/chat/completions" and sent.auth == "Bearer sk-test"
    assert sent.json["model"] == "tiny-model"
    assert sent.json["messages"] == [{"role": "user", "content": "2+2?"}]


@pytest.mark.parametrize(
    ("mode", "message"),
    [
        ("slow", "did not answer within 1.5s"),
        ("500", "answered http 500"),
        ("garbage", "not valid json"),
        ("shape", "no `choices[0].message.content`"),
    ],
)
async def test_failures_are_unavailable(server: FakeServer, llm: LLM, mode: str, message: str) -> None:
    server.mode = mode
    with pytest.raises(Unavailable, match="llm chat") as err:
        await llm.chat([{"role": "user", "content": "hi"}])
    assert message in str(err.value)


async def test_unreachable_server_is_unavailable() -> None:
    client = LLM(LLMConfig("http://127.0.0.1:9/v1", "m", timeout=0.3))
    try:
        with pytest.raises(Unavailable, match="llm chat: request failed"):
            await client.chat([{"role": "user", "content": "hi"}])
    finally:
        await client.aclose()


async def test_answerer_uses_the_hits(server: FakeServer, llm: LLM, engine: SqliteEngine) -> None:
    from tinymemory.api import ItemMeta, NewItem

    stored = await engine.store(NewItem(ItemKind.LEARNING, "The user prefers tea.", ItemMeta()))
    item = (await engine.list(ListRequest())).items[0]
    assert item.id == stored.id
    server.content = "Tea."
    answer = await LLMAnswerer(llm).answer("drink?", [Hit(item, 1.0)], "be brief")
    assert answer == "Tea."
    prompt = server.requests[-1].json["messages"]
    assert "be brief" in prompt[0]["content"] and "The user prefers tea." in prompt[1]["content"]
    assert f"recorded {item.meta.observed_at.day} " in prompt[1]["content"]  # the date its words hang on
    assert await LLMAnswerer(llm).answer("drink?", [], None) == ""


async def test_answerer_gives_the_model_each_memorys_dates(
    server: FakeServer, llm: LLM, engine: SqliteEngine
) -> None:
    from datetime import UTC, datetime

    from tinymemory.api import ItemMeta, NewItem

    said = datetime(2023, 5, 8, 13, 0, tzinfo=UTC)
    await engine.store(
        NewItem(ItemKind.CONVERSATION, "I went to the support group yesterday", ItemMeta(observed_at=said))
    )
    item = (await engine.list(ListRequest())).items[0]
    await LLMAnswerer(llm).answer("When did she go?", [Hit(item, 1.0)], None)
    memories = server.requests[-1].json["messages"][1]["content"]
    assert "(recorded 8 May 2023; about 7 May 2023) I went to the support group yesterday" in memories


async def test_belief_build_with_the_model(server: FakeServer, llm: LLM, engine: SqliteEngine) -> None:
    layout = MemoryLayout.at("team:acme")
    mem = AgentMemory(engine, "writer", layout=layout, llm=llm)
    log = await mem.post_turn("t", "I'm a vegetarian and tea is my drink.", "Noted.")
    server.content = json.dumps(
        {
            "learnings": [
                {"text": "The user is vegetarian.", "kind": "fact", "turns": [0], "confidence": 0.9},
                {
                    "text": "The user prefers tea.",
                    "kind": "preference",
                    "turns": [0],
                    "about_kind": "Preference",
                    "about_key": "drink",
                },
            ]
        }
    )
    reports = await log.job
    assert len(reports[0].stored) == 2
    items = (await engine.list(ListRequest(filter=MetaFilter(kinds=(ItemKind.LEARNING,))))).items
    tea = next(i for i in items if i.text == "The user prefers tea.")
    assert tea.meta.about == About("preference", "drink") and tea.meta.evidence == (log.turn_ids[0],)
    assert (await log.job.run())[0].stored == (), "idempotent with the model too"


@pytest.mark.parametrize("mode", ["slow", "500", "garbage", "bad-learnings"])
async def test_a_failing_model_fails_the_job_and_writes_nothing(
    server: FakeServer, llm: LLM, engine: SqliteEngine, mode: str
) -> None:
    mem = AgentMemory(
        engine, "writer", layout=MemoryLayout.at("team:acme"), llm=llm, compact_after=3, keep_last=1
    )
    await mem.post_turn("t", "My name is Ada.", "Hi Ada.")
    log = await mem.post_turn("t", "I prefer tea.", "Tea it is.")
    assert log.job.steps == ("beliefs", "compaction")
    before = (await engine.list(ListRequest(limit=100))).items
    if mode == "bad-learnings":
        server.content = json.dumps(
            {
                "learnings": [
                    {"text": "x", "kind": "fact", "turns": [0]},
                    {"text": "y", "kind": "gossip", "turns": [0]},
                ]
            }
        )
    else:
        server.mode = mode
    with pytest.raises(Unavailable, match="llm"):
        await log.job
    assert log.job.status == "failed" and log.job.error
    after = (await engine.list(ListRequest(limit=100))).items
    assert [i.id for i in after] == [i.id for i in before], "nothing half-written"
    # Once the model answers again, the same job completes.
    server.mode = "ok"
    server.content = json.dumps({"learnings": []})
    await log.job
    assert log.job.status == "done"


async def test_compaction_summary_failure_writes_nothing(
    server: FakeServer, llm: LLM, engine: SqliteEngine
) -> None:
    mem = AgentMemory(engine, "writer", layout=MemoryLayout.at("team:acme"), llm=llm)
    for i in range(3):
        await mem.post_turn("t", f"Line {i}.", f"Reply {i}.")
    server.content = '{"learnings": []}'  # the belief step reads this; the summary step reads it too
    await mem.compact("t", keep_last=0)
    summary_filter = MetaFilter(kinds=(ItemKind.SUMMARY,))
    summaries = (await engine.list(ListRequest(filter=summary_filter))).items
    assert len(summaries) == 1 and len(summaries[0].meta.evidence) == 6
    assert server.requests[-1].json["messages"][1]["content"].startswith("user: Line 0.")
    await mem.post_turn("t", "More.", "Ok.")
    server.mode = "500-on-summary"
    job = mem.compact("t", keep_last=0)
    with pytest.raises(Unavailable, match="llm summarise"):
        await job
    assert len(job.reports) == 1, "the belief step ran, the compaction step failed"
    assert [s.id for s in (await engine.list(ListRequest(filter=summary_filter))).items] == [summaries[0].id]


def test_config_from_env() -> None:
    assert LLMConfig.from_env({}) is None
    cfg = LLMConfig.from_env(
        {
            "TINYMEMORY_LLM_BASE_URL": "http://localhost:11434/v1/",
            "TINYMEMORY_LLM_MODEL": "m",
            "TINYMEMORY_LLM_TIMEOUT": "5",
        }
    )
    assert cfg == LLMConfig("http://localhost:11434/v1", "m", None, 5.0)
    with pytest.raises(Unavailable, match="TINYMEMORY_LLM_MODEL"):
        LLMConfig.from_env({"TINYMEMORY_LLM_BASE_URL": "http://x"})
    with pytest.raises(Unavailable, match="TINYMEMORY_LLM_TIMEOUT"):
        LLMConfig.from_env(
            {
                "TINYMEMORY_LLM_BASE_URL": "http://x",
                "TINYMEMORY_LLM_MODEL": "m",
                "TINYMEMORY_LLM_TIMEOUT": "soon",
            }
        )


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("[]", "no `learnings` list"),
        ('{"learnings": [{"text": "", "kind": "fact"}]}', "text` is missing"),
        ('{"learnings": [{"text": "a", "kind": "fact", "turns": [5]}]}', "turns` must list"),
        ('{"learnings": [{"text": "a", "kind": "fact", "confidence": 2}]}', "confidence"),
    ],
)
def test_parse_extraction_is_strict(content: str, message: str) -> None:
    with pytest.raises(Unavailable, match="llm extract") as err:
        parse_extraction(content, 2)
    assert message in str(err.value)


def test_parse_extraction_accepts_a_fenced_answer() -> None:
    fenced = '```json\n{"learnings": [{"text": "a", "kind": "event", "turns": [1, 1]}]}\n```'
    (one,) = parse_extraction(fenced, 2)
    assert one.turns == (1,) and one.kind == "event" and one.about_kind is None


async def test_engine_recall_answers_through_the_llm(server: FakeServer, llm: LLM, tmp_path: Path) -> None:
    from tinymemory.api import ItemMeta, NewItem, RecallRequest

    async with SqliteEngine(tmp_path / "r.db", embedder=None, answerer=LLMAnswerer(llm)) as eng:
        await eng.store(NewItem(ItemKind.LEARNING, "The user prefers green tea.", ItemMeta()))
        server.content = "Green tea."
        result = await eng.recall(RecallRequest(question="which tea does the user prefer"))
        assert result.answer == "Green tea." and result.citations
        server.mode = "500"
        with pytest.raises(Unavailable, match="llm answer"):
            await eng.recall(RecallRequest(question="which tea does the user prefer"))
