"""The engine core against the code before it, side by side in one run: a hybrid fetch, a store and a
service recall, each timed on the code before the engines were put over one core (`--before`) and on the
code after (`--after`), on the same machine state.

    python bench/core_before_after.py [--before c948493] [--after HEAD] [--rounds 5] [--items 5000]
                                      [--fetches 200] [--stores 100] [--recalls 200] [--no-write]
    python bench/core_before_after.py --quick        # smoke run: 1 round, small samples, writes nothing
    python bench/core_before_after.py --profile fetch # cProfile one measurement on both sides, top diffs

Both revisions' `src/` are extracted with `git archive` into a temporary folder; every measurement is a
child process of this one with PYTHONPATH on one of them (the same interpreter and dependencies), so the
two sides never share a process, a cache or an imported module. Each round runs every measurement on
both sides back to back, the order swapped every round, so load from other jobs falls on both; the
figures are the medians over rounds of each child's p50, and the ratio after/before of each round.

The store: the layout of bench/service_load.py (one workspace, 200 users, 4 agents, a user's own tiers,
an agent's shared tier and the workspace's), `--items` synthetic sentences stored through `store_many`
with the default embedder by the before code, once; each child opens a fresh copy of that file.

- fetch: `MemoryEngine.fetch`, hybrid, top 10, LoCoMo questions as queries, over the whole workspace
  (`subtree`) and over one user's inherited reach; the query embedding is part of it.
- store: one `store` call per item (durability as default: full, so a commit waits for fsync).
- recall: `python -m tinymemory serve` over the copy on 127.0.0.1, one HS256-verified user sending
  `POST /api/v1/memory/recall` one after another over one connection (httpx), client-side latency.

BLAS is on one thread in this process, the children and the server.
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import hashlib  # noqa: E402
import json  # noqa: E402
import shutil  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
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
MEASURES = ("fetch_workspace", "fetch_user", "store", "recall")
LABELS = {
    "fetch_workspace": "hybrid fetch, whole workspace",
    "fetch_user": "hybrid fetch, one user's reach",
    "store": "store (one item, durability full)",
    "recall": "service recall over HTTP",
}
CHILD_OF = {"fetch_workspace": "fetch", "fetch_user": "fetch", "store": "store", "recall": "recall"}
WARMUP = 20
LIMIT = 10
USER = 3  # the user whose reach the fetch and the recall read: u3, talking to agent a3
STORE_SEED = 29  # texts for the timed stores (the store's own are bench/service_load.py's, seed 17)
CHILD_TIMEOUT_S = 600.0
SLOWER = 1.05  # a ratio past this, with the same sign in every round, is reported as slower


class ChildFailed(RuntimeError):
    pass


# ---- the children (run with PYTHONPATH on one side's src) ---------------------------------------------


def emit(result: dict[str, Any]) -> None:
    import tinymemory

    result["module"] = str(Path(tinymemory.__file__).resolve().parent)
    sys.stdout.write(json.dumps(result) + "\n")
    sys.stdout.flush()


def queries(n: int) -> list[str]:
    from service_load import LOCOMO

    qs = [q["question"] for s in json.loads(LOCOMO.read_text()) for q in s["qa"]]
    return qs[:n]


def user_namespace() -> str:
    from service_load import AGENTS, namespace_of

    return namespace_of("user_for_agent", f"u{USER}", f"a{USER % AGENTS}")


def profiled(path: str | None) -> Any:
    """A cProfile.Profile started now (None without a path)."""
    if not path:
        return None
    import cProfile

    prof = cProfile.Profile()
    prof.enable()
    return prof


def profile_done(prof: Any, path: str | None) -> None:
    if prof is not None and path:
        prof.disable()
        prof.dump_stats(path)


async def child_build(db: str, items: int) -> dict[str, Any]:
    from service_load import fill_tinymemory, store_texts

    started = time.perf_counter()
    embedder = await fill_tinymemory(db, store_texts(items))
    return {"seconds": time.perf_counter() - started, "embedder": embedder}


async def child_fetch(db: str, n: int, profile: str | None) -> dict[str, Any]:
    from service_load import WORKSPACE
    from tinymemory.api import FetchMode, FetchRequest, MetaFilter, Namespace, Reach
    from tinymemory.engines.sqlite import SqliteEngine

    qs = queries(n)
    filters = {
        "fetch_workspace": MetaFilter(reach=Reach.subtree(Namespace.parse(f"workspace:{WORKSPACE}"))),
        "fetch_user": MetaFilter(reach=Reach.of(Namespace.parse(user_namespace()))),
    }
    out: dict[str, Any] = {}
    async with SqliteEngine(db) as engine:
        for q in qs[:WARMUP]:
            for flt in filters.values():
                await engine.fetch(FetchRequest(query=q, mode=FetchMode.HYBRID, filter=flt, limit=LIMIT))
        prof = profiled(profile)
        hits: dict[str, str] = {}
        for key, flt in filters.items():
            lat = []
            got = hashlib.sha256()
            for q in qs:
                t = time.perf_counter()
                res = await engine.fetch(
                    FetchRequest(query=q, mode=FetchMode.HYBRID, filter=flt, limit=LIMIT)
                )
                lat.append((time.perf_counter() - t) * 1000)
                got.update(" ".join(h.item.id for h in res.hits).encode() + b"\n")
            out[key] = {"n": len(lat), "p50": percentile(lat, 50), "p95": percentile(lat, 95)}
            hits[key] = got.hexdigest()[:16]
        profile_done(prof, profile)
        out["hits"] = hits
        out["embedder"] = engine.embedder.name if engine.embedder is not None else "none"
    return out


async def child_store(db: str, n: int, profile: str | None) -> dict[str, Any]:
    from service_load import store_texts
    from tinymemory.api import ItemKind, ItemMeta, Namespace, NewItem, Source
    from tinymemory.engines.sqlite import SqliteEngine

    texts = store_texts(WARMUP + n, seed=STORE_SEED)
    ns = Namespace.parse(user_namespace())

    def item(i: int) -> NewItem:
        meta = ItemMeta(namespace=ns, source=Source("agent", f"a{USER % 4}"), agent_id=f"a{USER % 4}")
        return NewItem(ItemKind.LEARNING, f"{texts[i]} (stored {i})", meta)

    async with SqliteEngine(db) as engine:
        durability = engine.durability
        for i in range(WARMUP):
            await engine.store(item(i))
        prof = profiled(profile)
        lat = []
        created = 0
        for i in range(WARMUP, WARMUP + n):
            t = time.perf_counter()
            res = await engine.store(item(i))
            lat.append((time.perf_counter() - t) * 1000)
            created += int(not res.replayed)
        profile_done(prof, profile)
    return {
        "store": {"n": len(lat), "p50": percentile(lat, 50), "p95": percentile(lat, 95)},
        "durability": durability,
        "created": created,
    }


def child_recall(db: str, n: int, profile: str | None) -> dict[str, Any]:
    from datetime import timedelta

    import httpx

    from service_load import AGENTS, WORKSPACE, launch, server_env
    from tinymemory.service.tokens import issue_jwt

    workdir = Path(db).parent
    secret = os.urandom(32).hex()
    env = server_env(1)
    env["TINYMEMORY_JWT_SECRET"] = secret
    env["PYTHONPATH"] = os.environ.get("PYTHONPATH", "")
    cmd = [sys.executable, "-m", "tinymemory", "serve", "--db", db, "--host", "127.0.0.1", "--port", "0"]
    if profile:
        # the server's own profile: cProfile of the whole process, written when it exits on SIGTERM
        cmd = [
            sys.executable,
            str(HERE / "core_before_after.py"),
            "--serve-profiled",
            profile,
            "--",
            *cmd[1:],
        ]
    server = launch(cmd, env, workdir, "/readyz")
    try:
        if not server.url.startswith("http://127.0.0.1:"):
            raise RuntimeError(f"the server listens on {server.url}, not on 127.0.0.1")
        token = issue_jwt(secret, WORKSPACE, f"u{USER}", f"a{USER % AGENTS}", ttl=timedelta(hours=1))
        qs = queries(n)
        limits = httpx.Limits(max_connections=1, max_keepalive_connections=1)
        headers = {"Authorization": f"Bearer {token}"}
        with httpx.Client(base_url=server.url, headers=headers, timeout=30.0, limits=limits) as http:

            def recall(q: str) -> str:
                res = http.post("/api/v1/memory/recall", json={"query": q, "limit": LIMIT})
                res.raise_for_status()
                body = res.json()
                if not isinstance(body, dict) or not isinstance(body.get("memories"), list):
                    raise RuntimeError(f"recall answered {str(body)[:200]}")
                return " ".join(str(m.get("id")) for m in body["memories"]) + "\n"

            for q in qs[:WARMUP]:
                recall(q)
            lat = []
            got = hashlib.sha256()
            for q in qs:
                t = time.perf_counter()
                got.update(recall(q).encode())
                lat.append((time.perf_counter() - t) * 1000)
    finally:
        server.stop()
    return {
        "recall": {"n": len(lat), "p50": percentile(lat, 50), "p95": percentile(lat, 95)},
        "recall_hits": got.hexdigest()[:16],
    }


def serve_profiled(out: str, argv: list[str]) -> int:
    """`python -m tinymemory serve ...` under cProfile, its stats written on SIGTERM (uvicorn exits)."""
    import cProfile
    import runpy

    sys.argv = ["tinymemory", *argv[1:]] if argv[:1] == ["-m"] else argv
    if argv[:2] == ["-m", "tinymemory"]:
        sys.argv = ["tinymemory", *argv[2:]]
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


def child_main(args: argparse.Namespace) -> int:
    import asyncio

    if args.child == "build":
        result = asyncio.run(child_build(args.db, args.n))
    elif args.child == "fetch":
        result = asyncio.run(child_fetch(args.db, args.n, args.profile_out))
    elif args.child == "store":
        result = asyncio.run(child_store(args.db, args.n, args.profile_out))
    elif args.child == "recall":
        result = child_recall(args.db, args.n, args.profile_out)
    else:
        raise SystemExit(f"unknown child {args.child!r}")
    emit(result)
    return 0


# ---- the parent ---------------------------------------------------------------------------------------


def extract(rev: str, into: Path) -> str:
    """`src/` of `rev` as `into`/src; the commit's short hash."""
    sha = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--short", f"{rev}^{{commit}}"],
        capture_output=True,
        text=True,
    )
    if sha.returncode != 0:
        raise ChildFailed(f"git does not know {rev!r}: {sha.stderr.strip()}")
    into.mkdir(parents=True)
    archive = subprocess.Popen(["git", "-C", str(ROOT), "archive", rev, "src"], stdout=subprocess.PIPE)
    untar = subprocess.run(["tar", "-x", "-C", str(into)], stdin=archive.stdout, capture_output=True)
    archive.wait()
    if archive.returncode != 0 or untar.returncode != 0:
        raise ChildFailed(f"could not extract src/ of {rev}: {untar.stderr.decode(errors='replace')[-300:]}")
    return sha.stdout.strip()


