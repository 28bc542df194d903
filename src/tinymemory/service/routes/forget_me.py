"""POST /api/v1/memory/forget-me: erase everything the verified caller owns (policy/erasure.py
`forget_me`): every tier of theirs, their shares at the gate, their evidence in published facts (a fact
stays only while enough other sharers back it) and their consent record, forgotten and purged. One
record that it happened is kept, without content. The body must say `{"confirm": true}`: the call
cannot be undone."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, Request
from pydantic import Field

from tinymemory.api import InvalidRequest
from tinymemory.policy import Identity
from tinymemory.policy import forget_me as erase_everything
from tinymemory.service import deps
from tinymemory.service.models import Strict, errors
from tinymemory.service.routes.export import no_parameters

router = APIRouter(prefix="/api/v1/memory", tags=["forget me"], dependencies=[Depends(deps.bearer)])
OP = "forget-me"


class ForgetMeBody(Strict):
    confirm: bool = Field(description="must be true: everything the caller owns is erased for good")


async def forget_everything(request: Request, identity: Identity) -> dict[str, Any]:
    """Run "forget me" for `identity` under its workspace's policy (the route and the inspector)."""
    state = deps.service(request)
    report = await erase_everything(state.engine, identity, state.policies.effective(identity.workspace))
    return {"status": "forgotten", **report.to_dict()}


@router.post("/forget-me", name=OP, operation_id="forget_me", responses=errors(400, 401, 403))
async def forget_me(request: Request) -> dict[str, Any]:
    """Erase everything the caller owns, for good, and record only that it happened."""
    caller = deps.memory_caller(request, OP)
    no_parameters(request, OP)
    body = await deps.model_body(request, ForgetMeBody, OP)
    if not body.confirm:
        raise InvalidRequest(f"{OP}: `confirm` must be true to erase everything you own")
    return await forget_everything(request, caller.identity())
