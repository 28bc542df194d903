"""Answer quality on LoCoMo: token F1 of recall's answer against the gold answers, per category.

Same protocol as bench/locomo.py (every turn one memory, each conversation in its own namespace,
categories 1-4), then for each question the public recall path (`engine.recall` with the default
limit, as the tools and `Memory.recall` call it) and its answer scored against the gold `answer` with
SQuAD-style token F1: lowercase, punctuation and articles dropped, whitespace tokens, precision and
recall over token multisets. An "oracle" row runs the same answerer on the gold evidence turns only,
so retrieval's share of the gap is visible apart from extraction's.

With an LLM configured (TINYMEMORY_LLM_BASE_URL and TINYMEMORY_LLM_MODEL, see tinymemory.llm) the LLM
also answers through recall, and an LLM judge marks every answer CORRECT or WRONG against the gold
one: the judged accuracy published LoCoMo results quote. Without one, that part is skipped and said so.

    python bench/locomo_answers.py [FILE] [--no-write] [--limit N]

The last line printed is `answer_f1=<value>` for recall's default (extractive) answer.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import string
import sys
import tempfile
import time
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from locomo import (
    CATEGORIES,
    DEFAULT_FILE,
    CachedEmbedder,
    Conversation,
    EvidenceStats,
    clean_evidence,
    load,
    store_all,
)
from report import machine_line, percentile, table, write_section
from tinymemory.api import (
    GetRequest,
    Hit,
    MemoryEngine,
    MetaFilter,
    Reach,
    RecallRequest,
    TinyMemoryError,
)
from tinymemory.llm import LLM, LLMAnswerer, LLMConfig
from tinymemory.retrieval.answer import Answerer, ExtractiveAnswerer

SECTION = "locomo-answers"
# What a user asking for a short answer would pass; the extractive answerer does not read it.
INSTRUCTIONS = "Answer in as few words as the question allows: a name, a short phrase or a date."
NO_LLM = (
    "LLM-judged accuracy: not run, because no LLM is configured "
    "(set TINYMEMORY_LLM_BASE_URL and TINYMEMORY_LLM_MODEL to an OpenAI-compatible server)."
)

# -- scoring -------------------------------------------------------------------------------------------

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_ASCII_PUNCT = set(string.punctuation)


def normalize(text: str) -> str:
    """SQuAD's answer normalisation: lowercase, no punctuation (Unicode too), no articles, single spaces."""
    lowered = text.lower()
    kept = "".join(
        ch for ch in lowered if ch not in _ASCII_PUNCT and not unicodedata.category(ch).startswith("P")
    )
    return " ".join(_ARTICLES.sub(" ", kept).split())


def tokens(text: str) -> list[str]:
    return normalize(text).split()


def f1(prediction: str, gold: str) -> float:
    """Token F1 over multisets: 1.0 when both are empty after normalisation, 0.0 when only one is."""
    pred, ref = tokens(prediction), tokens(gold)
    if not pred or not ref:
        return float(pred == ref)
    same = sum((Counter(pred) & Counter(ref)).values())
    if same == 0:
        return 0.0
    precision, recall = same / len(pred), same / len(ref)
    return 2 * precision * recall / (precision + recall)


def token_recall(prediction: str, gold: str) -> float:
    """Share of the gold answer's tokens the prediction holds: is the answer in there at all."""
    pred, ref = tokens(prediction), tokens(gold)
    if not ref:
        return float(not pred)
    return sum((Counter(pred) & Counter(ref)).values()) / len(ref)


def exact_match(prediction: str, gold: str) -> bool:
    return normalize(prediction) == normalize(gold)


# -- data ------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Question:
    text: str
    category: int
    evidence: tuple[str, ...]
    gold: str


def gold_answers(path: Path, convs: Sequence[Conversation]) -> list[list[Question]]:
    """Each conversation's questions as locomo.load keeps them (categories 1-4 with evidence), with the
    gold `answer` beside each (an int in a few questions, so str() it)."""
    data: list[dict[str, Any]] = json.loads(path.read_text())
    out: list[list[Question]] = []
    for sample, conv in zip(data, convs, strict=True):
        known, scratch = set(conv.dia_ids), EvidenceStats()
        golds = [
            str(qa.get("answer", ""))
            for qa in sample["qa"]
            if int(qa["category"]) in CATEGORIES
            and clean_evidence([str(e) for e in qa.get("evidence", [])], known, scratch)
        ]
        questions = [
            Question(text, cat, tuple(evidence), gold)
            for (text, cat, evidence), gold in zip(conv.questions, golds, strict=True)
        ]
        out.append(questions)
    return out


