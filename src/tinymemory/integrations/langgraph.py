"""`TinyMemoryStore`: a LangGraph `BaseStore` over any tinymemory engine.

LangGraph agents (and LangMem's memory tools) keep long-term memory in a `BaseStore`. This one keeps it
in a tinymemory engine, so the same memories get hybrid retrieval, namespaces with reaches, bitemporal
history and forgetting, and tinymemory's own tools can read what a LangGraph agent wrote.

- Namespace tuples map one to one onto tinymemory namespaces below a base (`langgraph_names`).
- Each item is a memory whose text is its indexed fields and whose value travels exactly beside it
  (`langgraph_records`); a put is a new version that supersedes the last one.
- Search with a query ranks with the engine's fetch (hybrid when it serves it) inside the prefix's
  subtree reach, so nothing outside the prefix is ranked by or shown; items that the fetch did not rank
  (nothing indexed, or past its candidate pool) follow without a score. With the user's own embeddings
  (`index["embed"]`, `langgraph_embed`), the fetch proposes a pool of candidates that the store scores
  as LangGraph does: the cosine between the query and the item's best indexed field. Without a query,
  items come newest update first. Filters follow LangGraph's operators (`langgraph_match`).
- A batch reads before it writes (as LangGraph's in-memory store does): its gets and searches see the
  store as it was, and the last put of a (namespace, key) wins. Its puts are stored in one transaction.
- TTL: an item put with `ttl` (minutes) is never returned once expired; refreshing reads (`refresh_ttl`,
  or the config's `refresh_on_read` when a read does not say) store a new version with a later expiry;
  `sweep_ttl` forgets the expired ones, and `start_ttl_sweeper` does it on a thread of its own.
- `AsyncTinyMemoryStore` is the same store with coroutine maintenance calls, as LangGraph pairs its
  async stores with the sync ones.

The engine always runs on the store's own loop thread: `batch` waits for it, `abatch` awaits it without
blocking the caller's loop. An engine bound to one event loop (PostgreSQL's pool) therefore never sees
two; do not drive the same engine from another loop while the store uses it.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import math
import threading
from collections.abc import AsyncIterator, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, cast

import numpy as np

try:
    from langgraph.store.base import (
        BaseStore,
        GetOp,
        IndexConfig,
        InvalidNamespaceError,
        Item,
        ListNamespacesOp,
        Op,
        PutOp,
        Result,
        SearchItem,
        SearchOp,
        TTLConfig,
        tokenize_path,
    )
except ImportError as exc:  # pragma: no cover - only without the extra
    raise ImportError(
        "tinymemory.integrations.langgraph needs LangGraph's store package: "
        'pip install "tinymemory[langgraph]"'
    ) from exc

from tinymemory._loop import LoopThread
from tinymemory.api import (
    MAX_IDS,
    MAX_LIMIT,
    FetchRequest,
    ForgetRequest,
    InvalidRequest,
    ListRequest,
    MemoryEngine,
    MetaFilter,
    Namespace,
    NewItem,
    PurgeRequest,
    Reach,
    utcnow,
)
from tinymemory.api.closing import Closing
from tinymemory.api.echo import echo
from tinymemory.api.paging import fetched, listed
from tinymemory.api.validate import MAX_QUERY_CHARS, check_bool
from tinymemory.async_memory.arguments import as_namespace, check_count, check_opening, checked
from tinymemory.integrations import langgraph_match as match
from tinymemory.integrations.langgraph_embed import LangChainEmbedder, as_embedder
from tinymemory.integrations.langgraph_names import to_namespace
from tinymemory.integrations.langgraph_records import (
    INDEXED_TAG,
    SOURCE,
    FieldVectors,
    Record,
    Version,
    about_for,
    check_key,
    check_value,
    decode,
    expiry,
    field_texts,
    index_text,
    new_item,
)

__all__ = ["AsyncTinyMemoryStore", "TinyMemoryStore"]

_log = logging.getLogger(__name__)

_OP_NAMES = "a GetOp, PutOp, SearchOp or ListNamespacesOp"


def _op_name(op: Op) -> str:
    if isinstance(op, PutOp):
        return "put" if op.value is not None else "delete"
    if isinstance(op, GetOp):
        return "get"
    if isinstance(op, SearchOp):
        return "search"
    return "list_namespaces"


def _check_labels(labels: object, *, root: bool = False, prefix: bool = False) -> tuple[str, ...]:
    """LangGraph's own label rules, raising its InvalidNamespaceError (ops given to `batch` directly
    skip BaseStore's checks); `root` adds the rule for a namespace that is written to (not empty), and
    `prefix` takes a list too, as LangGraph's stores take a search prefix. The reserved root label
    `langgraph` is BaseStore's rule for `put`: a PutOp given to `batch` may use it, as in LangGraph's
    stores."""
    if prefix and isinstance(labels, list):
        labels = tuple(labels)
    if not isinstance(labels, tuple):
        raise InvalidNamespaceError(f"Namespace must be a tuple of strings, got {type(labels).__name__}.")
    for label in labels:
        if not isinstance(label, str):
            raise InvalidNamespaceError(
                f"Invalid namespace label '{label}' found in {labels}. Namespace labels must be strings,"
                f" but got {type(label).__name__}."
            )
        if not label:
            raise InvalidNamespaceError(f"Namespace labels cannot be empty strings. Got {label} in {labels}")
        if "." in label or "\x00" in label:
            raise InvalidNamespaceError(
                f"Invalid namespace label '{label}' found in {labels}."
                " Namespace labels cannot contain periods ('.') or NUL bytes."
            )
    if root and not labels:
        raise InvalidNamespaceError("Namespace cannot be empty.")
    return labels


def _index_paths(op: str, field: str, fields: object) -> tuple[str, ...]:
    if isinstance(fields, str) or not isinstance(fields, Sequence):
        raise InvalidRequest(f"{op}: `{field}` must be a list of field paths, False or None")
    for i, path in enumerate(fields):
        if not isinstance(path, str) or not path:
            raise InvalidRequest(f"{op}: `{field}[{i}]` must be a non-empty field path such as `text`")
        try:
            tokenize_path(path)
        except Exception:
            raise InvalidRequest(f"{op}: `{field}[{i}]` `{echo(path)}` is not a field path") from None
    return tuple(fields)


# With the store's own embeddings, how many of the engine's best hits a search scores by field.
MIN_POOL = 50
POOL_FACTOR = 3
MAX_POOL = 1000

# A TTL beyond a century is refused: an expiry must stay a datetime (year 9999 at most).
MAX_TTL_MINUTES = 100 * 366 * 24 * 60


def _ttl_minutes(op: str, ttl: object) -> float | None:
    if ttl is None:
        return None
    if isinstance(ttl, bool) or not isinstance(ttl, int | float) or not math.isfinite(ttl) or ttl <= 0:
        raise InvalidRequest(f"{op}: `ttl` must be a positive number of minutes or None, got {echo(ttl)}")
    if ttl > MAX_TTL_MINUTES:
        raise InvalidRequest(
            f"{op}: `ttl` must be at most {MAX_TTL_MINUTES} minutes (a century), got {echo(ttl)}"
        )
    return float(ttl)


def _interval_minutes(op: str, field: str, minutes: object) -> float:
    if (
        isinstance(minutes, bool)
        or not isinstance(minutes, int | float)
        or not math.isfinite(minutes)
        or not 0 < minutes <= MAX_TTL_MINUTES
    ):
        raise InvalidRequest(f"{op}: `{field}` must be a positive number of minutes, got {echo(minutes)}")
    return float(minutes)


@dataclass(frozen=True, slots=True)
class _Put:
    """A checked PutOp: its mapped namespace and what it will store."""

    op: PutOp
    namespace: Namespace
    value: dict[str, Any] | None
    paths: tuple[str, ...]
    ttl: float | None


class _StoreBase(Closing, BaseStore):
    """What TinyMemoryStore and AsyncTinyMemoryStore share: everything but the maintenance calls,
    which are plain calls on the one and coroutines on the other (as LangGraph's sync and async stores
    have them)."""

    supports_ttl: bool = True

    @checked("store")
    def __init__(
        self,
        engine: MemoryEngine | None = None,
        *,
        path: str | Path | None = None,
        namespace: str | Namespace = "",
        index: IndexConfig | None = None,
        ttl: TTLConfig | None = None,
        embedder: Any = "default",
        clock: Callable[[], datetime] = utcnow,
    ) -> None:
        if engine is not None and path is not None:
            raise InvalidRequest("store: give `engine` or `path`, not both")
        check_opening("store", engine, embedder)
        self.base = as_namespace(namespace)
        self.fields, self.embedder = self._index(index)
        if self.embedder is not None and embedder != "default" and engine is None:
            raise InvalidRequest("store: give `index.embed` or `embedder`, not both")
        # LangGraph's stores keep the index config as given, and its embeddings beside it
        self.index_config: IndexConfig | None = cast(IndexConfig, dict(index)) if index else None
        self.embeddings = self.embedder.embeddings if self.embedder is not None else None
        self.ttl_config = self._ttl_config(ttl)
        self._clock = clock
        if engine is None:
            from tinymemory.engines import open_engine

            engine = open_engine(path, embedder=self.embedder if self.embedder is not None else embedder)
        self.engine: MemoryEngine = engine
        theirs = getattr(engine, "embedder", None)
        if (
            isinstance(theirs, LangChainEmbedder)
            and self.embedder is not None
            and theirs.name == self.embedder.name
        ):
            self.embedder = theirs  # one adapter, one cache: what the store embeds, the engine reuses
        self._loop = LoopThread()
        # one batch at a time: a batch reads a key's current version before writing the next one, so
        # two interleaved on the loop would each start a history of their own, and a delete would
        # forget only one of them
        self._lock = asyncio.Lock()
        self._closed = False
        self._reembedded = False
        self._sweeper: tuple[threading.Thread, threading.Event, concurrent.futures.Future[None]] | None = None

    @staticmethod
    def _index(index: object) -> tuple[tuple[str, ...], LangChainEmbedder | None]:
        """The indexed paths and the store's own embeddings from LangGraph's index config."""
        if index is None:
            return ("$",), None
        if not isinstance(index, Mapping):
            raise InvalidRequest(
                f"store: `index` must be a dict like {{'fields': ['text']}}, got {type(index).__name__}"
            )
        known = ("dims", "embed", "fields", "text_fields", "distance_type")
        for name in index:
            if name not in known:
                raise InvalidRequest(
                    f"store: `index.{echo(name)}` is not a known index setting (known: {', '.join(known)})"
                )
        if index.get("fields") is not None and index.get("text_fields") is not None:
            raise InvalidRequest(
                "store: give `index.fields` or `index.text_fields` (its SQLite name), not both"
            )
        distance = index.get("distance_type")
        if distance not in (None, "cosine"):
            raise InvalidRequest(
                "store: `index.distance_type` must be `cosine` (the only distance scored),"
                f" got {echo(distance)}"
            )
        field = "index.text_fields" if index.get("text_fields") is not None else "index.fields"
        fields = index.get("fields") if index.get("fields") is not None else index.get("text_fields")
        if isinstance(fields, str):
            fields = [fields]  # LangGraph's SQL stores take one path as a string too
        paths = ("$",) if fields is None else _index_paths("store", field, fields)
        embed, dims = index.get("embed"), index.get("dims")
        if embed is None and dims is None:
            return paths, None
        if embed is None:
            raise InvalidRequest("store: `index.dims` is given without `index.embed`, the embeddings to use")
        if dims is None:
            raise InvalidRequest("store: `index.embed` needs `index.dims`, the length of its vectors")
        return paths, as_embedder("store", embed, dims)

    @staticmethod
    def _ttl_config(ttl: object) -> TTLConfig | None:
        if ttl is None:
            return None
        if not isinstance(ttl, Mapping):
            raise InvalidRequest(f"store: `ttl` must be a TTLConfig dict, got {type(ttl).__name__}")
        known = ("default_ttl", "refresh_on_read", "omit_expired", "sweep_interval_minutes")
        for name in ttl:
            if name not in known:
                raise InvalidRequest(
                    f"store: `ttl.{echo(name)}` is not a TTL setting (known: {', '.join(known)})"
                )
        _ttl_minutes("store", ttl.get("default_ttl"))
        check_bool("store", "ttl.refresh_on_read", ttl.get("refresh_on_read", True))
        if ttl.get("sweep_interval_minutes") is not None:
            _interval_minutes("store", "ttl.sweep_interval_minutes", ttl.get("sweep_interval_minutes"))
        return cast(TTLConfig, dict(ttl))

    # -- lifecycle ----------------------------------------------------------------------------------

    def close(self) -> None:
        """Stop the TTL sweeper, close the engine and stop the store's loop thread (the store drives
        the engine it was given, so it closes it too, as `Memory` does)."""
        if self._closed:
            return
        self._stop_sweeper(None)
        self._closed = True
        self._loop.close(self.engine.close)

    def _check_open(self) -> None:
        if self._closed:
            raise RuntimeError("tinymemory: this TinyMemoryStore is closed")

    def _run(self, ops: Iterable[Op]) -> tuple[list[Op], list[Namespace | _Put | None]]:
        self._check_open()
        if isinstance(ops, str | bytes | Mapping) or not isinstance(ops, Iterable):
            raise InvalidRequest(f"batch: `ops` must be a list of operations, got {type(ops).__name__}")
        listed = list(ops)
        return listed, [self._check(i, op) for i, op in enumerate(listed)]

    # -- BaseStore ------------------------------------------------------------------------------------

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Run the operations in order of LangGraph's contract: reads first, then the writes."""
        listed, checked = self._run(ops)
        return self._loop.run(self._batch(listed, checked))

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        """`batch` for async hosts: the engine runs on the store's loop thread, awaited from this one."""
        listed, checked = self._run(ops)
        return await asyncio.to_thread(self._loop.run, self._batch(listed, checked))

    # A read refreshes TTLs when it asks to, or, when it does not say, when the TTL config's
    # `refresh_on_read` is on (off when unset, as in LangGraph's SqliteStore; BaseStore itself would
    # default it on, so these four resolve `refresh_ttl` before BaseStore does).

    def _refresh(self, refresh_ttl: bool | None) -> bool:
        if refresh_ttl is not None:
            return refresh_ttl
        return bool(self.ttl_config and self.ttl_config.get("refresh_on_read", False))

    def get(self, namespace: tuple[str, ...], key: str, *, refresh_ttl: bool | None = None) -> Item | None:
        """LangGraph's `get`; see the note above on `refresh_ttl`."""
        return super().get(namespace, key, refresh_ttl=self._refresh(refresh_ttl))

    async def aget(
        self, namespace: tuple[str, ...], key: str, *, refresh_ttl: bool | None = None
    ) -> Item | None:
        """LangGraph's `aget`; see the note above on `refresh_ttl`."""
        return await super().aget(namespace, key, refresh_ttl=self._refresh(refresh_ttl))

    def search(
        self,
        namespace_prefix: tuple[str, ...],
        /,
        *,
        query: str | None = None,
        filter: dict[str, Any] | None = None,
        limit: int = 10,
        offset: int = 0,
        refresh_ttl: bool | None = None,
    ) -> list[SearchItem]:
        """LangGraph's `search`; see the note above on `refresh_ttl`."""
        return super().search(
            namespace_prefix,
            query=query,
            filter=filter,
            limit=limit,
            offset=offset,
            refresh_ttl=self._refresh(refresh_ttl),
        )

    async def asearch(
        self,
        namespace_prefix: tuple[str, ...],
        /,
        *,
        query: str | None = None,
        filter: dict[str, Any] | None = None,
        limit: int = 10,
        offset: int = 0,
        refresh_ttl: bool | None = None,
    ) -> list[SearchItem]:
        """LangGraph's `asearch`; see the note above on `refresh_ttl`."""
        return await super().asearch(
            namespace_prefix,
            query=query,
            filter=filter,
            limit=limit,
            offset=offset,
            refresh_ttl=self._refresh(refresh_ttl),
        )

    # -- maintenance ----------------------------------------------------------------------------------

    def _sweep_now(self) -> int:
        self._check_open()
        return self._loop.run(self._sweep())

    async def asweep_ttl(self) -> int:
        """Forget every expired item (with its history), awaited; returns how many were expired."""
        self._check_open()
        return await asyncio.to_thread(self._loop.run, self._sweep())

    def _start_sweeper(self, minutes: float | None) -> concurrent.futures.Future[None]:
        """A thread that sweeps every `minutes` (else `ttl.sweep_interval_minutes`, else 5) until
        stopped; starting it again while it runs returns the running one's future."""
        self._check_open()
        if self._sweeper is not None:
            return self._sweeper[2]
        if minutes is None:
            minutes = (self.ttl_config or {}).get("sweep_interval_minutes") or 5
        seconds = 60 * _interval_minutes("start_ttl_sweeper", "sweep_interval_minutes", minutes)
        stop = threading.Event()
        done: concurrent.futures.Future[None] = concurrent.futures.Future()

        def sweep_until_stopped() -> None:
            try:
                while not stop.wait(seconds):
                    try:
                        self._sweep_now()
                    except RuntimeError:  # closed meanwhile
                        return
                    except Exception:  # an engine that failed once may serve the next sweep
                        _log.exception("TTL sweep failed; the sweeper tries again next interval")
            finally:
                done.set_result(None)

        thread = threading.Thread(target=sweep_until_stopped, name="tinymemory-ttl-sweeper", daemon=True)
        self._sweeper = (thread, stop, done)
        thread.start()
        return done

    def _stop_sweeper(self, timeout: float | None) -> bool:
        """Stop the sweeper thread; whether it has stopped within `timeout` seconds (True when none
        runs)."""
        if self._sweeper is None:
            return True
        thread, stop, _ = self._sweeper
        stop.set()
        if thread is not threading.current_thread():
            thread.join(timeout)
        if thread.is_alive():
            return False
        self._sweeper = None
        return True

    def purge(self, namespace_prefix: tuple[str, ...] = ()) -> int:
        """Remove the bytes of forgotten memory (deleted items and their history) under a prefix.

        A delete forgets at once (nothing deleted is read again); purge erases it from the file. It
        purges every forgotten memory in the prefix's subtree, whoever forgot it."""
        self._check_open()
        labels = _check_labels(namespace_prefix, prefix=True)
        ns = to_namespace(self.base, labels, op="purge", field="namespace_prefix")
        return self._loop.run(self.engine.purge(PurgeRequest(reach=Reach.subtree(ns)))).purged

    # -- checks (on the caller's thread, before anything runs) ----------------------------------------

    def _check(self, i: int, op: object) -> Namespace | _Put | None:
        if isinstance(op, PutOp):
            return self._check_put(op)
        if isinstance(op, GetOp):
            labels = _check_labels(op.namespace)
            check_key("get", op.key)
            check_bool("get", "refresh_ttl", op.refresh_ttl)
            return to_namespace(self.base, labels, op="get")
        if isinstance(op, SearchOp):
            labels = _check_labels(op.namespace_prefix, prefix=True)
            if op.query is not None and not isinstance(op.query, str):
                raise InvalidRequest(
                    f"search: `query` must be a string or None, got {type(op.query).__name__}"
                )
            if op.query is not None and len(op.query) > MAX_QUERY_CHARS:
                raise InvalidRequest(f"search: `query` is longer than {MAX_QUERY_CHARS} characters")
            if op.filter is not None:
                match.check_filter("search", op.filter)
            check_count("search", "limit", op.limit)
            check_count("search", "offset", op.offset)
            check_bool("search", "refresh_ttl", op.refresh_ttl)
            return to_namespace(self.base, labels, op="search", field="namespace_prefix")
        if isinstance(op, ListNamespacesOp):
            conditions = op.match_conditions or ()
            if not isinstance(conditions, tuple | list):
                raise InvalidRequest("list_namespaces: `match_conditions` must be a tuple of MatchConditions")
            for j, cond in enumerate(conditions):
                if not isinstance(cond, tuple) or len(cond) != 2:
                    raise InvalidRequest(
                        f"list_namespaces: `match_conditions[{j}]` must be a MatchCondition"
                        f" (match_type, path), got {type(cond).__name__}"
                    )
                _, path = match.check_condition("list_namespaces", f"match_conditions[{j}]", *cond)
                _check_labels(path, prefix=True)
            if op.max_depth is not None:
                check_count("list_namespaces", "max_depth", op.max_depth)
            check_count("list_namespaces", "limit", op.limit)
            check_count("list_namespaces", "offset", op.offset)
            return None
        raise InvalidRequest(f"batch: `ops[{i}]` must be {_OP_NAMES}, got {type(op).__name__}")

    def _check_put(self, op: PutOp) -> _Put:
        name = _op_name(op)
        labels = _check_labels(op.namespace, root=op.value is not None)
        check_key(name, op.key)
        ns = to_namespace(self.base, labels, op=name)
        if op.value is None:
            return _Put(op, ns, None, (), None)
        value = check_value(name, op.value)
        if op.index is False:
            paths: tuple[str, ...] = ()
        elif op.index is None:
            paths = self.fields
        else:
            paths = _index_paths(name, "index", op.index)
        return _Put(op, ns, value, paths, _ttl_minutes(name, op.ttl))

    # -- the batch ------------------------------------------------------------------------------------

    async def _batch(self, ops: list[Op], checked: list[Namespace | _Put | None]) -> list[Result]:
        async with self._lock:
            return await self._batch_unlocked(ops, checked)

    async def _batch_unlocked(self, ops: list[Op], checked: list[Namespace | _Put | None]) -> list[Result]:
        now = self._clock()
        results: list[Result] = [None] * len(ops)
        touched: dict[tuple[Namespace, str], Record] = {}  # read items whose TTL a read refreshes
        puts: dict[tuple[Namespace, str], _Put] = {}
        for i, (op, mapped) in enumerate(zip(ops, checked, strict=True)):
            if isinstance(op, GetOp):
                assert isinstance(mapped, Namespace)
                found = await self._record(mapped, op.key, now)
                results[i] = self._item(found) if found is not None else None
                if found is not None and op.refresh_ttl:
                    touched[(mapped, found.key)] = found
            elif isinstance(op, SearchOp):
                assert isinstance(mapped, Namespace)
                page = await self._search(op, mapped, now)
                results[i] = [
                    SearchItem(r.namespace, r.key, r.value, r.created_at, r.updated_at, s) for r, s in page
                ]
                if op.refresh_ttl:
                    touched.update(((r.item.meta.namespace, r.key), r) for r, _ in page)
            elif isinstance(op, ListNamespacesOp):
                results[i] = await self._list_namespaces(op, now)
            else:
                assert isinstance(mapped, _Put)
                puts[(mapped.namespace, mapped.op.key)] = mapped
        await self._write(
            list(puts.values()), [r for k, r in touched.items() if r.ttl and k not in puts], now
        )
        return results

    @staticmethod
    def _item(record: Record) -> Item:
        return Item(
            value=record.value,
            key=record.key,
            namespace=record.namespace,
            created_at=record.created_at,
            updated_at=record.updated_at,
        )

    async def _record(
        self, ns: Namespace, key: str, now: datetime, *, expired: bool = False
    ) -> Record | None:
        """The live item at (ns, key); with `expired`, an expired one too."""
        flt = MetaFilter(namespace=ns, reach=Reach.exact(ns), sources=(SOURCE,), about=about_for(key))
        listed = await self.engine.list(ListRequest(filter=flt, limit=5))
        for item in listed.items:
            record = decode(item, self.base)
            if record is not None and record.key == key and (expired or not record.expired(now)):
                return record
        return None

    async def _records(self, reach: Reach) -> AsyncIterator[Record]:
        """Every item this store wrote under `reach` (expired ones too), newest update first."""
        async for item in listed(self.engine, MetaFilter(reach=reach, sources=(SOURCE,))):
            record = decode(item, self.base)
            if record is not None:
                yield record

    async def _scan(self, reach: Reach, now: datetime) -> AsyncIterator[Record]:
        """The live items under `reach`, newest update first."""
        async for record in self._records(reach):
            if not record.expired(now):
                yield record

    async def _forget(self, records: dict[str, Namespace]) -> None:
        """Forget these ids (each confined to its own namespace), a bounded number per request."""
        ids = list(records)
        for at in range(0, len(ids), MAX_IDS):
            chunk = ids[at : at + MAX_IDS]
            reach = Reach.union(*(Reach.exact(records[i]) for i in dict.fromkeys(chunk)))
            await self.engine.forget(ForgetRequest(ids=tuple(chunk), reach=reach))

    async def _search(
        self, op: SearchOp, prefix: Namespace, now: datetime
    ) -> list[tuple[Record, float | None]]:
        want = op.offset + op.limit
        if op.limit == 0:
            return []
        reach = Reach.subtree(prefix)
        found: list[tuple[Record, float | None]] = []
        seen: set[str] = set()
        if op.query is not None and op.query.strip():
            # with the store's own embeddings, the engine's fetch only proposes candidates (a pool
            # beyond the page), which are then scored by their best field as LangGraph scores them
            pool = want if self.embedder is None else min(MAX_POOL, max(POOL_FACTOR * want, MIN_POOL))
            qvec = None
            if self.embedder is not None:  # first: the engine's fetch then finds it in the cache
                qvec = await asyncio.to_thread(self.embedder.query, "search", op.query)
                await self._reembed_once()
            flt = MetaFilter(reach=reach, sources=(SOURCE,), tags_any=(INDEXED_TAG,))
            request = FetchRequest(op.query, filter=flt, limit=min(MAX_LIMIT, max(pool, 10)))
            async for hit in fetched(self.engine, request):
                record = decode(hit.item, self.base)
                if record is None or record.expired(now) or hit.item.id in seen:
                    continue
                seen.add(hit.item.id)
                if match.matches(record.value, op.filter):
                    found.append((record, hit.score))
                    if len(found) >= pool:
                        break
            if qvec is not None and len(found) < pool:
                # fewer candidates than the pool: the reach is small, or the engine cannot see some
                # items semantically (their engine vectors are stale); the indexed rest joins the pool
                async for record in self._scan(reach, now):
                    if (
                        record.item.id not in seen
                        and INDEXED_TAG in record.item.meta.tags
                        and match.matches(record.value, op.filter)
                    ):
                        seen.add(record.item.id)
                        found.append((record, None))
                        if len(found) >= pool:
                            break
            if qvec is not None and found:
                scores = await asyncio.to_thread(self._field_scores, qvec, [r for r, _ in found])
                ranked = sorted(zip(scores, range(len(found)), strict=True), key=lambda p: (-p[0], p[1]))
                found = [(found[i][0], score) for score, i in ranked]
            found = found[:want]
        if len(found) < want:
            # unranked: no query, nothing indexed, or past the fetch's candidates; newest update first
            async for record in self._scan(reach, now):
                if record.item.id not in seen and match.matches(record.value, op.filter):
                    found.append((record, None))
                    if len(found) >= want:
                        break
        return found[op.offset : want]

    async def _reembed_once(self) -> None:
        """Once per store, let an engine that can re-embed (SQLite) give its stale items vectors of the
        store's embeddings: after a change of embeddings, what the old ones embedded is otherwise only
        found by words until `tinymemory embedder reembed` runs. Nothing stale writes nothing."""
        if self._reembedded:
            return
        self._reembedded = True
        reembed = getattr(self.engine, "reembed", None)
        if reembed is None:
            return
        try:
            await reembed()
        except Exception as exc:  # opportunistic: the search scores stale items itself meanwhile
            _log.warning(
                "re-embedding the engine's stale items failed (%s); `tinymemory embedder reembed` retries",
                exc,
            )

    def _field_scores(self, qvec: np.ndarray[Any, Any], records: list[Record]) -> list[float]:
        """Each record's best cosine between the query and one of its indexed texts (on a worker
        thread: the embeddings may block). A version whose vectors other embeddings made (the store
        was reopened with new ones) is embedded again here, from its own indexed paths."""
        embedder = self.embedder
        assert embedder is not None
        scores: list[float] = []
        for record in records:
            vectors = record.field_vectors()
            if vectors is None or vectors.embedder != embedder.name or vectors.rows.shape[1:] != qvec.shape:
                paths = vectors.paths if vectors is not None else self.fields
                texts = field_texts(record.value, paths) or [record.item.text]
                rows = embedder.documents("search", texts)
            else:
                rows = vectors.rows
            scores.append(float(np.max(rows @ qvec)) if len(rows) else 0.0)
        return scores

    async def _list_namespaces(self, op: ListNamespacesOp, now: datetime) -> list[tuple[str, ...]]:
        conditions = [match.check_condition("list_namespaces", "", *c) for c in op.match_conditions or ()]
        literal: tuple[str, ...] = ()
        for kind, path in conditions:
            if kind == "prefix":
                head = path[: path.index("*")] if "*" in path else path
                literal = head if len(head) > len(literal) else literal
        try:
            reach = Reach.subtree(to_namespace(self.base, literal, op="list_namespaces", field="prefix"))
        except InvalidRequest:
            return []  # a prefix tinymemory cannot hold holds nothing
        names: set[tuple[str, ...]] = set()
        async for record in self._scan(reach, now):
            names.add(record.namespace)
        listed = [ns for ns in names if all(match.condition_holds(k, p, ns) for k, p in conditions)]
        if op.max_depth is not None:
            listed = list({ns[: op.max_depth] for ns in listed})
        return sorted(listed)[op.offset : op.offset + op.limit]

    async def _write(self, puts: list[_Put], refresh: list[Record], now: datetime) -> None:
        """Store the batch's puts and TTL refreshes in one transaction, then forget what was deleted."""
        items: list[NewItem] = []
        forget: dict[str, Namespace] = {}
        vectors = await self._embed_puts(puts)
        for put in puts:
            current = await self._record(put.namespace, put.op.key, now, expired=True)
            if put.value is None:
                if current is not None:
                    forget.update(dict.fromkeys((current.first_id, current.item.id), put.namespace))
                continue
            previous = None
            if current is not None:
                created = now if current.expired(now) else current.created_at
                previous = Version(created, current.first_id)
            items.append(
                new_item(
                    namespace=put.namespace,
                    key=put.op.key,
                    value=put.value,
                    text=index_text(put.value, put.paths),
                    updated_at=now,
                    previous=previous,
                    ttl=put.ttl,
                    expires_at=expiry(now, put.ttl),
                    op=_op_name(put.op),
                    vectors=vectors.get(id(put)),
                )
            )
        for record in refresh:
            indexed = INDEXED_TAG in record.item.meta.tags
            items.append(
                new_item(
                    namespace=record.item.meta.namespace,
                    key=record.key,
                    value=record.value,
                    text=record.item.text if indexed else "",
                    updated_at=record.updated_at,
                    previous=Version(record.created_at, record.first_id),
                    ttl=record.ttl,
                    expires_at=expiry(now, record.ttl),
                    op="refresh_ttl",
                    vectors=record.field_vectors(),
                )
            )
        try:
            if items:
                await self.engine.store_many(items)
        finally:
            if self.embedder is not None:
                self.embedder.drop_documents()
        await self._forget(forget)

    async def _embed_puts(self, puts: list[_Put]) -> dict[int, FieldVectors]:
        """With the store's own embeddings, one vector per indexed text of each put, in one call
        (before anything is written: embeddings that fail or return the wrong length write nothing)."""
        embedder = self.embedder
        if embedder is None:
            return {}
        texts = {id(p): field_texts(p.value, p.paths) for p in puts if p.value is not None and p.paths}
        flat = [t for group in texts.values() for t in group]
        if not flat:
            return {}
        rows = await asyncio.to_thread(embedder.documents, "put", flat)
        out: dict[int, FieldVectors] = {}
        at = 0
        by_id = {id(p): p for p in puts}
        for key, group in texts.items():
            if group:
                out[key] = FieldVectors(embedder.name, by_id[key].paths, rows[at : at + len(group)])
            at += len(group)
        return out

    async def _sweep(self) -> int:
        async with self._lock:
            return await self._sweep_unlocked()

    async def _sweep_unlocked(self) -> int:
        now = self._clock()
        forget: dict[str, Namespace] = {}
        count = 0
        async for record in self._records(Reach.subtree(self.base)):
            if record.expired(now):
                count += 1
                forget.update(dict.fromkeys((record.first_id, record.item.id), record.item.meta.namespace))
        await self._forget(forget)
        return count


