"""store, fetch, recall, list, get, explore, forget, purge and info: the engine's operations as commands."""

from __future__ import annotations

import argparse
from typing import Any

from tinymemory.api import LEARNING_KINDS, Facet, FetchMode, InvalidRequest, ItemKind
from tinymemory.cli.common import (
    add_store_flags,
    emit,
    namespace_of,
    open_store,
    reach_label,
    reach_of,
    time_arg,
)
from tinymemory.cli.edge import read_stdin
from tinymemory.memory import Memory


def open_memory(args: argparse.Namespace) -> Memory:
    """The store as a one-shot command opens it (see common.open_store: no background graph build)."""
    namespace, reach = namespace_of(args), reach_of(args)  # refused before anything is opened
    engine = open_store(args, embedder=None if args.no_embedder else "default")
    return Memory(engine=engine, namespace=namespace, reach=reach)


def _add_filter_flags(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("filter (all given must match; repeatable flags match any of their values)")
    g.add_argument("--kind", action="append", choices=ItemKind.values(), help="item kind (repeatable)")
    g.add_argument("--source", action="append", help="source kind, e.g. agent or brain:docs (repeatable)")
    g.add_argument("--tag", action="append", help="carries any of these tags (repeatable)")
    g.add_argument("--thread", help="conversation thread id")
    g.add_argument("--agent", help="agent id that wrote the memory")
    g.add_argument("--workspace", help="workspace name recorded in the memory's metadata")
    g.add_argument("--repo", help="repository recorded in the memory's metadata")
    g.add_argument("--file-path", help="file path recorded in the memory's metadata")
    g.add_argument("--after", help="observed at or after this instant (RFC 3339, e.g. 2026-03-01T00:00:00Z)")
    g.add_argument("--before", help="observed before this instant (RFC 3339)")
    g.add_argument(
        "--as-of",
        help="read the versions that were active at this instant, superseded ones included (RFC 3339)",
    )


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
        "observed_after": time_arg(args.after, "--after", args.command),
        "observed_before": time_arg(args.before, "--before", args.command),
        "as_of": time_arg(args.as_of, "--as-of", args.command),
    }
    return {k: v for k, v in fields.items() if v not in (None, ())}


def about_of(value: str | None) -> tuple[str, str] | None:
    """`--about KIND:KEY`, both parts non-blank (the key may itself hold colons)."""
    if value is None:
        return None
    kind, colon, key = value.partition(":")
    if not (colon and kind.strip() and key.strip()):
        raise InvalidRequest(
            f"store: `--about` expects KIND:KEY such as preference:dana.coffee, got `{value[:60]}`"
        )
    return kind, key


def _store(args: argparse.Namespace) -> int:
    about = about_of(args.about)
    text = read_stdin("store", "text") if args.text == "-" else args.text
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
                "reach": reach_label(mem.reach),
                "items": total.total,
                "kinds": total.buckets,
            }
        )


READS = (
    "Reads see every namespace in the file unless --namespace (that node and its ancestors) or --reach "
    "narrows them."
)