# -- the LLM judge ---------------------------------------------------------------------------------------

JUDGE_PROMPT = (
    "You grade one answer given by a memory system to a question about a long conversation between two "
    "people, against the reference answer. Mark it CORRECT when it states the fact the reference states: "
    "extra words, more detail or other phrasing are fine, and a date or time counts when it names the "
    "same day, month, year or period, in any format. Mark it WRONG when it misses or contradicts the "
    "reference's key fact, or says the answer is not known. Reply with one word: CORRECT or WRONG."
)
_VERDICT = re.compile(r"\b(CORRECT|INCORRECT|WRONG)\b")


def parse_verdict(content: str) -> bool | None:
    """True for CORRECT, False for WRONG (or INCORRECT), None when the judge said neither."""
    words = set(_VERDICT.findall(content.upper()))
    if words & {"WRONG", "INCORRECT"}:
        return False if "CORRECT" not in words else None
    return True if "CORRECT" in words else None


class Judge:
    """The LLM as grader: one chat per answer, temperature as configured (0 by default)."""

    def __init__(self, llm: LLM) -> None:
        self.llm = llm
        self.unparsed = 0

    async def correct(self, question: str, gold: str, answer: str) -> bool:
        content = await self.llm.chat(
            [
                {"role": "system", "content": JUDGE_PROMPT},
                {
                    "role": "user",
                    "content": f"Question: {question}\nReference answer: {gold}\nAnswer to grade: {answer}",
                },
            ],
            op="locomo judge",
        )
        verdict = parse_verdict(content)
        if verdict is None:
            self.unparsed += 1
        return bool(verdict)


# -- the run -----------------------------------------------------------------------------------------------


@dataclass
class Tally:
    """One answerer's scores per category (0 = all), answer lengths, latency and failures."""

    f1: dict[int, list[float]] = field(default_factory=lambda: defaultdict(list))
    em: dict[int, list[float]] = field(default_factory=lambda: defaultdict(list))
    recall: dict[int, list[float]] = field(default_factory=lambda: defaultdict(list))
    judged: dict[int, list[float]] = field(default_factory=lambda: defaultdict(list))
    lengths: list[int] = field(default_factory=list)
    latencies: list[float] = field(default_factory=list)
    failures: int = 0

    def add(self, q: Question, answer: str, latency_ms: float | None, correct: bool | None) -> None:
        for cat in (0, q.category):
            self.f1[cat].append(f1(answer, q.gold))
            self.em[cat].append(float(exact_match(answer, q.gold)))
            self.recall[cat].append(token_recall(answer, q.gold))
            if correct is not None:
                self.judged[cat].append(float(correct))
        self.lengths.append(len(tokens(answer)))
        if latency_ms is not None:
            self.latencies.append(latency_ms)

    def result(self) -> dict[str, Any]:
        def mean(d: dict[int, list[float]]) -> dict[int, float]:
            return {c: sum(v) / len(v) for c, v in d.items() if v}

        return {
            "f1": mean(self.f1),
            "em": mean(self.em),
            "token_recall": mean(self.recall),
            "judged": mean(self.judged) or None,
            "mean_tokens": sum(self.lengths) / len(self.lengths) if self.lengths else float("nan"),
            "p50_ms": percentile(self.latencies, 50),
            "failures": self.failures,
        }


async def _recall(
    engine: MemoryEngine, q: Question, flt: MetaFilter, tally: Tally
) -> tuple[str, float | None]:
    t = time.perf_counter()
    try:
        res = await engine.recall(RecallRequest(q.text, filter=flt, instructions=INSTRUCTIONS))
    except TinyMemoryError as exc:  # a model's failure costs one answer, not the run
        tally.failures += 1
        print(f"recall failed for {q.text!r}: {exc}", file=sys.stderr)
        return "", None
    return res.answer, (time.perf_counter() - t) * 1000


async def _oracle(answerer: Answerer, q: Question, evidence: list[Hit], tally: Tally) -> str:
    try:
        return await answerer.answer(q.text, evidence, INSTRUCTIONS)
    except TinyMemoryError as exc:
        tally.failures += 1
        print(f"oracle answer failed for {q.text!r}: {exc}", file=sys.stderr)
        return ""


async def _judge(judge: Judge | None, q: Question, answer: str, tally: Tally) -> bool | None:
    if judge is None:
        return None
    try:
        return await judge.correct(q.text, q.gold, answer)
    except TinyMemoryError as exc:
        tally.failures += 1
        print(f"judge failed for {q.text!r}: {exc}", file=sys.stderr)
        return False


