"""Adding and correcting a memory in the inspector, over HTTP against a real service: the forms offer only
what the caller may write, a post stores through memory__remember, a correction is a new version, and a
missing or forged CSRF token, another site, bad fields or another user's id write nothing."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest

from .conftest import RunningService
from .test_inspector_pages import FORM, browser, csrf_of, opened, remember

NOT_FOUND = "No memory with this id is visible to you."


def recalled(service: RunningService, token: str, query: str) -> list[dict[str, Any]]:
    with service.client(token) as api:
        got = api.post("/api/v1/memory/recall", json={"query": query, "limit": 20})
    assert got.status_code == 200, got.text
    found: list[dict[str, Any]] = got.json()["memories"]
    return found


def item_id(response: httpx.Response) -> str:
    assert response.status_code == 303, response.text[-400:]
    found = re.fullmatch(r"/items/(m_[^/?]+)", response.headers["location"])
    assert found is not None, response.headers["location"]
    return found.group(1)


def new_csrf(client: httpx.Client) -> str:
    return csrf_of(client.get("/new").text)


# -- adding ------------------------------------------------------------------------------------------------


def test_the_new_form_offers_only_what_the_caller_may_write(service: RunningService) -> None:
    with browser(service, service.token("acme", "hana")) as client:
        got = client.get("/new")
    assert got.status_code == 200 and got.headers["content-type"].startswith("text/html")
    for name in ("content", "type", "about_kind", "about_key", "title", "summary", "category"):
        assert f'<label for="{name}">' in got.text and f'id="{name}" name="{name}"' in got.text
    types = re.findall(r'<option value="([^"]+)"', got.text)
    assert "general" in types and '<option value="general" selected>' in got.text
    assert "Saved to your <strong>user</strong> tier" in got.text
    assert 'name="tier"' not in got.text, "a remember has one tier to write to; there is no choice"
    with browser(service, service.token("acme", "hana", "helper")) as client:
        assert "Saved to your <strong>user_for_agent</strong> tier" in client.get("/new").text


def test_adding_stores_through_remember_and_opens_the_new_item(service: RunningService) -> None:
    token = service.token("acme", "ines")
    with browser(service, token) as client:
        posted = client.post(
            "/new",
            data={
                "csrf": new_csrf(client),
                "content": "Ines keeps her passport in the blue drawer",
                "type": "general",
                "about_kind": "document",
                "about_key": "passport",
                "title": "Passport <place>",
                "category": "",
            },
        )
        new = item_id(posted)
        shown = client.get(f"/items/{new}")
    assert shown.status_code == 200
    assert "blue drawer" in shown.text and "Passport &lt;place&gt;" in shown.text
    assert "document: passport" in shown.text
    assert f'href="/items/{new}/edit"' in shown.text
    got = opened(service, token, new)
    assert got["status"] == "opened"
    assert [m["id"] for m in recalled(service, token, "passport blue drawer")] == [new]


def test_adding_needs_the_sessions_csrf_token_and_this_site(service: RunningService) -> None:
    token = service.token("acme", "jonas")
    with browser(service, token) as client, browser(service, service.token("acme", "kai")) as other:
        content = {"content": "Jonas hides the spare key under the pumpkinstone"}
        good = new_csrf(client)
        for refused in (
            client.post("/new", data=content),
            client.post("/new", data={**content, "csrf": "f" * 64}),
            client.post("/new", data={**content, "csrf": new_csrf(other)}),
            client.post("/new", data={**content, "csrf": good}, headers={"Origin": "http://evil.example"}),
        ):
            assert refused.status_code == 403, refused.text[-400:]
            assert "out of date or came from another site" in refused.text
    assert recalled(service, token, "pumpkinstone spare key") == []


@pytest.mark.parametrize(
    ("fields", "says"),
    [
        ({"content": ""}, "content"),
        ({"content": "Lena's note", "title": "t" * 513}, "title"),
        ({"content": "Lena's note", "about_kind": "k" * 129, "about_key": "x"}, "about_kind"),
        ({"content": "Lena's note", "about_kind": "person"}, "about_key"),
        ({"content": "Lena's note", "type": "no-such-type"}, "type"),
    ],
)
def test_a_tool_error_reshows_the_form_with_the_entered_values(
    service: RunningService, fields: dict[str, str], says: str
) -> None:
    token = service.token("acme", "lena")
    with browser(service, token) as client:
        got = client.post("/new", data={"csrf": new_csrf(client), **fields})
    assert got.status_code == 400, got.text[-400:]
    error = re.search(r'<p class="error" role="alert">([^<]*)</p>', got.text)
    assert error is not None and says in error.group(1) and "memory__remember" in error.group(1)
    assert f">{fields['content']}</textarea>" in got.text.replace("&#x27;", "'")
    assert csrf_of(got.text), "the form can be sent again"
    assert recalled(service, token, "Lena's note") == []


@pytest.mark.parametrize(
    ("body", "headers", "status", "says"),
    [
        ('{"content": "x"}', {"Content-Type": "application/json"}, 400, "must be a form"),
        ("content=%FF%FE", FORM, 400, "not valid URL-encoded"),
        ("&".join(f"f{i}=1" for i in range(50)), FORM, 400, "not valid URL-encoded"),
        ("content=" + "a" * 300_000, FORM, 413, "larger than"),
    ],
)
def test_malformed_bodies_are_clean_4xx_pages(
    service: RunningService, body: str, headers: dict[str, str], status: int, says: str
) -> None:
    with browser(service, service.token("acme", "mia")) as client:
        for path in ("/new", "/items/m_whatever/edit"):
            got = client.post(path, content=body, headers=headers)
            assert got.status_code == status, got.text[-400:]
            assert says in got.text and got.headers["content-type"].startswith("text/html")
            assert "Traceback" not in got.text


def test_adding_and_editing_need_sign_in(service: RunningService) -> None:
    with browser(service) as client:
        for got in (client.get("/new"), client.post("/new", data={}), client.get("/items/m_x/edit")):
            assert got.status_code == 303 and got.headers["location"] == "/"


# -- correcting --------------------------------------------------------------------------------------------


def test_a_correction_is_a_new_version_and_the_old_one_stays_readable(service: RunningService) -> None:
    token = service.token("acme", "nora")
    first = remember(
        service,
        token,
        "Nora's gym is open until nine",
        about_kind="place",
        about_key="gym",
        title="Gym hours",
        confidence=0.6,
    )
    before = datetime.now(UTC).isoformat()
    with browser(service, token) as client:
        form = client.get(f"/items/{first['id']}/edit")
        assert form.status_code == 200
        assert ">Nora&#x27;s gym is open until nine</textarea>" in form.text
        assert 'value="Gym hours"' in form.text and "place: gym" in form.text
        posted = client.post(
            f"/items/{first['id']}/edit",
            data={
                "csrf": csrf_of(form.text),
                "content": "Nora's gym is open until ten",
                "title": "Gym hours",
                "about_key": "somewhere-else",  # the subject is the item's, never a posted one
            },
        )
        new = item_id(posted)
        assert new != first["id"]
        page = client.get(f"/items/{new}")
        assert "History: 2 versions" in page.text and "until ten" in page.text
        old = client.get(f"/items/{new}", params={"as_of": before})
        assert f'the active version was <a href="/items/{first["id"]}">' in old.text
        older = client.get(f"/items/{first['id']}")
        assert older.status_code == 200 and "until nine" in older.text
        assert "A newer version replaced this one" in older.text
        assert f"/items/{first['id']}/edit" not in older.text
        stale = client.get(f"/items/{first['id']}/edit")
        assert stale.status_code == 409 and f'href="/items/{new}"' in stale.text
        facts = page.text.split('<dl class="facts">', 1)[1].split("</dl>", 1)[0]
        assert "<dd>place: gym</dd>" in facts and "<dd>0.60</dd>" in facts, "subject and confidence kept"
    got = opened(service, token, new)
    assert got["status"] == "opened" and got["content"] == "Nora's gym is open until ten"
    assert [m["id"] for m in recalled(service, token, "Nora gym open")] == [new]


def test_correcting_needs_the_sessions_csrf_token_and_this_site(service: RunningService) -> None:
    token = service.token("acme", "otto")
    first = remember(service, token, "Otto's bike lock code is 1234", about_kind="thing", about_key="lock")
    path = f"/items/{first['id']}/edit"
    with browser(service, token) as client, browser(service, service.token("acme", "pia")) as other:
        content = {"content": "Otto's bike lock code is 9876"}
        good = csrf_of(client.get(path).text)
        for refused in (
            client.post(path, data=content),
            client.post(path, data={**content, "csrf": "0" * 64}),
            client.post(path, data={**content, "csrf": new_csrf(other)}),
            client.post(path, data={**content, "csrf": good}, headers={"Origin": "http://evil.example"}),
        ):
            assert refused.status_code == 403, refused.text[-400:]
        assert "History: 1 version<" in client.get(f"/items/{first['id']}").text
    assert [m["id"] for m in recalled(service, token, "Otto bike lock code")] == [first["id"]]


def test_another_users_id_looks_like_an_unknown_one(service: RunningService) -> None:
    owner = service.token("acme", "quinn")
    theirs = remember(service, owner, "Quinn's safe word is marmalade", about_kind="w", about_key="safe")
    with browser(service, service.token("acme", "rosa")) as client:
        csrf = new_csrf(client)
        pages = [
            client.get(f"/items/{theirs['id']}/edit"),
            client.post(f"/items/{theirs['id']}/edit", data={"csrf": csrf, "content": "stolen"}),
            client.get("/items/m_unknown/edit"),
            client.post("/items/m_unknown/edit", data={"csrf": csrf, "content": "x"}),
            client.get("/items/" + "m" * 5000 + "/edit"),
        ]
    for got in pages:
        assert got.status_code == 404 and NOT_FOUND in got.text
        assert "marmalade" not in got.text
    texts = {re.sub(r"/items/[^\"]+", "", got.text) for got in pages}
    assert len(texts) == 1, "every miss is the same page"
    assert [m["id"] for m in recalled(service, owner, "Quinn safe word")] == [theirs["id"]]


def test_only_own_current_memory_with_a_subject_can_be_corrected(
    service: RunningService,
) -> None:
    token = service.token("acme", "sami")
    plain = remember(service, token, "Sami likes the tram more than the bus")
    with service.client(service.token("acme", None)) as api:
        ingested = api.post(
            "/api/v1/memory/ingest",
            json={"name": "rules.md", "text": "# Rules\n\nThe kitchen closes at xylophone o'clock."},
        )
    assert ingested.status_code == 200, ingested.text
    with browser(service, token) as client:
        page = client.get(f"/items/{plain['id']}")
        assert page.status_code == 200 and "/edit" not in page.text
        no_subject = client.get(f"/items/{plain['id']}/edit")
        assert no_subject.status_code == 409 and "no subject" in no_subject.text
        refused = client.post(
            f"/items/{plain['id']}/edit", data={"csrf": new_csrf(client), "content": "Sami likes the bus"}
        )
        assert refused.status_code == 409
        found = client.get("/search", params={"q": "xylophone kitchen"})
        shared = re.findall(r'href="/items/([^"]+)"', found.text)
        assert shared, found.text
        assert "/edit" not in client.get(f"/items/{shared[0]}").text
        for got in (
            client.get(f"/items/{shared[0]}/edit"),
            client.post(f"/items/{shared[0]}/edit", data={"csrf": new_csrf(client), "content": "x"}),
        ):
            assert got.status_code == 403 and "not yours to correct" in got.text
    assert [m["id"] for m in recalled(service, token, "Sami tram bus")] == [plain["id"]]


def test_a_bad_correction_reshows_the_form_and_writes_nothing(service: RunningService) -> None:
    token = service.token("acme", "tove")
    first = remember(
        service, token, "Tove's dentist is on Elm Street", about_kind="place", about_key="dentist"
    )
    path = f"/items/{first['id']}/edit"
    with browser(service, token) as client:
        csrf = csrf_of(client.get(path).text)
        for fields, says in (
            ({"content": "Tove's dentist moved to Oak Street", "title": "t" * 513}, "title"),
            ({"content": ""}, "content"),
            ({"content": "Tove's dentist moved", "type": "no-such-type"}, "type"),
        ):
            got = client.post(path, data={"csrf": csrf, **fields})
            assert got.status_code == 400, got.text[-400:]
            assert says in got.text and "place: dentist" in got.text
            assert f">{fields['content']}</textarea>".replace("'", "&#x27;") in got.text
        assert "History: 1 version<" in client.get(path.removesuffix("/edit")).text
    assert [m["id"] for m in recalled(service, token, "Tove dentist street")] == [first["id"]]


def test_a_text_areas_line_breaks_are_stored_as_typed(service: RunningService) -> None:
    """A browser posts a text area's line breaks as CR LF: the same text saved again is no new version,
    and a corrected one is stored with plain line breaks."""
    token = service.token("acme", "uma")
    first = remember(service, token, "Uma's plants:\nfern\ncactus", about_kind="list", about_key="plants")
    path = f"/items/{first['id']}/edit"
    with browser(service, token) as client:
        csrf = csrf_of(client.get(path).text)
        posted = client.post(path, data={"csrf": csrf, "content": "Uma's plants:\r\nfern\r\ncactus"})
        assert item_id(posted) == first["id"]
        assert "History: 1 version<" in client.get(f"/items/{first['id']}").text
        posted = client.post(path, data={"csrf": csrf, "content": "Uma's plants:\r\nfern\r\nrose"})
        new = item_id(posted)
    assert opened(service, token, new)["content"] == "Uma's plants:\nfern\nrose"


def test_a_correction_of_the_fields_alone_is_a_new_version(service: RunningService) -> None:
    token = service.token("acme", "wim")
    first = remember(service, token, "Wim's cat is called Pixel", about_kind="pet", about_key="cat")
    path = f"/items/{first['id']}/edit"
    with browser(service, token) as client:
        csrf = csrf_of(client.get(path).text)
        same = {"csrf": csrf, "content": "Wim's cat is called Pixel"}
        assert item_id(client.post(path, data=same)) == first["id"], "saving it unchanged adds nothing"
        new = item_id(client.post(path, data={**same, "title": "The cat", "type": "general"}))
        assert new != first["id"]
        page = client.get(f"/items/{new}")
        assert "History: 2 versions" in page.text and "<dd>The cat</dd>" in page.text
