"""Engine telemetry (engines/telemetry.py): one log record and, with OpenTelemetry, one span per operation.

Run on real engines: a SQLite file, and a throwaway PostgreSQL when one can start (the log test). The
records carry the operation, engine, namespace root, duration, counts and outcome, and nothing a caller
wrote: the test plants one marker in every text, query, metadata value and deeper namespace segment and
finds it in no record or span.
"""

from __future__ import annotations

import json
import logging
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode

from tinymemory.api import (
    ExploreRequest,
    Facet,
    FetchRequest,
    ForgetRequest,
    GetRequest,
    ItemKind,
    ItemMeta,
    ListRequest,
    MemoryEngine,
    MetaFilter,
    Namespace,
    NewItem,
    PurgeRequest,
    Reach,
    RecallRequest,
)
from tinymemory.api.errors import InvalidRequest, Unavailable
from tinymemory.api.items import Relation
from tinymemory.api.relations import ExpandRequest
from tinymemory.engines import telemetry
from tinymemory.engines.sqlite import SqliteEngine

SECRET = "quokkasecret"  # in every text, query, metadata value and sub-namespace below
PLACE = Namespace.parse(f"team:acme/agent:{SECRET}")
REACH = Reach.subtree(Namespace.parse("team:acme"))
SCOPE = MetaFilter(reach=REACH)


def item(text: str) -> NewItem:
    meta = ItemMeta(
        namespace=PLACE,
        tags=(f"{SECRET}-tag",),
        extra=(("note", f"{SECRET}-extra"),),
        relations=(Relation(f"{SECRET} Dana", "likes", f"{SECRET} tea"),),
    )
    return NewItem(ItemKind.LEARNING, f"{text} {SECRET}", meta)


