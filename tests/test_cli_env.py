"""Every flag of mcp and serve takes its default from its TINYMEMORY_* variable; a switch's says yes with
1, true, yes or on (any case, any spacing) and no with anything else."""

from __future__ import annotations

import pytest

from tinymemory.cli import build_parser


def parsed(argv: list[str]) -> dict[str, object]:
    return vars(build_parser().parse_args(argv))


@pytest.mark.parametrize(("value", "expected"), [(" Yes ", True), ("ON", True), ("1", True), ("0", False)])
def test_switch_variables(monkeypatch: pytest.MonkeyPatch, value: str, expected: bool) -> None:
    for name in ("TINYMEMORY_DEV", "TINYMEMORY_NO_EMBEDDER", "TINYMEMORY_READ_ONLY"):
        monkeypatch.setenv(name, value)
    serve, mcp = parsed(["serve"]), parsed(["mcp"])
    assert (serve["dev"], serve["no_embedder"]) == (expected, expected)
    assert (mcp["read_only"], mcp["no_embedder"]) == (expected, expected)


def test_option_variables_and_their_fallbacks(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("TINYMEMORY_PLACE", "TINYMEMORY_TOOLS", "TINYMEMORY_PORT", "TINYMEMORY_DB"):
        monkeypatch.delenv(name, raising=False)
    mcp, serve = parsed(["mcp"]), parsed(["serve"])
    assert (mcp["place"], mcp["tools"], mcp["reach"], mcp["db"]) == ("", "memory", None, None)
    assert (serve["host"], serve["port"], serve["max_body_bytes"]) == ("127.0.0.1", "8765", "4194304")
    monkeypatch.setenv("TINYMEMORY_PLACE", "team:acme")
    monkeypatch.setenv("TINYMEMORY_TOOLS", "policy")
    monkeypatch.setenv("TINYMEMORY_PORT", "9000")
    monkeypatch.setenv("TINYMEMORY_DB", "x.db")
    mcp, serve = parsed(["mcp"]), parsed(["serve"])
    assert (mcp["place"], mcp["tools"], mcp["db"], serve["port"]) == ("team:acme", "policy", "x.db", "9000")
