"""Start-up cost, guarded without timing anything: each entry point loads only what its command needs.

Every probe runs in a fresh interpreter (a test process has imported everything already) and reports
which of the modules made lazy for start-up ended up in `sys.modules`.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import mcp_types as types

from tinymemory.api import ItemKind, ItemMeta, Namespace, NewItem
from tinymemory.engines.sqlite import SqliteEngine


def loaded_after(code: str, watched: list[str], tmp_path: Path) -> list[str]:
    """Run `code` in a fresh interpreter; the watched modules it left loaded."""
    probe = f"import json, sys\n{code}\nprint(json.dumps([m for m in {watched!r} if m in sys.modules]))\n"
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, cwd=tmp_path, check=False
    )
    assert out.returncode == 0, out.stderr
    loaded: list[str] = json.loads(out.stdout.strip().splitlines()[-1])
    return loaded


# Loaded only by the commands and models that use them, never by a read with the default embedder.
NOT_FOR_A_READ = [
    "tinymemory.policy",  # the memory__ tool set
    "tinymemory.retrieval.embedders.minilm",  # the MiniLM forward pass
    "tinymemory.retrieval.embedders.bert_numpy",
    "safetensors",  # MiniLM's weights
    "threadpoolctl",  # BLAS limits, for forward passes only
    "platformdirs",  # the user data dir, when neither --db nor $TINYMEMORY_HOME names the place
    "tinymemory.engines.sqlite.ann",  # the HNSW graph, for large reads of files past 50,000 vectors
    "usearch",
]


def test_version_loads_neither_the_library_nor_numpy(tmp_path: Path) -> None:
    code = "from tinymemory.cli import main\ntry:\n    main(['--version'])\nexcept SystemExit:\n    pass"
    watched = ["tinymemory.api", "tinymemory.memory", "numpy", "asyncio"]
    assert loaded_after(code, watched, tmp_path) == []


def test_import_tinymemory_is_free_and_its_names_still_resolve(tmp_path: Path) -> None:
    assert loaded_after("import tinymemory", ["tinymemory.api", "tinymemory.memory"], tmp_path) == []
    code = "from tinymemory import Memory, Namespace, Reach, __version__\nimport tinymemory as t\n"
    code += "assert t.Memory is Memory and 'Memory' in dir(t)"
    assert loaded_after(code, ["tinymemory.api", "tinymemory.memory"], tmp_path) == [
        "tinymemory.api",
        "tinymemory.memory",
    ]


def test_a_fetch_from_the_command_line_loads_no_model_code_or_policy(tmp_path: Path) -> None:
    db = str(tmp_path / "m.db")
    code = (
        "from tinymemory.cli import main\n"
        f"assert main(['store', 'Dana paints watercolours', '--db', {db!r}]) == 0\n"
        f"assert main(['fetch', 'what does Dana paint', '--db', {db!r}, '--namespace', 'team:t3']) == 0"
    )
    watched = [*NOT_FOR_A_READ, "tokenizers"]
    assert loaded_after(code, watched, tmp_path) == ["tokenizers"]  # the query was embedded


def test_opening_an_engine_defers_the_tokenizer_to_the_first_embed(tmp_path: Path) -> None:
    db = str(tmp_path / "m.db")
    code = (
        "import asyncio\nfrom tinymemory.engines.sqlite import SqliteEngine\n"
        f"asyncio.run(SqliteEngine({db!r}).close())"
    )
    assert loaded_after(code, ["tokenizers", *NOT_FOR_A_READ], tmp_path) == []


def test_the_mcp_memory_server_does_not_load_the_policy_layer(tmp_path: Path) -> None:
    db = str(tmp_path / "m.db")
    code = (
        "import asyncio\nimport tinymemory.cli.mcp_cmd\n"
        "from tinymemory.adapters.mcp import mcp_server, mcp_tool\n"
        "from tinymemory.engines.sqlite import SqliteEngine\n"
        "from tinymemory.tools import MemoryTools\n"
        f"engine = SqliteEngine({db!r})\n"
        "tools = MemoryTools(engine)\n"
        "mcp_server(tools)\n"
        "assert len([mcp_tool(s) for s in tools.specs()]) == 7\n"
        "asyncio.run(engine.close())"
    )
    assert loaded_after(code, NOT_FOR_A_READ, tmp_path) == []


def _hints(tool: types.Tool) -> tuple[bool | None, bool | None, bool | None]:
    a = tool.annotations
    assert a is not None
    return a.read_only_hint, a.destructive_hint, a.idempotent_hint


async def test_tool_annotations_of_both_tool_sets(tmp_path: Path) -> None:
    from tinymemory.adapters.mcp import mcp_tool
    from tinymemory.policy import Identity, PolicyTools
    from tinymemory.tools import READ_TOOLS, MemoryTools

    async with SqliteEngine(str(tmp_path / "m.db"), embedder=None) as engine:
        memory = {s.name: _hints(mcp_tool(s)) for s in MemoryTools(engine).specs()}
        assert {n: memory[n] for n in READ_TOOLS} == dict.fromkeys(READ_TOOLS, (True, None, True))
        assert memory["memory_store"] == (False, False, True)
        assert memory["memory_forget"] == (False, True, None)
        policy_tools = PolicyTools.for_identity(engine, Identity("acme", "dana", None, verified=True))
        policy = {s.name: _hints(mcp_tool(s)) for s in policy_tools.specs()}
        for name in ("memory__recall", "memory__open", "memory__list"):
            assert policy[name] == (True, None, True)
        assert policy["memory__remember"] == (False, False, True)
        assert policy["memory__forget"] == (False, True, None)


async def test_warm_up_loads_the_embedder_before_the_first_call(tmp_path: Path) -> None:
    from tinymemory.cli.mcp_cmd import warm_up
    from tinymemory.retrieval.embedders import StaticMiniLMEmbedder

    emb = StaticMiniLMEmbedder()
    async with SqliteEngine(str(tmp_path / "m.db"), embedder=emb) as engine:
        thread = warm_up(engine)
        assert thread is not None
        thread.join()
        assert emb.loaded
    async with SqliteEngine(str(tmp_path / "n.db"), embedder=None) as lexical:
        assert warm_up(lexical) is None


def test_mcp_server_answers_its_first_fetch_with_the_embedder_warmed(tmp_path: Path) -> None:
    """The whole start path, as a desktop client runs it: spawn, handshake, one semantic fetch."""
    import anyio
    from mcp import Client, StdioServerParameters

    db = tmp_path / "m.db"
    place = "team:t3/agent:a1"

    async def seed() -> None:
        meta = ItemMeta(namespace=Namespace.parse(place))
        async with SqliteEngine(str(db)) as engine:
            await engine.store(NewItem(ItemKind.LEARNING, "Dana paints watercolours", meta))

    async def first_fetch() -> list[str]:
        params = StdioServerParameters(
            command=sys.executable,
            args=["-m", "tinymemory", "mcp", "--db", str(db)],
            env={"TINYMEMORY_PLACE": place},
        )
        with anyio.fail_after(60):
            async with Client(params) as client:
                got = await client.call_tool("memory_fetch", {"query": "what does Dana paint"})
                assert not got.is_error, got.content
                return [h["text"] for h in got.structured_content["hits"]]

    anyio.run(seed)
    assert anyio.run(first_fetch) == ["Dana paints watercolours"]
