"""The CLI imports only the module of the command it runs, so `tinymemory fetch` does not pay for the
service, the MCP server or the brain, and a bare `--version` for none of them."""

from __future__ import annotations

import argparse
import importlib
import subprocess
import sys

from tinymemory.cli import COMMAND_MODULES, COMMANDS, main, modules_for


def test_the_command_map_matches_what_each_module_registers() -> None:
    registered: dict[str, str] = {}
    for name in COMMAND_MODULES:
        sub = argparse.ArgumentParser().add_subparsers(dest="command")
        importlib.import_module(name).register(sub)
        registered.update(dict.fromkeys(sub.choices, name))
    assert registered == COMMANDS


def test_a_command_line_needs_only_its_commands_module() -> None:
    assert modules_for(["fetch", "coffee", "--db", "x.db"]) == ("tinymemory.cli.memory_cmds",)
    assert modules_for(["db", "status"]) == ("tinymemory.cli.db_cmd",)
    assert modules_for(["--version"]) == ()
    assert modules_for([]) == COMMAND_MODULES  # the usage error lists every command
    assert modules_for(["--help"]) == COMMAND_MODULES
    assert modules_for(["nonsense"]) == COMMAND_MODULES


def test_fetch_does_not_import_the_service_or_the_mcp_server() -> None:
    probe = (
        "import sys; import tinymemory.cli as c; c.build_parser(c.modules_for(['fetch', 'q'])); "
        "print(sorted(m for m in ('tinymemory.cli.serve_cmd', 'tinymemory.cli.mcp_cmd', 'tinymemory.service')"
        " if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_an_unknown_command_still_lists_every_command(capsys: object) -> None:
    assert main(["nonsense"]) == 2  # the JSON refusal, whose message lists the choices
    err = capsys.readouterr().err  # type: ignore[attr-defined]
    assert "invalid choice" in err and "serve" in err and "fetch" in err
