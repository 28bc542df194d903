"""Levers for LoCoMo recall measured on what the engine hands the pipeline, before any is built in.

Each question is fetched once through the SQLite engine with a pool large enough to hold every turn of
its conversation; a spy on `pipeline.rank` keeps the two full candidate lists, the light columns, the
reach's statistics and the derived time hint. The shipped read is then replayed exactly (both lists cut
to the default pool of 60, the same `pipeline.rank`), and each lever is a change to what `rank` is
handed or to how its output is merged, replayed the same way:

- `window` (shipped, on by default): a question naming days also reads each ranker inside those days
  (memory observed then), its best 60 merged into the pool; the row without it is the read before;
- `session read` (hierarchical): score each session (thread) from the default read's ranked pool, then
  add every turn of the best sessions to the candidate lists with the scores the engine's two rankers
  give them (what an engine hook would hand over), and rank again;
- `neighbour read`: the turns just before and after the default read's best rows added to the pool;
- `session spread`: the default read's order, each turn's score times `decay` to the power of how
  many turns of its session rank above it, so a list question's top reaches more sessions (its
  evidence is spread over them) without reading more;
- `decomposition` (shipped as the `decompose` stage): a question naming two things ("Caroline and
  Melanie", "X or Y") or two questions joined by "and" is also asked once per part
  (`retrieval.decompose.sub_questions`, text rules, no LLM); each part's pooled read is ranked and the
  orders are merged by best relevance (`pipeline.merge_reads`, what the engine does), or the parts'
  candidate lists are fused before one reranking (rank fusion picks the pool, each row keeps its best
  score of the ranker);
- `wider lists`: each ranker's best 80 / 100 / 150 instead of 60, ranked by the shipped model;
- `feedback` (pseudo-relevance feedback): the words of the default read's best turns that are rarest
  in the conversation (the reach) added to the lexical query, that read's extra rows (or its whole list)
  put into the lexical pool;
- `entity links`: the rare entities of the default read's best turns (capitalised words inside a
  sentence, or any content word, held by at most `df` turns of the reach) or of the question itself;
  the other turns of the reach that hold one are added, either to both candidate lists with the
  rankers' own scores and ranked again (`pool`), or to the final order at the best linking turn's score
  times a weight (`link`); shipped as the `links` stage (the best 5 turns' names held by at most 3
  turns, at x 0.7), whose `links.names` both read.

Conversations 0-1 choose, 2-3 check; both are reported. Recall is deterministic.

    python bench/locomo_levers.py [FILE] [--no-write]

Writes the `locomo-levers` section of docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import re
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from locomo import CATEGORIES, CHECK, DEFAULT_FILE, TUNE, CachedEmbedder, EvidenceStats, load, store_all
from report import machine_line, table, write_section
from tinymemory.api import FetchMode, FetchRequest, MetaFilter, Reach
from tinymemory.api.timeutil import from_us
from tinymemory.engines.sqlite import SqliteEngine
from tinymemory.retrieval import pipeline
from tinymemory.retrieval.config import DEFAULT_CONFIG
from tinymemory.retrieval.decompose import sub_questions
from tinymemory.retrieval.embedders.default import default_embedder
from tinymemory.retrieval.fusion import rrf
from tinymemory.retrieval.links import names
from tinymemory.retrieval.text import default_analyzer, tokenize

POOL = pipeline.pool_size(20)  # what bench/locomo.py's fetch of the top 20 pools
FULL = 1000  # a limit whose pool holds every turn of one conversation
KS = (5, 10, 20)


@dataclass
class Captured:
    """What the engine handed `pipeline.rank` for one query, with full lists."""

    lex: pipeline.Ranked
    sem: pipeline.Ranked
    light: dict[int, pipeline.Light]
    kw: dict[str, Any]


@dataclass
class Question:
    text: str
    conv: int
    cat: int
    evidence: set[int]  # row keys
    full: Captured
    subs: list[Captured]
    feedback: dict[tuple[int, int], pipeline.Ranked]  # (top, words) -> the expanded query's lexical list


FEEDBACK = ((3, 5), (5, 10))  # (best turns read, words added)
_LABEL = re.compile(r"^[A-Z][a-z]+: ")


def feedback_words(c: Captured, question: str, top: int, words: int) -> list[str]:
    """The `words` words of the default read's `top` best turns (speaker labels left out) that are not
    query terms, by how many of those turns hold them times their idf over the conversation (the reach:
    every turn is in the captured semantic list)."""
    analyzer = default_analyzer()
    df: Counter[str] = Counter()
    for lt in c.light.values():
        df.update(set(analyzer.index_terms(_LABEL.sub("", lt.text or ""))))
    asked = set(analyzer.query_terms(question))
    held: Counter[str] = Counter()
    surface: dict[str, str] = {}
    for key, _ in default_read(c)[:top]:
        for word in tokenize(_LABEL.sub("", c.light[key].text or "")):
            terms = analyzer.query_terms(word)
            if len(terms) == 1 and terms[0] not in asked:
                surface.setdefault(terms[0], word)
                held[terms[0]] += 1
    n = len(c.light)
    best = sorted(held, key=lambda t: -held[t] * math.log(n / (1 + df[t])))
    return [surface[t] for t in best[:words]]


async def capture(path: Path) -> tuple[list[Question], Any]:
    convs = load(path, EvidenceStats())
    seen: list[Captured] = []
    original: Callable[..., pipeline.Ranked] = pipeline.rank

    def spy(mode: FetchMode, lex: pipeline.Ranked, sem: pipeline.Ranked, light: Any, **kw: Any) -> Any:
        seen.append(Captured(list(lex), list(sem), dict(light), dict(kw)))
        return original(mode, lex, sem, light, **kw)

    pipeline.rank = spy  # type: ignore[assignment]
    out: list[Question] = []
    try:
        with tempfile.TemporaryDirectory() as tmp:
            # the decompose stage off: each captured read is one question's (the parts are asked apart)
            engine = SqliteEngine(
                Path(tmp) / "levers.db",
                embedder=CachedEmbedder(default_embedder()),
                retrieval=DEFAULT_CONFIG.without("decompose"),
            )
            id_to_dia, _, _ = await store_all(engine, convs)
            import sqlite3

            with sqlite3.connect(Path(tmp) / "levers.db") as conn:
                rows = conn.execute("SELECT rowid, id, ns FROM items").fetchall()
            rowid_of = {(str(ns), id_to_dia[i]): int(r) for r, i, ns in rows if i in id_to_dia}

            async def ask(q: str, flt: MetaFilter, mode: FetchMode = FetchMode.HYBRID) -> Captured:
                seen.clear()
                await engine.fetch(FetchRequest(query=q, mode=mode, filter=flt, limit=FULL))
                return seen[-1]

            for ci, conv in enumerate(convs):
                ns = conv.items[0].meta.namespace
                flt = MetaFilter(reach=Reach.exact(ns))
                for question, cat, evidence in conv.questions:
                    full = await ask(question, flt)
                    subs = [await ask(s, flt) for s in sub_questions(question)]
                    expanded = {}
                    for top, words in FEEDBACK:
                        more = " ".join(feedback_words(full, question, top, words))
                        expanded[(top, words)] = (await ask(f"{question} {more}", flt, FetchMode.LEXICAL)).lex
                    rel = {rowid_of[(str(ns), d)] for d in evidence if (str(ns), d) in rowid_of}
                    out.append(Question(question, ci, cat, rel, full, subs, expanded))
            await engine.close()
    finally:
        pipeline.rank = original  # type: ignore[assignment]
    return out, None


def ranked(c: Captured, lex: pipeline.Ranked, sem: pipeline.Ranked) -> pipeline.Ranked:
    keys = {k for k, _ in lex} | {k for k, _ in sem}
    light = {k: v for k, v in c.light.items() if k in keys}
    return pipeline.rank(FetchMode.HYBRID, lex, sem, light, **c.kw)


def pooled(c: Captured, window: bool = True, pool: int = POOL) -> tuple[pipeline.Ranked, pipeline.Ranked]:
    """The lists the engine hands `rank` for a fetch of the top 20: each ranker's best 60 (or `pool`),
    and with the window stage (a question naming days) each ranker's best observed inside those days
    merged in."""
    lex, sem = c.lex[:pool], c.sem[:pool]
    hint = c.kw.get("derived")
    if not window or hint is None or c.kw.get("hint") is not None or not c.kw["cfg"].temporal.window:
        return lex, sem
    inside = {k for k, lt in c.light.items() if hint.start <= from_us(lt.observed_at) < hint.end}
    lex = pipeline.merged(lex, [kv for kv in c.lex if kv[0] in inside][:pool])
    sem = pipeline.merged(sem, [kv for kv in c.sem if kv[0] in inside][:pool])
    return lex, sem


def default_read(c: Captured) -> pipeline.Ranked:
    return ranked(c, *pooled(c))


def without_window(c: Captured) -> pipeline.Ranked:
    return ranked(c, *pooled(c, window=False))


def session_lists(
    c: Captured, sessions: int, score: str, top: int
) -> tuple[pipeline.Ranked, pipeline.Ranked]:
    """Both lists of the default read with every turn of the `sessions` best sessions added (with the
    rankers' own scores for them)."""
    first = default_read(c)
    per: dict[str, list[float]] = defaultdict(list)
    for key, s in first[:top]:
        thread = c.light[key].thread
        if thread is not None:
            per[thread].append(s)
    agg: Callable[[list[float]], float] = max if score == "max" else sum
    best = sorted(per, key=lambda t: -agg(per[t]))[:sessions]
    add = {k for k, lt in c.light.items() if lt.thread in best}
    base_lex, base_sem = pooled(c)
    lex_keys = {k for k, _ in base_lex} | add
    sem_keys = {k for k, _ in base_sem} | add
    lex = [kv for kv in c.lex if kv[0] in lex_keys]
    sem = [kv for kv in c.sem if kv[0] in sem_keys]
    return lex, sem


def session_read(c: Captured, sessions: int, score: str, top: int) -> pipeline.Ranked:
    """The session read ranked by the shipped model."""
    return ranked(c, *session_lists(c, sessions, score, top))


def refitted_session_read(questions: list[Question], sessions: int) -> list[pipeline.Ranked]:
    """The session read with the reranker's weights refitted to its larger pools (bench/fit_reranker.py's
    fit, on conversations 0-1 only), scored by that model (no prior or time boost: a recall proxy)."""
    import numpy as np

    from fit_reranker import MODE_FEATURES, fit
    from tinymemory.retrieval.features import FEATURES
    from tinymemory.retrieval.text import default_analyzer

    analyzer = default_analyzer()
    columns = [FEATURES.index(n) for n in MODE_FEATURES["hybrid"]]
    samples = []
    for q in questions:
        lex, sem = session_lists(q.full, sessions, "sum", 10)
        window = q.full.kw.get("hint") or q.full.kw.get("derived")
        keys, rows = pipeline.features_of(
            lex, sem, q.full.light, q.full.kw["stats"], q.full.kw["query"], analyzer, window
        )
        samples.append((q.conv, keys, np.asarray(rows), q.evidence))
    bias, w = fit([s for s in samples if s[0] in TUNE], columns)
    out = []
    for _, keys, f, _ in samples:
        scores = f[:, columns] @ w + bias
        order = np.argsort(-scores, kind="stable")
        out.append([(keys[i], float(scores[i])) for i in order])
    return out


def neighbour_read(c: Captured, top: int, hops: int) -> pipeline.Ranked:
    """The default read, then the turns up to `hops` away from its `top` best (before and after, in
    their thread) added to both lists with the rankers' own scores, ranked again."""
    first = default_read(c)
    lex, sem = pooled(c)
    add: set[int] = set()
    frontier = [k for k, _ in first[:top]]
    for _ in range(hops):
        step = []
        for k in frontier:
            lt = c.light[k]
            step += [m for m in (lt.before, lt.after) if m is not None and m in c.light]
        add.update(step)
        frontier = step
    lex_keys = {k for k, _ in lex} | add
    sem_keys = {k for k, _ in sem} | add
    return ranked(c, [kv for kv in c.lex if kv[0] in lex_keys], [kv for kv in c.sem if kv[0] in sem_keys])


def session_spread(order: pipeline.Ranked, light: dict[int, pipeline.Light], decay: float) -> pipeline.Ranked:
    """`order` with each turn's score times `decay` ** (turns of its session ranked above it)."""
    above: dict[str, int] = defaultdict(int)
    out = []
    for key, score in order:
        thread = light[key].thread if key in light else None
        out.append((key, score * decay ** (above[thread] if thread is not None else 0)))
        if thread is not None:
            above[thread] += 1
    return sorted(out, key=lambda kv: -kv[1])


def decomposed(q: Question, base: Callable[[Captured], pipeline.Ranked], how: str) -> pipeline.Ranked:
    """The question's read merged with its sub-questions' reads: by best relevance (`max`, the shipped
    `decompose` stage), or by taking turns from each order (`interleave`)."""
    orders = [base(q.full)] + [base(s) for s in q.subs]
    if len(orders) == 1:
        return orders[0]
    if how == "max":
        return pipeline.merge_reads(orders)
    out: dict[int, float] = {}
    for i in range(max(len(o) for o in orders)):
        for o in orders:
            if i < len(o) and o[i][0] not in out:
                out[o[i][0]] = -float(len(out))
    return list(out.items())


def best_of(lists: list[pipeline.Ranked], keep: set[int]) -> pipeline.Ranked:
    """The rows of `keep`, each at its best score in any of the lists, best first."""
    best: dict[int, float] = {}
    for lst in lists:
        for k, v in lst:
            if k in keep and v > best.get(k, -1.0):
                best[k] = v
    return sorted(best.items(), key=lambda kv: -kv[1])


def fused_parts(q: Question, pool: int) -> pipeline.Ranked:
    """The parts' candidate lists fused before one reranking: per ranker, rank fusion of the question's
    and its parts' pooled lists picks the best `pool` rows, each with its best score of that ranker."""
    if not q.subs:
        return default_read(q.full)
    reads = [pooled(q.full)] + [pooled(s) for s in q.subs]
    lists = []
    for side in (0, 1):
        ranked_lists = [r[side] for r in reads]
        keep = {k for k, _ in rrf([[k for k, _ in lst] for lst in ranked_lists])[:pool]}
        lists.append(best_of(ranked_lists, keep))
    return ranked(q.full, lists[0], lists[1])


def feedback_read(q: Question, top: int, words: int, how: str) -> pipeline.Ranked:
    """The default read with the expanded lexical query's list: its best 30 rows not pooled yet added
    (`add`), or in place of the lexical list (`replace`)."""
    lex, sem = pooled(q.full)
    expanded = q.feedback[(top, words)]
    if how == "replace":
        return ranked(q.full, expanded[:POOL], sem)
    have = {k for k, _ in lex}
    extra = [kv for kv in expanded if kv[0] not in have][:30]
    return ranked(q.full, sorted(lex + extra, key=lambda kv: -kv[1]), sem)


class ReachTerms:
    """One conversation's turns (the reach) as analysed term sets, the names they mention (`links.names`:
    capitalised words inside a sentence), and each term's turn count."""

    def __init__(self, light: dict[int, pipeline.Light]) -> None:
        analyzer = default_analyzer()
        self.terms: dict[int, set[str]] = {}
        self.names: dict[int, set[str]] = {}
        self.df: Counter[str] = Counter()
        self.holding: dict[str, set[int]] = defaultdict(set)
        for key, lt in light.items():
            text = _LABEL.sub("", lt.text or "")
            terms = set(analyzer.index_terms(text))
            self.terms[key] = terms
            self.df.update(terms)
            for t in terms:
                self.holding[t].add(key)
            self.names[key] = set(names(lt.text or "", analyzer))


_REACHES: dict[int, ReachTerms] = {}


def reach_terms(q: Question) -> ReachTerms:
    if q.conv not in _REACHES:
        _REACHES[q.conv] = ReachTerms(q.full.light)
    return _REACHES[q.conv]


def linked_turns(q: Question, c: Captured, seeds: str, top: int, kind: str, df: int) -> dict[int, float]:
    """The turns sharing a rare entity (held by 2..`df` turns) with the default read's `top` best turns
    (`seeds="top"`) or with the question (`"question"`, held by 1..`df`), each at its best linking
    turn's score (the question's seed scores as the read's best)."""
    r = reach_terms(q)
    analyzer = default_analyzer()
    first = default_read(c)
    asked = set(analyzer.query_terms(q.text))
    links: list[tuple[float, set[str]]] = []
    if seeds in ("top", "both"):
        for key, score in first[:top]:
            held = r.names[key] if kind == "names" else r.terms[key]
            links.append((score, {t for t in held - asked if 2 <= r.df[t] <= df}))
    if seeds in ("question", "both") and first:
        held = asked & names(q.text, analyzer) if kind == "names" else asked
        links.append((first[0][1], {t for t in held if 1 <= r.df[t] <= df}))
    out: dict[int, float] = {}
    for score, terms in links:
        for t in terms:
            for key in r.holding[t]:
                if score > out.get(key, -1.0):
                    out[key] = score
    return out


def entity_read(
    q: Question, c: Captured, seeds: str, top: int, kind: str, df: int, how: str, weight: float = 1.0
) -> pipeline.Ranked:
    """The default read with the linked turns added: to both lists and ranked again (`pool`), or to the
    final order at the linking turn's score times `weight` (`link`; a turn keeps its better score)."""
    add = linked_turns(q, c, seeds, top, kind, df)
    if how == "pool":
        lex, sem = pooled(c)
        lex_keys = {k for k, _ in lex} | set(add)
        sem_keys = {k for k, _ in sem} | set(add)
        return ranked(c, [kv for kv in c.lex if kv[0] in lex_keys], [kv for kv in c.sem if kv[0] in sem_keys])
    best = dict(default_read(c))
    for key, score in add.items():
        if score * weight > best.get(key, -1.0):
            best[key] = score * weight
    return sorted(best.items(), key=lambda kv: -kv[1])


def recall(questions: list[Question], orders: list[pipeline.Ranked]) -> dict[str, float]:
    cells: dict[str, list[float]] = defaultdict(list)
    for q, order in zip(questions, orders, strict=True):
        if not q.evidence:
            continue
        for k in KS:
            got = len({key for key, _ in order[:k]} & q.evidence) / len(q.evidence)
            cells[f"R@{k}"].append(got)
            cells[f"R@{k} {CATEGORIES[q.cat]}"].append(got)
            split = "tune" if q.conv in TUNE else "check" if q.conv in CHECK else "other"
            cells[f"R@{k} {split}"].append(got)
            cells[f"R@{k} {CATEGORIES[q.cat]} {split}"].append(got)
    return {name: sum(v) / len(v) for name, v in cells.items()}


COLUMNS = [
    "R@5",
    "R@10",
    "R@20",
    "R@20 multi-hop",
    "R@20 multi-hop tune",
    "R@20 multi-hop check",
    "R@10 open-domain",
    "R@10 open-domain tune",
    "R@10 open-domain check",
    "R@10 temporal tune",
    "R@10 temporal check",
    "R@10 tune",
    "R@10 check",
]


def levers(questions: list[Question]) -> list[tuple[str, list[pipeline.Ranked], float]]:
    """Each variant's orders and its ranking CPU time per question (ms)."""
    variants: list[tuple[str, Callable[[Question], pipeline.Ranked]]] = [
        (
            "read once (the shipped read without the decompose and links stages)",
            lambda q: default_read(q.full),
        ),
        ("read once, without the window stage either", lambda q: without_window(q.full)),
    ]
    for n in (1, 2, 3):
        for score in ("sum", "max"):
            variants.append(
                (
                    f"session read: {n} best session(s) by {score} of the top 10",
                    lambda q, n=n, score=score: session_read(q.full, n, score, 10),
                )
            )
    variants.append(("session read: 2 by sum of the top 20", lambda q: session_read(q.full, 2, "sum", 20)))
    for top, hops in ((10, 1), (10, 2), (20, 1)):
        variants.append(
            (
                f"neighbour read: turns {hops} away from the top {top} added",
                lambda q, top=top, hops=hops: neighbour_read(q.full, top, hops),
            )
        )
    for decay in (0.9, 0.8):
        variants.append(
            (
                f"session spread: a turn's score times {decay} per turn of its session above it",
                lambda q, decay=decay: session_spread(default_read(q.full), q.full.light, decay),
            )
        )
    for how in ("max", "interleave"):
        variants.append(
            (
                f"decomposition, merged by {how}" + (" (the decompose stage alone)" if how == "max" else ""),
                lambda q, how=how: decomposed(q, default_read, how),
            )
        )
    for pool in (90, 120):
        variants.append(
            (
                f"decomposition, the parts' lists fused (rank fusion, best {pool}) before one reranking",
                lambda q, pool=pool: fused_parts(q, pool),
            )
        )
    for width in (80, 100, 150):
        variants.append(
            (
                f"wider lists: each ranker's best {width}",
                lambda q, w=width: ranked(q.full, *pooled(q.full, pool=w)),
            )
        )
    for top, words in FEEDBACK:
        for how in ("add", "replace"):
            variants.append(
                (
                    f"feedback: {words} words of the best {top} turns, the expanded list's rows ({how})",
                    lambda q, top=top, words=words, how=how: feedback_read(q, top, words, how),
                )
            )
    for kind, df, seeds, top, how, weight in (
        ("names", 3, "question", 0, "pool", 1.0),
        ("words", 3, "question", 0, "pool", 1.0),
        ("words", 3, "question", 0, "link", 0.8),
        ("names", 3, "top", 10, "pool", 1.0),
        ("names", 3, "top", 3, "link", 0.7),
        ("names", 3, "top", 5, "link", 0.5),
        ("names", 3, "top", 5, "link", 0.7),
        ("names", 3, "top", 5, "link", 0.9),
        ("names", 3, "top", 10, "link", 0.7),
        ("names", 2, "top", 5, "link", 0.7),
        ("names", 6, "top", 5, "link", 0.7),
        ("names", 12, "top", 5, "link", 0.7),
        ("names", 3, "both", 5, "link", 0.7),
        ("words", 3, "top", 3, "pool", 1.0),
        ("words", 3, "top", 3, "link", 0.5),
        ("words", 6, "top", 10, "link", 0.5),
    ):
        src = (
            "the question's"
            if seeds == "question"
            else f"the best {top} turns'" + (" and the question's" if seeds == "both" else "")
        )
        what = "capitalised names" if kind == "names" else "content words"
        scored = "pooled, ranked again" if how == "pool" else f"linking score x {weight}"
        variants.append(
            (
                f"entity links: {src} {what} held by <= {df} turns, {scored}",
                lambda q, a=(seeds, top, kind, df, how, weight): entity_read(q, q.full, *a),
            )
        )
    variants.append(
        (
            "entity links: the best 5 turns' capitalised names held by <= 3 turns, linking score x 0.7,"
            " + decomposition (max) (shipped: the decompose and links stages)",
            lambda q: decomposed(
                q, lambda c, q=q: entity_read(q, c, "top", 5, "names", 3, "link", 0.7), how="max"
            ),
        )
    )
    variants.append(
        (
            "session read (2, sum) + decomposition (max)",
            lambda q: decomposed(q, lambda c: session_read(c, 2, "sum", 10), "max"),
        )
    )
    out = []
    for label, fn in variants:
        t = time.process_time()
        orders = [fn(q) for q in questions]
        ms = (time.process_time() - t) * 1000 / len(questions)
        out.append((label, orders, ms))
    for n in (2, 3):
        t = time.process_time()
        orders = refitted_session_read(questions, n)
        ms = (time.process_time() - t) * 1000 / len(questions)
        out.append((f"session read: {n} by sum of the top 10, weights refitted (0-1)", orders, ms))
    return out


def outside_pool(questions: list[Question]) -> str:
    """Where the evidence of multi-hop and open-domain questions sits against the default read."""
    rows = []
    for cat in (1, 3):
        top10 = pool = session = total = 0
        for q in questions:
            if q.cat != cat:
                continue
            order = default_read(q.full)
            pooled = {k for k, _ in order}
            threads = {q.full.light[k].thread for k, _ in order[:10]}
            for e in q.evidence:
                total += 1
                if e in {k for k, _ in order[:10]}:
                    top10 += 1
                elif e in pooled:
                    pool += 1
                elif q.full.light.get(e) is not None and q.full.light[e].thread in threads:
                    session += 1
        rest = total - top10 - pool - session
        rows.append(
            [CATEGORIES[cat]] + [f"{x / total:.2f}" for x in (top10, pool, session, rest)] + [str(total)]
        )
    headers = [
        "category",
        "in the top 10",
        "rest of the pool",
        "outside it, in a top-10 session",
        "elsewhere",
    ]
    return table([*headers, "evidence turns"], rows)


def render(questions: list[Question], results: list[tuple[str, list[pipeline.Ranked], float]]) -> str:
    rows = []
    for label, orders, ms in results:
        r = recall(questions, orders)
        rows.append([label] + [f"{r.get(c, float('nan')):.3f}" for c in COLUMNS] + [f"{ms:.2f}"])
    decomposable = sum(1 for q in questions if q.subs)
    return "\n".join(
        [
            "## LoCoMo levers (`bench/locomo_levers.py`)",
            "",
            f"Data: `locomo_dev.json`, {len(questions)} questions; hybrid, the default embedder. Each "
            "question's full candidate lists are captured once from the SQLite engine, then each variant "
            "replays `pipeline.rank` on what it would be handed (the shipped read, `decomposition, merged "
            "by max` with the entity links of the best 5 turns at x 0.7, reproduces `bench/locomo.py`'s "
            "hybrid figures). The session read adds the best "
            "sessions' turns with the two rankers' own scores for them, which an engine would have to "
            "supply (not built: see docs/architecture/retrieval.md); feedback reads the expanded query "
            f"through the engine's lexical ranker. {decomposable} questions split into sub-questions. "
            "`ms` is the ranking CPU time per question in this process (no SQL, no embedding of "
            f"sub-questions); machine: {machine_line()}, shared, so it is noisy. Recall is deterministic.",
            "",
            table(["variant", *COLUMNS, "rank ms"], rows),
            "",
            "Where the evidence of the read once sits (share of evidence turns):",
            "",
            outside_pool(questions),
        ]
    )


async def main_async(args: argparse.Namespace) -> int:
    questions, _ = await capture(Path(args.file))
    assert DEFAULT_CONFIG.rerank.model
    md = render(questions, levers(questions))
    print(md)
    if not args.no_write:
        write_section("locomo-levers", md)
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", nargs="?", default=str(DEFAULT_FILE), help="LoCoMo-format JSON")
    parser.add_argument("--no-write", action="store_true", help="do not update docs/benchmarks.md")
    return asyncio.run(main_async(parser.parse_args()))


if __name__ == "__main__":
    sys.exit(main())
