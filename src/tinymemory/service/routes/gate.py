"""/api/v1/gate: the shared-write gate of the caller's workspace, for its admins (an API key or an admin
token): what it holds, what it decided, and a run on demand. The service also runs it in the background
every `gate_seconds`."""

from __future__ import annotations

from fastapi import APIRouter, Request

from tinymemory.policy.gate import gate_status
from tinymemory.service import deps
from tinymemory.service.models import GateRunReport, GateStatus, errors
from tinymemory.service.state import ServiceState

router = APIRouter(prefix="/api/v1/gate", tags=["gate"])


@router.get("", response_model=GateStatus, responses=errors(401, 403))
async def status(request: Request) -> GateStatus:
    """Candidates grouped by fact, distinct sharers against the threshold, expiry, recent decisions."""
    state, caller = deps.service(request), deps.caller(request)
    return await workspace_gate(state, caller.need_institutional("gate status"))


async def workspace_gate(state: ServiceState, workspace: str) -> GateStatus:
    """The gate's status for one workspace, as its admins see it (the API and the inspector)."""
    found = await gate_status(
        state.engine, workspace, state.policies.effective(workspace), state.gate_matcher()
    )
    return GateStatus.model_validate(found)


@router.post("/run", response_model=GateRunReport, responses=errors(401, 403))
async def run(request: Request) -> GateRunReport:
    """Run the gate for this workspace now (idempotent; safe beside the background run)."""
    state, caller = deps.service(request), deps.caller(request)
    workspace = caller.need_institutional("gate run")
    report = await state.gate_job().run(workspace)
    return GateRunReport.model_validate(report.to_dict())