def _add_paging(p: argparse.ArgumentParser, what: str, *, cursor: bool = True) -> None:
    p.add_argument("--limit", type=int, default=10, help=f"at most this many {what} (1 to 1000, default 10)")
    if cursor:
        p.add_argument("--cursor", help="next_cursor from the previous page, to read the page after it")


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "store",
        help="store one memory (a replay if it is already stored)",
        description="Store one memory at --namespace and print its id. The id comes from the content, so "
        "storing the same memory again returns the same id with replayed: true. With --about, a new "
        "memory supersedes the active one about the same KIND:KEY (the old one stays readable with "
        "--as-of).",
    )
    add_store_flags(p)
    p.add_argument("text", help="the memory's text, or - to read it from stdin (UTF-8)")
    p.add_argument(
        "--kind", default="learning", choices=ItemKind.values(), help="item kind (default: learning)"
    )
    p.add_argument(
        "--learning-kind",
        default="fact",
        choices=LEARNING_KINDS,
        help="what sort of learning it is (default: fact; ignored for other kinds)",
    )
    p.add_argument("--confidence", type=float, help="how sure the writer is, 0 to 1 (default: unset)")
    p.add_argument("--tag", action="append", help="a tag to file it under (repeatable)")
    p.add_argument("--title", help="a short title (documents mostly)")
    p.add_argument(
        "--about",
        help="KIND:KEY naming its subject, e.g. preference:dana.coffee; a later memory about the same "
        "pair supersedes this one",
    )
    p.add_argument("--thread", help="conversation thread id it belongs to")
    p.add_argument("--source", help="source kind, e.g. agent or import (default: none)")
    p.set_defaults(func=_store)

    p = sub.add_parser(
        "fetch",
        help="ranked search (lexical, semantic or hybrid)",
        description="Search memories by a query and print the hits, best first, with their scores. " + READS,
    )
    add_store_flags(p)
    p.add_argument("query", help="what to search for, in words")
    p.add_argument(
        "--mode",
        choices=[m.value for m in FetchMode],
        help="how to rank (default: hybrid with an embedder, lexical with --no-embedder)",
    )
    _add_paging(p, "hits")
    _add_filter_flags(p)
    p.set_defaults(func=_fetch)

    p = sub.add_parser(
        "recall",
        help="answer a question from memory, with citations",
        description="Answer a question from the best-matching memories and cite the ids the answer came "
        "from (extractive unless an LLM is configured). " + READS,
    )
    add_store_flags(p)
    p.add_argument("question", help="the question to answer")
    _add_paging(p, "memories to draw the answer from", cursor=False)
    _add_filter_flags(p)
    p.set_defaults(func=_recall)

    p = sub.add_parser(
        "list",
        help="list memories, newest first, a page at a time",
        description="List the active memories that match the filter, most recently observed first; pass "
        "next_cursor back with --cursor for the next page. " + READS,
    )
    add_store_flags(p)
    _add_paging(p, "memories")
    _add_filter_flags(p)
    p.set_defaults(func=_list)

    p = sub.add_parser(
        "get",
        help="read memories by id",
        description="Read memories by id. Ids outside the reach, or unknown, come back under missing; "
        "forgotten ones are reported without their text. " + READS,
    )
    add_store_flags(p)
    p.add_argument("ids", nargs="+", help="memory ids (m_...), as store, list or fetch printed them")
    p.set_defaults(func=_get)

    p = sub.add_parser(
        "explore",
        help="count memories by a facet",
        description="Count the matching memories by one facet (tag, kind, source, thread, ...), largest "
        "buckets first. " + READS,
    )
    add_store_flags(p)
    p.add_argument("facet", choices=[f.value for f in Facet], help="what to count by")
    _add_paging(p, "buckets", cursor=False)
    _add_filter_flags(p)
    p.set_defaults(func=_explore)

    p = sub.add_parser(
        "forget",
        help="soft-delete by ids, or by filter flags",
        description="Soft-delete memories: by ids, or every memory matching the filter flags (at least one "
        "is required, so a bare `forget` never empties the file). Forgotten memories drop out of every "
        "read; `purge` then deletes them for good. Only memories within the reach are touched; the "
        "others come back under skipped.",
    )
    add_store_flags(p)
    p.add_argument("ids", nargs="*", help="memory ids to forget (omit them to forget by filter instead)")
    _add_filter_flags(p)
    p.set_defaults(func=_forget)

    p = sub.add_parser(
        "purge",
        help="permanently delete forgotten memories",
        description="Delete the forgotten memories within the reach from the file for good, with "
        "everything derived from them. Active memories are not touched. Without --namespace or --reach, "
        "that is every forgotten memory in the file.",
    )
    add_store_flags(p)
    p.set_defaults(func=_purge)

    p = sub.add_parser(
        "info",
        help="engine, reach and item counts",
        description="Show the engine (name, version, search modes, embedder), the namespace and reach in "
        "effect, and how many memories of each kind it sees.",
    )
    add_store_flags(p)
    p.set_defaults(func=_info)
