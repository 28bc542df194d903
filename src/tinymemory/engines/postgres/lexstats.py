"""The lexical index and its per-namespace statistics, kept so a read is ranked by its reach alone.

A row's index is its `tsv` column, built here from our analyzer's terms (not Postgres's parser, so
stemming, stop words and unicode behave exactly as in SQLite): weight A marks title terms, B body terms,
C the neighbouring turns' terms, and each occurrence has its own position, so a term's field-weighted
frequency can be read back with `unnest(tsv)`. The analysed column texts are kept beside it
(`lex_title`, `lex_body`, `lex_context`) so forget and the thread relink take exact counts out.

Beside the index, per namespace: how many rows are indexed and how many tokens they hold (`lex_ns`), how
many rows hold each term (`lex_df`), and each row's length (`items.lex_len`). Every change goes through
this module in the transaction of the write that causes it. Only active and superseded rows are
indexed: forgetting a row empties its index columns and takes its counts out (`unindex`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from tinymemory.api.filters import MetaFilter
from tinymemory.api.namespace import Reach
from tinymemory.engines.lexcounts import Counts, terms
from tinymemory.engines.postgres.db import Conn
from tinymemory.engines.postgres.tenancy import tenant_of_text
from tinymemory.engines.postgres.where import Params, reach_sql
from tinymemory.retrieval.pipeline import ScopeStats

WEIGHTS = ("A", "B", "C")  # title, body, context
MAX_POSITIONS = 256  # positions Postgres keeps per lexeme; a term's frequency saturates there
# A tsvector holds at most 1 MiB of lexemes and positions; a larger body is indexed up to this size.
MAX_TSVECTOR_BYTES = 1_000_000


def _quote(term: str) -> str:
    return "'" + term.replace("\\", "\\\\").replace("'", "''") + "'"


def _estimate(counts: dict[str, int]) -> int:
    """Bytes a tsvector of these lexemes and position counts takes (an upper bound)."""
    return 8 + sum(8 + len(t.encode("utf-8")) + 2 * min(n, MAX_POSITIONS) for t, n in counts.items())


def fit(title: str, body: str, context: str) -> tuple[str, str, str]:
    """The analysed columns, with the body's tail cut when the tsvector would not fit."""
    counts = Counter(terms(title, body, context))
    if _estimate(counts) <= MAX_TSVECTOR_BYTES:
        return title, body, context
    words = body.split()
    while words and _estimate(counts) > MAX_TSVECTOR_BYTES:
        cut = max(1, len(words) // 8)
        for w in words[-cut:]:
            counts[w] -= 1
            if counts[w] <= 0:
                del counts[w]
        words = words[:-cut]
    return title, " ".join(words), context


def tsvector_text(title: str, body: str, context: str) -> str:
    """The tsvector literal of the analysed columns: each occurrence its own position, weighted by field."""
    marks: dict[str, list[str]] = {}
    for weight, text in zip(WEIGHTS, (title, body, context), strict=True):
        for term in text.split():
            found = marks.setdefault(term, [])
            if len(found) < MAX_POSITIONS:
                found.append(weight)
    return " ".join(
        _quote(t) + ":" + ",".join(f"{n}{w}" for n, w in enumerate(ws, start=1)) for t, ws in marks.items()
    )


def tsquery_text(query_terms: Iterable[str]) -> str:
    """An OR of the terms as a tsquery literal (quoted, so query text is never query syntax)."""
    return " | ".join(_quote(t) for t in query_terms)


class Deltas(Counts):
    """`Counts` (sqlite/lexstats.py) applied to Postgres's statistics tables, once per transaction."""

    async def flush(self, conn: Conn) -> None:
        """Apply the changes; a term or namespace no indexed row holds any more leaves no row behind
        (purge must remove its bytes)."""
        moved = [(t, ns, d) for (t, ns), d in self.df.items() if d]
        if moved:
            await conn.execute(
                "INSERT INTO lex_df (term, ns, tenant, df)"
                " SELECT * FROM unnest(%s::text[], %s::text[], %s::text[], %s::bigint[])"
                " ON CONFLICT (term, ns, tenant) DO UPDATE SET df = lex_df.df + excluded.df",
                (
                    [t for t, _, _ in moved],
                    [ns for _, ns, _ in moved],
                    [tenant_of_text(ns) for _, ns, _ in moved],
                    [d for _, _, d in moved],
                ),
            )
            gone = [(t, ns) for t, ns, d in moved if d < 0]
            if gone:
                await conn.execute(
                    "DELETE FROM lex_df d USING unnest(%s::text[], %s::text[]) AS g(term, ns)"
                    " WHERE d.term = g.term AND d.ns = g.ns AND d.df <= 0",
                    ([t for t, _ in gone], [ns for _, ns in gone]),
                )
        spaces = sorted(set(self.docs) | set(self.tokens))
        if spaces:
            await conn.execute(
                "INSERT INTO lex_ns (ns, tenant, docs, tokens)"
                " SELECT * FROM unnest(%s::text[], %s::text[], %s::bigint[], %s::bigint[])"
                " ON CONFLICT (ns, tenant) DO UPDATE SET"
                " docs = lex_ns.docs + excluded.docs, tokens = lex_ns.tokens + excluded.tokens",
                (
                    spaces,
                    [tenant_of_text(ns) for ns in spaces],
                    [self.docs[ns] for ns in spaces],
                    [self.tokens[ns] for ns in spaces],
                ),
            )
            emptied = [ns for ns in spaces if self.docs[ns] < 0]
            if emptied:
                await conn.execute("DELETE FROM lex_ns WHERE ns = ANY(%s::text[]) AND docs <= 0", (emptied,))
        self.df.clear()
        self.docs.clear()
        self.tokens.clear()


def index_values(title: str, body: str, context: str) -> dict[str, Any]:
    """The index columns of a new row from its analysed columns (the caller counts it: `count_new`)."""
    title, body, context = fit(title, body, context)
    return {
        "lex_title": title,
        "lex_body": body,
        "lex_context": context,
        "lex_len": len(terms(title, body, context)),
        "tsv": tsvector_text(title, body, context),
    }


def count_new(deltas: Deltas, ns: str, values: dict[str, Any]) -> None:
    words = terms(values["lex_title"], values["lex_body"], values["lex_context"])
    deltas.count(ns, words, 1, 1, len(words))


async def _indexed(conn: Conn, rowid: int) -> tuple[str, str, str, str] | None:
    cur = await conn.execute(
        "SELECT ns, lex_title, lex_body, lex_context FROM items WHERE rowid = %s AND lex_title IS NOT NULL",
        (rowid,),
    )
    row = await cur.fetchone()
    if row is None:
        return None
    return str(row[0]), str(row[1] or ""), str(row[2] or ""), str(row[3] or "")


async def unindex(conn: Conn, deltas: Deltas, rowid: int) -> bool:
    """Take a row out of the index and its counts out of the statistics (False when it was not indexed)."""
    found = await _indexed(conn, rowid)
    if found is None:
        return False
    ns, title, body, context = found
    words = terms(title, body, context)
    await conn.execute(
        "UPDATE items SET tsv = NULL, lex_title = NULL, lex_body = NULL, lex_context = NULL, lex_len = 0"
        " WHERE rowid = %s",
        (rowid,),
    )
    deltas.count(ns, words, -1, -1, -len(words))
    return True


async def body_of(conn: Conn, rowid: int | None) -> str:
    """A row's analysed body ('' when it is not indexed)."""
    if rowid is None:
        return ""
    cur = await conn.execute("SELECT lex_body FROM items WHERE rowid = %s", (rowid,))
    row = await cur.fetchone()
    return "" if row is None else str(row[0] or "")


async def set_context(
    conn: Conn, deltas: Deltas, rowid: int, change: Callable[[str], Awaitable[str]]
) -> None:
    """Replace an indexed row's neighbouring-turn words with `await change(current words)`, keeping the
    statistics exact (the row is read once)."""
    found = await _indexed(conn, rowid)
    if found is None:
        return
    ns, title, body, old = found
    context = await change(old)
    if old == context:
        return
    title, body, context = fit(title, body, context)
    before, after = terms(title, body, old), terms(title, body, context)
    gone, new = set(before) - set(after), set(after) - set(before)
    await conn.execute(
        "UPDATE items SET lex_context = %s, lex_body = %s, lex_len = %s, tsv = %s::tsvector WHERE rowid = %s",
        (context, body, len(after), tsvector_text(title, body, context), rowid),
    )
    deltas.count(ns, new, 1, 0, 0)
    deltas.count(ns, gone, -1, 0, 0)
    deltas.count(ns, (), 0, 0, len(after) - len(before))


# -- reads ----------------------------------------------------------------------------------------------


def scope_of(flt: MetaFilter) -> Reach | None:
    """The namespaces whose rows a read may rank: its namespace when set, else its reach (None: all)."""
    if flt.namespace is not None:
        return Reach.exact(flt.namespace)
    if flt.reach is None or reach_sql(flt.reach, []) is None:
        return None
    return flt.reach


async def stats(conn: Conn, scope: Reach | None, query_terms: list[str]) -> ScopeStats:
    """Statistics over the scope, summed from the per-namespace tables."""
    params: Params = []
    where = reach_sql(scope, params, column="ns")
    cond = "" if where is None else f" WHERE {where}"
    cur = await conn.execute(
        f"SELECT coalesce(sum(docs), 0), coalesce(sum(tokens), 0) FROM lex_ns{cond}", params
    )
    row = await cur.fetchone()
    docs, tokens = (0, 0) if row is None else (int(row[0]), int(row[1]))
    df: dict[str, int] = {}
    if query_terms:
        tparams: Params = [list(query_terms)]
        twhere = reach_sql(scope, tparams, column="ns")
        extra = "" if twhere is None else f" AND {twhere}"
        cur = await conn.execute(
            f"SELECT term, sum(df) FROM lex_df WHERE term = ANY(%s::text[]){extra} GROUP BY term", tparams
        )
        df = {str(t): int(d) for t, d in await cur.fetchall()}
    return ScopeStats(docs, tokens, df)
