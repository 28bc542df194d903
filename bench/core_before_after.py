"""The engine core against the code before it, side by side in one run: a hybrid fetch, a store and a
service recall, each timed on the code before the engines were put over one core (`--before`) and on the
code after (`--after`), on the same machine state.

    python bench/core_before_after.py [--before c948493] [--after HEAD] [--rounds 7] [--items 5000]
                                      [--fetches 200] [--stores 100] [--recalls 200] [--block 10]
                                      [--no-write]
    python bench/core_before_after.py --quick          # smoke run: 1 round, small samples, writes nothing
    python bench/core_before_after.py --profile fetch  # cProfile one path on both sides, top differences
    python bench/core_before_after.py --from-json F    # redraw the section and chart from a saved run

Both revisions' `src/` are extracted with `git archive` into a temporary folder. Each side is one worker
process of this script with PYTHONPATH on its `src/` (the same interpreter and dependencies), so the two
sides never share a process, a cache or an imported module; the worker holds a SQLite engine for the
fetches, another for the stores, and starts that side's `python -m tinymemory serve` for the recalls.
This process drives both: it sends each side a block of `--block` requests in turn, the order swapped
every block, so load from other jobs on the shared machine falls on both sides alike. A round is one
pass over every query and text, on workers and servers started afresh for it: a process's own luck (its
hash seed, its memory layout) then varies between rounds instead of favouring one side all run long
(with workers kept for a whole run, the same code on both sides once gave one side's recall a 6% edge
in every round). The figures are the medians over rounds of each side's p50 and of the ratio
after/before of each round's p50. `--before X --after X` runs the same code on both sides, a check of
the bench itself.

The store: the layout of bench/service_load.py (one workspace, 200 users, 4 agents, a user's own tiers,
an agent's shared tier and the workspace's), `--items` synthetic sentences stored through `store_many`
with the default embedder by the before code, once; each side works on its own copies of that file.

- fetch: `MemoryEngine.fetch`, hybrid, top 10, LoCoMo questions as queries, over the whole workspace
  (`subtree`), over one user's inherited reach, and with the filter the service's recall builds for
  that user (four tiers as exact terms, kinds); the query embedding is part of it.
- store: one `store` call per item (durability as default: full, so a commit waits for fsync).
- recall: `POST /api/v1/memory/recall` to that side's `tinymemory serve` on 127.0.0.1, one HS256-verified
  user, one connection per side, one request after another; latency as this process sees it.

BLAS is on one thread in this process, the workers and the servers.
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import contextlib  # noqa: E402
import json  # noqa: E402
import select  # noqa: E402
import shutil  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
import traceback  # noqa: E402
from collections.abc import Iterator  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
from report import machine_line, percentile, table, write_section  # noqa: E402

SECTION = "core_before_after"
CHART = ROOT / "docs" / "core_before_after.png"
OUT = HERE / "out" / "core_before_after"
SIDES = ("before", "after")
REACHES = ("workspace", "user", "tiers")
MEASURES = ("fetch_workspace", "fetch_user", "fetch_tiers", "store", "recall")
LABELS = {
    "fetch_workspace": "hybrid fetch, whole workspace",
    "fetch_user": "hybrid fetch, one user's reach",
    "fetch_tiers": "hybrid fetch, the recall's filter",
    "store": "store, one item (durability full)",
    "recall": "service recall over HTTP",
}
SHORT = {
    "fetch_workspace": "whole-workspace fetch",
    "fetch_user": "one user's fetch",
    "fetch_tiers": "fetch with the recall's filter",
    "store": "store",
    "recall": "service recall",
}
PATHS = {
    "fetch": ("fetch_workspace", "fetch_user", "fetch_tiers"),
    "store": ("store",),
    "recall": ("recall",),
}
WARMUP = 20
LIMIT = 10
USER, AGENT = "u3", "a3"  # whose reach the user fetch and the recall read (u3 talks to a3)
STORE_SEED = 29  # texts of the timed stores (the store's own are bench/service_load.py's, seed 17)
REPLY_TIMEOUT_S = 600.0
SLOWER = 1.05  # a ratio past this, on the same side of 1 in every round, reads as slower


class BenchFailed(RuntimeError):
    pass


# ---- the worker (one per side, PYTHONPATH on that side's src) -----------------------------------------


def user_namespace() -> str:
    from service_load import namespace_of

    return namespace_of("user_for_agent", USER, AGENT)


class Worker:
    """One side: a fetch engine, a store engine and the side's server, driven by JSON lines on stdin."""

    def __init__(self, folder: Path, profile: str | None, profile_out: str | None) -> None:
        self.folder, self.profile, self.profile_out = folder, profile, profile_out
        self.prof: Any = None
        if profile and profile != "recall":
            import cProfile

            self.prof = cProfile.Profile()
        self.server: Any = None

    async def run(self) -> None:
        import asyncio
        from concurrent.futures import ThreadPoolExecutor

        from tinymemory.engines.sqlite import SqliteEngine

        loop = asyncio.get_running_loop()
        stdin = ThreadPoolExecutor(max_workers=1, thread_name_prefix="bench-stdin")
        try:
            async with (
                SqliteEngine(str(self.folder / "fetch.db")) as self.fetcher,
                SqliteEngine(str(self.folder / "store.db")) as self.storer,
            ):
                while True:
                    line = await loop.run_in_executor(stdin, sys.stdin.readline)
                    if not line.strip():
                        break
                    cmd = json.loads(line)
                    try:
                        reply = {"ok": True, **(await self.handle(cmd))}
                    except Exception as exc:  # reported to the parent, which stops the run
                        traceback.print_exc(file=sys.stderr)
                        reply = {"ok": False, "error": f"{type(exc).__name__}: {exc}"}
                    sys.stdout.write(json.dumps(reply) + "\n")
                    sys.stdout.flush()
                    if cmd["op"] == "quit":
                        break
        finally:
            stdin.shutdown(wait=False)
            if self.server is not None:
                self.server.stop()
            if self.prof is not None and self.profile_out:
                self.prof.dump_stats(self.profile_out)

    async def handle(self, cmd: dict[str, Any]) -> dict[str, Any]:
        op = cmd["op"]
        if op == "hello":
            import tinymemory

            embedder = self.fetcher.embedder
            return {
                "module": str(Path(tinymemory.__file__).resolve().parent),
                "embedder": embedder.name if embedder is not None else "none",
                "durability": self.storer.durability,
            }
        if op == "fetch":
            return await self.fetch(cmd["reach"], cmd["queries"], bool(cmd.get("timed")))
        if op == "store":
            return await self.store(cmd["texts"], bool(cmd.get("timed")))
        if op == "serve":
            return self.serve()
        if op == "quit":
            return {}
        raise ValueError(f"unknown op {op!r}")

    def timing(self, path: str, timed: bool) -> Any:
        """The profiler around a timed block of `path` when this run profiles it (else a no-op)."""
        if self.prof is None or self.profile != path or not timed:
            return contextlib.nullcontext()

        @contextlib.contextmanager
        def on() -> Iterator[None]:
            self.prof.enable()
            try:
                yield
            finally:
                self.prof.disable()

        return on()

    async def fetch(self, reach: str, queries: list[str], timed: bool) -> dict[str, Any]:
        from service_load import WORKSPACE, namespace_of
        from tinymemory.api import FetchMode, FetchRequest, MetaFilter, Namespace, Reach
        from tinymemory.policy.catalog.memory__recall import RECALLED_KINDS

        if reach == "workspace":
            flt = MetaFilter(reach=Reach.subtree(Namespace.parse(f"workspace:{WORKSPACE}")))
        elif reach == "user":
            flt = MetaFilter(reach=Reach.of(Namespace.parse(user_namespace())))
        else:  # what memory__recall asks for this user: the four tiers exactly, every kind but documents
            tiers = [("user_for_agent", USER, AGENT), ("user", USER, None), ("agent", None, AGENT)]
            names = [namespace_of(*t) for t in tiers] + [f"workspace:{WORKSPACE}"]
            reach_ = Reach.union(*(Reach.exact(Namespace.parse(n)) for n in names))
            flt = MetaFilter(reach=reach_, kinds=RECALLED_KINDS)
        ms, ids = [], []
        with self.timing("fetch", timed):
            for q in queries:
                request = FetchRequest(query=q, mode=FetchMode.HYBRID, filter=flt, limit=LIMIT)
                t = time.perf_counter()
                res = await self.fetcher.fetch(request)
                ms.append((time.perf_counter() - t) * 1000)
                ids.append([h.item.id for h in res.hits])
        return {"ms": ms, "ids": ids}

    async def store(self, texts: list[str], timed: bool) -> dict[str, Any]:
        from tinymemory.api import ItemKind, ItemMeta, Namespace, NewItem, Source

        ns = Namespace.parse(user_namespace())
        ms, created = [], 0
        with self.timing("store", timed):
            for text in texts:
                meta = ItemMeta(namespace=ns, source=Source("agent", AGENT), agent_id=AGENT)
                t = time.perf_counter()
                res = await self.storer.store(NewItem(ItemKind.LEARNING, text, meta))
                ms.append((time.perf_counter() - t) * 1000)
                created += int(not res.replayed)
        return {"ms": ms, "created": created}

    def serve(self) -> dict[str, Any]:
        from datetime import timedelta

        from service_load import WORKSPACE, launch, server_env
        from tinymemory.service.tokens import issue_jwt

        secret = os.urandom(32).hex()
        env = server_env(1)
        env["TINYMEMORY_JWT_SECRET"] = secret
        db = str(self.folder / "serve.db")
        args = ["-m", "tinymemory", "serve", "--db", db, "--host", "127.0.0.1", "--port", "0"]
        if self.profile == "recall" and self.profile_out:
            # the server's own profile: the whole process under cProfile, written when it exits
            out = str(Path(self.profile_out).with_suffix(".server.pstats"))
            cmd = [sys.executable, str(Path(__file__).resolve()), "--serve-profiled", out, *args[2:]]
        else:
            cmd = [sys.executable, *args]
        home = self.folder / "server"
        home.mkdir(exist_ok=True)
        self.server = launch(cmd, env, home, "/readyz")
        token = issue_jwt(secret, WORKSPACE, USER, AGENT, ttl=timedelta(hours=4))
        return {"url": self.server.url, "token": token}