class TinyMemoryStore(_StoreBase):
    """A LangGraph store over a tinymemory engine, so graphs and LangMem's tools keep their memory in it.

    See the module docstring for how tuples, items and searches map onto the engine.

    Args:
        engine: Any MemoryEngine. The store takes it over: it runs it on its own loop thread, and
            `close()` closes it.
        path: Without `engine`, the store to open with `tinymemory.engines.open_engine` (a SQLite
            file, a `postgresql://` URL, or None for the default file).
        namespace: The tinymemory namespace the store's tuples live below (the root by default).
        index: LangGraph's index config: `fields` (or `text_fields`, its SQLite stores' name), the
            paths whose text is indexed (`["$"]`, the whole value, by default); `embed` and `dims`,
            the embeddings to search with (a LangChain `Embeddings`, a function from texts to
            vectors, or a `"provider:model"` string for `langchain.embeddings.init_embeddings`) and
            the length of their vectors. With `embed`, a search with a query scores each item by
            the cosine of its best indexed field, as LangGraph's stores do, and an engine opened
            from `path` embeds with the same embeddings. `distance_type` may only be `cosine`.
        ttl: LangGraph's TTLConfig (`default_ttl`, `refresh_on_read`).
        embedder: With `path` and no `index.embed`, the engine's embedder: "default", None (words
            only) or an Embedder.
        clock: The current time, for tests and replays of expiry.

    Raises:
        InvalidRequest: A bad argument, naming the operation and field. A bad namespace label
            raises LangGraph's own InvalidNamespaceError instead, as its stores do, and a failing
            engine raises Unavailable.

    Examples:
        >>> store = TinyMemoryStore(path="memory.db")
        >>> store.put(("users", "u1"), "prefs", {"text": "prefers dark roast coffee"})
        >>> store.search(("users",), query="what coffee does the user like")[0].key
        'prefs'
    """

    def sweep_ttl(self) -> int:
        """Forget every expired item (with its history); returns how many items were expired."""
        return self._sweep_now()

    def start_ttl_sweeper(
        self, sweep_interval_minutes: float | None = None
    ) -> concurrent.futures.Future[None]:
        """Sweep expired items every `sweep_interval_minutes` (else the TTL config's, else 5) on a
        thread of its own until `stop_ttl_sweeper` or `close`; the future completes when it stops."""
        return self._start_sweeper(sweep_interval_minutes)

    def stop_ttl_sweeper(self, timeout: float | None = None) -> bool:
        """Stop the sweeper; whether it stopped within `timeout` seconds."""
        return self._stop_sweeper(timeout)


