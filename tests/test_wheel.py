"""The package as a user gets it: `python -m build` makes an sdist and a wheel (built from that sdist), and
the wheel, installed alone into a fresh virtual environment (no editable install, no repository on the
path, no extra), imports, answers `--version` with the one version the metadata holds, runs the demo with
the shipped embedder, and refuses the service and PostgreSQL in one line that names the extra to install.

The fresh environment installs the core dependencies from the package index the machine is configured
with (pip's cache makes repeats quick); with no network at all the test is skipped, saying so.
"""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
import tarfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DATA = Path("tinymemory/retrieval/embedders/data")
# pip's words for "the network is not there", as opposed to a requirement that cannot be met.
OFFLINE = re.compile(
    r"NewConnectionError|Temporary failure in name resolution|Network is unreachable|"
    r"Failed to establish a new connection|ConnectTimeoutError|Name or service not known"
)
# Packages of the extras: none may arrive with the core install.
EXTRA_MODULES = ("fastapi", "prometheus_client", "psycopg", "psycopg_pool", "pgvector", "usearch", "pypdf")


@dataclass(frozen=True)
class Built:
    wheel: Path
    sdist: Path
    venv: Path
    work: Path  # the fresh environment's working folder, outside the repository

    def bin(self, name: str) -> Path:
        return self.venv / "bin" / name

    def env(self) -> dict[str, str]:
        """The caller's environment without anything that would put the repository or another
        environment on the path, and with no tinymemory settings of the caller's."""
        env = {
            k: v
            for k, v in os.environ.items()
            if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV") and not k.startswith("TINYMEMORY_")
        }
        env["PATH"] = f"{self.venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
        env["TINYMEMORY_HOME"] = str(self.work / "home")
        env["COLUMNS"] = "200"  # the demo's tables print rows whole
        env["MEM0_TELEMETRY"] = "False"
        return env

    def run(self, *argv: str | Path) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(a) for a in argv],
            cwd=self.work,
            env=self.env(),
            capture_output=True,
            text=True,
            timeout=900,
            check=False,
        )


