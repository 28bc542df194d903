"""memory__forget: forget one of the user's own memories entirely, with its earlier versions (a soft
delete), and withdraw any share of it still waiting at the gate."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from tinymemory.api import ForgetRequest
from tinymemory.policy import render
from tinymemory.policy.answers import NotFoundResult
from tinymemory.policy.arguments import IdArgs
from tinymemory.policy.gate.queue import withdraw
from tinymemory.policy.session import PolicyContext, PolicySession, earlier_versions
from tinymemory.tools.answers import Answer
from tinymemory.tools.declaration import Tool
from tinymemory.tools.strict import Obj

DESCRIPTION = (
    "Forget one of the user's own memories entirely, with its earlier versions (a soft delete): it is no "
    "longer recalled, listed or opened. It is not the way to correct a fact: remember the fact again with "
    "the same about_kind and about_key instead."
)
FALLBACK = "Forget a memory by id (a soft delete). Not the way to correct a fact."
NOT_OWN_MESSAGE = (
    "this memory is shared with other users (agent or institutional tier); only your own can be forgotten"
)
ARGUMENTS = IdArgs.declare("The id of the memory to forget, from a memory__recall or memory__list result.")


class NotAllowed(Answer):
    status: Literal["not_allowed"]
    id: str
    message: str


class Forgotten(Answer):
    status: Literal["forgotten"]
    id: str
    versions: int = Field(description="how many versions of the memory were forgotten")


ForgetResult = Annotated[Forgotten | NotFoundResult | NotAllowed, Field(discriminator="status")]


async def forget(session: PolicySession, a: IdArgs, raw: Obj) -> dict[str, Any]:
    """Soft-delete the memory and its earlier versions, only in the user's own tiers."""
    memory_id = a.shape().read(session.tool, raw).must(a.memory_id)
    current = await session.current(memory_id)
    if current is None:
        return render.not_found(memory_id)
    tiers = session.tiers
    own = tiers.own_reach
    if own is None or current.namespace not in own:
        return {"status": "not_allowed", "id": current.id, "message": NOT_OWN_MESSAGE}
    chain = [current, *await earlier_versions(session.engine, current, own)]
    versions = [v.id for v in chain]
    texts = [v.text for v in chain]
    result = await session.engine.forget(ForgetRequest(ids=tuple(versions), reach=own))
    await withdraw(session.engine, session.identity, texts)
    return {
        "status": "forgotten",
        "id": current.id,
        "versions": len([v for v in versions if v in result.forgotten]),
    }


TOOL: Tool[PolicyContext, PolicySession, IdArgs] = Tool(
    name="memory__forget",
    description=lambda context: FALLBACK if context.fallback else DESCRIPTION,
    arguments=lambda _context: ARGUMENTS,
    handler=forget,
    result=ForgetResult,
    answers="Forgotten, not_found, or not_allowed (a shared memory).",
    writes=True,
    route="/forget",
)
