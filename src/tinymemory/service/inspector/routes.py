"""The inspector's routes: sign-in, the tier browser, search, an item with its history, and forget.

Everything a page shows is computed from the verified caller: the `tier` parameter can only choose among
the caller's own tiers, and search and forget go through the caller's memory__ tools, so the inspector
sees and changes exactly what the caller's agents could. Errors are pages, never JSON or a traceback.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import datetime

from fastapi import APIRouter, Request, Response
from fastapi.responses import HTMLResponse, RedirectResponse, StreamingResponse

from tinymemory.api import InvalidRequest, Reach, TinyMemoryError, Unavailable, parse_rfc3339
from tinymemory.policy import MEMORY_FORGET, MEMORY_RECALL, Tier, Tiers
from tinymemory.service import deps
from tinymemory.service.errors import Unauthorized, status_of
from tinymemory.service.inspector import consent_pages, history, pages
from tinymemory.service.inspector.markup import Html
from tinymemory.service.inspector.session import (
    MAX_COOKIE_TOKEN_CHARS,
    CsrfKey,
    Session,
    clear_session,
    form,
    form_lists,
    same_origin,
    set_session,
    signed_in,
)

router = APIRouter(include_in_schema=False)
SEARCH_LIMIT = 20
MAX_BULK = 100  # ids one bulk forget may name
NOTICES = {"forgotten": "Forgotten: the memory and all its versions are gone from recall."}
SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; object-src 'none'; "
        "base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "same-origin",  # a same-site form post keeps its Origin; no id leaves the site
    "Cache-Control": "no-store",
}

Page = Callable[[Request, Session], Awaitable[Response]]


def page(content: Html, status: int = 200) -> HTMLResponse:
    return HTMLResponse(content, status_code=status, headers=SECURITY_HEADERS)


def redirect(to: str) -> RedirectResponse:
    return RedirectResponse(to, status_code=303, headers=SECURITY_HEADERS)


def csrf_key(request: Request) -> CsrfKey:
    key: CsrfKey = request.app.state.inspector_csrf
    return key


def signed_out(request: Request, message: str, status: int = 401) -> HTMLResponse:
    """The sign-in form with `message`, and the cookie cleared (its token no longer verifies)."""
    response = page(pages.signin(message), status)
    clear_session(response, request)
    return response


def problem(session: Session, exc: TinyMemoryError) -> HTMLResponse:
    status = status_of(exc)
    title = {400: "Bad request", 403: "Not allowed", 413: "Too large"}.get(status, "Cannot do that")
    return page(pages.problem(title, exc.message, pages.nav(session.caller)), status)


STALE_FORM = "This form is out of date or came from another site; reload and retry."


def refused_post(request: Request, session: Session, csrf: str | None) -> HTMLResponse | None:
    """The 403 page unless the post came from this site with the session's CSRF token: the one check
    every form that changes something goes through."""
    if same_origin(request) and csrf_key(request).verify(session, csrf):
        return None
    return page(pages.problem("Not allowed", STALE_FORM, pages.nav(session.caller)), 403)


def not_found(session: Session) -> HTMLResponse:
    return page(pages.not_found(pages.nav(session.caller)), 404)


async def guarded(request: Request, handler: Page, *, anonymous: Response | None = None) -> Response:
    """Run `handler` for a signed-in user: sign-in otherwise (the form on `/`, a redirect elsewhere),
    a page explaining an API key, and every contract error as a page with its status."""
    try:
        session = signed_in(request)
    except Unauthorized as exc:
        return signed_out(request, f"You were signed out: {exc.message}.")
    except Unavailable as exc:  # the service cannot check any token now (its token file is unusable)
        return page(pages.problem("Cannot check your sign-in", exc.message), status_of(exc))
    if session is None:
        return anonymous if anonymous is not None else redirect("/")
    if not session.caller.is_user:
        return page(pages.no_user(session.caller), 403)
    try:
        return await handler(request, session)
    except TinyMemoryError as exc:
        return problem(session, exc)


def chosen_tier(request: Request, tiers: Tiers) -> Tier:
    """The `tier` parameter, which may only name one of the caller's own tiers (the nearest without)."""
    present = tiers.present()
    given = request.query_params.get("tier")
    if given is None or given == "":
        return present[0]
    for tier in present:
        if tier.value == given:
            return tier
    have = ", ".join(t.value for t in present)
    raise InvalidRequest(f"inspector: `tier` must be one of your tiers ({have})")


