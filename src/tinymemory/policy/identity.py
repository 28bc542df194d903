"""Identity and tiers: who a conversation belongs to decides where its memories land and what it reads.

Tiers are namespaces under one workspace:

    workspace:W                      institutional   (every user of every agent in W)
    workspace:W/agent:A              agent           (shared by every user of agent A)
    workspace:W/user:U               user            (one user, whatever the agent)
    workspace:W/user:U/agent:A       user_for_agent  (one user, with agent A)

Everything here is computed from the identity the host verified, never from what a model sends.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from tinymemory.api import InvalidRequest, Namespace, Reach
from tinymemory.api.echo import echo


class Tier(StrEnum):
    """The four tiers of memory an identity may have: the workspace's (institutional), an agent's, a
    user's, and a user's with one agent. Each maps to a namespace; which tiers a read sees and a write
    lands in follows from the identity."""

    INSTITUTIONAL = "institutional"
    AGENT = "agent"
    USER = "user"
    USER_FOR_AGENT = "user_for_agent"

    @classmethod
    def values(cls) -> tuple[str, ...]:
        """Every tier's string value, for schemas and error messages that list them."""
        return tuple(t.value for t in cls)


# The tiers a conversation writes to itself (the others are written by the platform: ingestion, the gate).
PERSONAL_TIERS: tuple[Tier, ...] = (Tier.USER, Tier.USER_FOR_AGENT)


def _name(field: str, value: object, *, required: bool) -> str | None:
    """One namespace segment name (the same grammar as `Namespace.parse`)."""
    if value is None:
        if required:
            raise InvalidRequest(f"identity: `{field}` is required")
        return None
    if not isinstance(value, str):
        raise InvalidRequest(f"identity: `{field}` must be a string, got {type(value).__name__}")
    try:
        one_segment = Namespace.parse(f"x:{value}").depth == 1
    except InvalidRequest:
        one_segment = False
    if not one_segment:
        raise InvalidRequest(
            f"identity: `{field}` `{echo(value)}` is not a valid name (letters, digits and ._@+=~-, "
            "starting with a letter or digit, at most 128 characters)"
        )
    return value


@dataclass(frozen=True, slots=True)
class Identity:
    """Who the conversation is for, as the host's facade proved it.

    `verified` is True only when the facade authenticated a user (a session or a signed token); an
    anonymous or API-key conversation is not verified and gets no memory tools.
    """

    workspace: str
    user: str | None = None
    agent: str | None = None
    verified: bool = False

    def __post_init__(self) -> None:
        _name("workspace", self.workspace, required=True)
        _name("user", self.user, required=False)
        _name("agent", self.agent, required=False)
        if not isinstance(self.verified, bool):
            raise InvalidRequest("identity: `verified` must be true or false")

    @property
    def is_verified_user(self) -> bool:
        """Memory tools are for a verified, named user only."""
        return self.verified and self.user is not None

    @property
    def tiers(self) -> Tiers:
        """The namespaces of this identity's tiers, derived from its workspace, user and agent alone."""
        return Tiers.of(self)


@dataclass(frozen=True, slots=True)
class Tiers:
    """The namespaces of one identity's tiers; a tier the identity does not have is None."""

    institutional: Namespace
    agent: Namespace | None
    user: Namespace | None
    user_for_agent: Namespace | None
    # `read_reach`, made on first use: every recall and list of a conversation reads it
    _read_reach: Reach | None = field(default=None, init=False, repr=False, compare=False)

    @classmethod
    def of(cls, identity: Identity) -> Tiers:
        """The tiers of `identity`: the workspace's node, then its agent's, its user's, and the user's node
        for that agent (None where the identity lacks the user or agent)."""
        root = Namespace.of(("workspace", identity.workspace))
        agent = root.child("agent", identity.agent) if identity.agent else None
        user = root.child("user", identity.user) if identity.user else None
        user_agent = user.child("agent", identity.agent) if user is not None and identity.agent else None
        return cls(root, agent, user, user_agent)

    def namespace(self, tier: Tier) -> Namespace | None:
        """The namespace of one tier, or None when this identity does not have that tier."""
        return {
            Tier.INSTITUTIONAL: self.institutional,
            Tier.AGENT: self.agent,
            Tier.USER: self.user,
            Tier.USER_FOR_AGENT: self.user_for_agent,
        }[tier]

    @property
    def write_tier(self) -> Tier | None:
        """Where a remember lands: user_for_agent when an agent is named, else user (None: no user)."""
        if self.user_for_agent is not None:
            return Tier.USER_FOR_AGENT
        if self.user is not None:
            return Tier.USER
        return None

    @property
    def write_place(self) -> Namespace | None:
        """The namespace a remember writes to (see `write_tier`), or None when there is no user to write
        for."""
        tier = self.write_tier
        return None if tier is None else self.namespace(tier)

    def present(self) -> tuple[Tier, ...]:
        """The tiers this identity has, nearest first (its own, then the agent's, then the workspace's)."""
        order = (Tier.USER_FOR_AGENT, Tier.USER, Tier.AGENT, Tier.INSTITUTIONAL)
        return tuple(t for t in order if self.namespace(t) is not None)

    def own(self) -> tuple[Tier, ...]:
        """The user's own tiers: what a conversation may forget."""
        return tuple(t for t in self.present() if t in PERSONAL_TIERS)

    def reach_of(self, tiers: tuple[Tier, ...]) -> Reach:
        """Exactly the namespaces of `tiers` (those this identity has). Never a subtree: another user's
        tiers lie below the workspace node, and an exact term keeps them out."""
        nodes = [self.namespace(t) for t in tiers]
        present = [Reach.exact(ns) for ns in nodes if ns is not None]
        if not present:
            raise InvalidRequest("identity: none of the asked tiers exists for this identity")
        return Reach.union(*present)

    @property
    def read_reach(self) -> Reach:
        """What every read sees: the user's own tiers, the agent's shared tier, the institutional tier."""
        known = self._read_reach
        if known is None:
            known = self.reach_of(self.present())
            object.__setattr__(self, "_read_reach", known)
        return known

    @property
    def own_reach(self) -> Reach | None:
        """The reach of the user's own tiers, the only memory a conversation may forget; None without a
        user."""
        own = self.own()
        return self.reach_of(own) if own else None

    def tier_of(self, ns: Namespace) -> Tier | None:
        """Which of this identity's tiers `ns` is (None: not one of them), nearest first as `present`
        orders them (it runs once for every memory a read renders)."""
        if self.user_for_agent is not None and self.user_for_agent == ns:
            return Tier.USER_FOR_AGENT
        if self.user is not None and self.user == ns:
            return Tier.USER
        if self.agent is not None and self.agent == ns:
            return Tier.AGENT
        return Tier.INSTITUTIONAL if self.institutional == ns else None