def serve_profiled(out: str, argv: list[str]) -> int:
    """`python -m tinymemory <argv>` under cProfile; the stats are written when the server exits."""
    import cProfile
    import runpy
    import signal

    def stop(signum: int, _frame: Any) -> None:
        raise SystemExit(128 + signum)

    # uvicorn shuts down on SIGTERM, puts this handler back and raises the signal again: it ends here
    signal.signal(signal.SIGTERM, stop)
    sys.argv = ["tinymemory", *argv]
    prof = cProfile.Profile()
    prof.enable()
    try:
        runpy.run_module("tinymemory", run_name="__main__", alter_sys=True)
    except SystemExit:
        pass
    finally:
        prof.disable()
        prof.dump_stats(out)
    return 0


def build_main(db: str, items: int) -> int:
    import asyncio

    from service_load import fill_tinymemory, store_texts

    started = time.perf_counter()
    embedder = asyncio.run(fill_tinymemory(db, store_texts(items)))
    print(json.dumps({"seconds": time.perf_counter() - started, "embedder": embedder}), flush=True)
    return 0


# ---- the parent -----------------------------------------------------------------------------------------


def git(*args: str) -> str:
    done = subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True)
    if done.returncode != 0:
        raise BenchFailed(f"git {' '.join(args)}: {done.stderr.strip()[-300:]}")
    return done.stdout.strip()


