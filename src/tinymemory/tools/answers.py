"""The models that document tool results: the pieces every memory_ tool's result is built of.

The tools return plain dicts (see `tools.render`); these pydantic models only describe them, for the
service's OpenAPI document and for tests that check a result against its declaration. They forbid
undeclared keys, and an optional key is documented as absent rather than null, because that is how the
results leave it out.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeAlias

from pydantic import BaseModel, ConfigDict

from tinymemory.api import ItemKind

if TYPE_CHECKING:  # the enum built from the code's own, so the document follows it
    KindName: TypeAlias = str
else:
    from typing import Literal

    KindName = Literal[ItemKind.values()]


def _absent_not_null(schema: dict[str, Any]) -> None:
    """An optional field is left out of the answer, never sent as null: document it that way."""
    required = set(schema.get("required", ()))
    for name, prop in schema.get("properties", {}).items():
        if name in required or "anyOf" not in prop:
            continue
        kept = [s for s in prop["anyOf"] if s.get("type") != "null"]
        if len(kept) == 1:
            del prop["anyOf"]
            prop.update(kept[0])
        prop.pop("default", None)


class Answer(BaseModel):
    """Documents a result dict: undeclared keys are errors, optional keys are absent rather than null."""

    model_config = ConfigDict(extra="forbid", json_schema_extra=_absent_not_null, defer_build=True)


class ItemSource(Answer):
    kind: str
    id: str | None = None


class ItemMetaModel(Answer):
    source: ItemSource | None = None
    file_path: str | None = None
    url: str | None = None
    thread_id: str | None = None
    tags: list[str] | None = None
    observed_at: str | None = None


class Item(Answer):
    id: str
    kind: KindName
    text: str
    truncated: bool | None = None
    bytes: int | None = None
    score: float | None = None
    confidence: float | None = None
    meta: ItemMetaModel
