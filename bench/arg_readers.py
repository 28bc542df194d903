"""The tools' argument readers measured against pydantic v2: speed per call, error wording, schema output.

The hand-written readers are the field declarations of `tinymemory.tools.fields`, as each tool declares
them (`tools/catalog/`). The pydantic side is generated from the same declarations, field by field, as
faithfully as pydantic can state them (strict mode, closed objects, the same bounds and enums, aware
timestamps), so both read the same contract:

- speed: one typical memory_store and one typical memory_fetch argument object read per call, median of
  repeated runs (the host-fixed key scan both would share is left out of both), beside the whole tool
  call on a small SQLite file, to show what share of a call the reading is;
- error wording: every bad call pinned in tests/test_tools_fields.py (the seeds' wording), read by
  pydantic and its first error put in the tools' format (`<tool>: \\`<field>\\` <message>`): how many
  come out word for word, and how many at least name the field the pinned message names;
- schema output: each model's `model_json_schema()` against the frozen tool contract
  (tests/fixtures/tool_contracts.json): equal or not, and the keywords it uses that the contract's
  portable set does not have.

Writes the `arg-readers` section of docs/benchmarks.md.

    python bench/arg_readers.py [--no-write]
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import json
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from datetime import date
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    AwareDatetime,
    BaseModel,
    ConfigDict,
    Field,
    Strict,
    StringConstraints,
    ValidationError,
    create_model,
)

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT / "tests"))
from report import machine_line, table, write_section  # noqa: E402
from test_tools_fields import CASES  # noqa: E402  (the pinned bad calls and their messages)
from tinymemory.api import FetchMode  # noqa: E402
from tinymemory.api.validate import MAX_ID_CHARS  # noqa: E402
from tinymemory.engines.sqlite import SqliteEngine  # noqa: E402
from tinymemory.tools import MemoryTools  # noqa: E402
from tinymemory.tools import fields as f  # noqa: E402
from tinymemory.tools.registry import shapes  # noqa: E402

FIXTURE = ROOT / "tests" / "fixtures" / "tool_contracts.json"
ALL_MODES = (FetchMode.LEXICAL, FetchMode.SEMANTIC, FetchMode.HYBRID)
CASE_MODES = (FetchMode.LEXICAL,)  # the pinned cases run on an engine serving lexical only
PORTABLE = {
    "type",
    "description",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "enum",
    "minimum",
    "maximum",
    "minItems",
    "maxItems",
    "format",
}
CLOSED = ConfigDict(extra="forbid", strict=True)
NOT_BLANK = r"\S"  # the nearest pydantic states "must not be blank"

STORE_ARGS: dict[str, Any] = {
    "learning": {
        "text": "Dana prefers the quarterly report as a PDF, sent on the first Monday.",
        "learning_kind": "preference",
        "confidence": 0.9,
        "evidence": ["m_0b9e5c1d2a7f4e3b", "asked on the 8th"],
    },
    "tags": ["reports", "dana"],
}
FETCH_ARGS: dict[str, Any] = {
    "query": "when does Dana want the quarterly report",
    "mode": "hybrid",
    "filter": {"kinds": ["learning", "conversation"], "tags_any": ["reports"]},
    "limit": 10,
    "refers_to": {"from": "2024-05-01", "to": "2024-05-31"},
}


# -- the pydantic models, generated from the declarations ----------------------------------------------


def _text(max_chars: int, min_chars: int = 0) -> Any:
    return Annotated[str, StringConstraints(min_length=min_chars, max_length=max_chars, pattern=NOT_BLANK)]


def _type_of(field: f.Field[Any], where: str) -> Any:
    """The pydantic type stating what `field` accepts."""
    if isinstance(field, f.Text):
        return _text(field.max_chars)
    if isinstance(field, f.Token):
        if field.choices is not None:
            return Literal[field.choices]
        pattern = field.pattern.pattern if field.pattern else NOT_BLANK
        return Annotated[str, StringConstraints(pattern=pattern)]
    if isinstance(field, f.TokenList):
        return Annotated[list[_type_of(field.item, where)], Field(max_length=field.max_items)]  # type: ignore[misc]
    if isinstance(field, f.TextList):
        return Annotated[list[_text(field.max_chars)], Field(max_length=field.max_items)]  # type: ignore[misc]
    if isinstance(field, f.EnumList):
        return list[Literal[field.choices]]  # type: ignore[valid-type]
    if isinstance(field, f.Ids):
        item = _text(MAX_ID_CHARS, 1)
        return Annotated[list[item], Field(min_length=1, max_length=field.max_items)]  # type: ignore[valid-type]
    if isinstance(field, f.Integer):
        return Annotated[int, Field(ge=field.low, le=field.high)]
    if isinstance(field, f.Number):
        return Annotated[float, Field(ge=field.low, le=field.high)]
    if isinstance(field, f.Boolean):
        return bool
    if isinstance(field, f.Timestamp):
        return Annotated[AwareDatetime, Strict(False)]
    if isinstance(field, f.Day):
        return Annotated[date, Strict(False)]
    if isinstance(field, f.Object):
        return model_of(field.fields, f"{where}_{field.name}")
    if isinstance(field, f.ObjectList):
        item_model = model_of(field.fields, f"{where}_{field.name}")
        return Annotated[list[item_model], Field(min_length=field.min_items, max_length=field.max_items)]  # type: ignore[valid-type]
    raise TypeError(f"no pydantic type for {type(field).__name__}")


def model_of(declared: tuple[f.Field[Any], ...], name: str) -> type[BaseModel]:
    """A closed, strict model of `declared`, each field with its description, required or defaulted."""
    spec: dict[str, Any] = {}
    for field in declared:
        kind = _type_of(field, name)
        if field.required:
            spec[field.name] = (kind, Field(description=field.description))
        else:
            default = field.default if isinstance(field, f.Integer) else None
            spec[field.name] = (kind | None, Field(default, description=field.description))
    return create_model(name, __config__=CLOSED, **spec)


def models(modes: tuple[FetchMode, ...]) -> dict[str, type[BaseModel]]:
    return {tool: model_of(shape.fields, tool) for tool, shape in shapes(modes).items()}


# -- speed -----------------------------------------------------------------------------------------------


def per_call_us(read: Callable[[], object], calls: int = 2000, repeats: int = 9) -> float:
    """Median microseconds per call over `repeats` runs of `calls` calls."""
    read()
    runs = []
    for _ in range(repeats):
        started = time.perf_counter()
        for _ in range(calls):
            read()
        runs.append((time.perf_counter() - started) / calls * 1e6)
    return statistics.median(runs)


def speed() -> list[list[str]]:
    declared = shapes(ALL_MODES)
    generated = models(ALL_MODES)
    whole = whole_calls()
    rows = []
    for tool, args in (("memory_store", STORE_ARGS), ("memory_fetch", FETCH_ARGS)):
        shape, model = declared[tool], generated[tool]
        hand = per_call_us(functools.partial(shape.read, tool, args))
        pyd = per_call_us(functools.partial(model.model_validate, args))
        call = whole[tool]
        share = f"{hand / call:.1%} / {pyd / call:.1%}"
        rows.append([tool, f"{hand:.1f}", f"{pyd:.1f}", f"{call:.0f}", share])
    return rows


async def _whole_calls(folder: str, calls: int = 300) -> dict[str, float]:
    """Median microseconds of a whole MemoryTools.call on a small SQLite file (200 memories, lexical)."""
    async with SqliteEngine(f"{folder}/memory.db", embedder=None) as engine:
        tools = MemoryTools(engine).placed_at("team:acme/agent:bench")
        for i in range(200):
            text = f"Note {i}: Dana asked for the quarterly report {i % 7} as a PDF."
            await tools.call("memory_store", {"learning": {"text": text}, "tags": ["reports"]})
        fetch = {**FETCH_ARGS, "mode": "lexical"}
        out = {}
        for tool, args in (("memory_store", STORE_ARGS), ("memory_fetch", fetch)):
            await tools.call(tool, args)
            times = []
            for _ in range(calls):
                started = time.perf_counter()
                await tools.call(tool, args)
                times.append((time.perf_counter() - started) * 1e6)
            out[tool] = statistics.median(times)
        return out


def whole_calls() -> dict[str, float]:
    with tempfile.TemporaryDirectory() as folder:
        return asyncio.run(_whole_calls(folder))


# -- error wording ---------------------------------------------------------------------------------------


def _loc(loc: tuple[str | int, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def pydantic_message(tool: str, model: type[BaseModel], arguments: dict[str, Any]) -> str | None:
    """The first error pydantic reports, in the tools' format; None when it accepts the call."""
    try:
        model.model_validate(arguments)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = _loc(tuple(p for p in first["loc"] if not isinstance(p, str) or not p.startswith("function")))
        return f"{tool}: `{where}` {first['msg']}"
    return None