class AsyncTinyMemoryStore(_StoreBase):
    """TinyMemoryStore for async hosts, as LangGraph pairs `AsyncSqliteStore` with `SqliteStore`: its
    maintenance calls (`sweep_ttl`, `start_ttl_sweeper`, `stop_ttl_sweeper`) are coroutines, and a sync
    call made on a running event loop's thread raises `asyncio.InvalidStateError` instead of blocking
    that loop (use the `a`-methods there). Takes the same arguments as TinyMemoryStore.

    Examples:
        >>> async with AsyncTinyMemoryStore(path="memory.db") as store:
        ...     await store.aput(("users", "u1"), "prefs", {"text": "prefers dark roast coffee"})
    """

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """`batch` from a thread without a running event loop (raises InvalidStateError on one)."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return super().batch(ops)
        raise asyncio.InvalidStateError(
            "Synchronous calls to AsyncTinyMemoryStore detected in the main event loop. This would block"
            " the loop: use the async methods (aget, aput, asearch, ...) there, or TinyMemoryStore."
        )

    async def sweep_ttl(self) -> int:
        """Forget every expired item (with its history); returns how many items were expired."""
        return await self.asweep_ttl()

    async def start_ttl_sweeper(self, sweep_interval_minutes: float | None = None) -> asyncio.Future[None]:
        """Sweep expired items every `sweep_interval_minutes` (else the TTL config's, else 5) until
        `stop_ttl_sweeper` or `close`; the future completes when it stops."""
        return asyncio.wrap_future(self._start_sweeper(sweep_interval_minutes))

    async def stop_ttl_sweeper(self, timeout: float | None = None) -> bool:
        """Stop the sweeper; whether it stopped within `timeout` seconds."""
        return await asyncio.to_thread(self._stop_sweeper, timeout)

    async def aclose(self) -> None:
        """`close` without blocking the caller's loop."""
        await asyncio.to_thread(self.close)

    async def __aenter__(self) -> AsyncTinyMemoryStore:
        """`async with` closes the store on the way out."""
        return self

    async def __aexit__(self, *exc: object) -> None:
        """Close the store."""
        await self.aclose()
