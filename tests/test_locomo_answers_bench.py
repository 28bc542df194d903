"""bench/locomo_answers.py: its token F1 on hand-made cases, its reading of gold answers, and its LLM path
(answerer and judge) end to end against a real chat-completions server on 127.0.0.1 giving canned replies.
The server stands in for a model, not for any part of tinymemory: recall runs on a real SQLite engine."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from chat_server import ChatRequest, LocalChatServer, reply

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
import locomo_answers as bench

# -- token F1 ---------------------------------------------------------------------------------------------


def test_normalize_drops_case_punctuation_and_articles() -> None:
    assert bench.normalize("The Sunday before 25 May, 2023!") == "sunday before 25 may 2023"
    assert bench.normalize("An apple… and a pear") == "apple and pear"
    assert bench.normalize("Caroline’s  dog") == "carolines dog"
    assert bench.normalize("theatre, another") == "theatre another"  # articles only as whole words


@pytest.mark.parametrize(
    ("prediction", "gold", "expected"),
    [
        ("7 May 2023", "7 May 2023", 1.0),
        ("the 7 May, 2023.", "7 may 2023", 1.0),
        ("adoption agencies", "Adoption agencies", 1.0),
        ("she researched adoption agencies", "adoption agencies", 2 * (2 / 4) * 1.0 / (2 / 4 + 1.0)),
        ("Sweden", "Rome", 0.0),
        ("", "Rome", 0.0),
        ("", "", 1.0),
        ("the", "a", 1.0),  # both empty once articles go
        # multisets: a repeated gold token counts once per occurrence in each side
        ("go go go", "go", 2 * (1 / 3) * 1.0 / (1 / 3 + 1.0)),
        ("go go", "go go stop", 2 * 1.0 * (2 / 3) / (1.0 + 2 / 3)),
    ],
)
def test_f1(prediction: str, gold: str, expected: float) -> None:
    assert bench.f1(prediction, gold) == pytest.approx(expected)


def test_exact_match_and_token_recall() -> None:
    assert bench.exact_match("The Rome.", "rome")
    assert not bench.exact_match("in Rome", "Rome")
    assert bench.token_recall("she moved from Sweden four years ago", "Sweden") == 1.0
    assert bench.token_recall("Sweden", "from Sweden, 4 years ago") == pytest.approx(1 / 5)


def test_parse_verdict() -> None:
    assert bench.parse_verdict("CORRECT") is True
    assert bench.parse_verdict('{"label": "correct"}') is True
    assert bench.parse_verdict("WRONG") is False
    assert bench.parse_verdict("Incorrect.") is False
    assert bench.parse_verdict("maybe") is None
    assert bench.parse_verdict("CORRECT or WRONG, hard to say") is None


# -- a tiny LoCoMo-format file -----------------------------------------------------------------------------


def turn(dia: str, speaker: str, text: str) -> dict[str, str]:
    return {"dia_id": dia, "speaker": speaker, "text": text}


SAMPLE: list[dict[str, Any]] = [
    {
        "sample_id": "conv-tiny",
        "conversation": {
            "speaker_a": "Ann",
            "speaker_b": "Bo",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": [
                turn("D1:1", "Ann", "I adopted a puppy named Rex yesterday!"),
                turn("D1:2", "Bo", "Lovely. My favourite colour is green, like his collar."),
                turn("D1:3", "Ann", "We walk by the river every morning."),
            ],
            "session_2_date_time": "10:00 am on 20 May, 2023",
            "session_2": [
                turn("D2:1", "Bo", "My three sisters visited me last weekend."),
                turn("D2:2", "Ann", "How nice! Rex says hi."),
            ],
        },
        "qa": [
            {
                "question": "What is the name of Ann's puppy?",
                "answer": "Rex",
                "evidence": ["D1:1"],
                "category": 4,
            },
            {
                "question": "When did Ann adopt a puppy?",
                "answer": "7 May 2023",
                "evidence": ["D1:1"],
                "category": 2,
            },
            # an int gold answer, and an evidence id the bench repairs (`D:2:1` -> `D2:1`)
            {"question": "How many sisters does Bo have?", "answer": 3, "evidence": ["D:2:1"], "category": 1},
            # category 5 (no `answer` field) and a question whose evidence points at no turn: both left out
            {
                "question": "What is Bo's pet?",
                "adversarial_answer": "cat",
                "evidence": ["D1:2"],
                "category": 5,
            },
            {"question": "Where does Bo work?", "answer": "a bakery", "evidence": ["D9:9"], "category": 4},
        ],
    }
]

CANNED = {"name of Ann's puppy": "Rex", "adopt a puppy": "7 May 2023", "sisters": "two sisters"}


@pytest.fixture
def locomo_file(tmp_path: Path) -> Path:
    path = tmp_path / "tiny_locomo.json"
    path.write_text(json.dumps(SAMPLE))
    return path


def test_gold_answers_line_up_with_the_recall_protocol(locomo_file: Path) -> None:
    convs = bench.load(locomo_file, bench.EvidenceStats())
    (questions,) = bench.gold_answers(locomo_file, convs)
    assert [(q.text, q.category, q.evidence, q.gold) for q in questions] == [
        ("What is the name of Ann's puppy?", 4, ("D1:1",), "Rex"),
        ("When did Ann adopt a puppy?", 2, ("D1:1",), "7 May 2023"),
        ("How many sisters does Bo have?", 1, ("D2:1",), "3"),
    ]


async def test_without_an_llm_the_judged_accuracy_is_said_not_run(locomo_file: Path) -> None:
    result = await bench.run_answers(locomo_file, False, None, lexical_only=True, env={})
    assert result["questions"] == 3 and result["items"] == 5
    assert result["judge_note"] == bench.NO_LLM and bench.NO_LLM in result["markdown"]
    assert set(result["rows"]) == {
        "recall, extractive (default)",
        "extractive (default) on the gold evidence only (oracle)",
    }
    for row in result["rows"].values():
        assert row["judged"] is None and row["failures"] == 0
        assert set(row["f1"]) == {0, 1, 2, 4} and all(0.0 <= v <= 1.0 for v in row["f1"].values())
    oracle = result["rows"]["extractive (default) on the gold evidence only (oracle)"]
    assert oracle["token_recall"][4] == 1.0  # "Rex" is in the quoted evidence turn
    limited = await bench.run_answers(locomo_file, False, 2, lexical_only=True, env={})
    assert limited["questions"] == 2


# -- the LLM path against a real local server ---------------------------------------------------------------


class ChatServer(LocalChatServer):
    """Chat completions on 127.0.0.1: canned answers by question, and a judge that says CORRECT when the
    reference answer's words appear in the graded answer. `fail_judge` makes judge calls answer 500."""

    def __init__(self) -> None:
        self.fail_judge = False
        super().__init__(self._respond)

    def _respond(self, request: ChatRequest) -> tuple[int, bytes]:
        if request.system == bench.JUDGE_PROMPT:
            if self.fail_judge:
                return 500, b'{"error": "judge down"}'
            gold = re.search(r"Reference answer: (.*)\n", request.user)
            graded = re.search(r"Answer to grade: (.*)$", request.user, re.S)
            assert gold and graded
            ok = bench.normalize(gold[1]) in bench.normalize(graded[1])
            return reply("CORRECT" if ok and bench.normalize(gold[1]) else "WRONG")
        return reply(next((a for key, a in CANNED.items() if key in request.user), "I do not know."))

    @property
    def env(self) -> dict[str, str]:
        return {"TINYMEMORY_LLM_BASE_URL": self.url, "TINYMEMORY_LLM_MODEL": "canned-model"}


