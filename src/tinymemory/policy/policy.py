"""MemoryPolicy: a workspace's memory schema, dedup rules, recall threshold, share gate and tool notes.

Read from YAML or JSON with the specification's field names (camelCase, as in a MemoryPolicy resource),
either the whole resource (`apiVersion`, `kind`, `metadata`, `spec`) or its `spec` alone. Pydantic
reads and validates it at this edge; every error becomes an `InvalidRequest` naming the field
(`policy: \\`spec.gate.minDistinctSubjects\\` ...`). A policy is an immutable value: a host may hold one
per workspace.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from datetime import timedelta
from pathlib import Path
from typing import Annotated, Any

import yaml
from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    StrictStr,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic.alias_generators import to_camel

from tinymemory.api import LEARNING_KINDS, InvalidRequest
from tinymemory.api.echo import echo
from tinymemory.api.relations import RELATION_TYPE
from tinymemory.policy.identity import PERSONAL_TIERS, Tier
from tinymemory.tools.spec import MIN_PREVIEW_BYTES, PREVIEW_BYTES

# A type or relation name: what engines store and what enums show (the api's relation-type grammar).
NAME_RE = RELATION_TYPE
NAME_PATTERN = f"^{RELATION_TYPE.pattern}$"
DEFAULT_TYPE = "general"
# The built-in memory types, offered when no policy schema declares types.
BUILTIN_TYPES: tuple[str, ...] = (DEFAULT_TYPE, *LEARNING_KINDS)
MAX_INLINE_THRESHOLD = 1_048_576
MAX_NOTES_CHARS = 8_000
DEFAULT_WINDOW = timedelta(days=7)
_DURATION_RE = re.compile(r"(?:[0-9]+(?:\.[0-9]+)?(?:w|d|h|m|s))+")
_DURATION_PART = re.compile(r"([0-9]+(?:\.[0-9]+)?)(w|d|h|m|s)")
_UNIT_SECONDS = {"w": 7 * 86400.0, "d": 86400.0, "h": 3600.0, "m": 60.0, "s": 1.0}
_UNIT_RE = re.compile(r"(?:[0-9]+(?:\.[0-9]+)?[a-zA-Z]+)+")
MAX_DURATION_DAYS = 3650
# A consent category, `kind:name` as in memory:health: the same words a memory's `category` holds.
CATEGORY_PATTERN = r"^[a-z][a-z0-9_]{0,63}:[a-z0-9][a-z0-9_.-]{0,127}$"
_CATEGORY_RE = re.compile(CATEGORY_PATTERN)
_RESOURCE_KEYS = frozenset({"apiVersion", "kind", "metadata", "spec"})

Name = Annotated[StrictStr, Field(pattern=NAME_PATTERN)]
Text = Annotated[StrictStr, Field(max_length=2_048)]


class _FieldError(ValueError):
    """A cross-field rule broken at a known location (pydantic would report the parent instead)."""

    def __init__(self, loc: tuple[str | int, ...], problem: str) -> None:
        super().__init__(problem)
        self.loc = loc
        self.problem = problem


class _Model(BaseModel):
    """Closed, immutable, camelCase: a misspelt field is an error, never silently ignored. Scalars are
    strict (`"8192"` is not a number, `"yes"` not a boolean); lists may be YAML/JSON arrays."""

    model_config = ConfigDict(extra="forbid", frozen=True, alias_generator=to_camel)


class TypeDecl(_Model):
    """A memory type and the tiers it may be written to (every tier when `tiers` is left out)."""

    name: Name
    description: Text | None = None
    tiers: tuple[Tier, ...] = tuple(Tier)

    @field_validator("tiers", mode="before")
    @classmethod
    def _tiers(cls, value: object) -> object:
        if isinstance(value, list | tuple):
            for v in value:
                if not isinstance(v, str) or v not in Tier.values():
                    raise ValueError(f"`{echo(v)}` is not a tier (one of: {', '.join(Tier.values())})")
            if not value:
                raise ValueError("must name at least one tier")
        return value


# The built-in types as declarations, built once (a declaration is immutable).
BUILTIN_DECLS: tuple[TypeDecl, ...] = tuple(TypeDecl(name=n) for n in BUILTIN_TYPES)


class RelationDecl(_Model):
    name: Name
    description: Text | None = None


class SchemaSpec(_Model):
    types: tuple[TypeDecl, ...] = ()
    relations: tuple[RelationDecl, ...] = ()

    @model_validator(mode="after")
    def _unique(self) -> SchemaSpec:
        lists: tuple[tuple[str, tuple[str, ...]], ...] = (
            ("types", tuple(t.name for t in self.types)),
            ("relations", tuple(r.name for r in self.relations)),
        )
        for field, names in lists:
            for i, name in enumerate(names):
                if name in names[:i]:
                    raise _FieldError(("schema", field, i, "name"), f"`{name}` is declared twice")
        return self


class DedupSpec(_Model):
    require_about_for_kinds: tuple[Name, ...] = ()


class RecallSpec(_Model):
    inline_threshold_bytes: StrictInt = Field(
        default=PREVIEW_BYTES, ge=MIN_PREVIEW_BYTES, le=MAX_INLINE_THRESHOLD
    )


class GateAccept(_Model):
    user_shares: StrictBool = True


class GateSpec(_Model):
    # Off by default: without a gate a share is accepted and the memory stays private.
    enabled: StrictBool = False
    min_distinct_subjects: StrictInt = Field(default=2, ge=2, le=1_000_000)
    window: timedelta = DEFAULT_WINDOW
    accept: GateAccept = GateAccept()

    @field_validator("window", mode="before")
    @classmethod
    def _window(cls, value: object) -> object:
        return duration(value, "168h, 7d or 1h30m")


def duration(value: object, examples: str) -> object:
    """A policy duration (`30d`, `12h`, `2w`, `1h30m`) as a timedelta: longer than zero, at most ten
    years. Anything else is refused with `examples` of what is meant."""
    if isinstance(value, timedelta):
        return value
    if not isinstance(value, str) or not _DURATION_RE.fullmatch(value):
        if isinstance(value, str) and value.startswith("-"):
            raise ValueError(f"must not be negative (got `{echo(value)}`)")
        if isinstance(value, str) and _UNIT_RE.fullmatch(value):
            raise ValueError(f"`{echo(value)}` has an unknown unit (use w, d, h, m or s, as in {examples})")
        raise ValueError(f"must be a duration such as {examples}")
    seconds = sum(float(n) * _UNIT_SECONDS[u] for n, u in _DURATION_PART.findall(value))
    if not 0 < seconds <= MAX_DURATION_DAYS * 86400:
        raise ValueError(f"must be longer than zero and at most {MAX_DURATION_DAYS}d")
    return timedelta(seconds=seconds)


def duration_text(value: timedelta) -> str:
    """A duration in the policy's own syntax (`30d`, `1d12h`, `90s`): what `duration` reads back."""
    seconds = round(value.total_seconds())
    parts = []
    for unit in ("d", "h", "m", "s"):
        count, seconds = divmod(seconds, int(_UNIT_SECONDS[unit]))
        if count:
            parts.append(f"{count}{unit}")
    return "".join(parts) or "0s"