async def evidence_hits(
    engine: MemoryEngine, q: Question, dia_to_id: Mapping[str, str], reach: Reach
) -> list[Hit]:
    """The gold evidence turns as hits, in the order the gold lists them."""
    got = await engine.get(GetRequest(tuple(dia_to_id[d] for d in q.evidence), reach=reach))
    by_id = {item.id: item for item in got.items}
    return [Hit(by_id[dia_to_id[d]], 1.0) for d in q.evidence if dia_to_id[d] in by_id]


async def answer_all(
    engine: Any,
    convs: Sequence[Conversation],
    questions: Sequence[Sequence[Question]],
    dia_to_id: Mapping[str, Mapping[str, str]],
    answerers: Mapping[str, Answerer],
    judge: Judge | None,
) -> dict[str, dict[str, Any]]:
    """For each answerer: recall through the engine (the answerer swapped in) and the oracle on the gold
    evidence; every answer scored, and judged when there is a judge."""
    rows: dict[str, dict[str, Any]] = {}
    default = engine.answerer
    for name, answerer in answerers.items():
        live, oracle = Tally(), Tally()
        engine.answerer = answerer
        try:
            for conv, qs in zip(convs, questions, strict=True):
                reach = Reach.exact(conv.items[0].meta.namespace)
                flt = MetaFilter(reach=reach)
                for q in qs:
                    answer, latency = await _recall(engine, q, flt, live)
                    live.add(q, answer, latency, await _judge(judge, q, answer, live))
                    hits = await evidence_hits(engine, q, dia_to_id[conv.sample_id], reach)
                    t = time.perf_counter()
                    gold_only = await _oracle(answerer, q, hits, oracle)
                    latency = (time.perf_counter() - t) * 1000
                    oracle.add(q, gold_only, latency, await _judge(judge, q, gold_only, oracle))
        finally:
            engine.answerer = default
        rows[f"recall, {name}"] = live.result()
        rows[f"{name} on the gold evidence only (oracle)"] = oracle.result()
    return rows


def _take(
    convs: list[Conversation], qs: list[list[Question]], limit: int | None
) -> tuple[list[Conversation], list[list[Question]]]:
    """The first `limit` questions in file order, and only the conversations they belong to."""
    if limit is None:
        return convs, qs
    kept_c: list[Conversation] = []
    kept_q: list[list[Question]] = []
    left = limit
    for conv, questions in zip(convs, qs, strict=True):
        if left <= 0:
            break
        kept_c.append(conv)
        kept_q.append(questions[:left])
        left -= len(kept_q[-1])
    return kept_c, kept_q


def mean_gold_tokens(questions: Sequence[Sequence[Question]]) -> float:
    counts = [len(tokens(q.gold)) for qs in questions for q in qs]
    return sum(counts) / len(counts) if counts else float("nan")


def _cell(values: Mapping[int, float] | None, cat: int) -> str:
    return f"{values[cat]:.3f}" if values and cat in values else "-"


def render(result: dict[str, Any]) -> str:
    rows = result["rows"]
    quality = [
        [label]
        + [_cell(r["f1"], c) for c in (0, *CATEGORIES)]
        + [_cell(r["em"], 0), _cell(r["token_recall"], 0), f"{r['mean_tokens']:.1f}", f"{r['p50_ms']:.1f}"]
        for label, r in rows.items()
    ]
    headers = ["answer", "F1 all"] + [f"F1 {n}" for n in CATEGORIES.values()]
    headers += ["exact match", "gold tokens found", "answer tokens", "p50 ms"]
    lines = [
        "## LoCoMo answer quality (`bench/locomo_answers.py`)",
        "",
        f"Data: `{result['file']}`, {result['items']} turns, {result['questions']} questions (categories "
        f"1-4), stored as in `bench/locomo.py`. Each question goes through `recall` (default limit, mode "
        f"{result['mode']}, embedder {result['embedder']}) and its answer is scored against LoCoMo's gold "
        "answer with SQuAD-style token F1 (lowercase, punctuation and articles dropped, token multisets). "
        "The oracle rows give the same answerer only the gold evidence turns: the gap between a recall row "
        "and its oracle is retrieval's, the gap from the oracle to 1.0 is the answer step's. `gold tokens "
        "found` is the share of the gold answer's tokens present in the answer, whatever its length. "
        f"Latency is per recall, one at a time (oracle rows: the answer step alone). Machine: "
        f"{result['machine']}.",
        "",
        table(headers, quality),
        "",
        "The extractive answer quotes whole sentences, about "
        f"{rows['recall, extractive (default)']['mean_tokens']:.0f} tokens against gold answers of "
        f"{result['gold_tokens']:.1f} on average, so its precision, and with it F1, stays low even when "
        "the quote holds the answer (exact match is near 0 by construction); `gold tokens found` says how "
        "often it does.",
        "",
    ]
    judged = {label: r["judged"] for label, r in rows.items() if r["judged"]}
    if judged:
        lines += [
            f"LLM-judged accuracy (model `{result['llm']}` answers and judges; the judge is told to accept "
            "the reference's fact in any wording or date format). The LLM answerer is given each memory's "
            "text with the day it was recorded and the days it is about. "
            f"Judge replies that were neither CORRECT nor WRONG, counted as wrong: {result['unparsed']}. "
            f"Failed calls: {sum(r['failures'] for r in rows.values())}.",
            "",
            table(
                ["answer", "accuracy all"] + [f"accuracy {n}" for n in CATEGORIES.values()],
                [[label] + [_cell(j, c) for c in (0, *CATEGORIES)] for label, j in judged.items()],
            ),
        ]
    else:
        lines.append(result["judge_note"])
    return "\n".join(lines)


