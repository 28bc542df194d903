"""Host-side JSON views of contract values (CLI, service). Unlike the model-facing tool rendering,
these include the namespace and every set field, because the host owns the tree."""

from __future__ import annotations

from dataclasses import fields, is_dataclass
from datetime import datetime
from enum import Enum
from typing import Any

from tinymemory.api.items import ItemMeta
from tinymemory.api.namespace import Namespace, Reach
from tinymemory.api.requests import Why
from tinymemory.api.timeutil import format_rfc3339


def to_jsonable(value: Any) -> Any:
    """Dataclasses become dicts without None fields (and without empty metadata lists, which are noise);
    result lists stay even when empty, so `{"hits": []}` keeps its shape. Datetimes are RFC 3339."""
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return round(value, 6)
    if isinstance(value, datetime):
        return format_rfc3339(value)
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, Namespace | Reach):
        return str(value)
    if isinstance(value, Why):  # its own JSON view: the reranker's features as a name -> value object
        return value.as_json()
    if is_dataclass(value) and not isinstance(value, type):
        out: dict[str, Any] = {}
        for f in fields(value):
            v = getattr(value, f.name)
            if v is None or (v == () and isinstance(value, ItemMeta)):
                continue
            out[f.name] = to_jsonable(v)
        return out
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [to_jsonable(v) for v in value]
    return str(value)