@pytest.fixture(params=["sqlite", "postgres"])
async def engine(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[MemoryEngine]:
    if request.param == "sqlite":
        eng: MemoryEngine = SqliteEngine(tmp_path / "m.db")
        yield eng
        await eng.close()
        return
    from postgres import server
    from tinymemory.engines.postgres import PostgresEngine

    try:
        dsn = server.fresh_database()
    except server.NoServer as exc:
        server.skip_or_fail(str(exc))
        raise  # unreachable: skip_or_fail raises
    eng = PostgresEngine(dsn)
    try:
        yield eng
    finally:
        await eng.close()
        server.drop_database(dsn)


def engine_records(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == telemetry.LOGGER_NAME]


def everything_recorded(record: logging.LogRecord) -> str:
    """The message and every attribute a formatter could print."""
    return record.getMessage() + " " + " ".join(repr(v) for v in vars(record).values())


async def test_one_record_per_operation_with_its_fields_and_nothing_written(
    engine: MemoryEngine, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger=telemetry.LOGGER_NAME)
    first = await engine.store(item("Dana drinks green tea"))
    await engine.store_many([item("Dana paints watercolours"), item("Dana drinks green tea")])
    await engine.fetch(FetchRequest(query=f"what does Dana drink {SECRET}", filter=SCOPE))
    await engine.recall(RecallRequest(question=f"what does Dana drink {SECRET}", filter=SCOPE))
    await engine.list(ListRequest(filter=SCOPE))
    await engine.get(GetRequest(ids=(first.id, "m_unknown"), reach=REACH))
    await engine.explore(ExploreRequest(facet=Facet.TAG, filter=SCOPE))
    await engine.expand(ExpandRequest(seed_name=f"{SECRET} Dana", filter=SCOPE))
    await engine.forget(ForgetRequest(ids=(first.id,), reach=REACH))
    await engine.purge(PurgeRequest(reach=REACH))

    records = engine_records(caplog)
    ops = [getattr(r, "operation", None) for r in records]
    assert ops == [
        "store",
        "store_many",
        "fetch",
        "recall",
        "list",
        "get",
        "explore",
        "expand",
        "forget",
        "purge",
    ]
    name = engine.descriptor.name
    for r in records:
        fields: dict[str, Any] = vars(r)
        assert fields["engine"] == name
        assert fields["namespace_root"] == "team:acme"
        assert fields["outcome"] == "ok"
        assert isinstance(fields["duration_ms"], float) and fields["duration_ms"] >= 0
        assert "error" not in fields
        assert SECRET not in everything_recorded(r), r.getMessage()
        assert r.getMessage().startswith(f"{fields['operation']} ok in ")
    by_op = {r.operation: vars(r) for r in records}  # type: ignore[attr-defined]
    assert (by_op["store"]["written"], by_op["store"]["replayed"]) == (1, 0)
    assert (
        by_op["store_many"]["items"],
        by_op["store_many"]["written"],
        by_op["store_many"]["replayed"],
    ) == (
        2,
        1,
        1,
    )
    assert by_op["fetch"]["hits"] >= 1 and by_op["fetch"]["mode"] == "hybrid"
    assert by_op["recall"]["hits"] >= 1
    assert by_op["list"]["items"] == 2
    assert (by_op["get"]["items"], by_op["get"]["missing"]) == (1, 1)
    assert by_op["explore"]["total"] == 2
    assert by_op["expand"]["hits"] >= 1
    assert (by_op["forget"]["forgotten"], by_op["forget"]["skipped"]) == (1, 0)
    assert by_op["purge"]["purged"] == 1
    levels = {r.operation: r.levelno for r in records}  # type: ignore[attr-defined]
    assert levels["fetch"] == levels["store"] == logging.DEBUG
    assert levels["forget"] == levels["purge"] == logging.INFO


@pytest.mark.parametrize(
    ("flt", "root"),
    [
        (MetaFilter(), "*"),
        (MetaFilter(reach=Reach.subtree(Namespace.root())), "*"),
        (MetaFilter(reach=Reach.exact(Namespace.root())), "/"),
        (MetaFilter(namespace=Namespace.parse("team:b/agent:x")), "team:b"),
        (
            MetaFilter(reach=Reach.union(Reach.of(Namespace.parse("team:b/agent:x")), Reach.subtree(PLACE))),
            "team:acme,team:b",
        ),
    ],
)
async def test_the_namespace_root_of_a_read(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, flt: MetaFilter, root: str
) -> None:
    caplog.set_level(logging.DEBUG, logger=telemetry.LOGGER_NAME)
    async with SqliteEngine(tmp_path / "m.db", embedder=None) as engine:
        await engine.list(ListRequest(filter=flt))
    (record,) = engine_records(caplog)
    assert vars(record)["namespace_root"] == root


async def test_failures_carry_the_error_class_only_at_their_level(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger=telemetry.LOGGER_NAME)
    engine = SqliteEngine(tmp_path / "m.db", embedder=None)
    bad = NewItem(SECRET, "text", ItemMeta(namespace=PLACE))  # type: ignore[arg-type]
    with pytest.raises(InvalidRequest) as caught:
        await engine.store(bad)
    assert SECRET in str(caught.value)  # the message quotes the input: the log must not
    await engine.close()
    with pytest.raises(Unavailable):
        await engine.fetch(FetchRequest(query=SECRET, filter=SCOPE))

    invalid, closed = engine_records(caplog)
    assert (invalid.levelno, closed.levelno) == (logging.INFO, logging.WARNING)
    for r, error in ((invalid, "InvalidRequest"), (closed, "Unavailable")):
        fields = vars(r)
        assert (fields["outcome"], fields["error"]) == ("error", error)
        assert fields["namespace_root"] == "team:acme"
        assert SECRET not in everything_recorded(r)
    assert invalid.getMessage().startswith("store error InvalidRequest in ")


# -- OpenTelemetry --------------------------------------------------------------------------------------


@pytest.fixture
def spans() -> Iterator[tuple[InMemorySpanExporter, TracerProvider]]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    telemetry.set_tracer_provider(provider)
    try:
        yield exporter, provider
    finally:
        telemetry.set_tracer_provider(None)
        provider.shutdown()


def span_text(span: ReadableSpan) -> str:
    return json.dumps(
        {"name": span.name, "attributes": dict(span.attributes or {}), "status": span.status.description}
    )


async def test_a_span_per_operation_with_attributes_and_error_status(
    tmp_path: Path, spans: tuple[InMemorySpanExporter, TracerProvider], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger=telemetry.LOGGER_NAME)
    exporter, provider = spans
    engine = SqliteEngine(tmp_path / "m.db")
    await engine.store(item("Dana drinks green tea"))
    with provider.get_tracer("host-app").start_as_current_span("handle-request") as parent:
        await engine.fetch(FetchRequest(query=SECRET, filter=SCOPE))
    with pytest.raises(InvalidRequest):
        await engine.fetch(FetchRequest(query=SECRET, filter=SCOPE, limit=0))
    await engine.close()
    with pytest.raises(Unavailable):
        await engine.get(GetRequest(ids=("m_x",), reach=REACH))

    finished = [s for s in exporter.get_finished_spans() if s.name.startswith("tinymemory.")]
    assert [s.name for s in finished] == [
        "tinymemory.store",
        "tinymemory.fetch",
        "tinymemory.fetch",
        "tinymemory.get",
    ]
    store, fetch, invalid, closed = finished
    for s in finished:
        attrs = dict(s.attributes or {})
        assert attrs["tinymemory.engine"] == "sqlite"
        assert attrs["tinymemory.namespace_root"] == "team:acme"
        assert SECRET not in span_text(s)
    assert dict(store.attributes or {})["tinymemory.written"] == 1
    fetched = dict(fetch.attributes or {})
    assert (fetched["tinymemory.outcome"], fetched["tinymemory.hits"]) == ("ok", 1)
    assert fetch.status.status_code is StatusCode.UNSET
    assert fetch.parent is not None and fetch.parent.span_id == parent.get_span_context().span_id
    for s, error in ((invalid, "InvalidRequest"), (closed, "Unavailable")):
        assert s.status.status_code is StatusCode.ERROR
        assert s.status.description == error
        assert dict(s.attributes or {})["error.type"] == error
        assert not s.events  # no exception event: its message may quote the input
    assert len(engine_records(caplog)) == 4  # the logs go on beside the spans


# -- without OpenTelemetry, and with the global provider (fresh interpreters) -----------------------------

PROBE = """
import asyncio, json, logging, sys
{setup}
from tinymemory.api import FetchRequest, ItemKind, NewItem
from tinymemory.engines import telemetry
from tinymemory.engines.sqlite import SqliteEngine

ops = []

class Collect(logging.Handler):
    def emit(self, record):
        ops.append(record.operation)

logging.getLogger("tinymemory.engine").addHandler(Collect())
logging.getLogger("tinymemory.engine").setLevel(logging.DEBUG)

async def main():
    async with SqliteEngine({db!r}) as engine:
        await engine.store(NewItem(ItemKind.LEARNING, "Dana drinks green tea"))
        return len((await engine.fetch(FetchRequest(query="what does Dana drink"))).hits)

hits = asyncio.run(main())
loaded = sorted(m for m, mod in sys.modules.items() if m.startswith("opentelemetry") and mod is not None)
print(json.dumps({{"hits": hits, "ops": ops, "tracers": len(telemetry._tracers), "loaded": loaded,
                   "spans": {spans}}}))
"""

BLOCKED = "sys.modules['opentelemetry'] = None  # as if the package were not installed"
GLOBAL = """
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
exporter = InMemorySpanExporter()
provider = TracerProvider()
provider.add_span_processor(SimpleSpanProcessor(exporter))
trace.set_tracer_provider(provider)
"""


def probe(tmp_path: Path, setup: str, spans: str = "[]") -> dict[str, Any]:
    code = PROBE.format(setup=setup, db=str(tmp_path / "m.db"), spans=spans)
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, check=False
    )
    assert out.returncode == 0, out.stderr
    assert out.stderr == ""
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def test_without_opentelemetry_the_engine_works_and_no_span_code_runs(tmp_path: Path) -> None:
    got = probe(tmp_path, BLOCKED)
    assert got == {"hits": 1, "ops": ["store", "fetch"], "tracers": 0, "loaded": [], "spans": []}