async def run_answers(
    path: Path,
    write: bool,
    limit: int | None,
    *,
    lexical_only: bool = False,
    env: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """Run the bench on a LoCoMo-format file; `env` (default os.environ) says whether an LLM is configured.
    Returns the figures and the markdown; writes the `locomo-answers` section when `write`."""
    from tinymemory.engines.sqlite import SqliteEngine

    convs = load(path, EvidenceStats())
    convs, questions = _take(convs, gold_answers(path, convs), limit)
    config = LLMConfig.from_env(env)
    llm = LLM(config) if config else None
    machine = machine_line()
    embedder: Any = None
    if not lexical_only:
        from tinymemory.retrieval.embedders import default_embedder

        try:
            embedder = CachedEmbedder(default_embedder())
        except Exception as exc:  # no weights: lexical only, as the engine itself would do
            print(f"embedder unavailable ({exc}); lexical only", file=sys.stderr)
    answerers: dict[str, Answerer] = {"extractive (default)": ExtractiveAnswerer()}
    if llm is not None:
        answerers[f"LLM {config.model}" if config else "LLM"] = LLMAnswerer(llm)
    judge = Judge(llm) if llm is not None else None
    try:
        with tempfile.TemporaryDirectory(prefix="tinymemory-locomo-answers-") as tmp:
            async with SqliteEngine(str(Path(tmp) / "locomo.db"), embedder=embedder) as engine:
                dia_to_id: dict[str, dict[str, str]] = {}
                n_items = 0
                for conv in convs:  # dia ids repeat across conversations: map them per conversation
                    id_to_dia, stored, _ = await store_all(engine, [conv])
                    dia_to_id[conv.sample_id] = {dia: item_id for item_id, dia in id_to_dia.items()}
                    n_items += stored
                rows = await answer_all(engine, convs, questions, dia_to_id, answerers, judge)
                default = engine.descriptor.default_mode()
                result: dict[str, Any] = {
                    "file": path.name,
                    "items": n_items,
                    "questions": sum(len(q) for q in questions),
                    "gold_tokens": mean_gold_tokens(questions),
                    "mode": default.value if default else "none",
                    "embedder": engine.descriptor.embedder or "none",
                    "machine": machine,
                    "rows": rows,
                    "llm": config.model if config else None,
                    "unparsed": judge.unparsed if judge else 0,
                    "judge_note": "" if judge else NO_LLM,
                }
    finally:
        if llm is not None:
            await llm.aclose()
    result["markdown"] = render(result)
    if write:
        write_section(SECTION, result["markdown"])
    return result


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("file", nargs="?", default=str(DEFAULT_FILE), help="LoCoMo-format JSON")
    parser.add_argument("--no-write", action="store_true", help="do not update docs/benchmarks.md")
    parser.add_argument("--limit", type=int, help="only the first N questions (file order)")
    args = parser.parse_args()
    if args.limit is not None and args.limit < 1:
        parser.error("--limit must be at least 1")
    result = asyncio.run(run_answers(Path(args.file), not args.no_write, args.limit))
    print(result["markdown"])
    print(f"answer_f1={result['rows']['recall, extractive (default)']['f1'][0]:.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