def pinned_field(message: str) -> str | None:
    found = re.match(r"`([^`]+)`", message)
    return found.group(1) if found else None


def wording() -> tuple[int, int, int, int, list[list[str]]]:
    generated = models(CASE_MODES)
    exact = named = accepted = 0
    samples: list[list[str]] = []
    for tool, arguments, message in CASES:
        expected = f"{tool}: {message}"
        got = pydantic_message(tool, generated[tool], arguments)
        if got is None:
            accepted += 1
        elif got == expected:
            exact += 1
        field = pinned_field(message)
        if got is not None and field is not None and got.startswith(f"{tool}: `{field}` "):
            named += 1
        if len(samples) < 6 and got is not None and got != expected and len(expected) < 90:
            samples.append([f"`` {expected} ``", f"`` {got[:110]} ``"])
    return len(CASES), exact, named, accepted, samples


# -- schema output ---------------------------------------------------------------------------------------


def keywords(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        for key, value in node.items():
            yield key
            if key in ("properties", "$defs"):
                for sub in value.values():
                    yield from keywords(sub)
            elif isinstance(value, dict | list):
                yield from keywords(value)
    elif isinstance(node, list):
        for value in node:
            yield from keywords(value)


def schemas() -> tuple[int, int, list[str]]:
    frozen = {t["name"]: t["parameters"] for t in json.loads(FIXTURE.read_text(encoding="utf-8"))["tools"]}
    generated = models(ALL_MODES)
    equal = sum(generated[name].model_json_schema() == schema for name, schema in frozen.items())
    extra = sorted({k for m in generated.values() for k in keywords(m.model_json_schema())} - PORTABLE)
    return len(frozen), equal, extra


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-write", action="store_true", help="print the section only")
    args = parser.parse_args()
    speed_rows = speed()
    cases, exact, named, accepted, samples = wording()
    tools, equal, extra = schemas()
    lines = [
        "## Argument readers: the field declarations against pydantic v2",
        "",
        "`python bench/arg_readers.py`. The pydantic models are generated from the tools' own field "
        "declarations (strict, closed, the same bounds and enums), so both read the same contract. "
        f"{machine_line()}.",
        "",
        "Speed, one typical argument object read per call (median of 9 runs of 2,000 calls; the "
        "host-fixed key scan both would share is left out):",
        "",
        table(["tool", "declarations µs", "pydantic µs", "whole call µs", "share of the call"], speed_rows),
        "",
        "The whole call is `MemoryTools.call` on a SQLite file of 200 memories (lexical, no embedder), "
        "median of 300: a replayed store, a fetch of 10. The share is each reader's time over it. The "
        "declarations' figure includes building what the engine takes (the checked `MetaFilter`, the day "
        "range, tuples); pydantic's stops at a validated model, so its lead is an upper bound.",
        "",
        f"Error wording, the {cases} bad calls pinned in tests/test_tools_fields.py: the declarations give "
        f"{cases} of {cases} word for word (the test pins them); pydantic's first error, put in the tools' "
        f"format, gives {exact} word for word and names the pinned field in {named}; it accepts "
        f"{accepted} of the calls outright (rules between fields, whole-call rules, host-fixed keys, "
        "dates out of range).",
        "",
        table(["pinned message", "pydantic's"], samples) if samples else "",
        "",
        f"Schema output against the frozen contract: {equal} of {tools} tool schemas equal; pydantic's use "
        f"keywords outside the contract's portable set: {', '.join(f'`{k}`' for k in extra) or 'none'}.",
    ]
    section = "\n".join(lines)
    print(section)
    if not args.no_write:
        write_section("arg-readers", section)
    return 0


if __name__ == "__main__":
    sys.exit(main())