@pytest.fixture
def chat() -> Iterator[ChatServer]:
    server = ChatServer()
    yield server
    server.close()


async def test_llm_answers_and_judge_through_a_local_server(locomo_file: Path, chat: ChatServer) -> None:
    result = await bench.run_answers(locomo_file, False, None, lexical_only=True, env=chat.env)
    rows = result["rows"]
    llm_row = rows["recall, LLM canned-model"]
    # canned answers: "Rex" (single-hop, exact), "7 May 2023" (temporal, exact), "two sisters" vs gold 3
    assert llm_row["f1"] == pytest.approx({0: 2 / 3, 4: 1.0, 2: 1.0, 1: 0.0})
    assert llm_row["em"][0] == pytest.approx(2 / 3)
    assert llm_row["judged"] == pytest.approx({0: 2 / 3, 4: 1.0, 2: 1.0, 1: 0.0})
    assert rows["LLM canned-model on the gold evidence only (oracle)"]["judged"][0] == pytest.approx(2 / 3)
    assert all(r["judged"] is not None and r["failures"] == 0 for r in rows.values())
    assert result["unparsed"] == 0 and bench.NO_LLM not in result["markdown"]
    assert "LLM-judged accuracy (model `canned-model`" in result["markdown"]

    sent = [r.json for r in chat.requests]
    assert all(r.path == "/v1/chat/completions" for r in chat.requests)
    judged = [m["messages"][-1]["content"] for m in sent if m["messages"][0]["content"] == bench.JUDGE_PROMPT]
    assert len(judged) == 4 * 3  # every answer of the four rows, three questions each
    assert any("Reference answer: 3\n" in j for j in judged)  # the int gold answer, as text
    asked = [m for m in sent if m["messages"][0]["content"] != bench.JUDGE_PROMPT]
    assert len(asked) == 2 * 3  # the LLM answers through recall and on the gold evidence
    assert all(bench.INSTRUCTIONS in m["messages"][0]["content"] for m in asked)
    assert any("I adopted a puppy named Rex yesterday!" in m["messages"][-1]["content"] for m in asked)


async def test_a_failing_judge_costs_its_answers_not_the_run(locomo_file: Path, chat: ChatServer) -> None:
    chat.fail_judge = True
    result = await bench.run_answers(locomo_file, False, None, lexical_only=True, env=chat.env)
    llm_row = result["rows"]["recall, LLM canned-model"]
    assert llm_row["failures"] == 3 and llm_row["judged"][0] == 0.0
    assert llm_row["f1"][0] == pytest.approx(2 / 3)  # the answers themselves still scored
