"""memory__list: browse the memories of one tier (or all of them), newest first, a page at a time."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tinymemory.api import ListRequest, MetaFilter
from tinymemory.api.validate import fail
from tinymemory.policy import render
from tinymemory.policy.answers import Memories
from tinymemory.policy.arguments import NAME_HINT, Declared, word
from tinymemory.policy.identity import Tier
from tinymemory.policy.policy import NAME_RE
from tinymemory.policy.render import Row
from tinymemory.policy.session import PolicyContext, PolicySession
from tinymemory.tools.args import CURSOR, limit_field
from tinymemory.tools.declaration import Tool
from tinymemory.tools.fields import Integer, Text, Token
from tinymemory.tools.strict import Obj

LIST_SCOPES: tuple[str, ...] = ("all", *Tier.values())
DESCRIPTION = (
    "Browse the memories in this conversation's scope, newest first, optionally of one type, with a "
    "cursor for more."
)
FALLBACK = "Browse memories in the current scope."


@dataclass(frozen=True, slots=True)
class ListArgs(Declared):
    scope: Token
    type: Token
    limit: Integer
    cursor: Text

    @classmethod
    def declare(cls, context: PolicyContext) -> ListArgs:
        policy, enums = context.policy, context.enums
        kinds = policy.type_names() if enums and policy.has_schema else None
        return cls(
            scope=Token(
                name="scope",
                description=(
                    "Whose memories: all (default), user (the user's own), user_for_agent (the user's, "
                    "kept with this agent), agent (shared by every user of this agent) or institutional "
                    "(the whole workspace's)."
                ),
                what="a scope",
                choices=LIST_SCOPES if enums else None,
                pattern=NAME_RE,
                pattern_hint=NAME_HINT,
            ),
            type=word("a memory type", kinds, name="type", description="Only memories of this type."),
            limit=limit_field("memories"),
            cursor=CURSOR,
        )


async def list_memories(session: PolicySession, a: ListArgs, raw: Obj) -> dict[str, Any]:
    tool = session.tool
    values = a.shape().read(tool, raw)
    scope = values[a.scope] or "all"
    tiers = session.tiers
    if scope == "all":
        reach = tiers.read_reach
    else:
        tier = Tier(scope)
        if tiers.namespace(tier) is None:
            have = ", ".join(["all", *(t.value for t in tiers.present())])
            raise fail(tool, a.scope.name, f"`{scope}` is not a tier of this conversation (one of: {have})")
        reach = tiers.reach_of((tier,))
    kind = values[a.type]
    flt = MetaFilter(reach=reach, learning_kinds=(kind,) if kind else ())
    listed = await session.engine.list(
        ListRequest(filter=flt, limit=values.must(a.limit), cursor=values[a.cursor])
    )
    shell: dict[str, Any] = {"memories": []}  # the memories first, then next_cursor
    if listed.next_cursor is not None:
        shell["next_cursor"] = listed.next_cursor
    return render.memories(
        [Row(item) for item in listed.items],
        tiers,
        previews=session.previews,
        threshold=session.policy.inline_threshold_bytes,
        bounds=session.bounds,
        shell=shell,
    )


TOOL: Tool[PolicyContext, PolicySession, ListArgs] = Tool(
    name="memory__list",
    description=lambda context: FALLBACK if context.fallback else DESCRIPTION,
    arguments=ListArgs.declare,
    handler=list_memories,
    result=Memories,
    answers="A page of memories, newest first; next_cursor when there are more.",
    writes=False,
    route="/list",
)