def child_env(src: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TINYMEMORY_")}
    if "TINYMEMORY_HOME" in os.environ:
        env["TINYMEMORY_HOME"] = os.environ["TINYMEMORY_HOME"]
    env["PYTHONPATH"] = str(src)
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        env[var] = "1"
    return env


def run_child(
    kind: str, src: Path, db: Path, n: int, workdir: Path, profile_out: Path | None = None
) -> dict[str, Any]:
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", kind, "--db", str(db), "--n", str(n)]
    if profile_out is not None:
        cmd += ["--profile-out", str(profile_out)]
    try:
        done = subprocess.run(
            cmd, capture_output=True, text=True, env=child_env(src), cwd=workdir, timeout=CHILD_TIMEOUT_S
        )
    except subprocess.TimeoutExpired:
        raise ChildFailed(f"{kind} child on {src.parent.name} ran past {CHILD_TIMEOUT_S:.0f} s") from None
    tail = " | ".join(ln.strip() for ln in done.stderr.strip().splitlines()[-4:])
    if done.returncode != 0:
        raise ChildFailed(f"{kind} child on {src.parent.name} exited {done.returncode}: {tail[-600:]}")
    lines = [ln for ln in done.stdout.strip().splitlines() if ln.startswith("{")]
    try:
        result: dict[str, Any] = json.loads(lines[-1])
    except (IndexError, ValueError):
        raise ChildFailed(f"{kind} child on {src.parent.name} printed no result: {tail[-600:]}") from None
    module = Path(result.get("module", ""))
    if module != (src / "tinymemory").resolve():
        raise ChildFailed(f"{kind} child on {src.parent.name} imported tinymemory from {module}, not {src}")
    return result


def fresh_copy(fixture: Path, workdir: Path, name: str) -> Path:
    folder = workdir / name
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    db = folder / "memory.db"
    shutil.copyfile(fixture, db)
    return db


def one_round(
    srcs: dict[str, Path], fixture: Path, workdir: Path, order: tuple[str, ...], args: argparse.Namespace
) -> dict[str, dict[str, Any]]:
    """Every measurement on both sides (in `order`, each measurement's pair back to back)."""
    got: dict[str, dict[str, Any]] = {side: {} for side in SIDES}
    for kind, n in (("fetch", args.fetches), ("store", args.stores), ("recall", args.recalls)):
        for side in order:
            db = fresh_copy(fixture, workdir, f"{side}-{kind}")
            got[side].update(run_child(kind, srcs[side], db, n, db.parent))
            shutil.rmtree(db.parent, ignore_errors=True)
    return got


def ratio_summary(rounds: list[dict[str, dict[str, Any]]]) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for key in MEASURES:
        before = [r["before"][key]["p50"] for r in rounds]
        after = [r["after"][key]["p50"] for r in rounds]
        ratios = [a / b for a, b in zip(after, before, strict=True)]
        med = statistics.median(ratios)
        slower = len(ratios) > 1 and med > SLOWER and all(x > 1 for x in ratios)
        faster = len(ratios) > 1 and med < 1 / SLOWER and all(x < 1 for x in ratios)
        out[key] = {
            "before": statistics.median(before),
            "after": statistics.median(after),
            "before_p95": statistics.median(r["before"][key]["p95"] for r in rounds),
            "after_p95": statistics.median(r["after"][key]["p95"] for r in rounds),
            "ratio": med,
            "ratios": ratios,
            "verdict": "slower" if slower else "faster" if faster else "within noise",
        }
    return out


def run(args: argparse.Namespace) -> dict[str, Any]:
    load_start = os.getloadavg()
    machine = machine_line()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="tinymemory-core-ba-") as tmp:
        workdir = Path(tmp)
        shas = {
            "before": extract(args.before, workdir / "before"),
            "after": extract(args.after, workdir / "after"),
        }
        srcs = {side: workdir / side / "src" for side in SIDES}
        print(
            f"before {args.before} ({shas['before']}), after {args.after} ({shas['after']})", file=sys.stderr
        )
        fixture_dir = workdir / "fixture"
        fixture_dir.mkdir()
        fixture = fixture_dir / "memory.db"
        print(f"building the store ({args.items:,} items, before code) ...", file=sys.stderr, flush=True)
        built = run_child("build", srcs["before"], fixture, args.items, fixture_dir)
        for suffix in ("-wal", "-shm"):
            if Path(str(fixture) + suffix).exists():
                raise ChildFailed("the fixture was left with a WAL beside it: the build did not close")
        if args.profile:
            return profile_both(args, srcs, fixture, workdir, shas)
        rounds = []
        for r in range(args.rounds):
            order = SIDES if r % 2 == 0 else SIDES[::-1]
            t0 = time.perf_counter()
            got = one_round(srcs, fixture, workdir, order, args)
            rounds.append(got)
            cells = ", ".join(
                f"{k} {got['before'][k]['p50']:.2f}/{got['after'][k]['p50']:.2f}" for k in MEASURES
            )
            print(
                f"round {r + 1}/{args.rounds} ({'/'.join(order)}, {time.perf_counter() - t0:.0f} s): "
                f"p50 ms before/after: {cells}; load {os.getloadavg()[0]:.2f}",
                file=sys.stderr,
                flush=True,
            )
    checks = {
        "same_fetch_hits": all(r["before"]["hits"] == r["after"]["hits"] for r in rounds),
        "same_recall_hits": all(r["before"]["recall_hits"] == r["after"]["recall_hits"] for r in rounds),
        "stores_created": [r[side]["created"] for r in rounds for side in SIDES],
        "durability": sorted({r[side]["durability"] for r in rounds for side in SIDES}),
        "embedder": sorted({r[side]["embedder"] for r in rounds for side in SIDES}),
    }
    return {
        "config": {
            "before": args.before,
            "after": args.after,
            "shas": shas,
            "rounds": args.rounds,
            "items": args.items,
            "fetches": args.fetches,
            "stores": args.stores,
            "recalls": args.recalls,
            "build_s": built["seconds"],
            "build_embedder": built["embedder"],
            "machine": machine,
            "load_start": list(load_start),
            "load_end": list(os.getloadavg()),
            "wall_s": time.perf_counter() - started,
        },
        "checks": checks,
        "rounds": rounds,
        "summary": ratio_summary(rounds),
    }