@router.get("/")
async def home(request: Request) -> Response:
    async def run(request: Request, session: Session) -> Response:
        state = deps.service(request)
        tiers = session.caller.identity().tiers
        tier = chosen_tier(request, tiers)
        filters = history.filters_of(request.query_params)
        reach = tiers.reach_of((tier,))
        listed = await history.listed(
            state.engine, reach, filters, request.query_params.get("cursor") or None
        )
        counts = await history.counts(state.engine, tiers)
        notice = NOTICES.get(request.query_params.get("notice", ""))
        csrf = csrf_key(request).token_for(session)
        body = pages.home(
            session.caller, tiers, counts, tier, filters, listed.items, listed.next_cursor, notice, csrf
        )
        return page(body)

    return await guarded(request, run, anonymous=page(pages.signin()))


def per_agent(request: Request) -> bool:
    """Whether a list or an export is the per-agent view (`/agents`, or `view=agents` on an export)."""
    return request.url.path == "/agents" or request.query_params.get("view") == "agents"


def visible_reach(request: Request, tiers: Tiers) -> Reach:
    """What a list or an export covers: the per-agent memory, else the chosen tier."""
    if per_agent(request):
        reach = history.agents_reach(tiers, history.agent_param(request.query_params))
        if reach is None:
            raise InvalidRequest("inspector: this token has no per-agent memory")
        return reach
    return tiers.reach_of((chosen_tier(request, tiers),))


@router.get("/agents")
async def agents(request: Request) -> Response:
    async def run(request: Request, session: Session) -> Response:
        tiers = session.caller.identity().tiers
        filters = history.filters_of(request.query_params)
        reach = visible_reach(request, tiers)
        cursor = request.query_params.get("cursor") or None
        listed = await history.listed(deps.service(request).engine, reach, filters, cursor, per_agent=True)
        csrf = csrf_key(request).token_for(session)
        agent = history.agent_param(request.query_params)
        return page(
            pages.agents(session.caller, tiers, agent, filters, listed.items, listed.next_cursor, csrf)
        )

    return await guarded(request, run)


@router.get("/export")
async def export(request: Request) -> Response:
    """The memories the list page shows under its filters, one JSON object a line, read a page at a
    time so a large tier never becomes one string."""

    async def run(request: Request, session: Session) -> Response:
        tiers = session.caller.identity().tiers
        filters = history.filters_of(request.query_params)
        reach = visible_reach(request, tiers)
        agents = per_agent(request)
        engine = deps.service(request).engine

        async def lines() -> AsyncIterator[bytes]:
            async for item in history.every(engine, reach, filters, per_agent=agents):
                yield (json.dumps(history.exported(item, tiers), ensure_ascii=False) + "\n").encode()

        headers = {**SECURITY_HEADERS, "Content-Disposition": 'attachment; filename="memories.jsonl"'}
        return StreamingResponse(lines(), media_type="application/x-ndjson", headers=headers)

    return await guarded(request, run)


@router.post("/forget")
async def forget_many(request: Request) -> Response:
    """Forget each selected id through memory__forget as the caller; the page lists what was refused."""

    async def run(request: Request, session: Session) -> Response:
        fields = await form_lists(request, "forget", MAX_BULK + 1)
        stale = refused_post(request, session, next(iter(fields.get("csrf", [])), None))
        if stale is not None:
            return stale
        ids = list(dict.fromkeys(fields.get("id", [])))
        if not ids:
            raise InvalidRequest("inspector: `id` must name at least one memory to forget")
        tools = await deps.service(request).policy_tools(session.caller)
        forgotten: list[str] = []
        refused: list[tuple[str, str]] = []
        for memory_id in ids:
            try:
                result = await tools.call(MEMORY_FORGET, {"memory_id": memory_id})
            except InvalidRequest:
                refused.append((memory_id, pages.NOT_FOUND_MESSAGE))
                continue
            status = result.get("status")
            if status == "forgotten":
                forgotten.append(memory_id)
            elif status == "not_allowed":
                refused.append((memory_id, str(result.get("message", "not yours to forget"))))
            else:
                refused.append((memory_id, pages.NOT_FOUND_MESSAGE))
        return page(pages.forgot(session.caller, forgotten, refused))

    return await guarded(request, run)