def _categories(value: object) -> object:
    """Category keys must be `kind:name` (memory:health); anything else is named."""
    if isinstance(value, Mapping):
        for key in value:
            _category(key if isinstance(key, str) else repr(key))
    return value


RETENTION_EXAMPLES = "30d, 12h or 2w"
Keep = Annotated[timedelta, BeforeValidator(lambda v: duration(v, RETENTION_EXAMPLES))]


def _category(value: str) -> str:
    if not _CATEGORY_RE.fullmatch(value):
        raise ValueError(f"`{echo(value)}` is not a category (kind:name, for example memory:health)")
    return value


Category = Annotated[StrictStr, AfterValidator(_category)]


class TierRetention(_Model):
    """How long memories of one tier are kept: its own default and per-category limits."""

    default: Keep | None = None
    categories: dict[str, Keep] = Field(default_factory=dict)

    @field_validator("categories", mode="before")
    @classmethod
    def _keys(cls, value: object) -> object:
        return _categories(value)

    def __hash__(self) -> int:  # a dict field: hashed by its items (a policy is a dict key)
        return hash((self.default, tuple(sorted(self.categories.items()))))


class RetentionSpec(_Model):
    """The longest a memory is kept, by category and by default, optionally per tier. The most specific
    rule wins: the tier's rule for the category, the category's, the tier's default, the default.
    Without any rule a memory is kept until it is forgotten."""

    default: Keep | None = None
    categories: dict[str, Keep] = Field(default_factory=dict)
    tiers: dict[Tier, TierRetention] = Field(default_factory=dict)

    @field_validator("categories", mode="before")
    @classmethod
    def _keys(cls, value: object) -> object:
        return _categories(value)

    @field_validator("tiers", mode="before")
    @classmethod
    def _tier_keys(cls, value: object) -> object:
        if isinstance(value, Mapping):
            for key in value:
                if not isinstance(key, str) or key not in Tier.values():
                    raise ValueError(f"`{echo(key)}` is not a tier (one of: {', '.join(Tier.values())})")
        return value

    def __hash__(self) -> int:  # dict fields: hashed by their items (a policy is a dict key)
        tiers = tuple((t.value, hash(r)) for t, r in sorted(self.tiers.items()))
        return hash((self.default, tuple(sorted(self.categories.items())), tiers))


