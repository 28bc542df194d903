"""Memory formation: are the learnings the belief build keeps right, complete and current?

Two measures, each with no LLM by default, and with the LLM path when `--llm` is given (an
OpenAI-compatible endpoint from TINYMEMORY_LLM_BASE_URL / _MODEL / _API_KEY):

1. LoCoMo observations (the `observation` field of the dev split: facts about each speaker, each with
   the turn that states it). Each conversation goes through `AgentMemory.post_turn` and its
   BackgroundJob, one agent per speaker, that speaker's turns as the user's (the other's as replies).
   recall = share of observations whose turn some learning of that speaker cites; precision = share of
   learnings that cite an observation's turn. Conversations 0-1 were used to tune the rules, 2-3 check.
2. A labelled set of our own (bench/data/formation_labelled.json): threads of user turns, each turn
   labelled with the (subject, value) pairs it should yield and its class, and for update threads the
   value each subject must hold at the end. Per class: precision and recall of (subject, value); and
   the share of updated subjects whose active learning holds the latest value. Threads come in batches,
   each written before it was first run; each batch's first run was its clean held-out, and batches
   1-8 have since guided general rule fixes. Batch 8 was written by an author who never saw the rules;
   its held-out run gave 18/33 updated subjects on the latest value, and it then guided an eighth round,
   so it is a tuning batch now too. Batch 9 was written the same way after that round; its
   held-out run gave 17/35, and it then guided a ninth round, so it is a tuning batch now too. Batch 10
   (HELD_OUT) was written the same way after that round; its held-out run gave 19/37, and it then guided
   a tenth round, so it is a tuning batch now too. All batches are reported.

    python bench/formation.py [--llm] [--no-write] [--misses] [--tune] [--locomo PATH] [--labelled PATH]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from locomo import DEFAULT_FILE, parse_session_time
from report import machine_line, table, write_section
from tinymemory.api import ItemKind, ListRequest, MemoryItem, MetaFilter, Reach
from tinymemory.engines.sqlite import SqliteEngine
from tinymemory.lifecycle import AgentMemory, MemoryLayout
from tinymemory.llm import LLM

LABELLED = Path(__file__).resolve().parent / "data" / "formation_labelled.json"
LAYOUT = MemoryLayout.at("bench:formation")
HELD_OUT = 10  # the batch written (and committed) without sight of the rules, run once after the last round


class Clock:
    """The conversation's own timeline: each turn one minute after the last, from a start the caller
    moves (a LoCoMo session's date-time)."""

    def __init__(self, start: datetime) -> None:
        self.t = start

    def at(self, start: datetime) -> None:
        self.t = max(self.t, start)

    def __call__(self) -> datetime:
        self.t += timedelta(minutes=1)
        return self.t


async def _learnings(engine: SqliteEngine, agent: str) -> list[MemoryItem]:
    flt = MetaFilter(reach=Reach.exact(LAYOUT.learnings(agent)), kinds=(ItemKind.LEARNING,))
    out: list[MemoryItem] = []
    cursor = None
    while True:
        page = await engine.list(ListRequest(filter=flt, limit=500, cursor=cursor))
        out += page.items
        cursor = page.next_cursor
        if not cursor:
            return out


# -- LoCoMo observations --------------------------------------------------------------------------------


@dataclass
class LocomoResult:
    sample_id: str
    observations: int = 0
    observed: int = 0  # observations whose turn a learning cites
    learnings: int = 0
    on_observation: int = 0  # learnings citing an observation's turn


async def locomo_one(sample: dict[str, Any], llm: LLM | None, notes: bool = True) -> LocomoResult:
    conv = sample["conversation"]
    result = LocomoResult(str(sample["sample_id"]))
    obs: dict[str, list[str]] = defaultdict(list)
    for session in sample["observation"].values():
        for speaker, facts in session.items():
            for _text, dia in facts:
                for i in dia if isinstance(dia, list) else [dia]:
                    obs[speaker].append(str(i))
    speakers = [conv["speaker_a"], conv["speaker_b"]]
    with tempfile.TemporaryDirectory() as tmp:
        async with SqliteEngine(f"{tmp}/m.db", embedder=None) as engine:
            for speaker in speakers:
                agent = "".join(c for c in speaker.lower() if c.isalnum()) or "speaker"
                clock = Clock(datetime(2000, 1, 1, tzinfo=UTC))
                mem = AgentMemory(
                    engine, agent, layout=LAYOUT, llm=llm, now=clock, compact_after=10_000, notes=notes
                )
                turn_dia: dict[str, str] = {}
                n = 1
                while f"session_{n}" in conv:
                    clock.at(parse_session_time(conv[f"session_{n}_date_time"]))
                    turns = conv[f"session_{n}"]
                    jobs = []
                    for i, turn in enumerate(turns):
                        if turn["speaker"] != speaker:
                            continue
                        reply = next((t["text"] for t in turns[i + 1 :] if t["speaker"] != speaker), None)
                        log = await mem.post_turn(f"session_{n}", turn["text"], reply)
                        turn_dia[log.turn_ids[0]] = turn["dia_id"]
                        jobs.append(log.job)
                    if jobs:
                        await jobs[-1]  # one build per session reads every turn of the thread
                    n += 1
                mine = set(obs.get(speaker, []))
                cited: set[str] = set()
                for item in await _learnings(engine, agent):
                    dias = {turn_dia[e] for e in item.meta.evidence if e in turn_dia}
                    result.learnings += 1
                    if dias & mine:
                        result.on_observation += 1
                    cited |= dias
                result.observations += len(obs.get(speaker, []))
                result.observed += sum(1 for d in obs.get(speaker, []) if d in cited)
    return result


async def locomo(path: Path, llm: LLM | None, notes: bool = True) -> list[LocomoResult]:
    data = json.loads(path.read_text())
    return [await locomo_one(sample, llm, notes) for sample in data[:4]]


def _split(picks: list[LocomoResult]) -> tuple[str, str]:
    """(recall, precision) over some conversations."""
    o, h = sum(r.observations for r in picks), sum(r.observed for r in picks)
    n, p = sum(r.learnings for r in picks), sum(r.on_observation for r in picks)
    return _ratio(h, o), _ratio(p, n)


# -- the labelled set -----------------------------------------------------------------------------------


@dataclass
class ClassScore:
    expected: int = 0
    found: int = 0  # expected pairs some learning of the turn matches
    produced: int = 0  # learnings the class's turns produced
    correct: int = 0  # of those, ones matching an expected pair of the turn


@dataclass
class LabelledResult:
    per_class: dict[str, ClassScore] = field(default_factory=lambda: defaultdict(ClassScore))
    updated: int = 0
    current: int = 0  # updated subjects whose active learning holds the latest value
    misses: list[str] = field(default_factory=list)


def _subject_matches(expected: str, item: MemoryItem) -> bool:
    """`kind/key` against the learning's About: same kind, and one key's words contain the other's."""
    about = item.meta.about
    if about is None:
        return expected == ""
    kind, _, key = expected.partition("/")
    if kind != about.kind:
        return False
    a, b = set(key.lower().split()), set(about.key.lower().split())
    return a <= b or b <= a


def _value_matches(value: str, item: MemoryItem) -> bool:
    return value.lower() in item.text.lower()


async def labelled(threads: Sequence[dict[str, Any]], llm: LLM | None, notes: bool = True) -> LabelledResult:
    result = LabelledResult()
    with tempfile.TemporaryDirectory() as tmp:
        async with SqliteEngine(f"{tmp}/m.db", embedder=None) as engine:
            for n, thread in enumerate(threads):
                agent = f"t{n}"
                clock = Clock(datetime(2026, 3, 2, 9, 0, tzinfo=UTC))
                mem = AgentMemory(
                    engine, agent, layout=LAYOUT, llm=llm, now=clock, compact_after=10_000, notes=notes
                )
                for m, turn in enumerate(thread["turns"]):
                    log = await mem.post_turn(f"s{m // 4}", turn["text"], "Okay.")
                    await log.job
                    # what this turn produced: learnings (active now or superseded since) citing it
                    cited = await _cited(engine, agent, log.turn_ids[0])
                    produced = [i for i in await _learnings(engine, agent) if i.id in cited]
                    _score_turn(result, turn, produced)
                for subject, value in thread.get("final", {}).items():
                    result.updated += 1
                    active = [i for i in await _learnings(engine, agent) if _subject_matches(subject, i)]
                    if any(_value_matches(value, i) for i in active) and not any(
                        not _value_matches(value, i) for i in active if _same_key(subject, i)
                    ):
                        result.current += 1
                    else:
                        result.misses.append(f"{subject}={value!r}: {[i.text for i in active]}")
    return result


def _same_key(subject: str, item: MemoryItem) -> bool:
    about = item.meta.about
    return about is not None and f"{about.kind}/{about.key}" == subject


async def _cited(engine: SqliteEngine, agent: str, turn_id: str) -> set[str]:
    return {i.id for i in await _learnings(engine, agent) if turn_id in i.meta.evidence}


def _score_turn(result: LabelledResult, turn: dict[str, Any], produced: list[MemoryItem]) -> None:
    cls = turn["class"]
    score = result.per_class[cls]
    expected = [(p[0], p[1]) for p in turn.get("expect", [])]
    score.expected += len(expected)
    for subject, value in expected:
        if any(_subject_matches(subject, i) and _value_matches(value, i) for i in produced):
            score.found += 1
        else:
            result.misses.append(
                f"[{cls}] {turn['text']!r}: missed {subject}={value!r} got {[i.text for i in produced]}"
            )
    for item in produced:
        score.produced += 1
        if any(_subject_matches(s, item) and _value_matches(v, item) for s, v in expected):
            score.correct += 1
        else:
            result.misses.append(f"[{cls}] {turn['text']!r}: extra {item.text!r} {item.meta.about}")


# -- report ---------------------------------------------------------------------------------------------


def _ratio(a: int, b: int) -> str:
    return f"{a / b:.2f}" if b else "n/a"


def render(
    loco: list[LocomoResult],
    batches: Sequence[tuple[str, LabelledResult]],
    n_threads: tuple[int, int],
    model: str | None,
    without_notes: tuple[LabelledResult, LabelledResult] | None = None,
    loco_without_notes: list[LocomoResult] | None = None,
) -> str:
    path = f"the LLM path ({model})" if model else "the rules (no LLM)"
    lines = [
        f"Measured with {path}. `python bench/formation.py`; {machine_line()}.",
        "",
        "**LoCoMo observations** (dev split; each speaker's turns as the user's, one belief build per "
        "session; "
        "recall = observations whose turn a learning cites, precision = learnings on an observation's turn; "
        "targets recall >= 0.50, precision >= 0.70):",
        "",
    ]
    rows = []
    for split, picks in (("tune (conv 0-1)", loco[:2]), ("check (conv 2-3)", loco[2:4])):
        o = sum(r.observations for r in picks)
        h = sum(r.observed for r in picks)
        n = sum(r.learnings for r in picks)
        p = sum(r.on_observation for r in picks)
        ids = ", ".join(r.sample_id for r in picks)
        rows.append([split, ids, str(o), _ratio(h, o), str(n), _ratio(p, n)])
    lines.append(table(["split", "conversations", "observations", "recall", "learnings", "precision"], rows))
    lines += ["", "P = precision, R = recall (of the expected pairs) in the tables below."]
    total, n_turns = n_threads
    groups = [res for _, res in batches]
    pairs = sum(s.expected for r in groups for s in r.per_class.values())
    lines += [
        "",
        f"**Labelled set** (`bench/data/formation_labelled.json`: {total} threads, {n_turns} user turns, "
        f"{pairs} expected (subject, value) pairs), in {len(batches) - 1} batches (batch 1 in two halves), "
        "each written before it was first run. "
        "The rules came first. Batch 1's even threads (tune) then guided a round of general fixes; its odd "
        "threads (held out) did not. Batch 2 was written after that round. A second round (leads before a "
        "comma, adverbs after the subject, comments after a value) followed from reading the misses of "
        "batch 1's odd threads and of batch 2. Batch 3 was written after it and run once as the clean "
        'held-out; a third round (perfect and progressive tenses, a name after "the", roles with an '
        'of-phrase, "as well"/"too" after a value, a place after a name, names bound earlier in the '
        "thread) then followed from its misses and the limits listed in docs/architecture/lifecycle.md. "
        "Batch 4 was written after the third round and run once as the clean held-out; a fourth round (a "
        "time phrase before the subject, a time phrase or a reason after a value, a partner described "
        'before the name, a relative named inside a clause, "stopped <doing>", measures before a drink, '
        '"I use X", a bare "I\'m <Name>", "home is X", common-noun workplaces after verbs that only mean a '
        "job, intentions kept as no note) then followed from its misses. Batch 5 was written before that "
        "round and run once after it as the clean held-out (0.69 of its updated subjects on the latest "
        "value then); a fifth round (a state begun, relationship states after a two-person subject, asking "
        'to be called a name, a negated activity ending its preference, a pet put down, "I drink X" for '
        "any drink and a drink noun keeping its category under a modifier, tools named in an activity, "
        '"use X instead" replacing a held instruction, conditions one "gets", "it" pointing back, '
        "avoiding a food, twins, introductions, named creatures of any kind) followed from its misses, so "
        "batches 1-5 are all tuning batches now. Batch 6 was written and committed before the fifth round "
        "changed any rule, and run once after it as the clean held-out (0.50 then); a sixth round (homes "
        'named by a dwelling, direction words before "to", more fronted time phrases, verbs of working and '
        'retiring, marrying and parting idioms, ages before any time phrase, "go-to" and "of choice", '
        "losing a liking, conditions developed and outgrown, orders about every answer, kinship titles "
        "before a name, and corrections, leavings and switches read against the values the thread holds) "
        "followed from its misses, so batch 6 is a tuning batch now too. Batch 7 was written and committed "
        "before the sixth round changed any rule, and run once after it as the clean held-out (0.38 then); a "
        "seventh round (homes had or reached by idiom, moves an employer made, employers hiring and "
        "dismissing the user, first days, past jobs, a year of birth, days that fall on a date, counted "
        "birthdays, names in apposition or in the clause after, deaths by euphemism, conditions by "
        "adjective, treatment or duration, reactions as allergies, diets concluded or ended, likings by "
        "idiom, habits of speech, instructions bounded by what the assistant does each time, names by cleft "
        "or spelled out, appointments) followed from its misses, so batch 7 is a tuning batch now too. "
        "Batch 8 was written while that round "
        "was being made, by an author who read neither the rules, their documentation nor any result (only "
        "the file's format and subject keys), committed before its first run, and run once after the round "
        "as the clean held-out (18 of 33 updated subjects on the latest value then); an eighth round (time "
        'phrases fronted with "this" or "last", subjects carried past a fronted phrase or dropped as chat '
        'drops them, "moved again, to X", comments and frequencies after a value, a coat or a breed as a '
        "pet's kind, pets counted and named in a list, obligations ended, switches to a way of answering, "
        "corrections restating a held title, being at a workplace while working there, a workplace "
        'described then named, "addict" and "fiend", "when you <answer>, ...", '
        "proper names used for a kind of output, being addressed as a name, introductions that list an age, "
        "a relative turning an age on a date) followed from its misses, so batch 8 is a tuning batch now "
        "too. Batch 9 was written after that round by an author in the same position (the "
        "rules, their documentation and every result unseen), committed before its first run, and run once "
        "after it as the clean held-out (17 of 35 updated subjects on the latest value then); a ninth round "
        "(titles of address in a name, introductions closed by a greeting, the name asked for after "
        '"but", time points fronted with "as of" and gerund clauses with "since", a fronted duration '
        "before a perfect, posts held at a named organisation, allergies had since a time or reacted to, "
        "pregnancies with a measure, one subject for a noun in either number and for a parent's birthday "
        "however the parent is called, relatives described or apposed before a birth date, clauses cut "
        "before a time adverb or another person's clause, languages and conventions of answering, answers "
        'in general as a bare plural or fronted, leads of news and of telling, favourites without "my", '
        "film and movie as one subject, hedges of opinion, twins one has as children, lists said to be "
        'about the user, promotions and their post after "so", pets listed after a named creature and '
        "creatures lived with, a sibling's baby, a condition added without a verb, activities kept to a "
        "schedule, getting to the point) followed from its misses, so batch 9 is a tuning batch now too. "
        f"Batch {HELD_OUT} was written after that round by an author in the same position, committed "
        "before its first run, and run once after it as the clean held-out (19 of 37 updated subjects on "
        'the latest value then); a tenth round (encouragement such as "keep answers coming" as no '
        'instruction, plurals refused or left out, a kind of output fronted with "for", the tone of '
        'answers, consequences after "so" and comments after a comma cut off, asides, hedges and '
        "pictographs dropped, diets, likings, births and states with their subject dropped, treatments "
        'carried or prescribed, a name and "here" after a greeting, full titles, corrections of an age, '
        "a name part or after an aside, a parent's title as the subject, birthdays as headings, the "
        'spouse, bracketed names and "me and X", relatives named in another\'s clause or a plan, pets '
        'added by a clause of naming, "RIP", posts set off after a start, leads before a colon, '
        'favourites asked and answered, what "it\'s ... now" names after a liking given up, "never" '
        "before a past tense, and slips of the rules' own words) followed from its misses, so batch "
        f"{HELD_OUT} is a tuning batch now too: its column, still marked held-out until an eleventh batch "
        "is written, shows it after that round. "
        "Precision counts every learning a class's turns produced; a `none` turn's "
        "every learning is wrong.",
        "",
    ]
    classes = sorted(set().union(*(r.per_class for r in groups)))
    rows = []
    for cls in classes:
        row = [cls]
        for res in groups:
            s = res.per_class.get(cls, ClassScore())
            row += [
                _ratio(s.correct, s.produced) if cls != "none" else f"{s.produced} wrong",
                f"{_ratio(s.found, s.expected)} of {s.expected}",
            ]
        rows.append(row)
    heads = ["class"]
    for name, _ in batches:
        heads += [f"{name} P", "R"]
    lines.append(table(heads, rows))
    current = ", ".join(
        f"{name} {res.current}/{res.updated} ({_ratio(res.current, res.updated)})" for name, res in batches
    )
    lines += ["", f"Updated subjects whose active learning holds the latest value: {current}; target 0.95."]
    if without_notes is not None:
        wrong = [r.per_class.get("none", ClassScore()).produced for r in without_notes]
        lines += [
            "",
            "Most learnings on `none` turns are notes (first-person statements without a subject, such as "
            f'"I had a long day" or a plan); with `AgentMemory(notes=False)` the `none` turns yield '
            f"{wrong[0]} (batch 1 tune) and {wrong[1]} (batch 1 odd).",
        ]
    if loco_without_notes:
        (r1, p1), (r2, p2) = _split(loco_without_notes[:2]), _split(loco_without_notes[2:4])
        lines += [
            "",
            f"LoCoMo without notes (the subject classes alone): recall {r1} / precision {p1} on conv 0-1, "
            f"{r2} / {p2} on conv 2-3.",
        ]
    if model is None:
        lines += [
            "",
            "These are counts, not timings, so the shared machine's noise does not touch them. No LLM "
            "figures were measured here: no OpenAI-compatible endpoint was available. `--llm` runs the "
            "same bench through one (its plumbing is tested against a scripted local server).",
        ]
    return "\n".join(lines)


async def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--llm", action="store_true", help="run the LLM path (TINYMEMORY_LLM_* settings)")
    ap.add_argument("--no-write", action="store_true", help="print only; leave docs/benchmarks.md")
    ap.add_argument("--locomo", type=Path, default=DEFAULT_FILE)
    ap.add_argument("--labelled", type=Path, default=LABELLED)
    ap.add_argument("--misses", action="store_true", help="print what the labelled set missed")
    ap.add_argument("--skip-locomo", action="store_true")
    ap.add_argument(
        "--tune", action="store_true", help="leave out the held-out batch (for tuning; implies --no-write)"
    )
    args = ap.parse_args(argv)
    llm = LLM.from_env() if args.llm else None
    if args.llm and llm is None:
        print(
            "--llm: no LLM configured (set TINYMEMORY_LLM_BASE_URL and TINYMEMORY_LLM_MODEL)", file=sys.stderr
        )
        return 2
    model = llm.config.model if llm else None
    try:
        loco = [] if args.skip_locomo else await locomo(args.locomo, llm)
        threads = json.loads(args.labelled.read_text())["threads"]
        if args.tune:  # the header's counts then describe what was run, not the held-out batch too
            threads = [t for t in threads if t.get("batch", 1) != HELD_OUT]
        base = [t for t in threads if t.get("batch", 1) == 1]
        picks: list[tuple[str, list[dict[str, Any]]]] = [("1 tune", base[0::2]), ("1 odd", base[1::2])]
        for b in sorted({int(t["batch"]) for t in threads if t.get("batch", 1) != 1}):
            name = f"{b} held-out" if b == HELD_OUT else str(b)
            picks.append((name, [t for t in threads if t.get("batch") == b]))
        batches = [(name, await labelled(group, llm)) for name, group in picks]
        bare = None
        loco_bare = None if llm or args.skip_locomo else await locomo(args.locomo, None, False)
        if llm is None:
            bare = (await labelled(base[0::2], None, False), await labelled(base[1::2], None, False))
    finally:
        if llm is not None:
            await llm.aclose()
    n_turns = sum(len(t["turns"]) for t in threads)
    md = render(loco, batches, (len(threads), n_turns), model, bare, loco_bare)
    print(md)
    if args.misses:
        for name, res in batches:
            print(f"--- {name} ---")
            for line in res.misses:
                print(line)
    if not (args.no_write or args.tune):
        write_section("formation" if not model else "formation-llm", md)
    return 0


if __name__ == "__main__":
    raise SystemExit(asyncio.run(main()))
