"""The inspector over HTTP: sign-in, the pages, tenant isolation, CSRF and bad input, against a real
service (uvicorn, SQLite). Every page is HTML; no input gives a 5xx or another user's memory."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import pytest

from .conftest import RunningService

COOKIE = "tinymemory_inspector"
FORM = {"Content-Type": "application/x-www-form-urlencoded"}


@contextmanager
def browser(service: RunningService, token: str | None = None) -> Iterator[httpx.Client]:
    """A client that carries only the inspector cookie (no Authorization header), like a browser."""
    with httpx.Client(base_url=service.url, timeout=30, follow_redirects=False) as client:
        if token is not None:
            signed = client.post("/signin", data={"token": token})
            assert signed.status_code == 303, signed.text
            assert client.cookies.get(COOKIE) == token
        yield client


def remember(service: RunningService, token: str, content: str, **extra: Any) -> dict[str, Any]:
    with service.client(token) as api:
        got = api.post("/api/v1/memory/remember", json={"content": content, **extra})
    assert got.status_code == 200, got.text
    out: dict[str, Any] = got.json()
    return out


def csrf_of(page: str) -> str:
    found = re.search(r'name="csrf" value="([0-9a-f]{64})"', page)
    assert found is not None, "the page carries no CSRF token"
    return found.group(1)


def opened(service: RunningService, token: str, memory_id: str) -> dict[str, Any]:
    with service.client(token) as api:
        got = api.post("/api/v1/memory/open", json={"memory_id": memory_id})
    assert got.status_code == 200, got.text
    out: dict[str, Any] = got.json()
    return out


@pytest.fixture(scope="module")
def alice(service: RunningService) -> str:
    return service.token("acme", "alice")


@pytest.fixture(scope="module")
def bob(service: RunningService) -> str:
    return service.token("acme", "bob")


@pytest.fixture(scope="module")
def alices_secret(service: RunningService, alice: str) -> str:
    return str(remember(service, alice, "Alice's locker code is zanzibar-4711")["id"])


@pytest.fixture(scope="module")
def bobs_note(service: RunningService, bob: str) -> str:
    return str(remember(service, bob, "Bob waters the ferns on Mondays")["id"])


@pytest.fixture
def as_alice(service: RunningService, alice: str) -> Iterator[httpx.Client]:
    with browser(service, alice) as client:
        yield client


@pytest.fixture
def as_bob(service: RunningService, bob: str) -> Iterator[httpx.Client]:
    with browser(service, bob) as client:
        yield client


# -- sign-in -----------------------------------------------------------------------------------------------


def test_signed_out_home_is_the_sign_in_form_with_a_strict_policy(service: RunningService) -> None:
    with browser(service) as client:
        got = client.get("/")
    assert got.status_code == 200
    assert got.headers["content-type"].startswith("text/html")
    assert '<form method="post" action="/signin">' in got.text
    csp = got.headers["content-security-policy"]
    assert "default-src 'self'" in csp and "script-src 'self'" in csp and "frame-ancestors 'none'" in csp
    scripts = re.findall(r"<script[^>]*>", got.text)
    assert scripts and all(" src=" in s for s in scripts), "no inline script"
    assert "http://" not in got.text and "https://" not in got.text, "nothing is fetched from elsewhere"


def test_bundled_static_files_are_served(service: RunningService) -> None:
    with browser(service) as client:
        js = client.get("/inspector/static/inspector.js")
        css = client.get("/inspector/static/inspector.css")
        missing = client.get("/inspector/static/..%2Fpages.py")
    assert js.status_code == 200 and "confirm" in js.text
    assert js.headers["content-type"].startswith("text/javascript")
    assert css.status_code == 200 and css.headers["content-type"].startswith("text/css")
    assert missing.status_code == 404


def test_good_token_sets_an_httponly_strict_cookie(service: RunningService, alice: str) -> None:
    with browser(service) as client:
        got = client.post("/signin", data={"token": alice})
        assert got.status_code == 303 and got.headers["location"] == "/"
        cookie = got.headers["set-cookie"].lower()
        assert cookie.startswith(f"{COOKIE}=")
        assert "httponly" in cookie and "samesite=strict" in cookie and "path=/" in cookie
        home = client.get("/")
    assert home.status_code == 200
    assert "alice@acme" in home.text and 'action="/signout"' in home.text


@pytest.mark.parametrize(
    ("token", "says"),
    [
        ("not-a-token", "not known"),
        ("a.b.c", "not a well-formed JWT"),
        ("", "Enter a token"),
    ],
)
def test_bad_token_rerenders_the_form_with_401(service: RunningService, token: str, says: str) -> None:
    with browser(service) as client:
        got = client.post("/signin", data={"token": token})
    assert got.status_code == 401
    assert says in got.text and 'action="/signin"' in got.text
    assert "set-cookie" not in got.headers


def test_wrong_signature_and_expired_tokens_are_refused(
    service: RunningService, alice: str, expired_token: Callable[[], str]
) -> None:
    head, body, sig = alice.split(".")
    forged = f"{head}.{body}.{sig[:-4]}AAAA"
    with browser(service) as client:
        bad_sig = client.post("/signin", data={"token": forged})
        expired = client.post("/signin", data={"token": expired_token()})
    assert bad_sig.status_code == 401 and "signature" in bad_sig.text
    assert expired.status_code == 401 and "expired" in expired.text


def test_a_cookie_whose_token_expired_signs_the_browser_out(
    service: RunningService, expired_token: Callable[[], str]
) -> None:
    with browser(service) as client:
        client.cookies.set(COOKIE, expired_token())
        got = client.get("/")
    assert got.status_code == 401
    assert "signed out" in got.text and "expired" in got.text
    assert f'{COOKIE}=""' in got.headers["set-cookie"] or "max-age=0" in got.headers["set-cookie"].lower()


def test_sign_out_clears_the_cookie(service: RunningService, as_alice: httpx.Client) -> None:
    got = as_alice.post("/signout")
    assert got.status_code == 303
    assert as_alice.cookies.get(COOKIE) is None
    assert 'action="/signin"' in as_alice.get("/").text


def test_pages_need_sign_in(service: RunningService, alice: str, alices_secret: str) -> None:
    with browser(service) as client:
        for path in ("/search?q=locker", f"/items/{alices_secret}", "/?tier=user"):
            got = client.get(path)
            if path.startswith("/?"):
                assert got.status_code == 200 and 'action="/signin"' in got.text
            else:
                assert got.status_code == 303 and got.headers["location"] == "/", path
        forged = client.post(f"/items/{alices_secret}/forget", data={"csrf": "0" * 64})
    assert forged.status_code == 303
    assert opened(service, alice, alices_secret)["status"] == "opened"


def test_the_api_never_accepts_the_cookie(service: RunningService, alice: str) -> None:
    with browser(service, alice) as client:
        got = client.post("/api/v1/memory/recall", json={"query": "locker"})
    assert got.status_code == 401


def test_an_api_key_sees_a_page_saying_it_names_no_user(service: RunningService) -> None:
    with browser(service, service.token("acme", None)) as client:
        home = client.get("/")
        search = client.get("/search?q=locker")
    assert home.status_code == 403 and "names no user" in home.text
    assert search.status_code == 403 and "zanzibar" not in search.text


# -- pages -------------------------------------------------------------------------------------------------


def test_home_lists_the_callers_tiers_and_newest_items(
    service: RunningService, as_alice: httpx.Client, alices_secret: str
) -> None:
    got = as_alice.get("/")
    assert got.status_code == 200
    assert "zanzibar-4711" in got.text and f"/items/{alices_secret}" in got.text
    assert "/?tier=user" in got.text and "/?tier=institutional" in got.text
    assert "/?tier=agent" not in got.text, "a token without an agent has no agent tier"


def test_home_paginates_with_the_engines_cursor(service: RunningService) -> None:
    token = service.token("acme", "paula")
    for i in range(23):
        remember(service, token, f"Paula's note number {i:02d}")
    with browser(service, token) as client:
        first = client.get("/")
        more = re.search(r'rel="next" href="([^"]+)"', first.text)
        assert more is not None
        second = client.get(more.group(1).replace("&amp;", "&"))
    assert second.status_code == 200
    firsts = set(re.findall(r"note number (\d\d)", first.text))
    seconds = set(re.findall(r"note number (\d\d)", second.text))
    assert len(firsts) == 20 and len(seconds) == 3 and not firsts & seconds


def test_search_reads_through_the_callers_tools(
    service: RunningService, as_alice: httpx.Client, alices_secret: str
) -> None:
    got = as_alice.get("/search", params={"q": "locker code"})
    assert got.status_code == 200
    assert f"/items/{alices_secret}" in got.text
    empty = as_alice.get("/search", params={"q": ""})
    assert empty.status_code == 200 and "Type what to look for" in empty.text


def test_item_page_shows_versions_and_as_of(service: RunningService) -> None:
    token = service.token("acme", "carol")
    first = remember(service, token, "Carol drinks green tea", about_kind="preference", about_key="tea")
    second = remember(service, token, "Carol switched to oolong", about_kind="preference", about_key="tea")
    assert second["supersedes"] == [first["id"]]
    with service.client(token) as api:
        got = api.post("/api/v1/memory/get", json={"ids": [first["id"]]}).json()
    observed_first = got["items"][0]["meta"]["observed_at"]
    with browser(service, token) as client:
        current = client.get(f"/items/{second['id']}")
        old = client.get(f"/items/{first['id']}")
        then = client.get(f"/items/{second['id']}", params={"as_of": observed_first})
        before = client.get(f"/items/{second['id']}", params={"as_of": "2001-01-01T00:00:00Z"})
    for page in (current, old):
        assert page.status_code == 200
        assert "History: 2 versions" in page.text
        assert "green tea" in page.text and "oolong" in page.text
    assert "A newer version replaced this one" in old.text
    assert "A newer version replaced this one" not in current.text
    assert f'the active version was <a href="/items/{first["id"]}">' in then.text
    assert '<li class="active"><a href="/items/' + first["id"] in then.text
    assert "No version was active" in before.text


def test_item_page_shows_citations_and_escapes_content(service: RunningService) -> None:
    token = service.token("acme", "dave")
    cited = remember(service, token, "Dave said the demo is on Friday")["id"]
    with service.client(token) as api:
        stored = api.post(
            "/api/v1/memory/store",
            json={
                "learning": {"text": "<script>alert('x')</script> demo day", "evidence": [cited, "a quote"]}
            },
        )
    assert stored.status_code == 200, stored.text
    with browser(service, token) as client:
        got = client.get(f"/items/{stored.json()['id']}")
    assert got.status_code == 200
    assert "<script>alert" not in got.text
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;" in got.text
    assert f'<a href="/items/{cited}">' in got.text and "<q>a quote</q>" in got.text


# -- isolation ---------------------------------------------------------------------------------------------


def test_bob_cannot_open_alices_item_and_learns_nothing(
    service: RunningService, as_bob: httpx.Client, alices_secret: str
) -> None:
    theirs = as_bob.get(f"/items/{alices_secret}")
    unknown = as_bob.get("/items/m_" + "0" * 24)
    malformed = as_bob.get("/items/%00%3Cscript%3E")
    assert theirs.status_code == unknown.status_code == malformed.status_code == 404
    assert theirs.text == unknown.text == malformed.text
    assert "zanzibar" not in theirs.text
    searched = as_bob.get("/search", params={"q": "Alice locker code"})
    assert searched.status_code == 200 and "No memory matches" in searched.text
    assert "zanzibar" not in searched.text
    assert "zanzibar" not in as_bob.get("/").text


def test_bob_cannot_forget_alices_item(
    service: RunningService, alice: str, as_bob: httpx.Client, alices_secret: str, bobs_note: str
) -> None:
    csrf = csrf_of(as_bob.get(f"/items/{bobs_note}").text)
    got = as_bob.post(f"/items/{alices_secret}/forget", data={"csrf": csrf})
    malformed = as_bob.post("/items/" + "m" * 5000 + "/forget", data={"csrf": csrf})
    assert got.status_code == malformed.status_code == 404
    assert got.text == malformed.text == as_bob.get("/items/m_" + "0" * 24).text
    assert opened(service, alice, alices_secret)["status"] == "opened"


@pytest.mark.parametrize("tier", ["agent", "user_for_agent", "workspace:acme/user:alice", "alice", "USER"])
def test_a_tier_that_is_not_the_callers_is_400(
    service: RunningService, as_bob: httpx.Client, alices_secret: str, tier: str
) -> None:
    got = as_bob.get("/", params={"tier": tier})
    assert got.status_code == 400
    assert "must be one of your tiers (user, institutional)" in got.text
    assert "zanzibar" not in got.text


def test_the_agent_tier_is_offered_to_a_token_naming_an_agent(service: RunningService) -> None:
    with browser(service, service.token("acme", "erin", "helper")) as client:
        got = client.get("/", params={"tier": "agent"})
    assert got.status_code == 200
    for tier in ("user_for_agent", "user", "agent", "institutional"):
        assert f"/?tier={tier}" in got.text


# -- forget and CSRF ---------------------------------------------------------------------------------------


def test_forget_needs_the_sessions_csrf_token(service: RunningService, bob: str, bobs_note: str) -> None:
    token = service.token("acme", "frank")
    target = remember(service, token, "Frank's bike is blue")["id"]
    with browser(service, token) as client, browser(service, bob) as other:
        path = f"/items/{target}/forget"
        missing = client.post(path, data={})
        wrong = client.post(path, data={"csrf": "f" * 64})
        bobs = client.post(path, data={"csrf": csrf_of(other.get(f"/items/{bobs_note}").text)})
        csrf = csrf_of(client.get(f"/items/{target}").text)
        cross_site = client.post(path, data={"csrf": csrf}, headers={"Origin": "http://evil.example"})
        for refused in (missing, wrong, bobs, cross_site):
            assert refused.status_code == 403, refused.text
        assert opened(service, token, target)["status"] == "opened"
        done = client.post(path, data={"csrf": csrf})
        assert done.status_code == 303 and done.headers["location"] == "/?notice=forgotten"
        assert "Forgotten" in client.get("/?notice=forgotten").text
        assert client.get(f"/items/{target}").status_code == 404
    assert opened(service, token, target)["status"] == "not_found"


def test_shared_memory_is_not_yours_to_forget(
    service: RunningService, alice: str, alices_secret: str
) -> None:
    with service.client(service.token("acme", None)) as api:
        ingested = api.post(
            "/api/v1/memory/ingest",
            json={"name": "handbook.md", "text": "# Handbook\n\nThe office plant is named quokkaberry."},
        )
    assert ingested.status_code == 200, ingested.text
    with browser(service, alice) as client:
        found = client.get("/search", params={"q": "quokkaberry"})
        ids = re.findall(r'href="/items/([^"]+)"', found.text)
        assert ids, found.text
        page = client.get(f"/items/{ids[0]}")
        assert page.status_code == 200 and "not yours to forget" in page.text
        assert "/forget" not in page.text
        refused = client.post(
            f"/items/{ids[0]}/forget", data={"csrf": csrf_of(client.get(f"/items/{alices_secret}").text)}
        )
        assert refused.status_code == 403 and "only your own can be forgotten" in refused.text
        assert client.get(f"/items/{ids[0]}").status_code == 200


# -- bad input ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "status", "says"),
    [
        ("/items/" + "m" * 5000, 404, "No memory with this id"),
        ("/items/%E2%80%AE%FF", 404, "No memory with this id"),
        ("/items/m_x?as_of=yesterday", 400, "as_of"),
        ("/?cursor=not-a-cursor", 400, "cursor"),
        ("/search?q=" + "x" * 10_001, 400, "10000"),
    ],
)
def test_bad_input_is_a_clean_html_4xx(
    service: RunningService, as_alice: httpx.Client, path: str, status: int, says: str
) -> None:
    got = as_alice.get(path)
    assert got.status_code == status, got.text[-400:]
    assert got.headers["content-type"].startswith("text/html")
    assert says in got.text
    assert "Traceback" not in got.text


def test_a_huge_query_string_is_refused_without_a_5xx(
    service: RunningService, as_alice: httpx.Client
) -> None:
    """Past the HTTP server's request-line limit the server itself refuses (a 4xx, or it closes the
    connection while the request is still being sent); it never reaches a page or answers 5xx."""
    try:
        got = as_alice.get("/search?q=" + "y" * 60_000)
    except (httpx.ReadError, httpx.RemoteProtocolError, httpx.WriteError):
        return
    assert 400 <= got.status_code < 500


@pytest.mark.parametrize(
    ("body", "headers", "status", "says"),
    [
        ('{"token": "x"}', {"Content-Type": "application/json"}, 400, "must be a form"),
        ("token=%FF%FE", FORM, 400, "not valid URL-encoded"),
        ("&".join(f"f{i}=1" for i in range(50)), FORM, 400, "not valid URL-encoded"),
        ("token=" + "a" * 300_000, FORM, 413, "larger than"),
        ("token=" + "a" * 5000, FORM, 401, "longer than"),
    ],
)
def test_bad_sign_in_bodies_are_clean_4xx(
    service: RunningService, body: str, headers: dict[str, str], status: int, says: str
) -> None:
    with browser(service) as client:
        got = client.post("/signin", content=body, headers=headers)
    assert got.status_code == status, got.text[-400:]
    assert says in got.text and got.headers["content-type"].startswith("text/html")


def test_sign_in_from_another_site_is_refused(service: RunningService, alice: str) -> None:
    with browser(service) as client:
        got = client.post("/signin", data={"token": alice}, headers={"Origin": "http://evil.example"})
    assert got.status_code == 403 and "set-cookie" not in got.headers
