"""`AsyncMemory`: mem0 2.x's async memory API over any tinymemory engine.

Methods, arguments and result shapes follow mem0's `AsyncMemory` (and `Memory`, its sync twin in
memory.py), so switching is one import. What differs is said in docs/integrations/mem0.md: reads and
deletes can also be confined by ids, `delete` forgets every version, scores are tinymemory's.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

from tinymemory.api import (
    MAX_IDS,
    MAX_LIMIT,
    FetchRequest,
    ForgetRequest,
    Hit,
    ItemKind,
    ItemMeta,
    MemoryEngine,
    MemoryItem,
    MetaFilter,
    Namespace,
    NewItem,
    PurgeRequest,
    Reach,
    Source,
    utcnow,
)
from tinymemory.api.ids import normalise_text
from tinymemory.api.paging import fetched, list_all, listed
from tinymemory.api.validate import check_bool, check_fraction
from tinymemory.async_memory.arguments import check_opening
from tinymemory.compat.mem0 import arguments as args
from tinymemory.compat.mem0.config import read_config
from tinymemory.compat.mem0.errors import (
    MemoryNotFound,
    UnsupportedFeature,
    async_api,
    checked,
    invalid,
)
from tinymemory.compat.mem0.filters import Predicate
from tinymemory.compat.mem0.infer import extract_facts
from tinymemory.compat.mem0.messages import Message, read_messages
from tinymemory.compat.mem0.scope import SOURCE, Scope
from tinymemory.compat.mem0.scores import similarities
from tinymemory.compat.mem0.shapes import (
    Fields,
    View,
    about,
    check_metadata_size,
    clean_metadata,
    iso,
)
from tinymemory.compat.mem0.versions import (
    LOG_SOURCE,
    chain_events,
    chains,
    delete_log,
    find_active,
    find_log,
    logged_events,
)
from tinymemory.engines import engine_embedder
from tinymemory.llm import LLM, LLMConfig

_log = logging.getLogger("tinymemory.compat.mem0")
_UNSET: Any = object()
PROCEDURAL = "procedural_memory"

_DELETE_ALL_NEEDS_IDS = (
    "is missing: at least one filter is required to delete all memories (reset() deletes all)"
)


class AsyncMemory:
    """mem0's `AsyncMemory`, served by a tinymemory engine.

    >>> mem = AsyncMemory("./mem.db")
    >>> await mem.add("I prefer tea", user_id="alice", infer=False)
    >>> await mem.search("drinks", filters={"user_id": "alice"})

    Every memory lives under `namespace` (the root, default the store's root) at
    `user:<user_id>/agent:<agent_id>/run:<run_id>`; reads naming a user see only that user's subtree.
    Errors are tinymemory's (`tinymemory.api.errors`) and also `ValueError` where mem0 raises one:
    `InvalidInput` for bad arguments, `MemoryNotFound` for an unknown id, `UnsupportedFeature` for a
    mem0 feature not offered; `Unavailable` when the database, embedder or LLM fails.
    """

    @checked("memory")
    def __init__(
        self,
        config: Any = None,
        *,
        path: str | Path | None = None,
        engine: MemoryEngine | None = None,
        namespace: str | Namespace | None = None,
        llm: LLM | LLMConfig | None = None,
        embedder: Any = "default",
    ) -> None:
        """`config` is a mem0 config dict (see `from_config`); `path` (a SQLite file or a postgresql://
        URL, default the standard store) or `engine` (then owned: `close` closes it) says where they live;
        `llm` serves `infer=True` (else the config's `llm`, else `TINYMEMORY_LLM_BASE_URL`, else the
        rule-based extractor)."""
        settings = read_config(config)
        root = namespace if namespace is not None else (settings.namespace or "")
        if not isinstance(root, Namespace):
            root = Namespace.parse(root, field="memory: `namespace`")
        self.root = root
        if engine is not None and not isinstance(engine, MemoryEngine):
            raise invalid("memory", "engine", f"must be a tinymemory engine, got {type(engine).__name__}")
        if llm is not None and not isinstance(llm, LLM | LLMConfig):
            raise invalid("memory", "llm", f"must be an LLM, an LLMConfig or None, got {type(llm).__name__}")
        if engine is None:
            from tinymemory.engines import open_engine

            check_opening("memory", None, embedder)
            engine = open_engine(path if path is not None else settings.path, embedder=embedder)
        self.engine: MemoryEngine = engine
        self._owns_llm = not isinstance(llm, LLM)
        config_llm = llm if isinstance(llm, LLMConfig) else settings.llm
        self.llm: LLM | None = (
            llm if isinstance(llm, LLM) else (LLM(config_llm) if config_llm else LLM.from_env())
        )

    @classmethod
    def from_config(cls, config_dict: Any) -> AsyncMemory:
        """A memory from a mem0 config dict: `llm` is honoured for OpenAI-compatible providers, our
        own `path` and `namespace` keys place the store, mem0's storage sections are ignored."""
        return cls(config_dict)

    # -- lifecycle -----------------------------------------------------------------------------------
    async def aclose(self) -> None:
        """Close the engine, and the LLM client unless it was passed in."""
        try:
            if self.llm is not None and self._owns_llm:
                await self.llm.aclose()
        finally:
            await self.engine.close()

    def close(self) -> Any:
        """mem0 closes synchronously: inside a running loop this schedules `aclose()` and returns the
        task (await it to be sure it finished); outside one it closes before returning."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            asyncio.run(self.aclose())
            return None
        return loop.create_task(self.aclose())

    async def __aenter__(self) -> AsyncMemory:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()

    # -- writes --------------------------------------------------------------------------------------
    @async_api("add")
    async def add(
        self,
        messages: Any,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        run_id: str | None = None,
        metadata: dict[str, Any] | None = None,
        timestamp: Any = None,
        expiration_date: Any = None,
        infer: bool = True,
        memory_type: str | None = None,
        prompt: str | None = None,
    ) -> dict[str, Any]:
        """Store memories from `messages` (a string, a message dict or a list of them) for the ids
        given (at least one). `infer=False` stores each non-system message as it is; `infer=True`
        stores the facts the LLM (or the rule-based extractor) finds in the user's messages, updating
        the memory that held an older value of the same subject. Returns `{"results": [...]}` with one
        `{"id", "memory", "event"}` per memory written (`event` ADD or UPDATE)."""
        op = "add"
        scope = Scope.of(op, user_id, agent_id, run_id)
        ns = scope.namespace(op, self.root)
        meta = clean_metadata(op, metadata)
        expires = args.expiration(op, expiration_date)
        infer = check_bool(op, "infer", infer)
        if memory_type is not None:
            if memory_type == PROCEDURAL:
                raise UnsupportedFeature(f"add: `memory_type` `{PROCEDURAL}` is not supported")
            raise invalid(op, "memory_type", f"must be None or `{PROCEDURAL}`")
        if prompt is not None:
            args.text(op, "prompt", prompt)
            _log.warning("add: `prompt` is ignored: the extractor uses its own instructions")
        messages_ = read_messages(op, messages)
        now = args.timestamp(op, timestamp) or utcnow()
        if not infer:
            return {"results": await self._add_raw(ns, scope, messages_, meta, expires, now)}
        return {"results": await self._add_inferred(ns, scope, messages_, meta, expires, now)}

    def _new_item(
        self, ns: Namespace, scope: Scope, memory_id: str, text: str, fields: Fields, **meta: Any
    ) -> NewItem:
        confidence = meta.pop("confidence", None)
        observed = meta.pop("observed_at")
        return NewItem(
            ItemKind.LEARNING,
            text,
            ItemMeta(
                namespace=ns,
                source=Source(SOURCE),
                agent_id=scope.agent_id,
                thread_id=scope.run_id,
                about=about(memory_id),
                observed_at=observed,
                extra=fields.extra(),
                **{"learning_kind": "fact", **meta},
            ),
            confidence=confidence,
            identity=uuid.uuid4().hex,  # every write is a version of its own, never a replay
        )

    async def _add_raw(
        self,
        ns: Namespace,
        scope: Scope,
        messages: Sequence[Message],
        meta: dict[str, Any],
        expires: str | None,
        now: Any,
    ) -> list[dict[str, Any]]:
        items: list[NewItem] = []
        results: list[dict[str, Any]] = []
        for m in messages:
            memory_id = str(uuid.uuid4())
            fields = Fields(iso(now), meta, actor_id=m.name, role=m.role, expiration_date=expires)
            items.append(self._new_item(ns, scope, memory_id, m.content, fields, observed_at=now))
            results.append(
                {"id": memory_id, "memory": m.content, "event": "ADD", "actor_id": m.name, "role": m.role}
            )
        if items:
            await self.engine.store_many(items)
        return results

    async def _add_inferred(
        self,
        ns: Namespace,
        scope: Scope,
        messages: Sequence[Message],
        meta: dict[str, Any],
        expires: str | None,
        now: Any,
    ) -> list[dict[str, Any]]:
        facts = await extract_facts(self.llm, [m.content for m in messages if m.role == "user"], now)
        here = MetaFilter(reach=Reach.exact(ns), sources=(SOURCE,))
        items: list[NewItem] = []
        results: list[dict[str, Any]] = []
        for fact in facts:
            memory_id = fact.memory_id(ns)
            active = await find_active(self.engine, here, memory_id)
            if (
                active is not None
                and normalise_text(active.text).lower() == normalise_text(fact.text).lower()
            ):
                continue  # said before: nothing new (mem0 skips a duplicate too)
            old = Fields.of(active) if active is not None else None
            merged = {**(old.metadata if old else {}), **meta}
            check_metadata_size("add", merged)
            fields = Fields(
                old.created_at if old else iso(now),
                merged,
                expiration_date=expires,
            )
            items.append(
                self._new_item(
                    ns,
                    scope,
                    memory_id,
                    fact.text,
                    fields,
                    observed_at=now,
                    confidence=round(fact.confidence, 4),
                    learning_kind=fact.kind,
                    event_from=fact.event_from,
                    event_to=fact.event_to,
                )
            )
            result: dict[str, Any] = {"id": memory_id, "memory": fact.text, "event": "ADD"}
            if active is not None:
                result.update(event="UPDATE", previous_memory=active.text)
            results.append(result)
        if items:
            await self.engine.store_many(items)
        return results

    @async_api("update")
    async def update(
        self,
        memory_id: str,
        text: str | None = None,
        metadata: dict[str, Any] | None = None,
        expiration_date: Any = _UNSET,
        data: str | None = None,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        run_id: str | None = None,
    ) -> dict[str, Any]:
        """A new version of the memory (same id): new text and/or metadata merged over the old, or a
        new or cleared (`None`) expiration date. `data` is mem0's older name for `text`. The ids, when
        given, confine which memory may be updated. Raises MemoryNotFound for an id not visible."""
        op = "update"
        mid = args.memory_id(op, memory_id)
        if text is None:
            text = data
        if text is None and metadata is None and expiration_date is _UNSET:
            raise invalid(
                op, "text", "is missing: at least one of text, metadata or expiration_date must be provided"
            )
        new_text = None if text is None else args.text(op, "text", text)
        meta = clean_metadata(op, metadata)
        scope = Scope.maybe(op, user_id, agent_id, run_id)
        active = await find_active(self.engine, scope.read_filter(op, self.root), mid)
        if active is None:
            raise MemoryNotFound(f"update: memory with id {mid} not found; provide a valid `memory_id`")
        old = Fields.of(active)
        expires = old.expiration_date if expiration_date is _UNSET else args.expiration(op, expiration_date)
        merged = {**old.metadata, **meta}
        check_metadata_size(op, merged)
        fields = Fields(
            old.created_at,
            merged,
            actor_id=old.actor_id,
            role=old.role,
            attributed_to=old.attributed_to,
            expiration_date=expires,
        )
        same_text = new_text is None or new_text == active.text
        owner = Scope(None, active.meta.agent_id, active.meta.thread_id)
        item = self._new_item(
            active.namespace,
            owner,
            mid,
            active.text if new_text is None else new_text,
            fields,
            observed_at=utcnow(),
            confidence=active.confidence,
            learning_kind=active.meta.learning_kind or "fact",
            event_from=active.meta.event_from if same_text else None,
            event_to=active.meta.event_to if same_text else None,
        )
        await self.engine.store(item)
        return {"message": "Memory updated successfully!"}

    @async_api("delete")
    async def delete(
        self,
        memory_id: str,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        run_id: str | None = None,
    ) -> dict[str, Any]:
        """Forget the memory and every earlier version of it; `history` keeps that it was deleted.
        The ids, when given, confine which memory may be deleted. Raises MemoryNotFound for an id not
        visible."""
        op = "delete"
        mid = args.memory_id(op, memory_id)
        scope = Scope.maybe(op, user_id, agent_id, run_id)
        active = await find_active(self.engine, scope.read_filter(op, self.root), mid)
        if active is None:
            raise MemoryNotFound(f"delete: memory with id {mid} not found")
        await self._delete([active], scope.reach(op, self.root))
        return {"message": "Memory deleted successfully!"}

    @async_api("delete_all")
    async def delete_all(
        self, user_id: str | None = None, agent_id: str | None = None, run_id: str | None = None
    ) -> dict[str, Any]:
        """Delete every memory of the ids given (at least one; `reset` deletes everything)."""
        op = "delete_all"
        scope = Scope.of(op, user_id, agent_id, run_id, missing=_DELETE_ALL_NEEDS_IDS)
        actives = await list_all(self.engine, scope.read_filter(op, self.root))
        await self._delete(actives, scope.reach(op, self.root))
        return {"message": "Memories deleted successfully!"}

    async def _delete(self, actives: Sequence[MemoryItem], reach: Reach) -> None:
        """Log each memory's events (without content), then forget all its versions."""
        if not actives:
            return
        now = utcnow()
        walked = await chains(self.engine, actives, reach)
        logs: list[NewItem] = []
        for chain in walked:
            head = chain[-1]
            assert head.meta.about is not None
            mid = head.meta.about.key
            prior = await find_log(self.engine, Reach.exact(head.namespace.child("log", "mem0")), mid)
            logs.append(delete_log(mid, head.namespace, logged_events(prior) + chain_events(chain), now))
        await self.engine.store_many(logs)
        await self._forget([v.id for chain in walked for v in chain], reach)

    async def _forget(self, ids: Sequence[str], reach: Reach) -> None:
        for at in range(0, len(ids), MAX_IDS):
            await self.engine.forget(ForgetRequest(ids=tuple(ids[at : at + MAX_IDS]), reach=reach))

    @async_api("reset")
    async def reset(self) -> None:
        """Delete every memory this API wrote under the root, with its history, and purge what is
        forgotten there (mem0 drops its collection and history table)."""
        everything = Reach.subtree(self.root)
        actives = await list_all(self.engine, MetaFilter(reach=everything, sources=(SOURCE, LOG_SOURCE)))
        walked = await chains(self.engine, actives, everything)
        await self._forget([v.id for chain in walked for v in chain], everything)
        await self.engine.purge(PurgeRequest(reach=everything))

    # -- reads ---------------------------------------------------------------------------------------
    @async_api("get")
    async def get(
        self,
        memory_id: str,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        run_id: str | None = None,
    ) -> dict[str, Any] | None:
        """The memory as mem0 returns it, or None when no memory with that id is visible (the ids,
        when given, confine the read to them)."""
        op = "get"
        mid = args.memory_id(op, memory_id)
        scope = Scope.maybe(op, user_id, agent_id, run_id)
        item = await find_active(self.engine, scope.read_filter(op, self.root), mid)
        return None if item is None else View.of(item, self.root).as_dict()

    @async_api("get_all")
    async def get_all(
        self,
        *,
        filters: dict[str, Any] | None = None,
        top_k: int = 20,
        show_expired: bool = False,
        user_id: str | None = None,
        agent_id: str | None = None,
        run_id: str | None = None,
        limit: int | None = None,
    ) -> dict[str, Any]:
        """`{"results": [...]}`: up to `top_k` memories of the scope, newest first. `filters` holds
        the ids (at least one) and optionally metadata conditions in mem0's filter language."""
        op = "get_all"
        read = args.read_scope(op, filters, {"user_id": user_id, "agent_id": agent_id, "run_id": run_id})
        k = args.top_k(op, top_k, limit)
        show_expired = check_bool(op, "show_expired", show_expired)
        flt = read.scope.read_filter(op, self.root)
        out: list[dict[str, Any]] = []
        if k == 0:
            return {"results": out}
        today = utcnow()
        async for item in listed(self.engine, flt, _page_size(k, read.predicate, show_expired)):
            view = View.of(item, self.root)
            if _keep(view, read.predicate, show_expired, today):
                out.append(view.as_dict(with_score=False))
                if len(out) >= k:
                    break
        return {"results": out}

    @async_api("search")
    async def search(
        self,
        query: str,
        *,
        top_k: int = 20,
        filters: dict[str, Any] | None = None,
        threshold: float | None = None,
        rerank: bool = False,
        explain: bool = False,
        reference_date: Any = None,
        show_expired: bool = False,
        user_id: str | None = None,
        agent_id: str | None = None,
        run_id: str | None = None,
        limit: int | None = None,
    ) -> dict[str, Any]:
        """`{"results": [...]}`: the scope's memories ranked for `query` by the engine's default mode
        (hybrid when an embedder serves), each with its `score` on mem0's scale: the cosine similarity of
        the query and the memory (scores.py). `threshold` drops hits whose score is below it, among
        tinymemory's best few. `rerank` and `explain` are accepted; ranking always reranks and scores
        are not explained."""
        op = "search"
        q = args.query(op, query)
        read = args.read_scope(op, filters, {"user_id": user_id, "agent_id": agent_id, "run_id": run_id})
        k = args.top_k(op, top_k, limit)
        floor = None if threshold is None else check_fraction(op, "threshold", threshold)
        check_bool(op, "rerank", rerank)
        check_bool(op, "explain", explain)
        show_expired = check_bool(op, "show_expired", show_expired)
        if reference_date is not None:
            raise UnsupportedFeature(
                "search: `reference_date` is not supported (mem0 offers it on its platform only)"
            )
        if k == 0:
            return {"results": []}
        flt = read.scope.read_filter(op, self.root)
        today = utcnow()
        request = FetchRequest(query=q, filter=flt, limit=_page_size(k, read.predicate, show_expired))
        # With a threshold, the candidates are tinymemory's best few (as mem0's are its store's nearest
        # few), each scored on mem0's scale; without one, the first k the scope keeps.
        budget = None if floor is None else _candidates(k)
        kept: list[tuple[Hit, View]] = []
        examined = 0
        async for hit in fetched(self.engine, request):
            examined += 1
            view = View.of(hit.item, self.root)
            if _keep(view, read.predicate, show_expired, today):
                kept.append((hit, view))
            if (len(kept) >= k) if budget is None else (examined >= budget):
                break
        scores = await similarities(engine_embedder(self.engine), q, [hit for hit, _ in kept])
        out = [
            view.as_dict(score=score)
            for (_, view), score in zip(kept, scores, strict=True)
            if floor is None or score >= floor
        ]
        return {"results": out[:k]}

    @async_api("history")
    async def history(
        self,
        memory_id: str,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        run_id: str | None = None,
    ) -> list[dict[str, Any]]:
        """The memory's events, oldest first, as mem0 lists them: ADD, then UPDATE per new version,
        and DELETE once deleted (a deleted memory's events keep no text and no times). [] for an id
        never seen; the ids, when given, confine the read to them."""
        op = "history"
        mid = args.memory_id(op, memory_id)
        scope = Scope.maybe(op, user_id, agent_id, run_id)
        reach = scope.reach(op, self.root)
        active = await find_active(self.engine, scope.read_filter(op, self.root), mid)
        log = await find_log(self.engine, reach, mid)
        if log is not None and not _in_scope(log, scope, self.root):
            log = None
        events = logged_events(log)
        if active is not None:
            (chain,) = await chains(self.engine, [active], reach)
            events += chain_events(chain)
        return [e.as_dict(mid) for e in events]


def _candidates(k: int) -> int:
    """How many of tinymemory's best hits a thresholded search scores: a few times `k`, 60 at least."""
    return min(MAX_LIMIT, max(3 * k, 60))


def _page_size(k: int, predicate: Predicate | None, show_expired: bool) -> int:
    """A read's page: `k`, or more (within the engine's bound) when the scope's filter may drop some."""
    narrows = predicate is not None or not show_expired
    return min(MAX_LIMIT, max(k, 60) if narrows else k)


def _keep(view: View, predicate: Predicate | None, show_expired: bool, today: Any) -> bool:
    if not show_expired and view.is_expired(today):
        return False
    return predicate is None or predicate(view.payload())


def _in_scope(log: MemoryItem, scope: Scope, root: Namespace) -> bool:
    """Whether a delete log belongs to the scope's ids (its reach already holds its user)."""
    parent = log.namespace.parent()
    owner = Scope.from_namespace(parent, root) if parent is not None else Scope()
    return all(
        getattr(scope, k) is None or getattr(scope, k) == getattr(owner, k) for k in ("agent_id", "run_id")
    )