class ConsentSpec(_Model):
    """The categories a user must consent to before a memory of one is kept."""

    required: tuple[Category, ...] = ()


class ToolGuidanceSpec(_Model):
    notes: Annotated[StrictStr, Field(max_length=MAX_NOTES_CHARS)] | None = None


class PolicySpec(_Model):
    # `schema` would shadow a BaseModel attribute: the field is `schema_` with the alias `schema`.
    schema_: SchemaSpec | None = Field(default=None, alias="schema")
    dedup: DedupSpec = DedupSpec()
    recall: RecallSpec = RecallSpec()
    gate: GateSpec = GateSpec()
    retention: RetentionSpec = RetentionSpec()
    consent: ConsentSpec = ConsentSpec()
    tool_guidance: ToolGuidanceSpec = ToolGuidanceSpec()

    @model_validator(mode="after")
    def _about_kinds_are_types(self) -> PolicySpec:
        known = [t.name for t in self.schema_.types] if self.schema_ and self.schema_.types else BUILTIN_TYPES
        for i, kind in enumerate(self.dedup.require_about_for_kinds):
            if kind not in known:
                raise _FieldError(("dedup", "requireAboutForKinds", i), f"`{kind}` is not a declared type")
        return self


class MemoryPolicy:
    """The effective policy of one workspace. Build with `default()`, `from_dict()` or `load()`."""

    __slots__ = ("_name", "_spec")

    def __init__(self, spec: PolicySpec, name: str | None = None) -> None:
        self._spec = spec
        self._name = name

    # --- reading ----------------------------------------------------------------------------------

    @classmethod
    def default(cls) -> MemoryPolicy:
        """The built-in policy used when none is bound: built-in types, no relations, 8192 bytes."""
        return cls(PolicySpec(), None)

    @classmethod
    def from_dict(cls, data: object) -> MemoryPolicy:
        """A MemoryPolicy resource (`{kind, metadata, spec}`) or its bare spec, as parsed JSON/YAML."""
        if not isinstance(data, Mapping):
            raise InvalidRequest(f"policy: must be an object, got {type(data).__name__}")
        prefix: tuple[str | int, ...] = ()
        name: str | None = None
        body: object = data
        if "spec" in data:
            unknown = [k for k in data if k not in _RESOURCE_KEYS]
            if unknown:
                known = ", ".join(sorted(_RESOURCE_KEYS))
                raise InvalidRequest(f"policy: `{echo(unknown[0])}` is not a known field (known: {known})")
            kind = data.get("kind")
            if kind is not None and kind != "MemoryPolicy":
                raise InvalidRequest(f"policy: `kind` `{echo(kind)}` is not MemoryPolicy")
            metadata = data.get("metadata")
            if metadata is not None:
                if not isinstance(metadata, Mapping):
                    raise InvalidRequest("policy: `metadata` must be an object")
                raw_name = metadata.get("name")
                if raw_name is not None and not isinstance(raw_name, str):
                    raise InvalidRequest("policy: `metadata.name` must be a string")
                name = raw_name
            body = data["spec"] if data["spec"] is not None else {}
            prefix = ("spec",)
        try:
            spec = PolicySpec.model_validate(body)
        except ValidationError as exc:
            raise _invalid(exc, prefix) from None
        return cls(spec, name)

    @classmethod
    def from_text(cls, text: str, *, source: str = "policy") -> MemoryPolicy:
        """YAML or JSON text (JSON is YAML, but is parsed as JSON first for exact numbers)."""
        try:
            data: object = json.loads(text)
        except ValueError:
            try:
                data = yaml.safe_load(text)
            except yaml.YAMLError as exc:
                mark = getattr(exc, "problem_mark", None)
                where = f" (line {mark.line + 1})" if mark is not None else ""
                raise InvalidRequest(f"policy: `{echo(source)}` is not valid yaml or json{where}") from None
        return cls.from_dict(data)

    @classmethod
    def load(cls, path: str | Path) -> MemoryPolicy:
        """Read a policy file (.yaml, .yml or .json)."""
        p = Path(path)
        shown = echo(str(p), 240)
        try:
            text = p.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise InvalidRequest(f"policy: `{shown}` does not exist") from None
        except (OSError, UnicodeDecodeError) as exc:
            raise InvalidRequest(f"policy: `{shown}` cannot be read ({type(exc).__name__})") from None
        return cls.from_text(text, source=p.name)

    # --- the values the tools and the guidance use ------------------------------------------------

    @property
    def name(self) -> str | None:
        """The policy's name (its file or workspace name), or None for one built in code."""
        return self._name

    @property
    def spec(self) -> PolicySpec:
        """The validated policy document this object reads from."""
        return self._spec

    @property
    def has_schema(self) -> bool:
        """Whether the policy declares types (without it, kinds and relation types are free strings)."""
        return self._spec.schema_ is not None and bool(self._spec.schema_.types)

    @property
    def types(self) -> tuple[TypeDecl, ...]:
        """Every declared type, or the built-in set (writable to every tier)."""
        if self._spec.schema_ is not None and self._spec.schema_.types:
            return self._spec.schema_.types
        return BUILTIN_DECLS

    def type_names(self) -> tuple[str, ...]:
        """The names of every declared memory type, for recall's type enum."""
        return tuple(t.name for t in self.types)

    def writable_types(self, tiers: tuple[Tier, ...] = PERSONAL_TIERS) -> tuple[str, ...]:
        """The types a write to any of `tiers` accepts (remember's type enum)."""
        return tuple(t.name for t in self.types if set(t.tiers) & set(tiers))

    def writable(self, type_name: str, tier: Tier) -> bool:
        """Whether a memory of `type_name` may be written to `tier`, as the policy's schema declares."""
        return any(t.name == type_name and tier in t.tiers for t in self.types)

    @property
    def default_type(self) -> str:
        """`general` unless a policy schema leaves it out; then its first user-writable type."""
        writable = self.writable_types()
        if DEFAULT_TYPE in writable or not writable:
            return DEFAULT_TYPE
        return writable[0]

    @property
    def has_relations(self) -> bool:
        """Whether the policy declares relation types (then recall offers graph expansion over them)."""
        return self._spec.schema_ is not None and bool(self._spec.schema_.relations)

    def relation_names(self) -> tuple[str, ...]:
        """The names of the declared relation types (empty without a schema)."""
        return tuple(r.name for r in self._spec.schema_.relations) if self._spec.schema_ else ()

    @property
    def require_about_for(self) -> tuple[str, ...]:
        """The memory types that must name their subject (`about`), so a new statement of one supersedes
        the old instead of sitting beside it."""
        return self._spec.dedup.require_about_for_kinds

    @property
    def inline_threshold_bytes(self) -> int:
        """Bodies larger than this come back from recall and list as previews, read whole with
        memory__open; it keeps tool results small."""
        return self._spec.recall.inline_threshold_bytes

    @property
    def gate(self) -> GateSpec:
        """The policy's settings for the gate that decides which learnings are published to shared memory."""
        return self._spec.gate

    @property
    def retention(self) -> RetentionSpec:
        """How long memories are kept, by category and tier (see `retention_for`)."""
        return self._spec.retention

    def retention_for(self, tier: Tier, category: str | None) -> timedelta | None:
        """The longest a memory of `category` in `tier` is kept, by the most specific rule, or None
        (kept until forgotten). Categories compare case-blind, as the consent check does."""
        spec = self._spec.retention
        cat = normal_category(category)
        by_tier = spec.tiers.get(tier)
        if cat is not None and by_tier is not None and cat in by_tier.categories:
            return by_tier.categories[cat]
        if cat is not None and cat in spec.categories:
            return spec.categories[cat]
        if by_tier is not None and by_tier.default is not None:
            return by_tier.default
        return spec.default

    @property
    def has_retention(self) -> bool:
        """Whether any retention rule is set (else the retention job has nothing to do here)."""
        spec = self._spec.retention
        return spec.default is not None or bool(spec.categories) or bool(spec.tiers)

    @property
    def consent_required(self) -> tuple[str, ...]:
        """The categories a memory may be kept in only with the user's consent."""
        return self._spec.consent.required

    def needs_consent(self, category: str | None) -> bool:
        """Whether a memory of `category` needs the user's consent (compared case-blind)."""
        cat = normal_category(category)
        return cat is not None and cat in self._spec.consent.required

    @property
    def notes(self) -> str | None:
        """The workspace's notes for the model about its memory tools, or None when there are none."""
        notes = self._spec.tool_guidance.notes
        return notes if notes and notes.strip() else None

    def __eq__(self, other: object) -> bool:
        return isinstance(other, MemoryPolicy) and (self._spec, self._name) == (other._spec, other._name)

    def __hash__(self) -> int:
        return hash((self._spec, self._name))

    def __repr__(self) -> str:
        return f"MemoryPolicy(name={self._name!r})"