@router.get("/search")
async def search(request: Request) -> Response:
    async def run(request: Request, session: Session) -> Response:
        q = request.query_params.get("q", "").strip()
        found = []
        if q:
            tools = await deps.service(request).policy_tools(session.caller)
            # explain: each memory's signals, for the page's relevance cut and its why details
            result = await tools.call(MEMORY_RECALL, {"query": q, "limit": SEARCH_LIMIT, "explain": True})
            found = result["memories"]
        return page(pages.search(session.caller, q, found))

    return await guarded(request, run)


def as_of_of(request: Request) -> datetime | None:
    given = request.query_params.get("as_of")
    if given is None or not given.strip():
        return None
    return parse_rfc3339(given.strip(), field="as_of", op="inspector")


@router.get("/items/{memory_id}")
async def item(request: Request, memory_id: str) -> Response:
    async def run(request: Request, session: Session) -> Response:
        as_of = as_of_of(request)
        tiers = session.caller.identity().tiers
        found = await history.versions(deps.service(request).engine, tiers, memory_id)
        if found is None:
            return not_found(session)
        own = tiers.own_reach
        forgettable = own is not None and found.item.namespace in own
        csrf = csrf_key(request).token_for(session)
        state, identity = deps.service(request), session.caller.identity()
        privacy = await consent_pages.privacy_facts(
            state.engine,
            state.policies.effective(identity.workspace),
            identity,
            found.item,
            tiers.tier_of(found.item.namespace),
        )
        return page(pages.item(session.caller, csrf, tiers, found, as_of, forgettable, privacy))

    return await guarded(request, run)


@router.post("/items/{memory_id}/forget")
async def forget(request: Request, memory_id: str) -> Response:
    async def run(request: Request, session: Session) -> Response:
        fields = await form(request, "forget")
        stale = refused_post(request, session, fields.get("csrf"))
        if stale is not None:
            return stale
        tools = await deps.service(request).policy_tools(session.caller)
        try:
            result = await tools.call(MEMORY_FORGET, {"memory_id": memory_id})
        except InvalidRequest:  # a malformed id: the same page as any id the caller cannot see
            return not_found(session)
        status = result.get("status")
        if status == "forgotten":
            return redirect("/?notice=forgotten")
        if status == "not_allowed":
            return page(
                pages.problem("Not yours", str(result.get("message", "")), pages.nav(session.caller)), 403
            )
        return not_found(session)

    return await guarded(request, run)


@router.get("/signin")
async def signin_page(request: Request) -> Response:
    return redirect("/")


@router.post("/signin")
async def signin(request: Request) -> Response:
    try:
        fields = await form(request, "signin")
    except TinyMemoryError as exc:
        return page(pages.signin(exc.message), status_of(exc))
    if not same_origin(request):
        return page(pages.signin("Sign-in must come from this site's own form."), 403)
    token = fields.get("token", "").strip()
    if not token:
        return page(pages.signin("Enter a token."), 401)
    if len(token) > MAX_COOKIE_TOKEN_CHARS:
        return page(pages.signin(f"The token is longer than {MAX_COOKIE_TOKEN_CHARS} characters."), 401)
    try:
        deps.service(request).auth.caller("Bearer " + token)
    except Unauthorized as exc:
        return page(pages.signin(f"Sign-in failed: {exc.message}."), 401)
    except Unavailable as exc:
        return page(pages.signin(f"Sign-in is not possible now: {exc.message}."), status_of(exc))
    response = redirect("/")
    set_session(response, request, token)
    return response


@router.post("/signout")
async def signout(request: Request) -> Response:
    """Clears the cookie. It needs no CSRF token (a forged sign-out only signs a browser out), but a
    cross-site post is still refused."""
    if not same_origin(request):
        return page(pages.problem("Not allowed", "Sign-out must come from this site's own form."), 403)
    response = redirect("/")
    clear_session(response, request)
    return response