# ---- profiling ------------------------------------------------------------------------------------------


def profile_both(
    args: argparse.Namespace, srcs: dict[str, Path], fixture: Path, workdir: Path, shas: dict[str, str]
) -> dict[str, Any]:
    """Run one measurement under cProfile on both sides; print the functions whose own time moved most."""
    import pstats

    kind = args.profile
    n = {"fetch": args.fetches, "store": args.stores, "recall": args.recalls}[kind]
    OUT.mkdir(parents=True, exist_ok=True)
    stats: dict[str, dict[tuple[str, int, str], tuple[float, float, int]]] = {}
    for side in SIDES:
        db = fresh_copy(fixture, workdir, f"{side}-profile")
        out = OUT / f"{kind}-{side}.pstats"
        out.unlink(missing_ok=True)
        run_child(kind, srcs[side], db, n, db.parent, profile_out=out)
        if not out.exists():
            raise ChildFailed(f"the {side} profile was not written")
        raw = pstats.Stats(str(out)).stats  # type: ignore[attr-defined]
        prefix = str(srcs[side])
        stats[side] = {
            (file.replace(prefix, "src"), line, fn): (tt, ct, nc)
            for (file, line, fn), (_, nc, tt, ct, _) in raw.items()
        }
    before, after = stats["before"], stats["after"]
    keys = set(before) | set(after)
    rows = []
    for k in keys:
        b, a = before.get(k, (0.0, 0.0, 0)), after.get(k, (0.0, 0.0, 0))
        rows.append((a[0] - b[0], a[1] - b[1], k, b, a))
    total = {side: sum(v[0] for v in stats[side].values()) for side in SIDES}
    lines = [
        f"profile of {kind} (n={n}): total own time before {total['before']:.3f} s, "
        f"after {total['after']:.3f} s"
    ]
    lines.append("largest differences of own time (tottime), after - before, seconds:")
    for d_tt, _d_ct, (file, line, fn), b, a in sorted(rows, key=lambda r: -abs(r[0]))[:25]:
        lines.append(
            f"  {d_tt:+.4f}  {fn} ({file}:{line})  calls {b[2]} -> {a[2]}, cum {b[1]:.3f} -> {a[1]:.3f}"
        )
    lines.append("largest differences of cumulative time in src/ (cumtime), after - before, seconds:")
    mine = [r for r in rows if r[2][0].startswith("src")]
    for _d_tt, d_ct, (file, line, fn), b, a in sorted(mine, key=lambda r: -abs(r[1]))[:25]:
        lines.append(
            f"  {d_ct:+.4f}  {fn} ({file}:{line})  calls {b[2]} -> {a[2]}, cum {b[1]:.3f} -> {a[1]:.3f}"
        )
    text = "\n".join(lines)
    (OUT / f"{kind}-diff.txt").write_text(text + "\n")
    print(text)
    return {"profile": kind, "shas": shas}