def is_category(text: str) -> bool:
    """Whether `text` is a category as policies name them (`kind:name`, lower-case)."""
    return _CATEGORY_RE.fullmatch(text) is not None


def normal_category(category: str | None) -> str | None:
    """A memory's category as the rules compare it: trimmed and lower-case (None for none)."""
    if category is None:
        return None
    cat = category.strip().lower()
    return cat or None


# --- errors -----------------------------------------------------------------------------------------


def _loc(parts: tuple[str | int, ...]) -> str:
    out = ""
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out or "spec"


def _invalid(exc: ValidationError, prefix: tuple[str | int, ...]) -> InvalidRequest:
    """The first error, named by its field path as written in the file (camelCase)."""
    err = exc.errors(include_url=False)[0]
    loc = tuple(err["loc"])
    ctx = err.get("ctx") or {}
    cause = ctx.get("error")
    if isinstance(cause, _FieldError):
        loc, problem = cause.loc, cause.problem
    else:
        problem = _problem(err["type"], str(err["msg"]), err.get("input"))
    return InvalidRequest(f"policy: `{_loc(prefix + loc)}` {problem}")


def _problem(kind: str, message: str, value: Any) -> str:
    if kind == "extra_forbidden":
        return "is not a known field"
    if kind == "missing":
        return "is required"
    if kind == "string_pattern_mismatch":
        return (
            f"`{echo(value)}` is not a valid name (lowercase letters, digits and _, starting with a letter)"
        )
    if kind == "value_error":
        message = message.removeprefix("Value error, ")
    text = message[:1].lower() + message[1:]
    if kind == "value_error":
        return text
    shown = f"`{echo(value)}`" if isinstance(value, str) else echo(value)
    return f"{text} (got {shown})"
