"""The dashboard and the relations graph over HTTP, against a real service (uvicorn, SQLite): counts are
what the caller stored, another user's memory is never counted nor drawn, the graph's hops reach the
expected memories, and bad input is a clean page."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta

import httpx
import pytest

from tinymemory.api import ItemKind, ItemMeta, NewItem, Relation
from tinymemory.engines import open_engine
from tinymemory.policy import Identity

from .conftest import RunningService
from .test_inspector_pages import browser, remember


def store_direct(
    service: RunningService, user: str | None, items: list[tuple[str, ItemMeta]], workspace: str = "acme"
) -> list[str]:
    """Store memories with fields the API does not take (relations, a past observed_at) into a tier of
    `user` (None: the workspace's institutional tier), through a second engine on the service's store."""
    tiers = Identity(workspace, user).tiers
    place = tiers.user if user is not None else tiers.institutional
    assert place is not None

    async def run() -> list[str]:
        async with open_engine(service.settings.db, embedder=None) as engine:
            out = []
            for text, meta in items:
                stored = await engine.store(
                    NewItem(ItemKind.LEARNING, text, ItemMeta(namespace=place, **_fields(meta)))
                )
                out.append(stored.id)
            return out

    with ThreadPoolExecutor(1) as pool:  # a thread of its own: the browser tests' Playwright runs a loop
        return pool.submit(asyncio.run, run()).result()


def _fields(meta: ItemMeta) -> dict[str, object]:
    return {"relations": meta.relations, "observed_at": meta.observed_at, "learning_kind": meta.learning_kind}


def rel(subject: str, type_: str, obj: str) -> ItemMeta:
    return ItemMeta(relations=(Relation(subject, type_, obj),), learning_kind="fact")


def table_of(page: str, chart_id: str) -> dict[str, list[str]]:
    """A chart's data table: the first cell of each row to the row's other cells."""
    figure = page.split(f'<figure class="chart" id="{chart_id}">', 1)[1].split("</figure>", 1)[0]
    body = figure.split("<tbody>", 1)[1].split("</tbody>", 1)[0]
    rows = {}
    for row in re.findall(r"<tr>(.*?)</tr>", body, re.S):
        first = re.search(r'<th scope="row">(.*?)</th>', row)
        if first is not None:
            rows[first.group(1)] = re.findall(r"<td>(.*?)</td>", row)
    return rows


@pytest.fixture(scope="module")
def graph_ids(service: RunningService) -> dict[str, str]:
    """Gina's small graph: A -Atlas- B -Eve- C -Finn- D, an institutional memory on Atlas, and Hank's
    memory on Dana that Gina must never see."""
    a, b, c, d = store_direct(
        service,
        "gina",
        [
            ("Dana works on Atlas", rel("Dana", "works_on", "Atlas")),
            ("Eve leads Atlas", rel("Eve", "leads", "ATLAS")),
            ("Eve mentors Finn", rel("Eve", "mentors", "Finn")),
            ("Finn likes tea", rel("Finn", "likes", "tea")),
        ],
    )
    (inst,) = store_direct(service, None, [("Atlas ships in June", rel("Atlas", "ships_in", "June"))])
    (hank,) = store_direct(
        service, "hank", [("Hank's secret: Dana reports to Zed", rel("Dana", "reports_to", "Zed"))]
    )
    return {"a": a, "b": b, "c": c, "d": d, "inst": inst, "hank": hank}


@pytest.fixture
def as_gina(service: RunningService) -> Iterator[httpx.Client]:
    with browser(service, service.token("acme", "gina")) as client:
        yield client


def test_dashboard_counts_only_the_callers_memory(service: RunningService) -> None:
    ivy = service.token("initech", "ivy")
    for text in ("Ivy likes jazz", "Ivy owns a bike", "Ivy lives in Lyon"):
        remember(service, ivy, text)
    now = datetime.now(UTC)
    store_direct(
        service,
        "ivy",
        [
            ("Ivy met Joe", ItemMeta(learning_kind="fact", observed_at=now - timedelta(days=20))),
            ("Ivy moved", ItemMeta(learning_kind="fact", observed_at=now - timedelta(days=40))),
        ],
        workspace="initech",
    )
    jack = service.token("initech", "jack")
    for i in range(4):
        remember(service, jack, f"Jack's private note {i}")
    remember(service, service.token("globex", "ivy"), "Another workspace's Ivy")
    with browser(service, ivy) as client:
        got = client.get("/dashboard")
    assert got.status_code == 200, got.text
    assert "Content-Security-Policy" in got.headers
    assert table_of(got.text, "per-tier") == {"user": ["5"], "institutional": ["0"]}
    types = table_of(got.text, "per-type")
    assert types["fact"] == ["2"] and types["general"] == ["3"]
    assert sum(int(v[0]) for v in types.values()) == 5
    assert "Memories observed per week, by tier" in got.text
    growth = table_of(got.text, "growth")
    assert len(growth) == 12
    user_column = [int(cells[0]) for cells in growth.values()]  # the first series is the nearest tier
    assert sum(user_column) == 5 and sorted(user_column)[-3:] == [1, 1, 3]
    assert "Jack" not in got.text and "globex" not in got.text
    assert 'role="img"' in got.text and "<title id=" in got.text and " style=" not in got.text


def test_dashboard_of_a_new_user_is_daily_and_says_nothing_yet(service: RunningService) -> None:
    with browser(service, service.token("emptyco", "newbie")) as client:
        got = client.get("/dashboard")
    assert got.status_code == 200
    assert table_of(got.text, "per-tier") == {"user": ["0"], "institutional": ["0"]}
    assert table_of(got.text, "growth") == {}
    assert "Memories observed per day, by tier" in got.text
    assert got.text.count('<text class="chart-empty"') == 3


def test_dashboard_needs_sign_in(service: RunningService) -> None:
    with browser(service) as client:
        got = client.get("/dashboard")
    assert got.status_code == 303 and got.headers["location"] == "/"


def nodes_of(page: str) -> list[str]:
    return re.findall(r'<a class="node hop\d" href="/items/([^"]+)">', page)


def test_graph_one_hop(as_gina: httpx.Client, graph_ids: dict[str, str]) -> None:
    got = as_gina.get(f"/items/{graph_ids['a']}/graph")
    assert got.status_code == 200, got.text
    assert sorted(nodes_of(got.text)) == sorted([graph_ids["a"], graph_ids["b"], graph_ids["inst"]])
    assert '<a class="node hop0" href="/items/' + graph_ids["a"] in got.text
    labels = re.findall(r'<text class="edge-label"[^>]*>([^<]*)</text>', got.text)
    assert sorted(labels) == ["leads", "ships_in"]
    assert got.text.count("<li><a href=") == 2  # the list alternative names the same two
    assert graph_ids["hank"] not in got.text and "Zed" not in got.text and "reports_to" not in got.text


def test_graph_two_hops(as_gina: httpx.Client, graph_ids: dict[str, str]) -> None:
    got = as_gina.get(f"/items/{graph_ids['a']}/graph", params={"hops": "2"})
    assert got.status_code == 200, got.text
    ids = graph_ids
    assert sorted(nodes_of(got.text)) == sorted([ids["a"], ids["b"], ids["c"], ids["inst"]])
    assert '<a class="node hop2" href="/items/' + ids["c"] in got.text
    labels = re.findall(r'<text class="edge-label"[^>]*>([^<]*)</text>', got.text)
    assert sorted(labels) == ["leads", "mentors", "ships_in"]
    assert ids["d"] not in got.text, "three hops away"
    assert ids["hank"] not in got.text and "Zed" not in got.text
    assert "hop 2 · " in got.text


def test_item_page_links_its_relations_to_the_graph(as_gina: httpx.Client, graph_ids: dict[str, str]) -> None:
    got = as_gina.get(f"/items/{graph_ids['a']}")
    assert f'<a href="/items/{graph_ids["a"]}/graph">See as a graph</a>' in got.text


@pytest.mark.parametrize("hops", ["0", "3", "two", "1.0", " 1"])
def test_bad_hops_is_400_naming_hops(as_gina: httpx.Client, graph_ids: dict[str, str], hops: str) -> None:
    got = as_gina.get(f"/items/{graph_ids['a']}/graph", params={"hops": hops})
    assert got.status_code == 400
    assert "`hops` must be 1 or 2" in got.text and "Traceback" not in got.text


def test_graph_of_an_unseen_item_is_the_items_not_found(
    as_gina: httpx.Client, graph_ids: dict[str, str]
) -> None:
    item_page = as_gina.get("/items/m_" + "0" * 24)
    theirs = as_gina.get(f"/items/{graph_ids['hank']}/graph")
    unknown = as_gina.get("/items/m_" + "0" * 24 + "/graph")
    assert theirs.status_code == unknown.status_code == item_page.status_code == 404
    assert theirs.text == unknown.text == item_page.text


def test_a_memory_without_relations_has_no_graph_link_and_an_empty_graph(
    service: RunningService, as_gina: httpx.Client
) -> None:
    plain = remember(service, service.token("acme", "gina"), "Gina has no relations here")["id"]
    assert "See as a graph" not in as_gina.get(f"/items/{plain}").text
    got = as_gina.get(f"/items/{plain}/graph", params={"hops": "2"})
    assert got.status_code == 200 and "This memory names no relations." in got.text
    assert "<svg" not in got.text
