"""The inspector's views over HTTP: filters (and their bad values), the per-agent view, bulk forget,
export, friendly times, the favicon and the nav links, against a real service. A second user's
memories never show, and their ids in a bulk forget are refused as not found."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta

import pytest

from tinymemory.service.inspector.pages import friendly

from .conftest import RunningService
from .test_inspector_pages import browser, csrf_of, remember


def ids_listed(page: str) -> list[str]:
    return re.findall(r'name="id" value="([^"]+)"', page)


def test_type_and_date_filters_narrow_the_list_and_paging_keeps_them(service: RunningService) -> None:
    token = service.token("acme", "fil")
    fact = remember(service, token, "Fil keeps the spare key under the blue pot", type="fact")
    pref = remember(service, token, "Fil prefers oat milk in coffee", type="preference")
    today = datetime.now(UTC).date()
    with browser(service, token) as client:
        only = client.get("/", params={"tier": "user", "type": "preference"})
        dated = client.get("/", params={"tier": "user", "from": today.isoformat(), "to": today.isoformat()})
        old = client.get("/", params={"tier": "user", "to": (today - timedelta(days=3)).isoformat()})
        tagged = client.get("/", params={"tier": "user", "tag": "nothing-has-this"})
    assert only.status_code == 200
    assert ids_listed(only.text) == [pref["id"]]
    assert "<fieldset><legend>Filter</legend>" in only.text and 'for="f-type"' in only.text
    assert set(ids_listed(dated.text)) == {fact["id"], pref["id"]}
    assert ids_listed(old.text) == [] and ids_listed(tagged.text) == []
    assert 'href="/export?tier=user&amp;type=preference"' in only.text


def test_next_page_link_keeps_the_filters(service: RunningService) -> None:
    token = service.token("acme", "pager")
    for n in range(21):
        remember(service, token, f"Pager note number {n} about the garden", type="fact")
    with browser(service, token) as client:
        first = client.get("/", params={"tier": "user", "type": "fact"})
        link = re.search(r'rel="next" href="([^"]+)"', first.text)
        assert link is not None
        href = link.group(1).replace("&amp;", "&")
        assert "type=fact" in href and "cursor=" in href
        second = client.get(href)
    assert len(ids_listed(first.text)) == 20 and len(ids_listed(second.text)) == 1
    assert not set(ids_listed(first.text)) & set(ids_listed(second.text))


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"from": "yesterday"}, "`from`"),
        ({"to": "2025-13-01"}, "`to`"),
        ({"from": "2025-03-02", "to": "2025-03-01"}, "`to`"),
        ({"tag": "x" * 201}, "`tag`"),
        ({"type": "bad\x01type"}, "`type`"),
        ({"tier": "nope"}, "`tier`"),
    ],
)
def test_bad_filter_values_are_a_400_page_naming_the_field(
    service: RunningService, params: dict[str, str], field: str
) -> None:
    token = service.token("acme", "badfil")
    with browser(service, token) as client:
        listed = client.get("/", params=params)
        exported = client.get("/export", params=params)
    for got in (listed, exported):
        assert got.status_code == 400, got.text
        assert got.headers["content-type"].startswith("text/html")
        assert field in got.text and "Traceback" not in got.text


def test_bulk_forget_forgets_own_ids_and_refuses_another_users(service: RunningService) -> None:
    mine = service.token("acme", "bulker")
    other = service.token("acme", "stranger")
    a = remember(service, mine, "Bulker's first errand is the post office", type="fact")["id"]
    b = remember(service, mine, "Bulker's second errand is the bakery", type="fact")["id"]
    keep = remember(service, mine, "Bulker's third errand is the library", type="fact")["id"]
    theirs = remember(service, other, "Stranger's safe combination is 31-17-4", type="fact")["id"]
    with browser(service, mine) as client:
        home = client.get("/", params={"tier": "user"})
        assert 'action="/forget"' in home.text and "data-confirm" in home.text
        csrf = csrf_of(home.text)
        stale = client.post("/forget", data={"csrf": "0" * 64, "id": [a]})
        done = client.post("/forget", data={"csrf": csrf, "id": [a, b, theirs, "m_nope"]})
        after = client.get("/", params={"tier": "user"})
    assert stale.status_code == 403
    assert done.status_code == 200
    text = done.text
    assert "Forgotten: 2." in text and a in text and b in text
    assert "Not forgotten" in text
    assert f"<code>{theirs}</code>: No memory with this id is visible to you." in text
    assert "31-17-4" not in text
    assert ids_listed(after.text) == [keep]
    with browser(service, other) as client:
        still = client.get("/", params={"tier": "user"})
    assert ids_listed(still.text) == [theirs], "another user's memory is untouched"


def test_export_is_a_json_lines_download_of_what_the_filters_show(service: RunningService) -> None:
    mine = service.token("acme", "exporter")
    other = service.token("acme", "outsider")
    fact = remember(service, mine, "Exporter's bike is in rack 12", type="fact")
    remember(service, mine, "Exporter prefers tea", type="preference")
    remember(service, other, "Outsider's pin is 9090", type="fact")
    with browser(service, mine) as client:
        got = client.get("/export", params={"tier": "user", "type": "fact"})
        everything = client.get("/export", params={"tier": "user"})
    assert got.status_code == 200
    assert got.headers["content-disposition"].startswith("attachment;")
    rows = [json.loads(line) for line in got.text.splitlines()]
    assert [r["id"] for r in rows] == [fact["id"]]
    row = rows[0]
    assert row["text"] == "Exporter's bike is in rack 12" and row["tier"] == "user" and row["type"] == "fact"
    assert set(row) >= {"source", "tags", "created_at", "updated_at"}
    assert len(everything.text.splitlines()) == 2 and "9090" not in everything.text


def test_agent_view_shows_only_the_users_own_per_agent_memories(service: RunningService) -> None:
    scoped = service.token("acme", "agnes", "helpdesk")
    other_agent = service.token("acme", "agnes", "travel")
    plain = service.token("acme", "agnes")
    stranger = service.token("acme", "agnes2", "helpdesk")
    desk = remember(service, scoped, "Agnes's ticket number is 4411", type="fact")["id"]
    trip = remember(service, other_agent, "Agnes flies to Oslo in May", type="fact")["id"]
    theirs = remember(service, stranger, "Agnes2's ticket number is 5522", type="fact")["id"]
    general = remember(service, plain, "Agnes lives in Bergen", type="fact")["id"]
    with browser(service, scoped) as client:
        own_agent = client.get("/agents")
        export = client.get("/export", params={"view": "agents", "agent": "travel"})
    with browser(service, plain) as client:
        every = client.get("/agents")
        one = client.get("/agents", params={"agent": "travel"})
        link = re.search(r'href="(/export\?[^"]+)"', every.text)
        assert link is not None
        exported = client.get(link.group(1).replace("&amp;", "&"))
    with browser(service, stranger) as client:
        strange = client.get("/agents")
    assert own_agent.status_code == 200
    assert desk in own_agent.text and trip not in own_agent.text, "an agent token sees its own agent only"
    assert [json.loads(x)["id"] for x in export.text.splitlines()] == [desk]
    assert desk in every.text and trip in every.text and theirs not in every.text
    assert general not in every.text, "the user tier is not a per-agent memory"
    assert {json.loads(x)["id"] for x in exported.text.splitlines()} == {desk, trip}
    assert "agent helpdesk" in every.text and "agent travel" in every.text
    assert trip in one.text and desk not in one.text
    assert theirs in strange.text and desk not in strange.text and trip not in strange.text


def test_times_are_friendly_with_the_exact_time_in_the_title(service: RunningService) -> None:
    token = service.token("acme", "timely")
    remember(service, token, "Timely's dentist is on Fridays", type="fact")
    with browser(service, token) as client:
        home = client.get("/", params={"tier": "user"})
    found = re.search(r'<time datetime="([^"]+)" title="([^"]+)">today \d\d:\d\d</time>', home.text)
    assert found is not None, home.text
    assert found.group(1) == found.group(2) and "." not in found.group(1), "no microseconds"
    now = datetime(2025, 3, 20, 9, 0, tzinfo=UTC)
    assert friendly(now.replace(hour=8, minute=5), now) == "today 08:05"
    assert friendly(now - timedelta(days=1), now) == "yesterday"
    assert friendly(now - timedelta(days=3), now) == "3 days ago"
    assert friendly(datetime(2025, 3, 12, tzinfo=UTC), now) == "12 Mar 2025"


def test_favicon_and_nav_links(service: RunningService) -> None:
    user = service.token("acme", "navi")
    admin = service.token("acme", "boss", admin=True)
    with browser(service, user) as client:
        plain = client.get("/")
        icon = client.get("/inspector/static/favicon.svg")
    with browser(service, admin) as client:
        boss = client.get("/")
    assert icon.status_code == 200 and icon.headers["content-type"].startswith("image/svg+xml")
    assert '<link rel="icon" href="/inspector/static/favicon.svg"' in plain.text
    for page in (plain.text, boss.text):
        assert '<a href="/new">New memory</a>' in page and '<a href="/dashboard">Dashboard</a>' in page
    assert 'href="/gate"' not in plain.text
    assert '<a href="/gate">Share gate</a>' in boss.text