def source_version() -> str:
    """`__version__` as written in src/tinymemory/_version.py (read as setuptools reads it: statically)."""
    tree = ast.parse((ROOT / "src/tinymemory/_version.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__version__" for t in node.targets
        ):
            assert isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
            return node.value.value
    raise AssertionError("no __version__ in src/tinymemory/_version.py")


def _checked(out: subprocess.CompletedProcess[str], what: str) -> None:
    if out.returncode != 0:
        text = out.stdout + out.stderr
        if OFFLINE.search(text):
            pytest.skip(f"no network to install the wheel's dependencies ({what}): {OFFLINE.search(text)}")
        raise AssertionError(f"{what} failed ({out.returncode}):\n{text[-4000:]}")


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    base = tmp_path_factory.mktemp("wheel")
    dist, work = base / "dist", base / "work"
    work.mkdir()
    out = subprocess.run(
        [sys.executable, "-m", "build", "--outdir", str(dist), str(ROOT)],
        cwd=base,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    if out.returncode != 0 and OFFLINE.search(out.stdout + out.stderr):
        pytest.skip("no network to fetch the build backend for an isolated build")
    assert out.returncode == 0, (out.stdout + out.stderr)[-4000:]
    wheels, sdists = sorted(dist.glob("*.whl")), sorted(dist.glob("*.tar.gz"))
    assert len(wheels) == 1 and len(sdists) == 1, sorted(p.name for p in dist.iterdir())
    venv = base / "venv"
    # Plain venv: no --system-site-packages, so nothing of the test's own environment is visible.
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    result = Built(wheels[0], sdists[0], venv, work)
    _checked(result.run(result.bin("python"), "-m", "pip", "install", "--quiet", wheels[0]), "pip install")
    return result


def test_the_artifacts_carry_the_version_and_the_package_data(built: Built) -> None:
    version = source_version()
    assert built.wheel.name.startswith(f"tinymemory-{version}-py3-none-any")
    assert built.sdist.name == f"tinymemory-{version}.tar.gz"
    shipped = sorted(p.name for p in (ROOT / "src" / DATA).iterdir() if p.is_file())
    assert shipped, "the embedder table is missing from the source tree"
    with tarfile.open(built.sdist) as sdist:
        in_sdist = set(sdist.getnames())
    prefix = f"tinymemory-{version}/src"
    missing = [n for n in shipped if f"{prefix}/{DATA}/{n}" not in in_sdist]
    assert missing == [], f"the sdist lacks the embedder data: {missing}"
    with zipfile.ZipFile(built.wheel) as wheel:
        in_wheel = set(wheel.namelist())
        metadata = wheel.read(f"tinymemory-{version}.dist-info/METADATA").decode()
    assert [n for n in shipped if f"{DATA}/{n}" not in in_wheel] == []
    # the service has no __init__.py (a namespace package): its modules and the inspector's assets ship
    assert {"tinymemory/service/app.py", "tinymemory/py.typed"} <= in_wheel
    assert any(n.startswith("tinymemory/service/inspector/static/") for n in in_wheel)
    extras = set(re.findall(r"^Provides-Extra: (\S+)$", metadata, re.M))
    assert {"service", "postgres", "pdf", "ann", "langgraph", "torch", "otel", "docs"} <= extras


def test_the_installed_wheel_imports_from_the_environment_not_the_repository(built: Built) -> None:
    code = (
        "import importlib.util, json, sys, tinymemory, importlib.metadata as m\n"
        "print(json.dumps({'file': tinymemory.__file__, 'version': tinymemory.__version__,"
        " 'dist': m.version('tinymemory'), 'path': sys.path,"
        f" 'extras': [n for n in {EXTRA_MODULES!r} if importlib.util.find_spec(n)]}}))"
    )
    out = built.run(built.bin("python"), "-c", code)
    assert out.returncode == 0, out.stderr
    seen = json.loads(out.stdout)
    assert Path(seen["file"]).is_relative_to(built.venv), seen["file"]
    assert not any(str(ROOT) in entry for entry in seen["path"]), seen["path"]
    assert seen["version"] == seen["dist"] == source_version()
    assert seen["extras"] == [], f"the core install brought packages of an extra: {seen['extras']}"
    version = built.run(built.bin("tinymemory"), "--version")
    assert version.returncode == 0, version.stderr
    assert version.stdout.strip() == f"tinymemory {source_version()}"


def test_the_demo_runs_with_the_shipped_embedder(built: Built) -> None:
    out = built.run(built.bin("tinymemory"), "demo")
    assert out.returncode == 0, out.stdout + out.stderr
    header = out.stdout.splitlines()[0]
    assert "modes: lexical, semantic, hybrid" in header and "embedder: static-minilm" in header, header
    # the semantic search finds the memory that shares no word with the question: the vectors worked
    block = out.stdout[out.stdout.index("fetch (semantic): What coffee does Dana like?") :]
    rows = [line for line in block.splitlines() if re.match(r"^│\s*\d\.\d+\s*│", line)]
    assert rows and "oat-milk flat whites" in rows[0], block[:1500]


def test_the_service_without_its_extra_refuses_naming_it(built: Built) -> None:
    out = built.run(built.bin("tinymemory"), "serve", "--dev", "--port", "0")
    assert out.returncode == 2, out.stdout + out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1, out.stderr
    error = json.loads(lines[0])
    assert error["error"] == "unsupported" and error["message"].startswith("serve: ")
    assert "pip install 'tinymemory[service]'" in error["message"]


def test_postgres_without_its_extra_refuses_naming_it(built: Built) -> None:
    code = (
        "from tinymemory.api import Unsupported\n"
        "from tinymemory.engines import open_engine\n"
        "try:\n"
        "    open_engine('postgresql://nobody@localhost/none')\n"
        "except Unsupported as exc:\n"
        "    print(exc.message)\n"
    )
    out = built.run(built.bin("python"), "-c", code)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("open: ") and "tinymemory[postgres]" in out.stdout, out.stdout
