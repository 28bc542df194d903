"""The inspector's share-gate page, `/gate`, for a workspace's admins.

Who may see it is the rule the gate's API route applies (`Caller.need_institutional`), and what it shows
is what that route answers (`routes.gate.workspace_gate`): every text already scrubbed by
the gate of its sharers and identifiers, sharers only as counts. Anyone else gets the "Not allowed"
page, which says nothing of the gate. Read-only: the API offers no decision of an admin's own.
"""

from __future__ import annotations

from fastapi import APIRouter, Request, Response

from tinymemory.service import deps
from tinymemory.service.errors import Forbidden
from tinymemory.service.inspector import gate_pages, pages
from tinymemory.service.inspector.routes import guarded, page
from tinymemory.service.inspector.session import Session
from tinymemory.service.routes.gate import workspace_gate

router = APIRouter(include_in_schema=False)
NOT_ADMIN = "The share gate is shown to this workspace's admins only: sign in with an admin token."


@router.get("/gate")
async def gate(request: Request) -> Response:
    async def run(request: Request, session: Session) -> Response:
        try:
            workspace = session.caller.need_institutional("the share gate")
        except Forbidden:
            return page(pages.problem("Not allowed", NOT_ADMIN, pages.nav(session.caller)), 403)
        found = await workspace_gate(deps.service(request), workspace)
        return page(gate_pages.gate(session.caller, found))

    return await guarded(request, run)