# ---- the report -----------------------------------------------------------------------------------------


def render(run: dict[str, Any], chart_name: str | None) -> str:
    cfg, summary = run["config"], run["summary"]
    rows = []
    for key in MEASURES:
        s = summary[key]
        lo, hi = min(s["ratios"]), max(s["ratios"])
        rows.append(
            [
                LABELS[key],
                f"{s['before']:.2f} / {s['before_p95']:.2f}",
                f"{s['after']:.2f} / {s['after_p95']:.2f}",
                f"{s['ratio']:.3f}",
                f"{lo:.3f} – {hi:.3f}",
                s["verdict"],
            ]
        )
    samples = {
        "fetch_workspace": cfg["fetches"],
        "fetch_user": cfg["fetches"],
        "store": cfg["stores"],
        "recall": cfg["recalls"],
    }
    load0, load1 = cfg["load_start"], cfg["load_end"]
    lines = [
        "## The engine core against the code before it (`bench/core_before_after.py`)",
        "",
        f"Before: `{cfg['before']}` ({cfg['shas']['before']}), each engine with its own orchestration; "
        f"after: `{cfg['after']}` ({cfg['shas']['after']}), one engine core over a storage interface. "
        f"Both in one run of {cfg['wall_s'] / 60:.0f} min: {cfg['rounds']} round(s), each running every "
        "measurement on both sides back to back (the order swapped every round), each measurement a "
        "fresh child process with the side's `src/` on its path, the same interpreter and dependencies. "
        f"Machine: {cfg['machine']}; 1-min load at the end {load1[0]:.2f} (5-min at start/end "
        f"{load0[1]:.2f} / {load1[1]:.2f}). BLAS on one thread in every process; the server and its "
        "client share the cores.",
        "",
        f"The store: {cfg['items']:,} synthetic items in bench/service_load.py's layout (one workspace, "
        "200 users, 4 agents; a user's own two tiers, the agents' shared tier and the workspace's), "
        f"stored once by the before code with the default embedder (`{cfg['build_embedder']}`) in "
        f"{cfg['build_s']:.0f} s, copied fresh for every child, a SQLite file on local disk. Per child, "
        f"untimed warm-up of {WARMUP} requests, then: {samples['fetch_workspace']} hybrid fetches per "
        f"reach (LoCoMo questions, top {LIMIT}, the query embedding included) over the whole workspace "
        "and over one user's inherited reach (the user's tiers and the workspace's); "
        f"{samples['store']} single `store` calls (durability full, the default: each commit waits for "
        f"fsync); {samples['recall']} recalls over HTTP, one verified user, one connection, one after "
        "another, against `python -m tinymemory serve` on 127.0.0.1 (client-side latency, top "
        f"{LIMIT}).",
        "",
        "Median over rounds of each child's p50 / p95, ms; the ratio is after/before of each round's p50 "
        f"(median, and its range over rounds). Slower or faster means past {SLOWER - 1:.0%} with the same "
        "sign in every round.",
        "",
        table(
            ["measurement", "before p50 / p95", "after p50 / p95", "after/before", "range", "reading"], rows
        ),
        "",
    ]
    if chart_name:
        lines += [f"![per-round p50, before and after]({chart_name})", ""]
    lines += reading(run)
    return "\n".join(lines)


