"""`Memory`: the synchronous facade for scripts and notebooks.

It owns one engine (the embedded SQLite engine unless you pass another) and one namespace. Writes land
at that namespace; reads see it and its ancestors unless a wider or narrower `reach` is given, the same
rule the agent tools follow.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from pathlib import Path
from types import TracebackType
from typing import Any

from tinymemory._loop import LoopThread
from tinymemory.api import (
    About,
    EngineDescriptor,
    ExploreRequest,
    ExploreResult,
    Facet,
    FetchMode,
    FetchRequest,
    FetchResult,
    ForgetRequest,
    ForgetResult,
    GetRequest,
    GetResult,
    ItemKind,
    ItemMeta,
    ListRequest,
    ListResult,
    MemoryEngine,
    MetaFilter,
    Namespace,
    NewItem,
    PurgeRequest,
    PurgeResult,
    Reach,
    RecallRequest,
    RecallResult,
    Source,
    StoreResult,
    TimeHint,
)
from tinymemory.api.errors import InvalidRequest


def _as_namespace(value: str | Namespace) -> Namespace:
    return value if isinstance(value, Namespace) else Namespace.parse(value)


def _as_kind(op: str, value: str | ItemKind) -> ItemKind:
    try:
        return ItemKind(value)
    except ValueError:
        raise InvalidRequest(f"{op}: `kind` `{value}` is not an item kind") from None


class Memory:
    """Sync access to one memory store, placed at one namespace.

    >>> mem = Memory("./mem.db", namespace="team:acme/agent:writer")
    >>> mem.store("The user prefers dark roast coffee", tags=["preference"])
    >>> mem.fetch("what coffee does the user like").hits[0].item.text
    """

    def __init__(
        self,
        path: str | Path | None = None,
        *,
        namespace: str | Namespace = "",
        reach: Reach | None = None,
        engine: MemoryEngine | None = None,
        embedder: Any = "default",
    ) -> None:
        self.namespace = _as_namespace(namespace)
        self.reach = reach if reach is not None else Reach.of(self.namespace)
        self._loop = LoopThread()
        if engine is None:
            from tinymemory.engines.sqlite import SqliteEngine

            engine = SqliteEngine(None if path is None else str(path), embedder=embedder)
        self.engine: MemoryEngine = engine

    # -- lifecycle -------------------------------------------------------------------------------
    def close(self) -> None:
        try:
            self._loop.run(self.engine.close())
        finally:
            self._loop.stop()

    def __enter__(self) -> Memory:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    @property
    def descriptor(self) -> EngineDescriptor:
        return self.engine.descriptor

    # -- writes ----------------------------------------------------------------------------------
    def item(
        self,
        text: str,
        *,
        kind: str | ItemKind = ItemKind.LEARNING,
        tags: Iterable[str] = (),
        confidence: float | None = None,
        learning_kind: str | None = None,
        title: str | None = None,
        about: tuple[str, str] | None = None,
        thread_id: str | None = None,
        source: str | None = None,
        observed_at: datetime | None = None,
        **meta: Any,
    ) -> NewItem:
        """Build a NewItem placed at this Memory's namespace (extra keyword args go to ItemMeta)."""
        item_kind = _as_kind("store", kind)
        return NewItem(
            kind=item_kind,
            text=text,
            confidence=confidence,
            meta=ItemMeta(
                namespace=self.namespace,
                tags=tuple(tags),
                learning_kind=learning_kind
                if learning_kind is not None
                else ("fact" if item_kind is ItemKind.LEARNING else None),
                title=title,
                about=About(*about) if about else None,
                thread_id=thread_id,
                source=Source(source) if source else None,
                observed_at=observed_at,
                **meta,
            ),
        )

    def store(self, text: str, **kwargs: Any) -> StoreResult:
        """Store one memory; storing the same memory again is a replay (same id, replayed=True)."""
        return self._loop.run(self.engine.store(self.item(text, **kwargs)))

    def store_many(self, items: Sequence[NewItem | str]) -> list[StoreResult]:
        """Store in one transaction, embeddings batched; all or nothing."""
        built = [self.item(i) if isinstance(i, str) else i for i in items]
        return self._loop.run(self.engine.store_many(built))

    def forget(self, ids: Sequence[str] | None = None, **filter_fields: Any) -> ForgetResult:
        """Soft-delete by ids or by a non-empty filter, confined to this Memory's reach."""
        if ids is not None:
            req = ForgetRequest(ids=tuple(ids), reach=self.reach)
        else:
            if not any(v not in (None, (), []) for v in filter_fields.values()):
                # the reach alone would mean "everything this Memory can see"
                raise InvalidRequest(
                    "forget: `filter` must set at least one field when no ids are given"
                    " (the reach alone would forget everything in it)"
                )
            req = ForgetRequest(filter=self._filter(filter_fields))
        return self._loop.run(self.engine.forget(req))

    def purge(self) -> PurgeResult:
        """Permanently delete forgotten memory within this Memory's reach."""
        return self._loop.run(self.engine.purge(PurgeRequest(reach=self.reach)))

    # -- reads -----------------------------------------------------------------------------------
    def fetch(
        self,
        query: str,
        *,
        mode: str | FetchMode | None = None,
        limit: int = 10,
        cursor: str | None = None,
        time_hint: TimeHint | None = None,
        **filter_fields: Any,
    ) -> FetchResult:
        req = FetchRequest(
            query=query,
            mode=FetchMode(mode) if isinstance(mode, str) else mode,
            filter=self._filter(filter_fields),
            limit=limit,
            cursor=cursor,
            time_hint=time_hint,
        )
        return self._loop.run(self.engine.fetch(req))

    def recall(self, question: str, *, limit: int = 10, **filter_fields: Any) -> RecallResult:
        req = RecallRequest(question=question, filter=self._filter(filter_fields), limit=limit)
        return self._loop.run(self.engine.recall(req))

    def list(self, *, limit: int = 10, cursor: str | None = None, **filter_fields: Any) -> ListResult:
        req = ListRequest(filter=self._filter(filter_fields), limit=limit, cursor=cursor)
        return self._loop.run(self.engine.list(req))

    def get(self, ids: Sequence[str]) -> GetResult:
        return self._loop.run(self.engine.get(GetRequest(ids=tuple(ids), reach=self.reach)))

    def explore(self, facet: str | Facet, *, limit: int = 10, **filter_fields: Any) -> ExploreResult:
        try:
            fac = Facet(facet)
        except ValueError:
            raise InvalidRequest(f"explore: `facet` `{facet}` is not a facet") from None
        req = ExploreRequest(facet=fac, filter=self._filter(filter_fields), limit=limit)
        return self._loop.run(self.engine.explore(req))

    def _filter(self, fields: dict[str, Any]) -> MetaFilter:
        for key in ("namespace", "reach"):
            if key in fields:
                raise InvalidRequest(f"memory: `{key}` is fixed by this Memory; open another Memory instead")
        if "kinds" in fields:
            fields["kinds"] = tuple(_as_kind("filter", k) for k in fields["kinds"])
        for key, value in list(fields.items()):
            if isinstance(value, list):
                fields[key] = tuple(value)
        try:
            return MetaFilter(reach=self.reach, **fields)
        except TypeError as exc:
            raise InvalidRequest(f"memory: unknown filter field ({exc})") from None
