"""store, fetch, recall, list, get, explore, forget, purge and info: the engine's operations as commands."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tinymemory.api import LEARNING_KINDS, Facet, FetchMode, InvalidRequest, ItemKind
from tinymemory.cli.common import (
    add_store_flags,
    emit,
    namespace_of,
    open_store,
    reach_label,
    reach_of,
    require_store,
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


def _on_memory(call: Callable[[Memory, argparse.Namespace], Any]) -> Callable[[argparse.Namespace], int]:
    """A command that opens the store, prints what `call` answers, and closes the store: every one but
    `store` reads or removes, so a missing store is an error, not a new empty file."""

    def run(args: argparse.Namespace) -> int:
        namespace_of(args), reach_of(args)  # the flags this command reads itself are refused first
        if hasattr(args, "after"):
            _filter_fields(args)
        require_store(args.command, args)
        with open_memory(args) as mem:
            return emit(call(mem, args))

    return run


def _info(mem: Memory, args: argparse.Namespace) -> dict[str, Any]:
    total = mem.explore("kind", limit=20)
    return {
        "engine": mem.descriptor,
        "namespace": str(mem.namespace),
        "reach": reach_label(mem.reach),
        "items": total.total,
        "kinds": total.buckets,
    }


READS = (
    "Reads see every namespace in the file unless --namespace (that node and its ancestors) or --reach "
    "narrows them."
)


def _add_paging(p: argparse.ArgumentParser, what: str, *, cursor: bool) -> None:
    p.add_argument("--limit", type=int, default=10, help=f"at most this many {what} (1 to 1000, default 10)")
    if cursor:
        p.add_argument("--cursor", help="next_cursor from the previous page, to read the page after it")


def _store_args(p: argparse.ArgumentParser) -> None:
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


def _fetch_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("query", help="what to search for, in words")
    p.add_argument(
        "--mode",
        choices=[m.value for m in FetchMode],
        help="how to rank (default: hybrid with an embedder, lexical with --no-embedder)",
    )
    p.add_argument(
        "--explain",
        action="store_true",
        help="give each hit `why`: the signals behind its score (keyword and meaning scores and ranks, "
        "the reranker's inputs and output, time match, final rank)",
    )


@dataclass(frozen=True, slots=True)
class _Command:
    """One command: its parser's words, its own arguments (after the store flags), and what it runs."""

    name: str
    help: str
    description: str
    run: Callable[[argparse.Namespace], int]
    arguments: Callable[[argparse.ArgumentParser], object] = lambda _p: None
    limits: str | None = None  # what --limit counts, for a command that takes one
    cursor: bool = False  # with --limit: --cursor too
    filters: bool = False  # the filter flags


_COMMANDS = (
    _Command(
        "store",
        help="store one memory (a replay if it is already stored)",
        description="Store one memory at --namespace and print its id. The id comes from the content, so "
        "storing the same memory again returns the same id with replayed: true. With --about, a new "
        "memory supersedes the active one about the same KIND:KEY (the old one stays readable with "
        "--as-of).",
        run=_store,
        arguments=_store_args,
    ),
    _Command(
        "fetch",
        help="ranked search (lexical, semantic or hybrid)",
        description="Search memories by a query and print the hits, best first, with their scores. " + READS,
        run=_on_memory(
            lambda mem, a: mem.fetch(
                a.query,
                mode=a.mode,
                limit=a.limit,
                cursor=a.cursor,
                explain=a.explain,
                **_filter_fields(a),
            )
        ),
        arguments=_fetch_args,
        limits="hits",
        cursor=True,
        filters=True,
    ),
    _Command(
        "recall",
        help="answer a question from memory, with citations",
        description="Answer a question from the best-matching memories and cite the ids the answer came "
        "from (extractive unless an LLM is configured). " + READS,
        run=_on_memory(lambda mem, a: mem.recall(a.question, limit=a.limit, **_filter_fields(a))),
        arguments=lambda p: p.add_argument("question", help="the question to answer"),
        limits="memories to draw the answer from",
        filters=True,
    ),
    _Command(
        "list",
        help="list memories, newest first, a page at a time",
        description="List the active memories that match the filter, most recently observed first; pass "
        "next_cursor back with --cursor for the next page. " + READS,
        run=_on_memory(lambda mem, a: mem.list(limit=a.limit, cursor=a.cursor, **_filter_fields(a))),
        limits="memories",
        cursor=True,
        filters=True,
    ),
    _Command(
        "get",
        help="read memories by id",
        description="Read memories by id. Ids outside the reach, or unknown, come back under missing; "
        "forgotten ones are reported without their text. " + READS,
        run=_on_memory(lambda mem, a: mem.get(a.ids)),
        arguments=lambda p: p.add_argument(
            "ids", nargs="+", help="memory ids (m_...), as store, list or fetch printed them"
        ),
    ),
    _Command(
        "explore",
        help="count memories by a facet",
        description="Count the matching memories by one facet (tag, kind, source, thread, ...), largest "
        "buckets first. " + READS,
        run=_on_memory(lambda mem, a: mem.explore(a.facet, limit=a.limit, **_filter_fields(a))),
        arguments=lambda p: p.add_argument(
            "facet", choices=[f.value for f in Facet], help="what to count by"
        ),
        limits="buckets",
        filters=True,
    ),
    _Command(
        "forget",
        help="soft-delete by ids, or by filter flags",
        description="Soft-delete memories: by ids, or every memory matching the filter flags (at least one "
        "is required, so a bare `forget` never empties the file). Forgotten memories drop out of every "
        "read; `purge` then deletes them for good. Only memories within the reach are touched; the "
        "others come back under skipped.",
        run=_on_memory(lambda mem, a: mem.forget(a.ids) if a.ids else mem.forget(**_filter_fields(a))),
        arguments=lambda p: p.add_argument(
            "ids", nargs="*", help="memory ids to forget (omit them to forget by filter instead)"
        ),
        filters=True,
    ),
    _Command(
        "purge",
        help="permanently delete forgotten memories",
        description="Delete the forgotten memories within the reach from the file for good, with "
        "everything derived from them. Active memories are not touched. Without --namespace or --reach, "
        "that is every forgotten memory in the file.",
        run=_on_memory(lambda mem, _a: mem.purge()),
    ),
    _Command(
        "info",
        help="engine, reach and item counts",
        description="Show the engine (name, version, search modes, embedder), the namespace and reach in "
        "effect, and how many memories of each kind it sees.",
        run=_on_memory(_info),
    ),
)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    for command in _COMMANDS:
        p = sub.add_parser(command.name, help=command.help, description=command.description)
        add_store_flags(p)
        command.arguments(p)
        if command.limits is not None:
            _add_paging(p, command.limits, cursor=command.cursor)
        if command.filters:
            _add_filter_flags(p)
        p.set_defaults(func=command.run)