def reading(run: dict[str, Any]) -> list[str]:
    summary, checks = run["summary"], run["checks"]
    slower = [LABELS[k] for k in MEASURES if summary[k]["verdict"] == "slower"]
    faster = [LABELS[k] for k in MEASURES if summary[k]["verdict"] == "faster"]
    parts = []
    same = checks["same_fetch_hits"] and checks["same_recall_hits"]
    parts.append(
        "both sides return the same items in the same order for every query, fetch and recall"
        if same
        else "the two sides did not return the same items for every query (fetch "
        f"{'same' if checks['same_fetch_hits'] else 'different'}, recall "
        f"{'same' if checks['same_recall_hits'] else 'different'})"
    )
    if not slower:
        parts.append(
            "none of the paths is slower after the restructuring by more than the noise between rounds"
        )
    else:
        parts.append(f"slower after: {', '.join(slower)} (profiled separately; see the notes below)")
    if faster:
        parts.append(f"faster after: {', '.join(faster)}")
    spread = max(max(s["ratios"]) - min(s["ratios"]) for s in summary.values())
    said = "; ".join(parts)
    out = [
        "Reading: " + said[:1].upper() + said[1:] + ". "
        f"The widest range of a ratio over rounds is {spread:.2f}, what the shared machine adds on its own "
        "between two back-to-back children. The store is dominated by fsync and the recall by the HTTP "
        "round trip and the service's work around the engine, so a change in the engine core moves them "
        "less than it moves a fetch."
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
    rounds = run["rounds"]
    fig, axes = plt.subplots(1, len(MEASURES), figsize=(12, 3.8))
    colors = {"before": "tab:grey", "after": "tab:blue"}
    for ax, key in zip(axes, MEASURES, strict=True):
        for i, side in enumerate(SIDES):
            values = [r[side][key]["p50"] for r in rounds]
            ax.bar(i, statistics.median(values), color=colors[side], alpha=0.35, width=0.6)
            ax.scatter([i] * len(values), values, color=colors[side], s=14, zorder=3)
        ax.set_xticks(
            [0, 1], [f"before\n{run['config']['shas']['before']}", f"after\n{run['config']['shas']['after']}"]
        )
        ratio = run["summary"][key]["ratio"]
        ax.set_title(f"{LABELS[key]}\nafter/before {ratio:.3f}", fontsize=9)
        ax.set_ylabel("p50 ms" if key == MEASURES[0] else "")
        ax.set_ylim(bottom=0)
        ax.grid(True, axis="y", alpha=0.3)
    fig.suptitle("p50 per round (dots) and median over rounds (bars)", fontsize=10)
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return True


def main() -> int:
    if len(sys.argv) > 2 and sys.argv[1] == "--serve-profiled":
        rest = sys.argv[3:]
        if rest[:1] == ["--"]:
            rest = rest[1:]
        return serve_profiled(sys.argv[2], rest)
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--before", default="c948493", help="the revision before (default c948493)")
    parser.add_argument("--after", default="HEAD", help="the revision after (default HEAD)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--items", type=int, default=5_000, help="items in the store")
    parser.add_argument("--fetches", type=int, default=200, help="timed fetches per reach per child")
    parser.add_argument("--stores", type=int, default=100, help="timed stores per child")
    parser.add_argument("--recalls", type=int, default=200, help="timed recalls per child")
    parser.add_argument("--quick", action="store_true", help="smoke run: 1 round, small samples, no write")
    parser.add_argument(
        "--profile", choices=("fetch", "store", "recall"), help="cProfile one measurement on both sides"
    )
    parser.add_argument("--no-write", action="store_true", help="print the section, leave docs/ alone")
    parser.add_argument("--from-json", type=Path, help="re-render the section and chart from a saved run")
    # the children
    parser.add_argument("--child", choices=("build", "fetch", "store", "recall"), help=argparse.SUPPRESS)
    parser.add_argument("--db", help=argparse.SUPPRESS)
    parser.add_argument("--n", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--profile-out", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        return child_main(args)
    if args.quick:
        args.rounds, args.items, args.fetches, args.stores, args.recalls, args.no_write = (
            1,
            1000,
            30,
            20,
            30,
            True,
        )
    if args.rounds < 1:
        raise SystemExit("--rounds must be at least 1")
    if args.from_json is not None:
        result = json.loads(args.from_json.read_text())
    else:
        try:
            result = run(args)
        except (ChildFailed, OSError) as exc:
            print(f"core_before_after: {exc}", file=sys.stderr)
            return 1
        if args.profile:
            return 0
        OUT.mkdir(parents=True, exist_ok=True)
        saved = OUT / ("last-quick.json" if args.quick else "last.json")
        saved.write_text(json.dumps(result, indent=1))
        print(f"raw figures: {saved}", file=sys.stderr)
    drawn = False if args.no_write else chart(result, CHART)
    md = render(result, CHART.name if drawn else None)
    print(md)
    if not args.no_write:
        write_section(SECTION, md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
