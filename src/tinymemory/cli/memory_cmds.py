"""store, fetch, recall, list, get, explore, forget, purge and info: the engine's operations as commands."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from tinymemory.api import LEARNING_KINDS, Facet, FetchMode, ItemKind
from tinymemory.cli.common import add_store_flags, emit, namespace_of, reach_of, time_arg
from tinymemory.memory import Memory


def open_memory(args: argparse.Namespace) -> Memory:
    return Memory(
        args.db,
        namespace=namespace_of(args),
        reach=reach_of(args),
        embedder=None if args.no_embedder else "default",
    )


def _add_filter_flags(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("filter")
    g.add_argument("--kind", action="append", choices=ItemKind.values(), help="item kind (repeatable)")
    g.add_argument("--source", action="append", help="source kind, e.g. agent or brain:docs (repeatable)")
    g.add_argument("--tag", action="append", help="any of these tags (repeatable)")
    g.add_argument("--thread", help="thread id")
    g.add_argument("--agent", help="agent id")
    g.add_argument("--workspace")
    g.add_argument("--repo")
    g.add_argument("--file-path")
    g.add_argument("--after", help="observed at or after (RFC 3339)")
    g.add_argument("--before", help="observed before (RFC 3339)")
    g.add_argument("--as-of", help="read the versions active at this instant (RFC 3339)")


def _filter_fields(args: argparse.Namespace) -> dict[str, Any]:
    fields: dict[str, Any] = {
        "kinds": tuple(args.kind or ()),
        "sources": tuple(args.source or ()),
        "tags_any": tuple(args.tag or ()),
        "thread_id": args.thread,
        "agent_id": args.agent,
        "workspace": args.workspace,
        "repo": args.repo,
        "file_path": args.file_path,
        "observed_after": time_arg(args.after, "--after"),
        "observed_before": time_arg(args.before, "--before"),
        "as_of": time_arg(args.as_of, "--as-of"),
    }
    return {k: v for k, v in fields.items() if v not in (None, ())}


def _store(args: argparse.Namespace) -> int:
    text = sys.stdin.read() if args.text == "-" else args.text
    about = tuple(args.about.split(":", 1)) if args.about else None
    with open_memory(args) as mem:
        return emit(
            mem.store(
                text,
                kind=args.kind,
                tags=args.tag or (),
                confidence=args.confidence,
                learning_kind=args.learning_kind if args.kind == "learning" else None,
                title=args.title,
                about=about,
                thread_id=args.thread,
                source=args.source,
            )
        )


def _fetch(args: argparse.Namespace) -> int:
    with open_memory(args) as mem:
        return emit(
            mem.fetch(
                args.query, mode=args.mode, limit=args.limit, cursor=args.cursor, **_filter_fields(args)
            )
        )


def _recall(args: argparse.Namespace) -> int:
    with open_memory(args) as mem:
        return emit(mem.recall(args.question, limit=args.limit, **_filter_fields(args)))


def _list(args: argparse.Namespace) -> int:
    with open_memory(args) as mem:
        return emit(mem.list(limit=args.limit, cursor=args.cursor, **_filter_fields(args)))


def _get(args: argparse.Namespace) -> int:
    with open_memory(args) as mem:
        return emit(mem.get(args.ids))


def _explore(args: argparse.Namespace) -> int:
    with open_memory(args) as mem:
        return emit(mem.explore(args.facet, limit=args.limit, **_filter_fields(args)))


def _forget(args: argparse.Namespace) -> int:
    with open_memory(args) as mem:
        if args.ids:
            return emit(mem.forget(args.ids))
        return emit(mem.forget(**_filter_fields(args)))


def _purge(args: argparse.Namespace) -> int:
    with open_memory(args) as mem:
        return emit(mem.purge())


def _info(args: argparse.Namespace) -> int:
    with open_memory(args) as mem:
        total = mem.explore("kind", limit=20)
        return emit(
            {
                "engine": mem.descriptor,
                "namespace": str(mem.namespace),
                "reach": str(mem.reach),
                "items": total.total,
                "kinds": total.buckets,
            }
        )


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("store", help="store one memory (a replay if it is already stored)")
    add_store_flags(p)
    p.add_argument("text", help="the memory's text, or - to read stdin")
    p.add_argument("--kind", default="learning", choices=ItemKind.values())
    p.add_argument("--learning-kind", default="fact", choices=LEARNING_KINDS)
    p.add_argument("--confidence", type=float)
    p.add_argument("--tag", action="append")
    p.add_argument("--title")
    p.add_argument("--about", help="KIND:KEY; storing again with the same pair supersedes")
    p.add_argument("--thread")
    p.add_argument("--source", help="source kind (default: none)")
    p.set_defaults(func=_store)

    p = sub.add_parser("fetch", help="ranked search (lexical, semantic or hybrid)")
    add_store_flags(p)
    p.add_argument("query")
    p.add_argument("--mode", choices=[m.value for m in FetchMode])
    p.add_argument("--limit", type=int, default=10)
    p.add_argument("--cursor")
    _add_filter_flags(p)
    p.set_defaults(func=_fetch)

    p = sub.add_parser("recall", help="answer a question from memory, with citations")
    add_store_flags(p)
    p.add_argument("question")
    p.add_argument("--limit", type=int, default=10)
    _add_filter_flags(p)
    p.set_defaults(func=_recall)

    p = sub.add_parser("list", help="newest first")
    add_store_flags(p)
    p.add_argument("--limit", type=int, default=10)
    p.add_argument("--cursor")
    _add_filter_flags(p)
    p.set_defaults(func=_list)

    p = sub.add_parser("get", help="read memories by id (ids outside the reach come back missing)")
    add_store_flags(p)
    p.add_argument("ids", nargs="+")
    p.set_defaults(func=_get)

    p = sub.add_parser("explore", help="count memories by a facet")
    add_store_flags(p)
    p.add_argument("facet", choices=[f.value for f in Facet])
    p.add_argument("--limit", type=int, default=10)
    _add_filter_flags(p)
    p.set_defaults(func=_explore)

    p = sub.add_parser("forget", help="soft-delete by ids, or by filter flags")
    add_store_flags(p)
    p.add_argument("ids", nargs="*")
    _add_filter_flags(p)
    p.set_defaults(func=_forget)

    p = sub.add_parser("purge", help="permanently delete forgotten memories within the reach")
    add_store_flags(p)
    p.set_defaults(func=_purge)

    p = sub.add_parser("info", help="engine, reach and item counts")
    add_store_flags(p)
    p.set_defaults(func=_info)
