"""The search page's why part over HTTP, against a real service with the default embedder: the relevance
cut (nonsense lists nothing, real queries find their memory), each text shown once, the signals in a
<details class="why">, nothing of another user's memory, and the API's explain answer."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from .conftest import RunningService, start_service
from .test_inspector_pages import browser, remember

MEMORIES = (
    "I drink oat milk flat whites every morning.",
    "I am allergic to peanuts and shellfish.",
    "My sister lives in Lisbon.",
    "The quarterly budget report is due on Friday.",
)


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningService]:
    running = start_service(Path(tmp_path_factory.mktemp("why")), embedder="default")
    yield running
    running.stop()


@pytest.fixture(scope="module")
def alice(service: RunningService) -> str:
    token = service.token("acme", "alice")
    for text in MEMORIES:
        remember(service, token, text)
    return token


@pytest.fixture(scope="module")
def bob(service: RunningService) -> str:
    token = service.token("acme", "bob")
    remember(service, token, "Bob's zzqx blorft peanuts vault code is 9931")
    return token


def results(page: str) -> list[str]:
    return re.findall(r'<li><a href="/items/[^"]+">', page)


@pytest.mark.parametrize("nonsense", ["zzqx blorft", "qwerty asdfgh", "xjvq plomk trazz"])
def test_nonsense_lists_nothing(service: RunningService, alice: str, nonsense: str) -> None:
    with browser(service, alice) as client:
        got = client.get("/search", params={"q": nonsense})
    assert got.status_code == 200
    assert results(got.text) == [] and "No memory matches." in got.text


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("peanuts", MEMORIES[1]),
        ("where does my sister live", MEMORIES[2]),
        ("what do I drink in the morning", MEMORIES[0]),
        ("budget report", MEMORIES[3]),
        ("food allergies", MEMORIES[1]),  # no shared word: found by meaning, above the floor
    ],
)
def test_real_queries_find_their_memory_first(
    service: RunningService, alice: str, query: str, expected: str
) -> None:
    with browser(service, alice) as client:
        got = client.get("/search", params={"q": query})
    assert got.status_code == 200
    assert results(got.text), query
    first = got.text.index("<li><a href=")
    assert html.escape(expected) in got.text[first : got.text.index("</li>", first)]


def test_each_result_shows_its_text_once_and_why(service: RunningService, alice: str) -> None:
    with browser(service, alice) as client:
        got = client.get("/search", params={"q": "peanuts"})
    page = got.text
    assert page.count(html.escape(MEMORIES[1])) == 1
    assert page.count('<details class="why">') == len(results(page))
    why = page[page.index('<details class="why">') :]
    why = why[: why.index("</details>")]
    assert "Shares words with the search" in why and "1st by keywords" in why
    assert "by meaning" in why and "reranker judged it" in why and "Final score" in why
    assert '<table class="features">' in why


def test_why_tells_nothing_of_another_user(service: RunningService, alice: str, bob: str) -> None:
    with browser(service, alice) as client:
        got = client.get("/search", params={"q": "zzqx blorft peanuts vault"})
    assert "9931" not in got.text and "vault" not in got.text.split("</h1>", 1)[1]
    with service.client(alice) as api:
        answer = api.post("/api/v1/memory/recall", json={"query": "zzqx blorft peanuts", "explain": True})
    assert answer.status_code == 200, answer.text
    memories = answer.json()["memories"]
    assert memories and all("9931" not in m["content"] for m in memories)
    assert [m["metadata"]["why"]["rank"] for m in memories] == list(range(1, len(memories) + 1))


def test_the_api_answer_without_explain_has_no_why(service: RunningService, alice: str) -> None:
    with service.client(alice) as api:
        plain = api.post("/api/v1/memory/recall", json={"query": "peanuts"})
        bad = api.post("/api/v1/memory/recall", json={"query": "peanuts", "explain": "yes"})
        schema = api.get("/openapi.json")
    assert plain.status_code == 200 and '"why"' not in plain.text
    assert bad.status_code == 400 and "explain" in bad.text
    assert "explain" in schema.text and "WhySignals" in schema.text


def test_every_reranker_feature_has_words_on_the_why_page() -> None:
    """A feature added to the reranker is explained in words, not shown by its bare name."""
    from tinymemory.retrieval.features import FEATURES
    from tinymemory.service.inspector.why_pages import FEATURE_WORDS

    assert set(FEATURES) <= set(FEATURE_WORDS)


def test_a_linked_memory_says_which_name_linked_it() -> None:
    from tinymemory.service.inspector.why_pages import why_details

    why = {"score": 0.4, "rank": 3, "semantic": 0.6, "semantic_rank": 9, "linked": "lisbon"}
    shown = html.unescape(str(why_details({"metadata": {"why": why}})))
    assert "It names “lisbon”, a rare name one of the best results mentions" in shown
    del why["linked"]
    assert "rare name" not in str(why_details({"metadata": {"why": why}}))
