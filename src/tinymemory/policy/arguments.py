"""The memory__ tools' arguments, declared once per policy: schemas, reading and validation follow.

Enums come from the policy (remember's type: the types a user write accepts; recall's types and kinds:
every declared type; relation_types: the declared relations). Without a policy schema, kinds and
relation types are free words of the name grammar, since institutional ingestion may write types and
relations the built-in schema does not name. `enums=False` gives the fallback's schemas (no enums).
"""

from __future__ import annotations

from dataclasses import dataclass

from tinymemory.api import DEFAULT_LIMIT, MAX_HOPS
from tinymemory.api.relations import MAX_ENTITY_CHARS
from tinymemory.api.validate import MAX_CURSOR_CHARS, MAX_ID_CHARS, MAX_QUERY_CHARS, MAX_TEXT_CHARS
from tinymemory.policy.identity import Tier
from tinymemory.policy.policy import NAME_RE, MemoryPolicy
from tinymemory.tools.args import MAX_LIMIT, MIN_LIMIT
from tinymemory.tools.fields import Boolean, Integer, Number, Shape, Text, Timestamp, Token, TokenList

MEMORY_REMEMBER = "memory__remember"
MEMORY_RECALL = "memory__recall"
MEMORY_OPEN = "memory__open"
MEMORY_LIST = "memory__list"
MEMORY_FORGET = "memory__forget"
POLICY_TOOL_NAMES: tuple[str, ...] = (MEMORY_REMEMBER, MEMORY_RECALL, MEMORY_OPEN, MEMORY_LIST, MEMORY_FORGET)
POLICY_READ_TOOLS: tuple[str, ...] = (MEMORY_RECALL, MEMORY_OPEN, MEMORY_LIST)

MAX_TITLE_CHARS = 512
MAX_CATEGORY_CHARS = 128
MAX_ABOUT_KIND_CHARS = 128
MAX_ABOUT_KEY_CHARS = 512
LIST_SCOPES: tuple[str, ...] = ("all", *Tier.values())
NAME_HINT = "lowercase letters, digits and _, starting with a letter"

SHARE_RULE = (
    "Share only facts useful to every user of the agent, such as a policy, a product detail or a "
    "procedure; never personal facts about the user, their account or their circumstances."
)


def _word(what: str, choices: tuple[str, ...] | None, *, name: str, description: str) -> Token:
    return Token(
        name=name,
        description=description,
        what=what,
        choices=choices,
        pattern=NAME_RE,
        pattern_hint=NAME_HINT,
    )


def _words(what: str, choices: tuple[str, ...] | None, *, name: str, description: str) -> TokenList:
    item = _word(what, choices, name=name, description=description)
    return TokenList(name=name, description=description, item=item, max_items=64)


def _limit() -> Integer:
    return Integer(
        name="limit",
        description=f"How many memories to return, {MIN_LIMIT} to {MAX_LIMIT} (default {DEFAULT_LIMIT}).",
        low=MIN_LIMIT,
        high=MAX_LIMIT,
    )


@dataclass(frozen=True, slots=True)
class RememberArgs:
    content: Text
    type: Token
    confidence: Number
    category: Text
    about_kind: Text
    about_key: Text
    purpose: Text
    title: Text
    summary: Text
    share: Boolean

    @classmethod
    def declare(cls, policy: MemoryPolicy, *, enums: bool = True) -> RememberArgs:
        writable = policy.writable_types()
        return cls(
            content=Text(
                name="content",
                description="The durable observation, stated so that it makes sense on its own.",
                required=True,
                max_chars=MAX_TEXT_CHARS,
            ),
            type=_word(
                "a memory type",
                writable if enums else None,
                name="type",
                description=f"The memory type (default {policy.default_type}).",
            ),
            confidence=Number(
                name="confidence", description="How sure you are, from 0 to 1 (default 0.8).", low=0, high=1
            ),
            category=Text(
                name="category",
                description="Consent category used by retention and consent rules, e.g. memory:health.",
                max_chars=MAX_CATEGORY_CHARS,
            ),
            about_kind=Text(
                name="about_kind",
                description=(
                    "What sort of subject the memory is about, a stable category such as person, project "
                    "or preference. Used with about_key to find the memory again."
                ),
                max_chars=MAX_ABOUT_KIND_CHARS,
            ),
            about_key=Text(
                name="about_key",
                description="The subject's stable identifier within about_kind, for example a name or an id.",
                max_chars=MAX_ABOUT_KEY_CHARS,
            ),
            purpose=Text(name="purpose", description="Why this memory is worth keeping."),
            title=Text(
                name="title", description="A short title, for long content.", max_chars=MAX_TITLE_CHARS
            ),
            summary=Text(name="summary", description="A one-line summary, for long content."),
            share=Boolean(
                name="share",
                description=(
                    "true to also propose this memory as knowledge for every user of the agent; it is "
                    "saved for the user either way. " + SHARE_RULE
                ),
            ),
        )

    def shape(self) -> Shape:
        return Shape(
            (
                self.content,
                self.type,
                self.confidence,
                self.category,
                self.about_kind,
                self.about_key,
                self.purpose,
                self.title,
                self.summary,
                self.share,
            )
        )


