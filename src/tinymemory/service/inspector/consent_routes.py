"""The inspector's privacy page, `/consent`, and its forms: give or withdraw consent, download the
export, forget me. Every form is checked as the inspector checks every post (`routes.refused_post`),
and each action is the API's own (`policy.consent`, `policy.user_export`, `routes.forget_me`), run for
the signed-in user only."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

from fastapi import APIRouter, Request, Response
from fastapi.responses import StreamingResponse

from tinymemory.api import InvalidRequest
from tinymemory.policy import consent_status, export_user, grant_consent, withdraw_consent
from tinymemory.service import deps
from tinymemory.service.inspector import consent_pages
from tinymemory.service.inspector.routes import (
    SECURITY_HEADERS,
    csrf_key,
    guarded,
    page,
    redirect,
    refused_post,
)
from tinymemory.service.inspector.session import Session, form
from tinymemory.service.routes.forget_me import forget_everything

router = APIRouter(include_in_schema=False)
NOTICES = {
    "granted": "Consent given.",
    "withdrawn": "Consent withdrawn: every memory of that category you owned is forgotten.",
    "forgotten": "Everything you owned is forgotten.",
}


@router.get("/consent")
async def consent(request: Request) -> Response:
    async def run(request: Request, session: Session) -> Response:
        state, identity = deps.service(request), session.caller.need_user("privacy")
        status = await consent_status(state.engine, identity, state.policies.effective(identity.workspace))
        notice = NOTICES.get(request.query_params.get("notice", ""))
        csrf = csrf_key(request).token_for(session)
        return page(consent_pages.consent(session.caller, status, csrf, notice))

    return await guarded(request, run)


def _choice(grant: bool) -> object:
    async def handler(request: Request) -> Response:
        async def run(request: Request, session: Session) -> Response:
            fields = await form(request, "consent")
            stale = refused_post(request, session, fields.get("csrf"))
            if stale is not None:
                return stale
            state, identity = deps.service(request), session.caller.need_user("consent")
            policy = state.policies.effective(identity.workspace)
            choose = grant_consent if grant else withdraw_consent
            await choose(state.engine, identity, policy, fields.get("category"))
            return redirect("/consent?notice=" + ("granted" if grant else "withdrawn"))

        return await guarded(request, run)

    return handler


router.add_api_route("/consent/grant", _choice(True), methods=["POST"])  # type: ignore[arg-type]
router.add_api_route("/consent/withdraw", _choice(False), methods=["POST"])  # type: ignore[arg-type]


@router.get("/consent/export")
async def export(request: Request) -> Response:
    """Everything held about the signed-in user, one JSON object a line (the API's export)."""

    async def run(request: Request, session: Session) -> Response:
        records = export_user(deps.service(request).engine, session.caller.need_user("export"))

        async def lines() -> AsyncIterator[bytes]:
            async for record in records:
                yield (json.dumps(record, ensure_ascii=False, sort_keys=True) + "\n").encode()

        headers = {
            **SECURITY_HEADERS,
            "Content-Disposition": 'attachment; filename="tinymemory-export.jsonl"',
        }
        return StreamingResponse(lines(), media_type="application/x-ndjson", headers=headers)

    return await guarded(request, run)


@router.post("/consent/forget-me")
async def forget_me(request: Request) -> Response:
    async def run(request: Request, session: Session) -> Response:
        fields = await form(request, "forget me")
        stale = refused_post(request, session, fields.get("csrf"))
        if stale is not None:
            return stale
        if fields.get("confirm") != "true":
            raise InvalidRequest("forget me: `confirm` must be true to erase everything you own")
        await forget_everything(request, session.caller.need_user("forget me"))
        return redirect("/consent?notice=forgotten")

    return await guarded(request, run)