def extract(rev: str, into: Path) -> dict[str, str]:
    """`src/` of `rev` as `into`/src; the commit, and the last commit that changed src/ in it."""
    commit = git("rev-parse", "--short", f"{rev}^{{commit}}")
    src_commit = git("log", "-1", "--format=%h", commit, "--", "src")
    into.mkdir(parents=True)
    archive = subprocess.Popen(["git", "-C", str(ROOT), "archive", commit, "src"], stdout=subprocess.PIPE)
    untar = subprocess.run(["tar", "-x", "-C", str(into)], stdin=archive.stdout, capture_output=True)
    archive.wait()
    if archive.returncode != 0 or untar.returncode != 0 or not (into / "src" / "tinymemory").is_dir():
        raise BenchFailed(f"could not extract src/ of {rev}: {untar.stderr.decode(errors='replace')[-300:]}")
    return {"rev": rev, "commit": commit, "src_commit": src_commit}


def child_env(src: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TINYMEMORY_")}
    if "TINYMEMORY_HOME" in os.environ:
        env["TINYMEMORY_HOME"] = os.environ["TINYMEMORY_HOME"]
    env["PYTHONPATH"] = str(src)
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        env[var] = "1"
    return env


def tail(path: Path, n: int = 4) -> str:
    try:
        lines = [ln.strip() for ln in path.read_text(errors="replace").splitlines() if ln.strip()]
    except OSError:
        return "no output"
    return " | ".join(lines[-n:])[-600:] or "no output"


def build(src: Path, db: Path, items: int) -> dict[str, Any]:
    cmd = [sys.executable, str(Path(__file__).resolve()), "--build", str(db), "--items", str(items)]
    try:
        done = subprocess.run(
            cmd, capture_output=True, text=True, env=child_env(src), cwd=db.parent, timeout=REPLY_TIMEOUT_S
        )
    except subprocess.TimeoutExpired:
        raise BenchFailed(f"building the store ran past {REPLY_TIMEOUT_S:.0f} s") from None
    lines = [ln for ln in done.stdout.splitlines() if ln.startswith("{")]
    if done.returncode != 0 or not lines:
        err = " | ".join(done.stderr.strip().splitlines()[-4:])[-600:]
        raise BenchFailed(f"building the store failed (exit {done.returncode}): {err}")
    result: dict[str, Any] = json.loads(lines[-1])
    return result


class Side:
    """The parent's handle on one worker."""

    def __init__(self, name: str, src: Path, folder: Path, r: int, args: argparse.Namespace) -> None:
        self.name, self.src, self.folder = name, src, folder
        self.log = folder / "worker-stderr.txt"
        cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", str(folder)]
        if args.profile:
            out = OUT / f"{args.profile}-{name}-round{r}.pstats"
            cmd += ["--profile", args.profile, "--profile-out", str(out)]
        with self.log.open("wb") as err:
            self.proc = subprocess.Popen(
                cmd,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=err,
                env=child_env(src),
                cwd=folder,
                text=True,
                bufsize=1,
            )
        self.http: Any = None

    def call(self, op: str, **fields: Any) -> dict[str, Any]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        try:
            self.proc.stdin.write(json.dumps({"op": op, **fields}) + "\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            raise BenchFailed(f"the {self.name} worker is gone: {tail(self.log)}") from None
        ready, _, _ = select.select([self.proc.stdout], [], [], REPLY_TIMEOUT_S)
        line = self.proc.stdout.readline() if ready else ""
        if not line:
            why = "gave no answer" if ready or self.proc.poll() is not None else "timed out"
            raise BenchFailed(f"the {self.name} worker {why} to {op}: {tail(self.log)}")
        try:
            reply: dict[str, Any] = json.loads(line)
        except ValueError:
            raise BenchFailed(f"the {self.name} worker printed {line[:200]!r}") from None
        if not reply.get("ok"):
            raise BenchFailed(f"the {self.name} worker failed {op}: {reply.get('error')}")
        return reply

    def connect(self, url: str, token: str) -> None:
        import httpx

        if not url.startswith("http://127.0.0.1:"):
            raise BenchFailed(f"the {self.name} server listens on {url}, not on 127.0.0.1")
        limits = httpx.Limits(max_connections=1, max_keepalive_connections=1)
        headers = {"Authorization": f"Bearer {token}"}
        self.http = httpx.Client(base_url=url, headers=headers, timeout=30.0, limits=limits)

    def recall(self, queries: list[str]) -> dict[str, Any]:
        import httpx

        ms, ids = [], []
        for q in queries:
            t = time.perf_counter()
            try:
                res = self.http.post("/api/v1/memory/recall", json={"query": q, "limit": LIMIT})
                took = (time.perf_counter() - t) * 1000
                body = res.json() if res.status_code == 200 else None
            except (httpx.HTTPError, ValueError) as exc:
                raise BenchFailed(f"a recall to the {self.name} server failed: {exc}") from None
            if not isinstance(body, dict) or not isinstance(body.get("memories"), list):
                raise BenchFailed(f"the {self.name} server answered {res.status_code}: {res.text[:200]}")
            ms.append(took)
            ids.append([m.get("id") for m in body["memories"]])
        return {"ms": ms, "ids": ids}

    def close(self) -> None:
        if self.http is not None:
            self.http.close()
        if self.proc.poll() is None:
            with contextlib.suppress(BenchFailed):
                self.call("quit")
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def blocks(items: list[Any], size: int) -> list[list[Any]]:
    return [items[at : at + size] for at in range(0, len(items), size)]


class Tally:
    """Latencies per round, side and measurement, and how often the two sides' answers differed."""

    def __init__(self, rounds: int) -> None:
        self.ms: list[dict[str, dict[str, list[float]]]] = [
            {side: {m: [] for m in MEASURES} for side in SIDES} for _ in range(rounds)
        ]
        self.differ = {m: 0 for m in MEASURES}
        self.compared = {m: 0 for m in MEASURES}

    def add(self, r: int, key: str, got: dict[str, dict[str, Any]]) -> None:
        for side in SIDES:
            self.ms[r][side][key] += got[side]["ms"]
        if "ids" in got["before"]:
            pairs = zip(got["before"]["ids"], got["after"]["ids"], strict=True)
            self.differ[key] += sum(a != b for a, b in pairs)
            self.compared[key] += len(got["before"]["ids"])


def alternate(sides: dict[str, Side], turn: int, run_one: Any) -> dict[str, dict[str, Any]]:
    """Run one block on both sides, `before` first on even turns and `after` first on odd ones."""
    order = SIDES if turn % 2 == 0 else SIDES[::-1]
    return {side: run_one(sides[side]) for side in order}


def open_sides(
    workdir: Path, fixture: Path, r: int, order: tuple[str, ...], args: argparse.Namespace
) -> tuple[dict[str, Side], dict[str, dict[str, Any]]]:
    """Fresh workers and servers for round `r`, over fresh copies of the store, started in `order`."""
    sides: dict[str, Side] = {}
    hello: dict[str, dict[str, Any]] = {}
    try:
        for name in order:
            folder = workdir / name / f"round{r}"
            folder.mkdir()
            for copy in ("fetch.db", "store.db", "serve.db"):
                shutil.copyfile(fixture, folder / copy)
            side = sides[name] = Side(name, workdir / name / "src", folder, r, args)
            hello[name] = side.call("hello")
            if Path(hello[name]["module"]) != (side.src / "tinymemory").resolve():
                raise BenchFailed(f"the {name} worker imported tinymemory from {hello[name]['module']}")
            served = side.call("serve")
            side.connect(served["url"], served["token"])
    except BaseException:
        for side in sides.values():
            side.close()
        raise
    return sides, hello


def measure(workdir: Path, fixture: Path, args: argparse.Namespace) -> tuple[Tally, dict[str, Any]]:
    """Every round: fresh workers and servers for both sides (so what one process happens to get, its
    hash seed and memory layout, is drawn again every round), warmed up, then every path in blocks that
    alternate between the sides."""
    from service_load import LOCOMO, store_texts

    questions = [q["question"] for s in json.loads(LOCOMO.read_text()) for q in s["qa"]]
    warm, queries = questions[:WARMUP], questions[WARMUP : WARMUP + args.fetches]
    recalls = questions[WARMUP : WARMUP + args.recalls]
    texts = store_texts(WARMUP + args.stores, seed=STORE_SEED)
    tally = Tally(args.rounds)
    seen: dict[str, set[str]] = {"embedder": set(), "durability": set()}
    for r in range(args.rounds):
        t0 = time.perf_counter()
        order = SIDES if r % 2 == 0 else SIDES[::-1]
        sides, hello = open_sides(workdir, fixture, r, order, args)
        try:
            for h in hello.values():
                seen["embedder"].add(h["embedder"])
                seen["durability"].add(h["durability"])
            for name in order:  # untimed: caches, connections, the vector matrix
                for reach in REACHES:
                    sides[name].call("fetch", reach=reach, queries=warm)
                sides[name].call("store", texts=texts[:WARMUP])
                sides[name].recall(warm)
            t1 = time.perf_counter()
            turn = r
            for reach in REACHES:
                for block in blocks(queries, args.block):
                    got = alternate(
                        sides,
                        turn,
                        lambda s, b=block, w=reach: s.call("fetch", reach=w, queries=b, timed=True),
                    )
                    tally.add(r, f"fetch_{reach}", got)
                    turn += 1
            for block in blocks(texts[WARMUP:], args.block):
                got = alternate(sides, turn, lambda s, b=block: s.call("store", texts=b, timed=True))
                tally.add(r, "store", got)
                turn += 1
            for block in blocks(recalls, args.block):
                got = alternate(sides, turn, lambda s, b=block: s.recall(b))
                tally.add(r, "recall", got)
                turn += 1
        finally:
            for side in sides.values():
                side.close()
        p50 = tally.ms[r]
        cells = ", ".join(
            f"{m} {percentile(p50['before'][m], 50):.2f}/{percentile(p50['after'][m], 50):.2f}"
            for m in MEASURES
        )
        print(
            f"round {r + 1}/{args.rounds} ({t1 - t0:.0f} s to start, {time.perf_counter() - t1:.0f} s "
            f"timed): p50 ms before/after: {cells}; load {os.getloadavg()[0]:.2f}",
            file=sys.stderr,
            flush=True,
        )
    return tally, {k: sorted(v) for k, v in seen.items()}


def summarise(tally: Tally) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for key in MEASURES:
        before = [percentile(r["before"][key], 50) for r in tally.ms]
        after = [percentile(r["after"][key], 50) for r in tally.ms]
        ratios = [a / b for a, b in zip(after, before, strict=True)]
        med = statistics.median(ratios)
        slower = len(ratios) > 1 and med > SLOWER and all(x > 1 for x in ratios)
        faster = len(ratios) > 1 and med < 1 / SLOWER and all(x < 1 for x in ratios)
        out[key] = {
            "before": statistics.median(before),
            "after": statistics.median(after),
            "before_p95": statistics.median(percentile(r["before"][key], 95) for r in tally.ms),
            "after_p95": statistics.median(percentile(r["after"][key], 95) for r in tally.ms),
            "per_round": {"before": before, "after": after},
            "ratio": med,
            "ratios": ratios,
            "n": len(tally.ms[0]["before"][key]),
            "differ": tally.differ[key],
            "compared": tally.compared[key],
            "verdict": "slower" if slower else "faster" if faster else "within noise",
        }
    return out


def run(args: argparse.Namespace) -> dict[str, Any]:
    load_start = os.getloadavg()
    machine = machine_line()
    started = time.perf_counter()
    OUT.mkdir(parents=True, exist_ok=True)
    for old in OUT.glob("*.pstats"):
        old.unlink()
    with tempfile.TemporaryDirectory(prefix="tinymemory-core-ba-") as tmp:
        workdir = Path(tmp)
        revs = {
            "before": extract(args.before, workdir / "before"),
            "after": extract(args.after, workdir / "after"),
        }
        print(
            ", ".join(
                f"{s} {revs[s]['rev']} ({revs[s]['commit']}, src at {revs[s]['src_commit']})" for s in SIDES
            ),
            file=sys.stderr,
        )
        fixture = workdir / "fixture" / "memory.db"
        fixture.parent.mkdir()
        print(f"building the store ({args.items:,} items, before code) ...", file=sys.stderr, flush=True)
        built = build(workdir / "before" / "src", fixture, args.items)
        for suffix in ("-wal", "-shm"):
            if Path(str(fixture) + suffix).exists():
                raise BenchFailed("the store was left with a WAL beside it: its build did not close it")
        tally, seen = measure(workdir, fixture, args)
    result = {
        "config": {
            "revs": revs,
            "rounds": args.rounds,
            "block": args.block,
            "items": args.items,
            "fetches": args.fetches,
            "stores": args.stores,
            "recalls": args.recalls,
            "build_s": built["seconds"],
            "build_embedder": built["embedder"],
            "embedder": seen["embedder"],
            "durability": seen["durability"],
            "machine": machine,
            "load_start": list(load_start),
            "load_end": list(os.getloadavg()),
            "wall_s": time.perf_counter() - started,
        },
        "summary": summarise(tally),
    }
    if args.profile:
        result["profile"] = profile_diff(args.profile, revs)
    return result


# ---- profiling ------------------------------------------------------------------------------------------


def profile_diff(path: str, revs: dict[str, dict[str, str]]) -> str:
    """The functions whose time moved most between the sides' profiles of `path`."""
    import pstats

    suffix = ".server.pstats" if path == "recall" else ".pstats"
    stats: dict[str, dict[tuple[str, int, str], tuple[float, float, int]]] = {}
    for side in SIDES:
        files = sorted(OUT.glob(f"{path}-{side}-round*{suffix}"))
        if path != "recall":
            files = [f for f in files if not f.name.endswith(".server.pstats")]
        if not files:
            raise BenchFailed(f"no {side} profile of {path} was written")
        raw = pstats.Stats(*(str(f) for f in files)).stats  # type: ignore[attr-defined]
        stats[side] = {}
        for (file, line, fn), (_, nc, tt, ct, _) in raw.items():
            short = file.split("/src/", 1)[1] if "/src/tinymemory/" in file else file
            key = (short, line, fn)
            old = stats[side].get(key, (0.0, 0.0, 0))
            stats[side][key] = (old[0] + tt, old[1] + ct, old[2] + nc)
    before, after = stats["before"], stats["after"]
    rows = []
    for k in set(before) | set(after):
        b, a = before.get(k, (0.0, 0.0, 0)), after.get(k, (0.0, 0.0, 0))
        rows.append((a[0] - b[0], a[1] - b[1], k, b, a))
    total = {side: sum(v[0] for v in stats[side].values()) for side in SIDES}
    lines = [
        f"profile of {path}: own time in all, before {total['before']:.3f} s, after {total['after']:.3f} s"
    ]

    def row(
        d: float, k: tuple[str, int, str], b: tuple[float, float, int], a: tuple[float, float, int]
    ) -> str:
        return f"  {d:+.4f}  {k[2]} ({k[0]}:{k[1]})  calls {b[2]} -> {a[2]}, cum {b[1]:.3f} -> {a[1]:.3f}"

    lines.append("largest differences of own time (tottime), after - before, s:")
    lines += [row(r[0], r[2], r[3], r[4]) for r in sorted(rows, key=lambda r: -abs(r[0]))[:25]]
    lines.append("largest differences of cumulative time in tinymemory (cumtime), after - before, s:")
    mine = [r for r in rows if r[2][0].startswith("tinymemory/")]
    lines += [row(r[1], r[2], r[3], r[4]) for r in sorted(mine, key=lambda r: -abs(r[1]))[:25]]
    text = "\n".join(lines)
    (OUT / f"{path}-diff.txt").write_text(text + "\n")
    return text


# ---- the report -----------------------------------------------------------------------------------------


def describe(rev: dict[str, str]) -> str:
    if rev["src_commit"] == rev["commit"]:
        return f"`{rev['commit']}`"
    return f"`{rev['src_commit']}` (the `src/` of `{rev['rev']}` at the run)"


def render(run: dict[str, Any], chart_name: str | None) -> str:
    cfg, summary = run["config"], run["summary"]
    rows = []
    for key in MEASURES:
        s = summary[key]
        rows.append(
            [
                LABELS[key],
                str(s["n"]),
                f"{s['before']:.2f} / {s['before_p95']:.2f}",
                f"{s['after']:.2f} / {s['after_p95']:.2f}",
                f"**{s['ratio']:.3f}**",
                f"{min(s['ratios']):.3f} – {max(s['ratios']):.3f}",
                s["verdict"],
            ]
        )
    load0, load1 = cfg["load_start"], cfg["load_end"]
    revs = cfg["revs"]
    lines = [
        "## The engine core against the code before it (`bench/core_before_after.py`)",
        "",
        f"Before: {describe(revs['before'])}, each engine with its own orchestration; after: "
        f"{describe(revs['after'])}, one engine core over a storage interface. Both in one run of "
        f"{cfg['wall_s'] / 60:.0f} min on {cfg['machine']}; 1-min load at the end {load1[0]:.2f}, "
        f"5-min at start and end {load0[1]:.2f} / {load1[1]:.2f} (other jobs share the machine). Each "
        "side is one worker process with its own `src/` on the path (the same interpreter and "
        "dependencies), and its own `tinymemory serve`; this process sends the two sides blocks of "
        f"{cfg['block']} requests in turn, the order swapped every block, for {cfg['rounds']} round(s). "
        "Every round starts both sides' workers and servers afresh (the start order swapped too), so "
        "what a process happens to get, its hash seed and memory layout, is drawn again each round "
        "instead of being held by one side for the whole run. BLAS on one thread everywhere; requests "
        "one at a time, so one core works while the other takes the machine's other load.",
        "",
        f"The store: {cfg['items']:,} synthetic items in bench/service_load.py's layout (one workspace, "
        "200 users, 4 agents; a user's own two tiers, the agents' shared tier and the workspace's), "
        f"stored once by the before code with the default embedder (`{cfg['build_embedder']}`) in "
        f"{cfg['build_s']:.0f} s; each side reads and writes its own copies of that SQLite file on "
        f"local disk. After an untimed warm-up of {WARMUP} requests of each kind, a round is "
        f"{cfg['fetches']} hybrid fetches per reach (LoCoMo questions, top {LIMIT}, the query embedding "
        "included) with three filters: the whole workspace (`subtree`), one user's inherited reach "
        "(`inherit` of the user's agent tier: it and its ancestors), and the filter the service's "
        "recall builds for that user (the four tiers as `exact` terms, every kind but documents), "
        f"{cfg['stores']} single `store` calls (durability "
        f"{'/'.join(cfg['durability'])}, the default: each commit waits for fsync) into that user's "
        f"tier, and {cfg['recalls']} recalls over HTTP as one verified user on one connection "
        f"(`POST /api/v1/memory/recall`, top {LIMIT}, on 127.0.0.1, timed by the client).",
        "",
        "Median over rounds of each side's p50 / p95 in ms, and of the ratio after/before of each "
        f"round's p50 (with its range over rounds). Slower or faster means past {SLOWER - 1:.0%} on the "
        "same side of 1 in every round.",
        "",
        table(
            [
                "path",
                "requests per round",
                "before p50 / p95",
                "after p50 / p95",
                "after/before",
                "range",
                "reading",
            ],
            rows,
        ),
        "",
    ]
    if chart_name:
        lines += [f"![p50 per round, before and after]({chart_name})", ""]
    lines += reading(run)
    return "\n".join(lines)


def reading(run: dict[str, Any]) -> list[str]:
    summary = run["summary"]
    slower = [LABELS[k] for k in MEASURES if summary[k]["verdict"] == "slower"]
    faster = [LABELS[k] for k in MEASURES if summary[k]["verdict"] == "faster"]
    differ = [f"{LABELS[k]} {s['differ']} of {s['compared']}" for k, s in summary.items() if s["differ"]]
    same = (
        "Both sides returned the same items in the same order for every fetch and every recall."
        if not differ
        else "The sides' answers differed for some requests (" + ", ".join(differ) + ")."
    )
    worst = max(abs(s["ratio"] - 1) for s in summary.values())
    spans = all(min(s["ratios"]) <= 1 <= max(s["ratios"]) for s in summary.values())
    if not slower and not faster:
        verdict = (
            f"Every median ratio is within {worst:.1%} of 1"
            + (" and every range spans 1" if spans else "")
            + ", so at this store size the one engine core costs nothing measurable on these paths: "
            "not the fetch, not the store, not the service's recall on top of them."
        )
    else:
        verdict = (
            ("Slower after: " + ", ".join(slower) + ". " if slower else "")
            + ("Faster after: " + ", ".join(faster) + ". " if faster else "")
            + "The other paths are within the noise between rounds."
        )
    spread = {k: max(s["ratios"]) - min(s["ratios"]) for k, s in summary.items()}
    widest = max(spread, key=lambda k: spread[k])
    why = " (its commits wait for fsync on a disk other jobs use)" if widest == "store" else ""
    return [
        f"Reading: {same} {verdict} The ratios move between rounds by up to {spread[widest]:.2f}, "
        f"the widest being the {SHORT[widest]}'s{why}: that is the shared machine, since both sides "
        "ran the same requests within seconds of each other.",
    ]


def chart(run: dict[str, Any], out: Path) -> bool:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib not installed (the `bench` extra): no chart", file=sys.stderr)
        return False
    summary, revs = run["summary"], run["config"]["revs"]
    fig, axes = plt.subplots(1, len(MEASURES), figsize=(12, 3.8))
    colors = {"before": "tab:grey", "after": "tab:blue"}
    for ax, key in zip(axes, MEASURES, strict=True):
        for i, side in enumerate(SIDES):
            values = summary[key]["per_round"][side]
            ax.bar(i, statistics.median(values), color=colors[side], alpha=0.35, width=0.6)
            ax.scatter([i] * len(values), values, color=colors[side], s=14, zorder=3)
        ax.set_xticks(
            [0, 1], [f"before\n{revs['before']['commit']}", f"after\n{revs['after']['src_commit']}"]
        )
        ax.set_title(f"{LABELS[key]}\nafter/before {summary[key]['ratio']:.3f}", fontsize=9)
        ax.set_ylabel("p50 ms" if key == MEASURES[0] else "")
        ax.set_ylim(bottom=0)
        ax.grid(True, axis="y", alpha=0.3)
    fig.suptitle("p50 of each round (dots) and their median (bars)", fontsize=10)
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return True


def main() -> int:
    if len(sys.argv) > 2 and sys.argv[1] == "--serve-profiled":
        return serve_profiled(sys.argv[2], sys.argv[3:])
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--before", default="c948493", help="the revision before (default c948493)")
    parser.add_argument("--after", default="HEAD", help="the revision after (default HEAD)")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--items", type=int, default=5_000, help="items in the store")
    parser.add_argument("--fetches", type=int, default=200, help="fetches per reach per round")
    parser.add_argument("--stores", type=int, default=100, help="stores per round")
    parser.add_argument("--recalls", type=int, default=200, help="recalls per round")
    parser.add_argument("--block", type=int, default=10, help="requests per side before the other's turn")
    parser.add_argument("--quick", action="store_true", help="smoke run: 1 round, small samples, no write")
    parser.add_argument(
        "--profile", choices=tuple(PATHS), help="cProfile one path on both sides (writes nothing to docs/)"
    )
    parser.add_argument("--no-write", action="store_true", help="print the section, leave docs/ alone")
    parser.add_argument("--from-json", type=Path, help="re-render the section and chart from a saved run")
    parser.add_argument("--worker", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--build", help=argparse.SUPPRESS)
    parser.add_argument("--profile-out", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker is not None:
        import asyncio

        asyncio.run(Worker(args.worker, args.profile, args.profile_out).run())
        return 0
    if args.build is not None:
        return build_main(args.build, args.items)
    if args.quick:
        args.rounds, args.items, args.fetches, args.stores, args.recalls = 1, 1000, 30, 20, 30
        args.no_write = True
    if args.profile:
        args.no_write = True
    if min(args.rounds, args.block, args.fetches, args.stores, args.recalls) < 1:
        raise SystemExit("--rounds, --block, --fetches, --stores and --recalls must be at least 1")
    if args.from_json is not None:
        result = json.loads(args.from_json.read_text())
    else:
        try:
            result = run(args)
        except (BenchFailed, OSError) as exc:
            print(f"core_before_after: {exc}", file=sys.stderr)
            return 1
        revs = result["config"]["revs"]
        same = revs["before"]["src_commit"] == revs["after"]["src_commit"]
        name = (
            "last-profile.json"
            if args.profile
            else "last-quick.json"
            if args.quick
            else "last-same-code.json"
            if same
            else "last.json"
        )
        (OUT / name).write_text(json.dumps(result, indent=1))
        print(f"raw figures: {OUT / name}", file=sys.stderr)
        if args.profile:
            print(result["profile"])
    drawn = False if args.no_write else chart(result, CHART)
    md = render(result, CHART.name if drawn else None)
    print(md)
    if not args.no_write:
        write_section(SECTION, md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