@dataclass(frozen=True, slots=True)
class RecallArgs:
    query: Text
    types: TokenList
    kinds: TokenList
    limit: Integer
    min_confidence: Number
    seed_name: Text
    relation_types: TokenList
    max_hops: Integer
    as_of: Timestamp

    @classmethod
    def declare(cls, policy: MemoryPolicy, *, enums: bool = True) -> RecallArgs:
        kinds = policy.type_names() if enums and policy.has_schema else None
        relations = policy.relation_names() if enums and policy.has_relations else None
        return cls(
            query=Text(
                name="query",
                description="What to look for, in natural language.",
                required=True,
                max_chars=MAX_QUERY_CHARS,
            ),
            types=_words("a memory type", kinds, name="types", description="Only memories of these types."),
            kinds=_words(
                "a memory type", kinds, name="kinds", description="Memory types to recall; merged into types."
            ),
            limit=_limit(),
            min_confidence=Number(
                name="min_confidence",
                description="Only memories at least this confident, from 0 to 1.",
                low=0,
                high=1,
            ),
            seed_name=Text(
                name="seed_name",
                description=(
                    "A named entity (a person, a project, a product) to start from: memories that relate "
                    "it to other entities are added to the results."
                ),
                max_chars=MAX_ENTITY_CHARS,
            ),
            relation_types=_words(
                "a relation type",
                relations,
                name="relation_types",
                description="Follow only these relation types from seed_name (default: every type).",
            ),
            max_hops=Integer(
                name="max_hops",
                description=f"How many relations to follow from seed_name, 1 to {MAX_HOPS} (default 1).",
                low=1,
                high=MAX_HOPS,
            ),
            as_of=Timestamp(
                name="as_of",
                description=(
                    "Read memory as it stood at this instant (RFC 3339, e.g. 2024-05-08T13:56:00Z): the "
                    "versions that were active then."
                ),
            ),
        )

    def shape(self) -> Shape:
        return Shape(
            (
                self.query,
                self.types,
                self.kinds,
                self.limit,
                self.min_confidence,
                self.seed_name,
                self.relation_types,
                self.max_hops,
                self.as_of,
            )
        )


@dataclass(frozen=True, slots=True)
class IdArgs:
    """One memory named by its id (memory__open, memory__forget)."""

    memory_id: Text

    @classmethod
    def declare(cls, purpose: str) -> IdArgs:
        return cls(Text(name="memory_id", description=purpose, required=True, max_chars=MAX_ID_CHARS))

    def shape(self) -> Shape:
        return Shape((self.memory_id,))


@dataclass(frozen=True, slots=True)
class ListArgs:
    scope: Token
    type: Token
    limit: Integer
    cursor: Text

    @classmethod
    def declare(cls, policy: MemoryPolicy, *, enums: bool = True) -> ListArgs:
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
            type=_word("a memory type", kinds, name="type", description="Only memories of this type."),
            limit=_limit(),
            cursor=Text(
                name="cursor",
                description="The next_cursor of the previous page, to continue where it stopped.",
                max_chars=MAX_CURSOR_CHARS,
            ),
        )

    def shape(self) -> Shape:
        return Shape((self.scope, self.type, self.limit, self.cursor))


@dataclass(frozen=True, slots=True)
class PolicyArgs:
    """The five tools' argument declarations for one policy."""

    remember: RememberArgs
    recall: RecallArgs
    open: IdArgs
    list: ListArgs
    forget: IdArgs

    @classmethod
    def declare(cls, policy: MemoryPolicy, *, enums: bool = True) -> PolicyArgs:
        """The argument declarations of the five tools under `policy`; with `enums`, the policy's types and
        relation names become enums in the schemas the model sees."""
        return cls(
            RememberArgs.declare(policy, enums=enums),
            RecallArgs.declare(policy, enums=enums),
            IdArgs.declare("The memory's id, from a memory__recall or memory__list result."),
            ListArgs.declare(policy, enums=enums),
            IdArgs.declare("The id of the memory to forget, from a memory__recall or memory__list result."),
        )

    def shape(self, tool: str) -> Shape:
        """The argument shape of one memory__ tool by name: its JSON Schema and the reader that checks a
        call against it."""
        return {
            MEMORY_REMEMBER: self.remember.shape,
            MEMORY_RECALL: self.recall.shape,
            MEMORY_OPEN: self.open.shape,
            MEMORY_LIST: self.list.shape,
            MEMORY_FORGET: self.forget.shape,
        }[tool]()
