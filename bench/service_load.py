"""The memory service under concurrent load: `tinymemory serve` over a prefilled store, N verified users
remembering and recalling at once over HTTP, on loopback; mem0's REST routes side by side when mem0 can
run offline.

    python bench/service_load.py [--levels 1,8,32] [--seconds 60] [--items 100000] [--mix 1:4]
                                 [--mem0-python PY] [--mem0-items 10000] [--no-mem0] [--no-write]
                                 [--systems serve,serve-blas1,mem0]
    python bench/service_load.py --quick          # smoke run: small stores, 5 s per level, writes nothing
    python bench/service_load.py --from-json F    # redraw the section and chart from a saved run

The server is a child process (`python -m tinymemory serve` on 127.0.0.1, a free port, HS256 tokens,
the default embedder) over a fresh copy of a prefilled SQLite file; this process is the client (asyncio +
httpx, one connection per client), so the load generator never runs on the server's event loop. Each
client is a distinct verified user of one workspace, in a closed loop (the next request as soon as the
previous one answers): 1 remember for every 4 recalls by default. Per level: throughput, p50/p95/p99 per
route, errors, the server's resident memory (ready, after warm-up, at the end) and CPU, and the load
average. Client and server share the machine's cores; the section says how many.

The prefilled stores are built once and kept in bench/out/service_load/ (git-ignored): the tinymemory
file through `store_many` with the default embedder (about a minute for 100k items), the mem0 store
through its own `add` (slower: mem0 embeds one message at a time, hence the smaller default).

mem0 runs from another Python when given one (`--mem0-python` or $TINYMEMORY_BENCH_MEM0_PYTHON; default:
this one), see bench/service_load_mem0.py. When it cannot start, the section says why and tinymemory is
measured alone.

--systems can add `serve-blas1` beside the command as committed: the same command with BLAS on one thread,
to show what OpenBLAS's threads cost a server that shares its cores.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from report import machine_line, percentile, table, write_section
from synthetic import sentences, vocabulary

ROOT = Path(__file__).resolve().parent.parent
HERE = Path(__file__).resolve().parent
LOCOMO = ROOT.parent / "shared" / "bench" / "locomo_dev.json"
DATA_DIR = HERE / "out" / "service_load"
CHART = ROOT / "docs" / "service_load.png"
MEM0_SCRIPT = HERE / "service_load_mem0.py"

WORKSPACE = "bench"
USERS, AGENTS = 200, 4
BATCH = 2_000
STORE_SEED, REMEMBER_SEED = 17, 23
START = datetime(2026, 1, 1, tzinfo=UTC)
KINDS = ("general", "fact", "preference", "instruction", "event", "decision", "procedure")
RECALL_LIMIT = 10
TIMEOUT_S = 30.0
WARMUP_RECALLS, WARMUP_REMEMBERS = 30, 5
STARTUP_TIMEOUT_S = 300.0
# The issue's targets: no errors, recall p95 under 50 ms at 8 clients on a 100k-item store, RSS stable
# (here: the end of a level within 10% of its value after warm-up).
TARGET_P95_MS, TARGET_CLIENTS, TARGET_ITEMS, RSS_DRIFT = 50.0, 8, 100_000, 0.10
ROUTES = ("recall", "remember")


# ---- the prefilled stores -----------------------------------------------------------------------------


def owner(i: int) -> tuple[str, str | None, str | None]:
    """Who item i belongs to: 2% the workspace, 8% one agent's shared tier, the rest one user's own tiers
    (half `user`, half `user_for_agent` with the agent that user talks to). Returns (tier, user, agent)."""
    roll = i % 50
    if roll == 0:
        return "institutional", None, None
    if roll <= 4:
        return "agent", None, f"a{i % AGENTS}"
    user = (i * 7919) % USERS
    return ("user_for_agent" if i % 2 else "user"), f"u{user}", f"a{user % AGENTS}"


def namespace_of(tier: str, user: str | None, agent: str | None) -> str:
    base = f"workspace:{WORKSPACE}"
    if tier == "institutional":
        return base
    if tier == "agent":
        return f"{base}/agent:{agent}"
    if tier == "user":
        return f"{base}/user:{user}"
    return f"{base}/user:{user}/agent:{agent}"


def store_texts(n: int, seed: int = STORE_SEED) -> list[str]:
    words, p = vocabulary(LOCOMO)
    return sentences(n, words, p, seed=seed)


async def fill_tinymemory(path: Path | str, texts: list[str]) -> str:
    """Fill a store (a SQLite path or a postgresql:// URL) with `texts`; the embedder's name."""
    from tinymemory.api import ItemKind, ItemMeta, Namespace, NewItem, Source
    from tinymemory.engines import open_engine

    async with open_engine(str(path), embedder="default") as engine:
        name = engine.embedder.name if engine.embedder is not None else "none"
        for at in range(0, len(texts), BATCH):
            batch = []
            for i in range(at, min(at + BATCH, len(texts))):
                tier, user, agent = owner(i)
                meta = ItemMeta(
                    namespace=Namespace.parse(namespace_of(tier, user, agent)),
                    source=Source("agent", agent) if tier != "institutional" else Source("import"),
                    agent_id=agent,
                    learning_kind=KINDS[i % len(KINDS)],
                    observed_at=START + timedelta(minutes=i),
                )
                batch.append(NewItem(ItemKind.LEARNING, texts[i], meta))
            await engine.store_many(batch)
            if (at // BATCH) % 10 == 9:
                print(f"  tinymemory store: {at + BATCH:,} items", file=sys.stderr, flush=True)
    return str(name)


def graph_files(path: Path) -> list[Path]:
    """The HNSW graph files the engine keeps beside a SQLite file."""
    return sorted(path.parent.glob(path.name + ".hnsw-*"))


def ensure_graph(path: Path, items: int) -> None:
    """A store large enough for the HNSW graph gets it built once, kept beside the file and copied with
    it: otherwise every server process would build its own on its first large read (minutes of CPU in
    the background, which the levels would measure as the cost of serving)."""
    from tinymemory.engines import open_engine
    from tinymemory.engines.sqlite import ann

    if not ann.should_use(items) or graph_files(path):
        return

    async def build() -> None:
        async with open_engine(str(path), embedder="default", background_index=False) as engine:
            await engine.build_index()  # type: ignore[attr-defined]

    print(f"building the HNSW graph of the {items:,}-item store ...", file=sys.stderr, flush=True)
    asyncio.run(build())


def tinymemory_store(items: int, baseline: Baseline | None = None) -> tuple[Path, dict[str, Any]]:
    """The cached prefilled file (built on first use, with its HNSW graph when it is large enough for
    one), and what was recorded about its build. With a baseline, the file is built by the baseline's
    source in a child process: an older build cannot open a file of a newer schema, while this build
    upgrades the copy each of its servers starts from."""
    path = store_path(items, baseline)
    if baseline is not None:
        if not (path.exists() and path.with_suffix(".json").exists()):
            env = {**os.environ, **baseline.env()}
            cmd = [
                sys.executable,
                str(Path(__file__).resolve()),
                "--build-store",
                str(path),
                "--items",
                str(items),
            ]
            done = subprocess.run(cmd, env=env)
            if done.returncode != 0:
                raise SystemExit(f"--baseline: building the store with {baseline.revision()} failed")
        return path, json.loads(path.with_suffix(".json").read_text())
    return build_store(path, items)


def store_path(items: int, baseline: Baseline | None = None) -> Path:
    """Where the prefilled file of `items` is kept: one per baseline, named after it (`--baseline-name`,
    else its git revision), since each baseline builds its own."""
    if baseline is None:
        return DATA_DIR / f"tinymemory-{items}.db"
    slug = re.sub(r"[^A-Za-z0-9]+", "-", baseline.revision()).strip("-") or "baseline"
    return DATA_DIR / f"tinymemory-{items}-by-{slug}.db"


def build_store(path: Path, items: int) -> tuple[Path, dict[str, Any]]:
    """`path` prefilled with `items` memories by the tinymemory on the import path (kept: built once)."""
    info_path = path.with_suffix(".json")
    if path.exists() and info_path.exists():
        ensure_graph(path, items)
        return path, json.loads(info_path.read_text())
    DATA_DIR.mkdir(parents=True, exist_ok=True)
    print(f"building the tinymemory store ({items:,} items) ...", file=sys.stderr, flush=True)
    tmp = path.with_suffix(".building.db")
    for suffix in ("", "-wal", "-shm"):
        Path(str(tmp) + suffix).unlink(missing_ok=True)
    started = time.perf_counter()
    embedder = asyncio.run(fill_tinymemory(tmp, store_texts(items)))
    info = {"items": items, "seconds": time.perf_counter() - started, "embedder": embedder}
    os.replace(tmp, path)
    info_path.write_text(json.dumps(info))
    print(f"  built in {info['seconds']:.0f} s", file=sys.stderr, flush=True)
    ensure_graph(path, items)
    return path, info


def mem0_store(python: str, items: int) -> tuple[Path, dict[str, Any]]:
    """The cached mem0 data folder: the same texts, each memory under the user_id of its owner (mem0 has
    no tiers; items of the shared tiers go to users round-robin)."""
    folder = DATA_DIR / f"mem0-{items}"
    info_path = folder / "built.json"
    if info_path.exists():
        return folder, json.loads(info_path.read_text())
    DATA_DIR.mkdir(parents=True, exist_ok=True)
    print(f"building the mem0 store ({items:,} items) ...", file=sys.stderr, flush=True)
    tmp = folder.with_name(folder.name + ".building")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    lines = tmp / "items.jsonl"
    with lines.open("w") as out:
        for i, text in enumerate(store_texts(items)):
            _, user, _ = owner(i)
            out.write(json.dumps({"user": user or f"u{i % USERS}", "text": text}) + "\n")
    done = subprocess.run(
        [python, str(MEM0_SCRIPT), "build", "--data", str(tmp), "--items", str(lines)],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise RuntimeError(f"mem0 build failed: {last_line(done.stderr)}")
    info = json.loads(done.stdout.strip().splitlines()[-1])
    lines.unlink()
    (tmp / "built.json").write_text(json.dumps(info))
    shutil.rmtree(folder, ignore_errors=True)
    os.replace(tmp, folder)
    return folder, info


def last_line(text: str) -> str:
    lines = [ln.strip() for ln in text.strip().splitlines() if ln.strip()]
    return lines[-1][:300] if lines else "no output"


# ---- the servers ----------------------------------------------------------------------------------------


def proc_status(pid: int, key: str) -> float:
    """A /proc/<pid>/status figure in MB (VmRSS, VmHWM)."""
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith(key + ":"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")


def family(pid: int) -> list[int]:
    """`pid` and every process below it (a supervisor's workers), read from /proc."""
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        with contextlib.suppress(OSError, ValueError):
            todo += map(int, Path(f"/proc/{current}/task/{current}/children").read_text().split())
    return found


def proc_cpu_seconds(pid: int) -> float:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return float("nan")
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def loadavg() -> tuple[float, float, float]:
    one, five, fifteen = Path("/proc/loadavg").read_text().split()[:3]
    return float(one), float(five), float(fifteen)


@dataclass
class Server:
    proc: subprocess.Popen[bytes]
    url: str
    log: Path
    notes: list[str] = field(default_factory=list)
    log_tail: list[str] = field(default_factory=list)
    replicas: list[Server] = field(default_factory=list)  # further processes serving the same store

    @property
    def pid(self) -> int:
        return self.proc.pid

    def all(self) -> list[Server]:
        return [self, *self.replicas]

    @property
    def urls(self) -> list[str]:
        return [s.url for s in self.all()]

    def pids(self) -> list[int]:
        """Every process serving: each server, and the workers below a supervisor."""
        return [pid for server in self.all() for pid in family(server.pid)]

    def rss(self) -> float:
        """Resident memory of every process serving (MB)."""
        return sum(proc_status(pid, "VmRSS") for pid in self.pids())

    def peak_rss(self) -> float:
        return sum(proc_status(pid, "VmHWM") for pid in self.pids())

    def cpu_seconds(self) -> float:
        """CPU of every process serving now (a worker that died mid-level takes its share with it)."""
        return sum(proc_cpu_seconds(pid) for pid in self.pids())

    def stop(self) -> None:
        for replica in self.replicas:
            replica.stop()
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def launch(cmd: list[str], env: dict[str, str], workdir: Path, ready_path: str) -> Server:
    """Start a server whose stdout says `listening on <url>` (stdout and stderr go to files, so a chatty
    server never blocks on a full pipe), then wait until `ready_path` answers 200."""
    out, log = workdir / "stdout.txt", workdir / "stderr.txt"
    with out.open("wb") as o, log.open("wb") as e:
        proc = subprocess.Popen(cmd, stdout=o, stderr=e, env=env, cwd=workdir)
    deadline = time.monotonic() + STARTUP_TIMEOUT_S
    url, notes = None, []
    while time.monotonic() < deadline and proc.poll() is None:
        for line in out.read_text(errors="replace").splitlines():
            if "listening on " in line:
                url = line.split("listening on ", 1)[1].split()[0]
            elif line.startswith("embedder "):
                notes.append(line)
        if url is not None:
            try:
                if httpx.get(url + ready_path, timeout=5).status_code == 200:
                    return Server(proc, url, log, notes)
            except httpx.HTTPError:
                pass
        time.sleep(0.2)
    server = Server(proc, url or "", log, notes)
    server.stop()
    raise RuntimeError(f"{cmd[2] if len(cmd) > 2 else cmd[0]} did not start: {last_line(log.read_text())}")


# ---- the systems ----------------------------------------------------------------------------------------

BLAS_VARS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def server_env(blas_threads: int | None) -> dict[str, str]:
    """This process's environment for a server, less TINYMEMORY_* (so the store, embedder and secret are
    the bench's), with BLAS pinned to `blas_threads` when given (None: as inherited)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TINYMEMORY_")}
    if "TINYMEMORY_HOME" in os.environ:
        env["TINYMEMORY_HOME"] = os.environ["TINYMEMORY_HOME"]
    if blas_threads is not None:
        env.update({var: str(blas_threads) for var in BLAS_VARS})
    return env


BEFORE = "-before"  # the key suffix of a system run from the baseline's source


@dataclass
class Baseline:
    """An earlier tinymemory to measure beside this one: its `src` folder (a checkout of the commit, e.g.
    a git worktree) first on the server's path, and the modules this one added to its dependencies made
    unimportable for it, so it runs as a fresh install of that commit would."""

    src: Path
    blocked: tuple[str, ...]
    shadow: Path
    name: str | None = None  # what the section calls it (default: the checkout's git revision)

    @classmethod
    def of(cls, src: Path, blocked: tuple[str, ...], workdir: Path, name: str | None = None) -> Baseline:
        if not (src / "tinymemory" / "__init__.py").is_file():
            raise SystemExit(f"--baseline: {src} is not a source folder holding tinymemory/")
        shadow = workdir / "blocked"
        shadow.mkdir(parents=True, exist_ok=True)
        for module in blocked:  # not `name`: that is the baseline's own, for the section and the store
            (shadow / f"{module}.py").write_text(f"raise ImportError('{module}: left out of the baseline')\n")
        return cls(src.resolve(), blocked, shadow, name)

    def env(self) -> dict[str, str]:
        return {"PYTHONPATH": os.pathsep.join([str(self.shadow), str(self.src)])}

    def describe(self) -> str:
        return self.revision() + (f", without {', '.join(self.blocked)}" if self.blocked else "")

    def revision(self) -> str:
        if self.name:
            return self.name
        done = subprocess.run(
            ["git", "-C", str(self.src), "log", "-1", "--format=%h"], capture_output=True, text=True
        )
        return done.stdout.strip() or "an earlier checkout"


class Target:
    """One system under load: how to start it over a fresh copy of its store, and its two requests."""

    key = ""
    label = ""
    items = 0
    embedder = ""
    blas_threads: int | None = None

    def start(self, workdir: Path) -> Server:
        raise NotImplementedError

    def headers(self, client: int) -> dict[str, str]:
        return {}

    def remember(self, client: int, text: str) -> tuple[str, dict[str, Any]]:
        raise NotImplementedError

    def recall(self, client: int, query: str) -> tuple[str, dict[str, Any]]:
        raise NotImplementedError

    def answered(self, route: str, body: Any) -> bool:
        raise NotImplementedError


class Tinymemory(Target):
    """`python -m tinymemory serve` as committed (key `serve`: one worker per core), with BLAS on one
    thread (`serve-blas1`), or with `--workers N` (`serve-wN`)."""

    def __init__(
        self,
        store: Path,
        info: dict[str, Any],
        blas_threads: int | None = None,
        workers: int | None = None,
        baseline: Baseline | None = None,
    ) -> None:
        from tinymemory.service.tokens import issue_jwt

        self.store, self.items, self.embedder = store, int(info["items"]), str(info["embedder"])
        self.blas_threads, self.workers, self.baseline = blas_threads, workers, baseline
        self.key = "serve" if blas_threads is None else f"serve-blas{blas_threads}"
        self.label = "tinymemory serve" + ("" if blas_threads is None else f", BLAS {blas_threads} thread")
        if workers is not None:
            self.key = f"serve-w{workers}"
            self.label = f"tinymemory serve, {workers} worker{'s' if workers > 1 else ''}"
        if baseline is not None:
            self.key += BEFORE
            self.label += ", before"
        self.secret = os.urandom(32).hex()
        self._issue = issue_jwt

    def worker_flags(self) -> list[str]:
        return [] if self.workers is None else ["--workers", str(self.workers)]

    def copy_store(self, workdir: Path) -> tuple[Path, dict[str, str]]:
        db = workdir / "memory.db"
        shutil.copyfile(self.store, db)
        for graph in graph_files(self.store):  # the saved HNSW graph, so no server builds its own
            shutil.copyfile(graph, workdir / (db.name + graph.name[len(self.store.name) :]))
        env = server_env(self.blas_threads)
        env["TINYMEMORY_JWT_SECRET"] = self.secret
        if self.baseline is not None:
            env.update(self.baseline.env())
        return db, env

    def start(self, workdir: Path) -> Server:
        db, env = self.copy_store(workdir)
        cmd = [sys.executable, "-m", "tinymemory", "serve", "--db", str(db), "--port", "0"]
        return launch([*cmd, *self.worker_flags()], env, workdir, "/readyz")

    def headers(self, client: int) -> dict[str, str]:
        token = self._issue(
            self.secret, WORKSPACE, f"u{client}", f"a{client % AGENTS}", ttl=timedelta(hours=2)
        )
        return {"Authorization": f"Bearer {token}"}

    def remember(self, client: int, text: str) -> tuple[str, dict[str, Any]]:
        return "/api/v1/memory/remember", {"content": text, "type": "fact"}

    def recall(self, client: int, query: str) -> tuple[str, dict[str, Any]]:
        return "/api/v1/memory/recall", {"query": query, "limit": RECALL_LIMIT}

    def answered(self, route: str, body: Any) -> bool:
        if route == "remember":
            return isinstance(body, dict) and body.get("status") == "created"
        return isinstance(body, dict) and isinstance(body.get("memories"), list)


class TinymemoryPostgres(Tinymemory):
    """`tinymemory serve --db postgresql://...` as N processes over one Postgres database (key `serve-pg`).

    The prefilled database is built once per run through `store_many` (the same texts, owners and times
    as the SQLite file) and copied per level with `CREATE DATABASE ... TEMPLATE`; clients are spread over
    the replicas round-robin, as a proxy in front of them would.
    """

    def __init__(self, pg: Any, info: dict[str, Any], replicas: int) -> None:
        super().__init__(Path(), info, blas_threads=None, workers=1)  # a replica is one process
        self.pg, self.replicas = pg, replicas
        self.key = "serve-pg"
        self.label = f"tinymemory serve, Postgres, {replicas} replicas"
        self.workers = 1
        self.template = ""

    def prefill(self, items: int) -> None:
        url = self.pg.fresh()
        print(f"building the Postgres store ({items:,} items) ...", file=sys.stderr, flush=True)
        started = time.perf_counter()
        asyncio.run(fill_tinymemory(url, store_texts(items)))
        self.build_s = time.perf_counter() - started
        print(f"  built in {self.build_s:.0f} s", file=sys.stderr, flush=True)
        self.template = urlsplit(url).path.lstrip("/")

    def start(self, workdir: Path) -> Server:
        from pg import template_copy

        url = template_copy(self.pg, self.template)
        env = server_env(self.blas_threads)
        env["TINYMEMORY_JWT_SECRET"] = self.secret
        env["TINYMEMORY_DB"] = url  # through the environment: a URL on a command line shows in ps
        servers: list[Server] = []
        try:
            for i in range(self.replicas):
                home = workdir / f"replica{i}"
                home.mkdir()
                cmd = [sys.executable, "-m", "tinymemory", "serve", "--port", "0", *self.worker_flags()]
                servers.append(launch(cmd, env, home, "/readyz"))
        except BaseException:
            for server in servers:
                server.stop()
            raise
        first = servers[0]
        first.replicas = servers[1:]
        return first


class Mem0(Target):
    """mem0 behind bench/service_load_mem0.py, BLAS on one thread (its local Qdrant scores with numpy)."""

    key = label = "mem0"
    blas_threads = 1

    def __init__(self, python: str, store: Path, info: dict[str, Any]) -> None:
        self.python, self.store = python, store
        self.items, self.embedder = int(info["items"]), str(info["embedder"])

    def start(self, workdir: Path) -> Server:
        data = workdir / "mem0"
        shutil.copytree(self.store, data)
        env = dict(server_env(self.blas_threads), MEM0_TELEMETRY="false")
        env.pop("OPENAI_API_KEY", None)
        cmd = [self.python, str(MEM0_SCRIPT), "serve", "--data", str(data)]
        return launch(cmd, env, workdir, "/healthz")

    def remember(self, client: int, text: str) -> tuple[str, dict[str, Any]]:
        body = {"messages": [{"role": "user", "content": text}], "user_id": f"u{client}", "infer": False}
        return "/memories", body

    def recall(self, client: int, query: str) -> tuple[str, dict[str, Any]]:
        body = {"query": query, "filters": {"user_id": f"u{client}"}, "top_k": RECALL_LIMIT, "threshold": 0.0}
        return "/search", body

    def answered(self, route: str, body: Any) -> bool:
        if route == "remember":
            return isinstance(body, dict) and len(body.get("results") or []) == 1
        return isinstance(body, dict) and isinstance(body.get("results"), list)


def mem0_python(args: argparse.Namespace) -> str:
    return str(args.mem0_python or os.environ.get("TINYMEMORY_BENCH_MEM0_PYTHON") or sys.executable)


def mem0_target(args: argparse.Namespace) -> tuple[Mem0 | None, str]:
    """mem0 when it can run here, else None and why."""
    python = mem0_python(args)
    probe = subprocess.run(
        [python, "-c", "import mem0, qdrant_client, fastapi, uvicorn; print(mem0.__version__)"],
        capture_output=True,
        text=True,
    )
    if probe.returncode != 0:
        return None, f"mem0 could not be imported ({last_line(probe.stderr)})"
    try:
        store, info = mem0_store(python, args.mem0_items)
    except (RuntimeError, OSError, ValueError) as exc:
        return None, f"mem0's store could not be built: {exc}"
    target = Mem0(python, store, info)
    target.version = probe.stdout.strip()  # type: ignore[attr-defined]
    return target, ""


# ---- the load -------------------------------------------------------------------------------------------


@dataclass
class Workload:
    queries: list[str]
    texts: list[str]
    remember_every: int  # one remember in this many requests

    def route(self, k: int) -> str:
        return "remember" if k % self.remember_every == 0 else "recall"


async def client_loop(
    target: Target,
    url: str,
    client: int,
    work: Workload,
    deadline: float,
    lat: dict[str, list[float]],
    errors: Counter[str],
    log_error: Callable[[str], None],
) -> None:
    rng = random.Random(client)
    limits = httpx.Limits(max_connections=1, max_keepalive_connections=1)
    async with httpx.AsyncClient(
        base_url=url, headers=target.headers(client), timeout=TIMEOUT_S, limits=limits
    ) as http:
        k = client  # clients start at different points of the mix
        while time.perf_counter() < deadline:
            route = work.route(k)
            if route == "remember":
                text = f"{rng.choice(work.texts)} (client {client}, note {k})"
                path, body = target.remember(client, text)
            else:
                path, body = target.recall(client, rng.choice(work.queries))
            started = time.perf_counter()
            try:
                res = await http.post(path, json=body)
                took = (time.perf_counter() - started) * 1000
                ok = res.status_code == 200 and target.answered(route, res.json())
                if not ok:
                    errors[f"{route} {res.status_code}"] += 1
                    log_error(f"{route} {res.status_code}: {res.text[:200]}")
                else:
                    lat[route].append(took)
            except (httpx.HTTPError, ValueError) as exc:
                errors[f"{route} {type(exc).__name__}"] += 1
                log_error(f"{route}: {type(exc).__name__}: {str(exc)[:200]}")
            k += 1


WORKER_HEADER = "x-tinymemory-worker"  # which worker of `serve --workers N` answered
WARMUP_ROUNDS = 8


async def warm_up(target: Target, url: str, work: Workload, connections: int = 4) -> None:
    """Untimed: load the vector matrix, caches and connections before measuring. Rounds of a few
    connections at once, until every worker of a supervisor has answered a round's worth of recalls
    (a worker accepts the connections it wins, and loads its vectors on its first recall)."""
    workers = getattr(target, "workers", None) or 1
    warmed: Counter[str] = Counter()

    async def one(n: int) -> None:
        async with httpx.AsyncClient(base_url=url, headers=target.headers(n), timeout=TIMEOUT_S) as http:
            for i in range(WARMUP_RECALLS):
                path, body = target.recall(n, work.queries[(i + n) % len(work.queries)])
                res = await http.post(path, json=body)
                res.raise_for_status()
                warmed[res.headers.get(WORKER_HEADER, "")] += 1
            for i in range(WARMUP_REMEMBERS):
                path, body = target.remember(n, f"{work.texts[i]} (warm-up {n}.{i})")
                (await http.post(path, json=body)).raise_for_status()

    for round_ in range(WARMUP_ROUNDS):
        await asyncio.gather(*(one(round_ * connections + n) for n in range(connections)))
        if sum(1 for count in warmed.values() if count >= WARMUP_RECALLS) >= workers:
            return


async def warm_users(target: Target, url: str, work: Workload, clients: int) -> None:
    """Untimed, after `warm_up`: one recall as each user the level reads as, all at once, on fresh
    connections, in two rounds per worker (a connection lands on the worker that wins it), so what a
    worker keeps per user (its tiers' vectors) is in place before the level's RSS and CPU are read."""
    workers = getattr(target, "workers", None) or 1

    async def one(n: int, k: int) -> None:
        async with httpx.AsyncClient(base_url=url, headers=target.headers(n), timeout=TIMEOUT_S) as http:
            path, body = target.recall(n, work.queries[(k + n) % len(work.queries)])
            (await http.post(path, json=body)).raise_for_status()

    for k in range(2 * workers):
        await asyncio.gather(*(one(n, k) for n in range(clients)))


async def measure(
    target: Target, server: Server, clients: int, seconds: float, work: Workload
) -> dict[str, Any]:
    lat: dict[str, list[float]] = {r: [] for r in ROUTES}
    errors: Counter[str] = Counter()
    samples: list[str] = []

    def log_error(msg: str) -> None:
        if len(samples) < 5:
            samples.append(msg)

    for url in server.urls:
        await warm_up(target, url, work)
        await warm_users(target, url, work, clients)
    rss_warm = server.rss()
    load0 = loadavg()
    cpu0, usage0 = server.cpu_seconds(), resource.getrusage(resource.RUSAGE_SELF)
    started = time.perf_counter()
    deadline = started + seconds
    await asyncio.gather(
        *(
            client_loop(target, server.urls[c % len(server.urls)], c, work, deadline, lat, errors, log_error)
            for c in range(clients)
        )
    )
    wall = time.perf_counter() - started
    cpu1, usage1 = server.cpu_seconds(), resource.getrusage(resource.RUSAGE_SELF)
    client_cpu = (usage1.ru_utime + usage1.ru_stime) - (usage0.ru_utime + usage0.ru_stime)
    done = sum(len(v) for v in lat.values())
    row: dict[str, Any] = {
        "system": target.label,
        "key": target.key,
        "workers": getattr(target, "workers", None),
        "blas_threads": target.blas_threads,
        "clients": clients,
        "items": target.items,
        "seconds": wall,
        "requests": done,
        "rps": done / wall,
        "errors": sum(errors.values()),
        "error_kinds": dict(errors),
        "error_samples": samples,
        "rss_warm": rss_warm,
        "rss_end": server.rss(),
        "rss_peak": server.peak_rss(),
        "server_cpu": (cpu1 - cpu0) / wall,
        "client_cpu": client_cpu / wall,
        "load_before": load0,
        "load_after": loadavg(),
    }
    for route in ROUTES:
        values = lat[route]
        row[route] = {
            "n": len(values),
            "p50": percentile(values, 50),
            "p95": percentile(values, 95),
            "p99": percentile(values, 99),
        }
    return row


def run_level(target: Target, clients: int, seconds: float, work: Workload) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="tinymemory-load-") as tmp:
        started = time.perf_counter()
        server = target.start(Path(tmp))
        ready_s = time.perf_counter() - started
        try:
            rss_ready = server.rss()
            row = asyncio.run(measure(target, server, clients, seconds, work))
        finally:
            server.stop()
            server.log_tail = [ln[:300] for ln in server.log.read_text(errors="replace").splitlines()[-6:]]
    row["rss_ready"], row["ready_s"], row["notes"] = rss_ready, ready_s, server.notes
    if row["errors"]:
        row["server_log_tail"] = server.log_tail
    return row


# ---- the report -----------------------------------------------------------------------------------------


def ms3(r: dict[str, Any]) -> str:
    if not r["n"]:
        return "n/a"
    return f"{r['p50']:.1f} / {r['p95']:.1f} / {r['p99']:.1f}"


SYSTEM_KEYS = ("serve", "serve-blas1", "serve-pg", "mem0")
WORKERS_KEY = re.compile(r"serve-w([1-9][0-9]?)(-before)?")  # `serve --workers N` (, the baseline)
SYSTEM_COLORS = {
    "serve": "tab:blue",
    "serve-blas1": "tab:green",
    "serve-pg": "tab:purple",
    "mem0": "tab:orange",
}


def tinymemory_rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [r for r in rows if r["key"] != "mem0"]


def render(run: dict[str, Any]) -> str:
    rows, cfg = run["rows"], run["config"]
    tm_items = max((r["items"] for r in tinymemory_rows(rows)), default=cfg["items"])
    headers = [
        "system",
        "clients",
        "items",
        "req/s",
        "recall p50 / p95 / p99 ms",
        "remember p50 / p95 / p99 ms",
        "errors",
        "server RSS MB: ready / warm / end",
        "server CPU (ms / request)",
        "client CPU",
        "1-min load before / after",
    ]
    body = [
        [
            r["system"],
            str(r["clients"]),
            f"{r['items']:,}",
            f"{r['rps']:,.1f}",
            ms3(r["recall"]),
            ms3(r["remember"]),
            str(r["errors"]),
            f"{r['rss_ready']:,.0f} / {r['rss_warm']:,.0f} / {r['rss_end']:,.0f}",
            f"{r['server_cpu']:.0%} ({1000 * r['server_cpu'] / r['rps']:,.0f})" if r["rps"] else "-",
            f"{r['client_cpu']:.0%}",
            f"{r['load_before'][0]:.2f} / {r['load_after'][0]:.2f}",
        ]
        for r in rows
    ]
    every = cfg["remember_every"]
    out = [
        "## Service under load: Postgres replicas beside SQLite (`bench/service_load.py`)"
        if any(r["key"] == "serve-pg" for r in rows)
        else "## Service under load (`bench/service_load.py`)",
        "",
        f"Machine: {cfg['machine']} (the client's; it does no BLAS work); 1-min load average before and "
        f"after the whole run: {cfg['load_start'][0]:.2f} and {cfg['load_end'][0]:.2f}. **Client and "
        f"server share these {os.cpu_count()} cores**, and other jobs ran on the machine at the same time: "
        "the load column (which counts the bench's own processes) says how busy it was at each level.",
        "",
        "The server is `tinymemory serve` in a child process (uvicorn's event loop, the engine's SQLite "
        f"worker thread and its embedding thread; default embedder `{cfg['tm_embedder']}`, HS256 tokens) "
        f"over a fresh copy of a prefilled SQLite file of {tm_items:,} memories at every level. The store is "
        f"one workspace: {USERS} users' own tiers (96%, half `user`, half `user_for_agent`), {AGENTS} "
        "agents' shared tiers (2% each) and the institutional tier (2%), so one user's recall reads about "
        f"{(0.96 / USERS + 0.02 / AGENTS + 0.02):.1%} of the store; texts are synthetic sentences of 8 to 28 "
        "words drawn from the word distribution of the LoCoMo chat turns. The client is this script's "
        "process: asyncio with one httpx connection per client, each client a distinct verified user (its "
        f"own JWT) in a closed loop for {cfg['seconds']:.0f} s per level after an untimed warm-up, "
        f"1 `POST /api/v1/memory/remember` for every {every - 1} `POST /api/v1/memory/recall` (top "
        f"{RECALL_LIMIT}, queries drawn from the LoCoMo questions). Latency is measured by the client, so "
        "it includes the HTTP round trip and any wait for the server; req/s counts answered requests. RSS "
        "is the server's VmRSS when ready, after warm-up and at the end of the level; CPU is the share of "
        "one core each process used during the level (above 100%: more than one thread busy), and for the "
        "server also per answered request. BLAS threads: `tinymemory serve` limits BLAS to one thread "
        "itself (threadpoolctl); systems marked 'BLAS 1 thread' also get "
        f"{', '.join(BLAS_VARS)} = 1.",
        "",
        table(headers, body),
        "",
        "![throughput and recall latency against concurrent clients](service_load.png)",
        "",
        *postgres_lines(rows),
        *targets_lines(rows),
        *variant_lines(rows),
        *mem0_lines(run),
    ]
    errors = [r for r in rows if r["errors"]]
    if errors:
        out += ["", "Errors seen (kinds and counts, and the first one):", ""]
        for r in errors:
            kinds = ", ".join(f"{k}: {v}" for k, v in r["error_kinds"].items())
            out.append(f"- {r['system']}, {n_clients(r['clients'])}: {kinds}; e.g. `{r['error_samples'][0]}`")
    return "\n".join(out)


def postgres_lines(rows: list[dict[str, Any]]) -> list[str]:
    """What the Postgres rows measure, and how they compare with one process over SQLite."""
    pg = [r for r in rows if r["key"] == "serve-pg"]
    if not pg:
        return []
    out = [
        f"`{pg[0]['system']}`: the same service as separate processes over one Postgres database (a "
        "throwaway PostgreSQL 16 with pgvector on this machine, over a unix socket, sharing the same cores; "
        "a plain role, so row-level security is on). Clients are spread over the replicas round-robin, as a "
        "proxy would spread them; RSS and CPU are summed over the replicas, and Postgres's own processes "
        "are not in those columns (they are in the load average). The database is prefilled through "
        "`store_many` with the same memories as the SQLite file and copied per level.",
        "",
    ]
    sqlite_rows = by_key(rows, "serve")
    pairs = [(c, sqlite_rows[c], r) for r in pg for c in [r["clients"]] if c in sqlite_rows]
    if pairs:
        cells = ", ".join(
            f"{n_clients(c)} {b['rps']:,.1f} against {a['rps']:,.1f} req/s"
            f" (recall p95 {b['recall']['p95']:,.0f} against {a['recall']['p95']:,.0f} ms)"
            for c, a, b in pairs
        )
        out += [f"Postgres replicas against one SQLite process, same run: {cells}.", ""]
    return out


def targets_lines(rows: list[dict[str, Any]]) -> list[str]:
    lines: list[str] = []
    for key in SYSTEM_KEYS:
        tm = [r for r in tinymemory_rows(rows) if r["key"] == key]
        if tm:
            lines += [f"Targets, {tm[0]['system']}:", "", *system_targets(tm), ""]
    return lines


def system_targets(tm: list[dict[str, Any]]) -> list[str]:
    errors = sum(r["errors"] for r in tm)
    lines = [
        f"- No errors: {errors} errors in {sum(r['requests'] + r['errors'] for r in tm):,} requests "
        f"({'met' if errors == 0 else 'not met'})."
    ]
    at = [r for r in tm if r["clients"] == TARGET_CLIENTS]
    if at:
        r = at[0]
        p95 = r["recall"]["p95"]
        if r["items"] < TARGET_ITEMS:
            size_note, verdict = f" on {r['items']:,} items, not {TARGET_ITEMS:,}", "not shown"
        else:
            size_note, verdict = "", "met" if p95 < TARGET_P95_MS else "**not met**"
        lines.append(
            f"- Recall p95 under {TARGET_P95_MS:.0f} ms at {TARGET_CLIENTS} clients on a "
            f"{TARGET_ITEMS:,}-item store: {p95:,.1f} ms{size_note} ({verdict})."
        )
    drift = [(r["clients"], (r["rss_end"] - r["rss_warm"]) / r["rss_warm"]) for r in tm]
    worst = max(d for _, d in drift)
    cells = ", ".join(f"{n_clients(c)} {d:+.1%}" for c, d in drift)
    lines.append(
        f"- RSS stable (the end of a level within {RSS_DRIFT:.0%} of its value after warm-up): {cells} "
        f"({'met' if worst <= RSS_DRIFT else 'not met'}); the remembers add memories, so some growth is data."
    )
    return lines


def n_clients(n: int) -> str:
    return f"{n} client" if n == 1 else f"{n} clients"


def failed_recalls(r: dict[str, Any]) -> int:
    return sum(v for k, v in r["error_kinds"].items() if k.startswith("recall "))


def by_key(rows: list[dict[str, Any]], key: str) -> dict[int, dict[str, Any]]:
    return {r["clients"]: r for r in rows if r["key"] == key}


def variant_lines(rows: list[dict[str, Any]]) -> list[str]:
    """What each variant of the server changes, read from the rows (nothing when a pair did not run)."""
    out: list[str] = []
    serve, blas1 = by_key(rows, "serve"), by_key(rows, "serve-blas1")
    both = sorted(set(serve) & set(blas1))
    if both:
        cells = ", ".join(
            f"{n_clients(c)} {serve[c]['rps']:,.1f} against {blas1[c]['rps']:,.1f} req/s (recall p95 "
            f"{serve[c]['recall']['p95']:,.0f} against {blas1[c]['recall']['p95']:,.0f} ms)"
            for c in both
        )
        gains = [blas1[c]["rps"] / serve[c]["rps"] for c in both if serve[c]["rps"]]
        if gains and max(gains) >= 1.3:
            why = (
                "The recall path scores the query against the stored vectors with numpy; with OpenBLAS's "
                "default of one thread per core its threads busy-wait for each other, and on two cores "
                "shared with the client and other jobs that waiting is what the server spends its CPU on "
                "(compare the CPU per request). The engine keeps small embedding calls on one BLAS thread; "
                "the rest of the request path is not limited."
            )
        else:
            cpu = [
                (serve[c]["server_cpu"] / serve[c]["rps"], blas1[c]["server_cpu"] / blas1[c]["rps"])
                for c in both
                if serve[c]["rps"] and blas1[c]["rps"]
            ]
            if cpu and all(a >= 1.4 * b for a, b in cpu):
                cells_cpu = ", ".join(f"{1000 * a:.0f} against {1000 * b:.0f}" for a, b in cpu)
                why = (
                    "In this run throughput was close, but the server as it is spent more CPU per request "
                    f"({cells_cpu} ms at the levels above): OpenBLAS's extra thread kept most of the second "
                    "core busy, the core the client and other jobs share, for a throughput within "
                    f"{max(abs(g - 1) for g in gains):.0%} of one thread's."
                )
            else:
                why = "In this run the BLAS threads made no large difference."
        out += [
            f"BLAS threads. `tinymemory serve` as it is, then with BLAS on one thread: {cells}. {why}",
            "",
        ]
    best = [r for key in ("serve-blas1", "serve") for r in by_key(rows, key).values() if r["clients"] == 1]
    if best and best[0]["rps"]:
        r = best[0]
        per_request = 1000 * r["server_cpu"] / r["rps"]
        out += [
            f"Where the time goes: at 1 client ({r['system']}) the server spends {per_request:.0f} ms of CPU "
            "per answered request and serves requests largely one at a time (one SQLite thread, and the "
            f"GIL), so it cannot answer much more than {1000 / per_request:,.0f} requests per second; past "
            f"that, each added client adds waiting: at {TARGET_CLIENTS} clients a request queues behind "
            f"about {TARGET_CLIENTS - 1} others.",
            "",
        ]
    return out


def mem0_lines(run: dict[str, Any]) -> list[str]:
    rows, cfg = run["rows"], run["config"]
    if cfg.get("mem0_skipped"):
        return [f"mem0: not measured in this run: {cfg['mem0_skipped']}."]
    m0 = by_key(rows, "mem0")
    if not m0:
        return []
    first = next(iter(m0.values()))
    tm_items = max((r["items"] for r in tinymemory_rows(rows)), default=0)
    out = [
        f"mem0 ({cfg.get('mem0_version', '?')}), side by side in the same run, each level right after "
        "tinymemory's: mem0's own `Memory` class behind a FastAPI app with the two routes of mem0's REST "
        "server that the load uses (`POST /memories` with `infer: false`, so no LLM is called, and "
        f"`POST /search` filtered by `user_id`, top {RECALL_LIMIT}, threshold 0), plain `def` handlers in "
        "FastAPI's thread pool over one shared `Memory`, as mem0's server has them; vectors in local "
        f"Qdrant (a folder, no Qdrant server); the same embedder, `{cfg.get('mem0_embedder')}`; BLAS on one "
        "thread. The same clients, mix, queries and texts; each mem0 client is one `user_id`. A mem0 "
        "search reads that user's memories only, where a tinymemory recall reads four tiers (the user's "
        "two, the agent's and the workspace's).",
    ]
    if first["items"] < tm_items:
        out += [
            "",
            f"mem0's store holds **{first['items']:,} memories, not {tm_items:,}**: mem0 adds one memory "
            "at a time, embedding each on its own, and its local Qdrant filters by scanning, so a 100k "
            "store would take long to fill and longer to search. The comparison is therefore of serving "
            "cost, with mem0 on the smaller store.",
        ]
    for key in SYSTEM_KEYS[:-1]:
        tm = by_key(rows, key)
        ratios = [
            f"{n_clients(c)} {tm[c]['rps'] / m0[c]['rps']:.1f}x"
            for c in sorted(set(m0) & set(tm))
            if m0[c]["rps"] > 0
        ]
        if ratios:
            out += [
                "",
                f"Answered requests per second, {tm[min(tm)]['system']} over mem0: "
                + ", ".join(ratios)
                + ".",
            ]
    failed = [
        f"{n_clients(c)} {r['recall']['n']} of {r['recall']['n'] + failed_recalls(r)}"
        for c, r in sorted(m0.items())
        if failed_recalls(r)
    ]
    if failed:
        out += [
            "",
            "Only answered requests count in mem0's req/s and percentiles; its answered recalls were "
            f"{', '.join(failed)}.",
        ]
    clues = " ".join(" ".join(r["error_samples"] + r.get("server_log_tail", [])) for r in m0.values())
    if "qdrant_client/local" in clues or "could not be broadcast" in clues:
        out += [
            "",
            "mem0's errors (listed below) come from local Qdrant under concurrent threads (its server log "
            "shows the payload filter indexing past arrays that an add was growing): the in-process store "
            "is not safe for a search running while an add changes it. mem0's own server defaults to "
            "pgvector in Postgres, which this offline machine cannot run.",
        ]
    return out


def chart(run: dict[str, Any], out: Path) -> bool:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib not installed (the `bench` extra): no chart", file=sys.stderr)
        return False
    from matplotlib.lines import Line2D

    rows = run["rows"]
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 5))
    for key, color in SYSTEM_COLORS.items():
        mine = sorted((r for r in rows if r["key"] == key), key=lambda r: r["clients"])
        if not mine:
            continue
        xs = [r["clients"] for r in mine]
        label = f"{mine[0]['system']} ({mine[0]['items']:,} items)"
        left.plot(xs, [r["rps"] for r in mine], marker="o", color=color, label=label)
        right.plot(xs, [r["recall"]["p50"] for r in mine], marker="o", color=color)
        right.plot(xs, [r["recall"]["p95"] for r in mine], marker="s", ls="--", color=color)
    right.axhline(TARGET_P95_MS, color="grey", ls=":", lw=1)
    styles = [
        Line2D([], [], color="black", marker="o", label="p50"),
        Line2D([], [], color="black", marker="s", ls="--", label="p95"),
        Line2D(
            [], [], color="grey", ls=":", label=f"target: p95 < {TARGET_P95_MS:.0f} ms at {TARGET_CLIENTS}"
        ),
    ]
    right.legend(handles=styles, fontsize=8, loc="upper left")
    left.set(xscale="log", xlabel="concurrent clients", ylabel="answered requests / s")
    left.set_ylim(bottom=0)
    left.set_title("throughput (1 remember : 4 recalls)", fontsize=10)
    right.set(
        xscale="log", yscale="log", xlabel="concurrent clients", ylabel="recall latency ms (client side)"
    )
    right.set_title("recall latency over HTTP", fontsize=10)
    for ax in (left, right):
        ax.set_xticks(sorted({r["clients"] for r in rows}))
        ax.get_xaxis().set_major_formatter(matplotlib.ticker.ScalarFormatter())
        ax.get_xaxis().set_minor_formatter(matplotlib.ticker.NullFormatter())
        ax.grid(True, which="both", alpha=0.3)
    fig.legend(*left.get_legend_handles_labels(), loc="lower center", ncol=2, fontsize=8, frameon=False)
    fig.tight_layout(rect=(0, 0.1, 1, 1))
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return True


# ---- the workers section ---------------------------------------------------------------------------------

# Issue 24's targets for `serve --workers N` on two cores: at 32 clients, on 200 users x 250 memories.
W_TARGET_CLIENTS, W_TARGET_ITEMS = 32, 50_000
W_TARGET_RPS, W_TARGET_CPU_MS, W_TARGET_P95_MS = 300.0, 5.0, 100.0


def is_workers_run(run: dict[str, Any]) -> bool:
    return is_workers_keys([r["key"] for r in run["rows"]])


def is_workers_keys(keys: list[str]) -> bool:
    return bool(keys) and all(WORKERS_KEY.fullmatch(k) for k in keys)


# ---- the in-process breakdown of one recall --------------------------------------------------------------

BREAKDOWN_RECALLS, BREAKDOWN_WARMUP, BREAKDOWN_USERS = 300, 50, 32


def breakdown_in_child(store: Path, items: int, baseline: Baseline | None) -> dict[str, Any]:
    """`breakdown` in a child process (the baseline's source first on its path when given), over a copy
    of the store; what it printed, or why it failed."""
    with tempfile.TemporaryDirectory(prefix="tinymemory-breakdown-") as tmp:
        db = Path(tmp) / "memory.db"
        shutil.copyfile(store, db)
        for graph in graph_files(store):
            shutil.copyfile(graph, Path(tmp) / (db.name + graph.name[len(store.name) :]))
        env = server_env(1)
        if baseline is not None:
            env.update(baseline.env())
        done = subprocess.run(
            [sys.executable, str(Path(__file__).resolve()), "--breakdown-of", str(db)],
            capture_output=True,
            text=True,
            env=env,
            cwd=tmp,
        )
    build = "before" if baseline is not None else "this"
    if done.returncode != 0:
        return {"items": items, "build": build, "failed": last_line(done.stderr)}
    return {"items": items, "build": build, **json.loads(done.stdout.strip().splitlines()[-1])}


def breakdown(db: Path) -> dict[str, Any]:
    """The CPU of one recall request in this process, split into the engine's fetch and the rest.

    The app of `tinymemory serve` over `db` is called directly as ASGI (no socket, no HTTP parsing: a
    scope and a body, as uvicorn hands them over) with the bench's recall body and a distinct user's
    JWT per request, BREAKDOWN_RECALLS times after a warm-up; then the same recalls' engine fetches
    alone (the FetchRequest memory__recall builds). Process CPU (every thread: the event loop and the
    engine's SQLite thread) and the event loop thread's own CPU, per request."""
    from tinymemory.api import FetchRequest, MetaFilter
    from tinymemory.policy import Identity
    from tinymemory.policy.catalog.memory__recall import RECALLED_KINDS
    from tinymemory.service.app import create_app
    from tinymemory.service.settings import ServiceSettings
    from tinymemory.service.tokens import issue_jwt

    secret = os.urandom(32).hex()
    queries = workload(5).queries
    users = [(f"u{c}", f"a{c % AGENTS}") for c in range(BREAKDOWN_USERS)]
    tokens = [issue_jwt(secret, WORKSPACE, u, a, ttl=timedelta(hours=2)) for u, a in users]

    async def request(app: Any, i: int) -> None:
        body = json.dumps({"query": queries[i % len(queries)], "limit": RECALL_LIMIT}).encode()
        headers = [
            (b"host", b"127.0.0.1"),
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
            (b"authorization", f"Bearer {tokens[i % len(tokens)]}".encode()),
        ]
        scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": "POST",
            "scheme": "http",
            "path": "/api/v1/memory/recall",
            "raw_path": b"/api/v1/memory/recall",
            "root_path": "",
            "query_string": b"",
            "headers": headers,
            "client": ("127.0.0.1", 50000),
            "server": ("127.0.0.1", 8765),
        }
        status: list[int] = []

        async def receive() -> dict[str, Any]:
            return {"type": "http.request", "body": body, "more_body": False}

        async def send(message: Any) -> None:
            if message["type"] == "http.response.start":
                status.append(message["status"])

        await app(scope, receive, send)
        if status != [200]:
            raise RuntimeError(f"the recall answered {status}")

    def timed() -> tuple[float, float]:
        return time.process_time(), time.thread_time()

    async def main() -> dict[str, Any]:
        app = create_app(ServiceSettings(db=str(db), jwt_secret=secret, gate_seconds=0))
        async with app.router.lifespan_context(app):
            engine = app.state.service.engine
            mode = engine.descriptor.default_mode()

            def fetch(i: int) -> FetchRequest:
                user, agent = users[i % len(users)]
                reach = Identity(WORKSPACE, user, agent, verified=True).tiers.read_reach
                flt = MetaFilter(reach=reach, kinds=RECALLED_KINDS, learning_kinds=())
                return FetchRequest(
                    query=queries[i % len(queries)], mode=mode, filter=flt, limit=RECALL_LIMIT
                )

            for i in range(BREAKDOWN_WARMUP):
                await request(app, i)
            out: dict[str, Any] = {"recalls": BREAKDOWN_RECALLS}
            for name in ("request", "fetch", "request_again"):
                cpu0, loop0 = timed()
                for i in range(BREAKDOWN_RECALLS):
                    if name == "fetch":
                        await engine.fetch(fetch(i))
                    else:
                        await request(app, i)
                cpu1, loop1 = timed()
                out[name] = 1000 * (cpu1 - cpu0) / BREAKDOWN_RECALLS
                out[name + "_loop"] = 1000 * (loop1 - loop0) / BREAKDOWN_RECALLS
            return out

    return asyncio.run(main())


def breakdown_lines(run: dict[str, Any]) -> list[str]:
    found = run["config"].get("breakdown") or []
    if not found:
        return []
    headers = [
        "store items",
        "build",
        "whole request ms CPU (two runs)",
        "engine fetch alone ms",
        "the rest ms",
        "event loop thread: request / fetch alone / the rest ms",
    ]
    body = []
    for b in found:
        if "failed" in b:
            body.append([f"{b['items']:,}", b["build"], f"failed: {b['failed']}", "", "", ""])
            continue
        whole = (b["request"] + b["request_again"]) / 2
        loop = (b["request_loop"] + b["request_again_loop"]) / 2
        body.append(
            [
                f"{b['items']:,}",
                b["build"],
                f"{whole:.2f} ({b['request']:.2f}, {b['request_again']:.2f})",
                f"{b['fetch']:.2f}",
                f"{whole - b['fetch']:.2f}",
                f"{loop:.2f} / {b['fetch_loop']:.2f} / {loop - b['fetch_loop']:.2f}",
            ]
        )
    return [
        "One recall's CPU in process (`--breakdown`): the service's app called directly as ASGI, with "
        f"no socket and no HTTP parsing, {BREAKDOWN_RECALLS} recalls after {BREAKDOWN_WARMUP} untimed "
        f"ones, each as one of {BREAKDOWN_USERS} users with its own JWT, one at a time; then the same "
        "recalls' engine fetches alone (the request memory__recall makes). CPU of the whole process "
        "(the event loop and the engine's SQLite thread) per recall; 'the rest' is the request minus the "
        "fetch: authentication, routing, the tool's dispatch and argument reading, rendering and JSON. "
        "The event loop thread's own share is the part no second thread can take.",
        "",
        table(headers, body),
        "",
        *breakdown_summary(found),
    ]


def breakdown_summary(found: list[dict[str, Any]]) -> list[str]:
    """What the breakdown says about the bound: the fetch's share, and the rest against the baseline."""
    ok = [b for b in found if "failed" not in b]

    def whole(b: dict[str, Any]) -> float:
        return float(b["request"] + b["request_again"]) / 2

    cells = []
    for b in (b for b in ok if b["build"] == "this"):
        rest = whole(b) - b["fetch"]
        cell = (
            f"{b['items']:,} items: the fetch is {b['fetch']:.1f} of {whole(b):.1f} ms "
            f"({b['fetch'] / whole(b):.0%}), the rest {rest:.2f} ms"
        )
        before = [a for a in ok if a["build"] == "before" and a["items"] == b["items"]]
        if before:
            cell += f" (before: {whole(before[0]) - before[0]['fetch']:.2f} ms)"
        cells.append(cell)
    if not cells:
        return []
    return [
        f"Where one recall's CPU goes: {'; '.join(cells)}. The target of {W_TARGET_CPU_MS:.0f} ms per "
        "answered recall bounds the engine's fetch above all, and the remembers' share, which the CPU "
        "per answered recall over HTTP counts in, beside the HTTP parsing and writing the server does "
        "on its event loop.",
        "",
    ]


def sizes_phrase(sizes: list[int]) -> str:
    """ "at 50,000 items" or "at two store sizes" (the rows say which)."""
    if len(sizes) == 1:
        return f"at {sizes[0]:,} items"
    words = {2: "two", 3: "three", 4: "four"}
    return f"at {words.get(len(sizes), str(len(sizes)))} store sizes"


def render_workers(run: dict[str, Any]) -> str:
    """The `service-workers` section: `serve --workers N` side by side, per store size and level."""
    rows, cfg = run["rows"], run["config"]
    rows = sorted(rows, key=lambda r: (r["items"], r["clients"], r["workers"] or 0, build_of(r) != "this"))
    headers = [
        "store items",
        "clients",
        "workers",
        "build",
        "req/s",
        "recall p50 / p95 ms",
        "remember p50 / p95 ms",
        "errors",
        "server CPU ms / answered recall",
        "server CPU ms / request",
        "server CPU (cores)",
        "server RSS MB: warm / end",
        "client CPU",
        "1-min load before / after",
    ]
    body = [
        [
            f"{r['items']:,}",
            str(r["clients"]),
            str(r["workers"]),
            build_of(r),
            f"{r['rps']:,.1f}",
            f"{r['recall']['p50']:,.1f} / {r['recall']['p95']:,.1f}" if r["recall"]["n"] else "n/a",
            f"{r['remember']['p50']:,.1f} / {r['remember']['p95']:,.1f}" if r["remember"]["n"] else "n/a",
            str(r["errors"]),
            f"{cpu_per_recall_ms(r):.1f}",
            f"{1000 * r['server_cpu'] / r['rps']:.1f}" if r["rps"] else "-",
            f"{r['server_cpu']:.2f}",
            f"{r['rss_warm']:,.0f} / {r['rss_end']:,.0f}",
            f"{r['client_cpu']:.0%}",
            f"{r['load_before'][0]:.2f} / {r['load_after'][0]:.2f}",
        ]
        for r in rows
    ]
    every = cfg["remember_every"]
    out = [
        "## Service workers: `tinymemory serve --workers N` (`bench/service_load.py`)",
        "",
        f"Machine: {cfg['machine']}; 1-min load average before and after the whole run: "
        f"{cfg['load_start'][0]:.2f} and {cfg['load_end'][0]:.2f}. **The client and the server share these "
        f"{os.cpu_count()} cores**, and other jobs ran on the machine at the same time (the load column).",
        "",
        "`tinymemory serve --workers N` over a fresh copy of a prefilled SQLite file (default embedder "
        f"`{cfg['tm_embedder']}`, HS256 tokens), {sizes_phrase(cfg.get('sizes') or [cfg['items']])}; the "
        "store is one workspace of "
        f"{USERS} users (their own tiers hold 96% of it), {AGENTS} agents' shared tiers and the "
        "institutional tier, so 50,000 memories is 200 users x 250. The client is this script (asyncio, "
        "one httpx connection per client, each client its own verified user) in a closed loop for "
        f"{cfg['seconds']:.0f} s per level after an untimed warm-up (rounds of four connections at once "
        f"until every worker has answered {WARMUP_RECALLS} recalls, then one recall as each of the "
        "level's users, on fresh connections, in two rounds per worker), 1 remember for every "
        f"{every - 1} "
        f"recalls (top {RECALL_LIMIT}). Latency is "
        "the client's. Server CPU and RSS are summed over the supervisor and its workers, read from /proc "
        "at the start and end of each level; the CPU per answered recall divides all of it by the recalls "
        "answered, so the remembers' CPU is counted in (an upper bound for a recall alone).",
        "",
        *baseline_lines(cfg),
        table(headers, body),
        "",
        *before_after_lines(rows),
        *breakdown_lines(run),
        *workers_compare_lines([r for r in rows if build_of(r) == "this"]),
        *workers_target_lines(rows),
    ]
    errors = [r for r in rows if r["errors"]]
    if errors:
        out += ["", "Errors seen (kinds and counts, and the first one):", ""]
        for r in errors:
            kinds = ", ".join(f"{k}: {v}" for k, v in r["error_kinds"].items())
            out.append(
                f"- {r['system']}, {r['items']:,} items, {n_clients(r['clients'])}: {kinds}; "
                f"e.g. `{r['error_samples'][0]}`"
            )
    return "\n".join(out)


def build_of(r: dict[str, Any]) -> str:
    """'before' for a row of the baseline's source, else 'this'."""
    return "before" if r["key"].endswith(BEFORE) else "this"


def baseline_lines(cfg: dict[str, Any]) -> list[str]:
    if not cfg.get("baseline"):
        return []
    return [
        f"Build 'before' is the same command run from the source of {cfg['baseline']} (the service as it "
        "was before this change, with the dependencies of its own install), at each level right after "
        "this build's systems, over a fresh copy of the same store and the same load. The two builds "
        "ran minutes apart on a shared machine: compare them level by level, with the load column.",
        "",
    ]


def before_after_lines(rows: list[dict[str, Any]]) -> list[str]:
    """This build against the baseline at each size, workers and clients both ran."""
    this = {(r["items"], r["workers"], r["clients"]): r for r in rows if build_of(r) == "this"}
    before = {(r["items"], r["workers"], r["clients"]): r for r in rows if build_of(r) == "before"}
    both = sorted(set(this) & set(before))
    if not both:
        return []
    cells = [
        f"{items:,} items, {w} worker{'s' if w > 1 else ''}, {n_clients(c)}: CPU per recall "
        f"{cpu_per_recall_ms(this[k]):.1f} against {cpu_per_recall_ms(before[k]):.1f} ms "
        f"({cpu_per_recall_ms(this[k]) / cpu_per_recall_ms(before[k]):.2f}x), "
        f"{this[k]['rps']:,.1f} against {before[k]['rps']:,.1f} req/s "
        f"({this[k]['rps'] / before[k]['rps']:.2f}x)"
        for k in both
        for items, w, c in [k]
        if before[k]["rps"] and before[k]["recall"]["n"]
    ]
    return ["This build against 'before', same run:", "", *(f"- {c}" for c in cells), ""]


def workers_compare_lines(rows: list[dict[str, Any]]) -> list[str]:
    """Two workers against one, at each size and level both ran."""
    cells = []
    for items in sorted({r["items"] for r in rows}):
        one = {r["clients"]: r for r in rows if r["items"] == items and r["workers"] == 1}
        two = {r["clients"]: r for r in rows if r["items"] == items and r["workers"] == 2}
        both = sorted(set(one) & set(two))
        if both:
            ratio = ", ".join(f"{c}: {two[c]['rps'] / one[c]['rps']:.2f}x" for c in both if one[c]["rps"])
            cells.append(f"{items:,} items ({ratio})")
    out = [f"Answered requests per second, 2 workers over 1, by clients: {'; '.join(cells)}.", ""]
    cores = os.cpu_count() or 1
    busiest = max(r["server_cpu"] for r in rows)
    at = [r for r in rows if r["clients"] == W_TARGET_CLIENTS and r["items"] == W_TARGET_ITEMS]
    if at:
        cpu = min(cpu_per_recall_ms(r) for r in at)
        out += [
            f"What bounds it: the server used at most {busiest:.2f} of the {cores} cores at any level "
            "(the client and the machine's other jobs had the rest). At "
            f"{cpu:.1f} ms of CPU per answered recall on {W_TARGET_ITEMS:,} memories, {cores} cores given "
            f"to the server alone would answer near {1000 * cores / cpu:,.0f} recalls per second, so the "
            "cost of one recall, more than the number of processes, bounds the throughput and the "
            "latency under load.",
            "",
        ]
    return out if cells else []


def workers_target_lines(rows: list[dict[str, Any]]) -> list[str]:
    at = [r for r in rows if r["clients"] == W_TARGET_CLIENTS and r["items"] == W_TARGET_ITEMS]
    if not at:
        return [f"Targets: not shown (no level of {W_TARGET_CLIENTS} clients on {W_TARGET_ITEMS:,} items)."]
    out = [
        f"Targets at {W_TARGET_CLIENTS} clients on {W_TARGET_ITEMS:,} memories (at least "
        f"{W_TARGET_RPS:.0f} req/s, at most {W_TARGET_CPU_MS:.0f} ms of server CPU per answered recall, "
        f"recall p95 at most {W_TARGET_P95_MS:.0f} ms, no errors, RSS flat):",
        "",
    ]

    def verdict(ok: bool) -> str:
        return "met" if ok else "**not met**"

    for r in at:
        cpu = cpu_per_recall_ms(r)
        drift = (r["rss_end"] - r["rss_warm"]) / r["rss_warm"] if r["rss_warm"] else float("nan")
        build = "" if build_of(r) == "this" else " (before)"
        out.append(
            f"- {r['workers']} worker{'s' if r['workers'] > 1 else ''}{build}: {r['rps']:,.1f} req/s "
            f"({verdict(r['rps'] >= W_TARGET_RPS)}), {cpu:.1f} ms CPU per recall "
            f"({verdict(cpu <= W_TARGET_CPU_MS)}), recall p95 {r['recall']['p95']:,.1f} ms "
            f"({verdict(r['recall']['p95'] <= W_TARGET_P95_MS)}), {r['errors']} errors "
            f"({verdict(r['errors'] == 0)}), RSS {drift:+.1%} over the level "
            f"({verdict(abs(drift) <= RSS_DRIFT)})."
        )
    return [*out, ""]


# ---- main -----------------------------------------------------------------------------------------------


def parse_mix(text: str) -> int:
    """ "1:4" (remembers : recalls) -> one remember in every 5 requests."""
    try:
        a, b = (int(x) for x in text.split(":"))
    except ValueError:
        raise SystemExit(f"--mix must look like 1:4, got {text!r}") from None
    if a != 1 or b < 0:
        raise SystemExit("--mix: the first number must be 1 (one remember per N recalls)")
    return b + 1


def workload(remember_every: int) -> Workload:
    questions = [q["question"] for s in json.loads(LOCOMO.read_text()) for q in s["qa"]]
    return Workload(questions, store_texts(5_000, seed=REMEMBER_SEED), remember_every)


def cpu_per_recall_ms(r: dict[str, Any]) -> float:
    """Server CPU per answered recall: all the server's CPU in the level over the recalls it answered
    (so the remembers' share is counted in, an upper bound on what a recall alone costs)."""
    recalls = r["recall"]["n"]
    return 1000 * r["server_cpu"] * r["seconds"] / recalls if recalls else float("nan")


def summary_line(r: dict[str, Any]) -> str:
    return (
        f"  {r['system']:>10} {r['items']:>7,} items {r['clients']:>3} clients: {r['rps']:7.1f} req/s, "
        f"CPU {cpu_per_recall_ms(r):.1f} ms/recall, "
        f"recall {ms3(r['recall'])} ms, remember {ms3(r['remember'])} ms, errors {r['errors']}, "
        f"RSS {r['rss_warm']:.0f} -> {r['rss_end']:.0f} MB, load {r['load_after'][0]:.2f}"
    )


def serve_target(key: str, store: Path, info: dict[str, Any], baseline: Baseline | None = None) -> Tinymemory:
    if key == "serve-blas1":
        return Tinymemory(store, info, blas_threads=1)
    match = WORKERS_KEY.fullmatch(key)
    workers = int(match.group(1)) if match else None
    if match and match.group(2):
        if baseline is None:
            raise SystemExit(f"--systems: {key} needs --baseline (the earlier source to run)")
        return Tinymemory(store, info, workers=workers, baseline=baseline)
    return Tinymemory(store, info, workers=workers)


def run(args: argparse.Namespace) -> dict[str, Any]:
    load_start = loadavg()
    levels = [int(x) for x in args.levels.split(",") if x.strip()]
    sizes = [int(x) for x in str(args.items).split(",") if x.strip()]
    work = workload(parse_mix(args.mix))
    keys = [k.strip() for k in args.systems.split(",") if k.strip()]
    unknown = sorted(k for k in set(keys) - set(SYSTEM_KEYS) if not WORKERS_KEY.fullmatch(k))
    if unknown:
        known = ", ".join((*SYSTEM_KEYS, "serve-wN"))
        raise SystemExit(f"--systems: unknown {', '.join(unknown)} (known: {known})")
    if len(sizes) > 1 and {"serve-pg", "mem0"} & set(keys):
        raise SystemExit("--items: several store sizes are for the serve systems only (not serve-pg, mem0)")
    baseline = None
    if args.baseline is not None:
        blocked = tuple(m.strip() for m in args.baseline_without.split(",") if m.strip())
        baseline = Baseline.of(args.baseline, blocked, DATA_DIR / "baseline", args.baseline_name)
        twins = [k + BEFORE for k in keys if WORKERS_KEY.fullmatch(k) and not k.endswith(BEFORE)]
        keys = [*keys, *(t for t in twins if t not in keys)]
    pg_context = contextlib.ExitStack()
    m0, skipped = mem0_target(args) if "mem0" in keys else (None, "mem0 was left out of this run")
    config: dict[str, Any] = {
        "items": sizes[-1],
        "sizes": sizes,
        "seconds": args.seconds,
        "levels": levels,
        "remember_every": work.remember_every,
        "load_start": load_start,
        "machine": machine_line(),
        "systems": keys,
        "mem0_skipped": skipped,
        "baseline": baseline.describe() if baseline is not None else None,
        "breakdown": [],
    }
    if m0 is not None:
        config.update(
            mem0_version=getattr(m0, "version", "?"), mem0_embedder=m0.embedder, mem0_items=m0.items
        )
    rows: list[dict[str, Any]] = []
    for items in sizes:
        store, info = tinymemory_store(items, baseline)
        config.update(tm_embedder=info["embedder"], tm_build_s=info["seconds"])
        targets: list[Target] = []
        for key in keys:
            if key == "serve-pg":
                from pg import postgres

                pg = pg_context.enter_context(postgres(args.pg))
                pg_target = TinymemoryPostgres(pg, info, args.replicas)
                pg_target.prefill(items)
                targets.append(pg_target)
            elif key != "mem0":
                targets.append(serve_target(key, store, info, baseline))
        if args.breakdown and is_workers_keys(keys):
            for who in (None, baseline) if baseline is not None else (None,):
                print(f"in-process breakdown, {items:,} items ...", file=sys.stderr, flush=True)
                config["breakdown"].append(breakdown_in_child(store, items, who))
        if m0 is not None:
            targets.append(m0)
        for clients in levels:
            for target in targets:
                print(
                    f"{target.label}, {target.items:,} items: {clients} clients, {args.seconds:.0f} s ...",
                    file=sys.stderr,
                    flush=True,
                )
                try:
                    rows.append(run_level(target, clients, args.seconds, work))
                except RuntimeError as exc:
                    if target.key != "mem0":
                        raise
                    config["mem0_skipped"] = str(exc)
                    targets.remove(target)
                    rows = [r for r in rows if r["key"] != "mem0"]
                    print(f"  mem0 dropped: {exc}", file=sys.stderr, flush=True)
                    break
                print(summary_line(rows[-1]), file=sys.stderr, flush=True)
    config["load_end"] = loadavg()
    pg_context.close()
    return {"config": config, "rows": rows}


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--levels", default="1,8,32", help="concurrent clients per level (default 1,8,32)")
    parser.add_argument("--seconds", type=float, default=60.0, help="measured seconds per level (default 60)")
    parser.add_argument(
        "--items",
        default=str(TARGET_ITEMS),
        help="memories in the tinymemory store; several sizes comma-separated (serve systems only)",
    )
    parser.add_argument("--mix", default="1:4", help="remembers : recalls (default 1:4)")
    parser.add_argument("--mem0-python", help="a Python with mem0ai (default: $TINYMEMORY_BENCH_MEM0_PYTHON)")
    parser.add_argument("--mem0-items", type=int, default=10_000, help="memories in the mem0 store")
    parser.add_argument(
        "--systems",
        default="serve,mem0",
        help="what to load, in this order at each level: serve (tinymemory serve as committed), "
        "serve-blas1 (the same, BLAS on one thread), serve-pg (N replicas over Postgres), mem0 "
        "(default: serve,mem0)",
    )
    parser.add_argument("--no-mem0", action="store_true", help="drop mem0 from --systems")
    parser.add_argument("--replicas", type=int, default=2, help="service processes for serve-pg (default 2)")
    parser.add_argument(
        "--pg", help="serve-pg: administrator URL of a Postgres (default: a throwaway server)"
    )
    parser.add_argument(
        "--quick", action="store_true", help="smoke run: 1,8 clients, 5 s, small stores, no write"
    )
    parser.add_argument("--no-write", action="store_true", help="print the section, leave docs/ alone")
    parser.add_argument(
        "--section",
        default="service-load",
        help="the docs/benchmarks.md section to write (default service-load; e.g. service-load-postgres)",
    )
    parser.add_argument("--chart", type=Path, default=CHART, help="where the PNG chart goes")
    parser.add_argument("--from-json", type=Path, help="re-render the section and chart from a saved run")
    parser.add_argument(
        "--baseline",
        type=Path,
        help="serve-wN systems: also run each from this earlier `src` folder (key serve-wN-before), "
        "e.g. a worktree of the commit before a change",
    )
    parser.add_argument(
        "--baseline-name",
        help="how the section names the baseline (default: the git revision of its folder), e.g. the "
        "commit an exported `src` folder came from",
    )
    parser.add_argument(
        "--baseline-without",
        default="",
        help="modules the baseline may not import, comma-separated, to run it without what this build added "
        "since (e.g. httptools,uvloop against a build before them); default none: both builds alike",
    )
    parser.add_argument(
        "--breakdown",
        action="store_true",
        help="serve-wN systems: also measure one recall's CPU in process (engine fetch against the rest)",
    )
    parser.add_argument("--breakdown-of", type=Path, help=argparse.SUPPRESS)  # the child of --breakdown
    parser.add_argument("--build-store", type=Path, help=argparse.SUPPRESS)  # the baseline's store builder
    args = parser.parse_args()
    if args.breakdown_of is not None:
        print(json.dumps(breakdown(args.breakdown_of)))
        return 0
    if args.build_store is not None:
        build_store(args.build_store, int(args.items))
        return 0
    if args.no_mem0:
        args.systems = ",".join(k for k in args.systems.split(",") if k.strip() != "mem0")
    if args.quick:
        args.levels, args.seconds, args.items, args.mem0_items, args.no_write = (
            "1,8",
            5.0,
            10_000,
            2_000,
            True,
        )
    if args.from_json is not None:
        result = json.loads(args.from_json.read_text())
    else:
        result = run(args)
        saved = DATA_DIR / ("last-quick.json" if args.quick else "last.json")
        saved.write_text(json.dumps(result, indent=1))
        print(f"raw figures: {saved}", file=sys.stderr)
    if is_workers_run(result):  # its own section, no chart
        md = render_workers(result)
        print(md)
        if not args.no_write:
            write_section("service-workers" if args.section == "service-load" else args.section, md)
        return 0
    md = render(result)
    print(md)
    if not args.no_write:
        chart(result, args.chart)
        write_section(args.section, md.replace("(service_load.png)", f"({args.chart.name})"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