def test_installed_but_unused_opentelemetry_is_never_imported(tmp_path: Path) -> None:
    got = probe(tmp_path, "")
    assert (got["ops"], got["tracers"], got["loaded"]) == (["store", "fetch"], 0, [])


def test_the_global_tracer_provider_receives_the_spans(tmp_path: Path) -> None:
    got = probe(tmp_path, GLOBAL, spans="[s.name for s in exporter.get_finished_spans()]")
    assert got["spans"] == ["tinymemory.store", "tinymemory.fetch"]
    assert got["tracers"] == 1


def test_quiet_unless_the_host_configures_logging(tmp_path: Path) -> None:
    """No handler configured: not even a failure (a WARNING record) prints."""
    code = (
        "import asyncio\nfrom tinymemory.api import FetchRequest\n"
        "from tinymemory.engines.sqlite import SqliteEngine\n"
        "async def main():\n"
        f"    engine = SqliteEngine({str(tmp_path / 'm.db')!r}, embedder=None)\n"
        "    await engine.fetch(FetchRequest(query='tea'))\n"
        "    await engine.close()\n"
        "    try:\n"
        "        await engine.fetch(FetchRequest(query='tea'))\n"
        "    except Exception as exc:\n"
        "        assert type(exc).__name__ == 'Unavailable'\n"
        "asyncio.run(main())\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, check=False
    )
    assert (out.returncode, out.stdout, out.stderr) == (0, "", "")
