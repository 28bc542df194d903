"""The inspector's add and correct routes: `/new` and `/items/{id}/edit`, both through memory__remember.

Writes go through the caller's own policy tools, so a form can store exactly what the caller's agents
could, in the tier they write to, with the types that tier accepts. A correction passes the item's own
subject (about kind and key) to memory__remember, which makes the engine close the version it replaces;
the public tool needs no new argument for it. Each post is CSRF-signed and same-origin, like forget.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request, Response

from tinymemory.api import InvalidRequest, MemoryItem
from tinymemory.policy import MEMORY_REMEMBER, PolicyTools
from tinymemory.service import deps
from tinymemory.service.errors import status_of
from tinymemory.service.inspector import history
from tinymemory.service.inspector.edit_pages import Choices, Draft, cannot_correct, correct_memory, new_memory
from tinymemory.service.inspector.edit_rule import NOT_YOURS, correction_refusal
from tinymemory.service.inspector.markup import item_url
from tinymemory.service.inspector.routes import csrf_key, guarded, not_found, page, redirect, refused_post
from tinymemory.service.inspector.session import Session, form

router = APIRouter(include_in_schema=False)


def choices_of(tools: PolicyTools) -> Choices:
    """The tier the caller's remember writes to and the types it accepts there (the policy's rule)."""
    tier = tools.identity.tiers.write_tier
    if tier is None:  # the inspector serves only users, who always have a tier to write to
        raise InvalidRequest("inspector: this sign-in names no user, so there is nowhere to remember")
    policy = tools.policy
    return Choices(tier, policy.writable_types((tier,)), policy.default_type)


def refused(request: Request, session: Session, fields: dict[str, str]) -> Response | None:
    """A 403 page unless the post came from this site with the session's CSRF token."""
    return refused_post(request, session, fields.get("csrf"))


def arguments(draft: Draft, item: MemoryItem | None = None) -> dict[str, Any]:
    """memory__remember's arguments: the filled-in fields (a blank one is not given); for a correction
    the item's subject, confidence and purpose instead of anything posted for them."""
    args: dict[str, Any] = {"content": draft.get("content")}
    names = ("type", "category", "title", "summary") + (("about_kind", "about_key") if item is None else ())
    args.update({name: draft.get(name) for name in names if draft.get(name).strip()})
    if item is not None and item.meta.about is not None:
        args["about_kind"], args["about_key"] = item.meta.about.kind, item.meta.about.key
        if item.confidence is not None:
            args["confidence"] = item.confidence
        if item.meta.purpose:
            args["purpose"] = item.meta.purpose
    return args


@router.get("/new")
async def new_form(request: Request) -> Response:
    async def run(request: Request, session: Session) -> Response:
        tools = await deps.service(request).policy_tools(session.caller)
        csrf = csrf_key(request).token_for(session)
        return page(new_memory(session.caller, csrf, choices_of(tools), Draft.of_form({})))

    return await guarded(request, run)


@router.post("/new")
async def add(request: Request) -> Response:
    async def run(request: Request, session: Session) -> Response:
        fields = await form(request, "inspector new memory")
        refusal = refused(request, session, fields)
        if refusal is not None:
            return refusal
        tools = await deps.service(request).policy_tools(session.caller)
        draft = Draft.of_form(fields)
        try:
            stored = await tools.call(MEMORY_REMEMBER, arguments(draft))
        except InvalidRequest as exc:  # the tool's own message; nothing was written
            csrf = csrf_key(request).token_for(session)
            body = new_memory(session.caller, csrf, choices_of(tools), draft, exc.message)
            return page(body, status_of(exc))
        return redirect(item_url(str(stored["id"])))

    return await guarded(request, run)


async def correctable(request: Request, session: Session, memory_id: str) -> MemoryItem | Response:
    """The item to correct, or the page saying why not: Not found for anything the caller cannot see
    (another user's id looks exactly like an unknown one)."""
    tiers = session.caller.identity().tiers
    found = await history.versions(deps.service(request).engine, tiers, memory_id)
    if found is None:
        return not_found(session)
    reason = correction_refusal(tiers, found.item)
    if reason is None:
        return found.item
    return page(cannot_correct(session.caller, found.item, reason), 403 if reason == NOT_YOURS else 409)


@router.get("/items/{memory_id}/edit")
async def edit_form(request: Request, memory_id: str) -> Response:
    async def run(request: Request, session: Session) -> Response:
        item = await correctable(request, session, memory_id)
        if isinstance(item, Response):
            return item
        tools = await deps.service(request).policy_tools(session.caller)
        csrf = csrf_key(request).token_for(session)
        return page(correct_memory(session.caller, csrf, item, choices_of(tools), Draft.of_item(item)))

    return await guarded(request, run)


@router.post("/items/{memory_id}/edit")
async def correct(request: Request, memory_id: str) -> Response:
    async def run(request: Request, session: Session) -> Response:
        fields = await form(request, "inspector correction")
        refusal = refused(request, session, fields)
        if refusal is not None:
            return refusal
        item = await correctable(request, session, memory_id)
        if isinstance(item, Response):
            return item
        tools = await deps.service(request).policy_tools(session.caller)
        draft = Draft.of_item(item).corrected(fields)
        try:
            stored = await tools.call(MEMORY_REMEMBER, arguments(draft, item))
        except InvalidRequest as exc:  # the tool's own message; nothing was written
            csrf = csrf_key(request).token_for(session)
            body = correct_memory(session.caller, csrf, item, choices_of(tools), draft, exc.message)
            return page(body, status_of(exc))
        return redirect(item_url(str(stored["id"])))

    return await guarded(request, run)
