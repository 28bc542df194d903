"""/api/v1/memory/consent: a verified user's consent by category (seed 003's `category`).

`GET` lists each category the workspace's policy asks consent for, with the caller's current choice;
`POST /grant` records consent to one; `POST /withdraw` records the withdrawal and forgets and purges
every memory of that category the caller owns, with what was derived from it (policy/consent.py). Only
the caller's own record is ever read or written: the identity comes from the token, never the body."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, Request
from pydantic import BaseModel, Field

from tinymemory.policy import consent_status, grant_consent, withdraw_consent
from tinymemory.service import deps
from tinymemory.service.models import Strict, errors
from tinymemory.service.routes.export import no_parameters

router = APIRouter(prefix="/api/v1/memory", tags=["consent"], dependencies=[Depends(deps.bearer)])


class ConsentBody(Strict):
    category: str = Field(max_length=192, description="a consent category, kind:name (e.g. memory:health)")


class ConsentRow(BaseModel):
    category: str
    state: str = Field(description="granted, withdrawn, or none (never chosen)")
    at: str | None = None


class ConsentList(BaseModel):
    categories: list[ConsentRow]


class ConsentChoiceModel(BaseModel):
    category: str
    state: str
    at: str
    erased: dict[str, int] | None = Field(None, description="what a withdrawal erased, in counts")


@router.get(
    "/consent",
    name="consent status",
    operation_id="consent_status",
    response_model=ConsentList,
    responses=errors(400, 401, 403),
)
async def status(request: Request) -> dict[str, Any]:
    """The categories that need consent here, with the caller's current choice for each."""
    state, caller = deps.service(request), deps.memory_caller(request, "consent status")
    no_parameters(request, "consent status")
    identity = caller.identity()
    return await consent_status(state.engine, identity, state.policies.effective(identity.workspace))


async def _choose(request: Request, op: str, grant: bool) -> dict[str, Any]:
    state, caller = deps.service(request), deps.memory_caller(request, op)
    no_parameters(request, op)
    body = await deps.model_body(request, ConsentBody, op)
    identity = caller.identity()
    policy = state.policies.effective(identity.workspace)
    run = grant_consent if grant else withdraw_consent
    return await run(state.engine, identity, policy, body.category)


@router.post(
    "/consent/grant",
    name="consent grant",
    operation_id="consent_grant",
    response_model=ConsentChoiceModel,
    responses=errors(400, 401, 403),
)
async def grant(request: Request) -> dict[str, Any]:
    """Consent to keeping memories of one category the policy asks consent for."""
    return await _choose(request, "consent grant", True)


@router.post(
    "/consent/withdraw",
    name="consent withdraw",
    operation_id="consent_withdraw",
    response_model=ConsentChoiceModel,
    responses=errors(400, 401, 403),
)
async def withdraw(request: Request) -> dict[str, Any]:
    """Withdraw consent: every memory of the category the caller owns is forgotten and purged."""
    return await _choose(request, "consent withdraw", False)
