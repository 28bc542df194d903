"""The search page's "why" part: which recalled memories are worth listing, and each one's signals in words.

The search asks memory__recall to explain (`explain: true`), so every memory carries `metadata.why`: the
signals behind its score, read from the caller's reach alone. Recall always fills its page (the
semantic ranker finds a nearest memory for any query, however unrelated), so the page applies a
relevance cut of its own: a memory is listed when it shares a word with the query (it is in the
lexical list) or when its cosine reaches SEMANTIC_FLOOR. docs/inspector.md says how the floor was set.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tinymemory.service.inspector.markup import Html, fill, join

# Above the best cosine any of 200 random letter strings reached against a small store with the
# default embedder (0.47); a purely semantic match weaker than that is not told apart from noise.
SEMANTIC_FLOOR = 0.5

FEATURE_WORDS = {
    "lex_norm": "keyword score, relative to the other keyword matches",
    "sem_norm": "meaning score, relative to the other meaning matches",
    "lex_rank": "place among the keyword matches (1 is first)",
    "sem_rank": "place among the meaning matches (1 is first)",
    "cosine": "meaning similarity",
    "lex_raw": "keyword score",
    "speaker": "the search names who said it",
    "coverage": "share of the search's words it holds (rarer words count more)",
    "neighbour": "a turn next to it in its conversation also matched",
    "thread_best": "best match elsewhere in its conversation",
    "thread_count": "other matches in its conversation (in tens)",
    "question": "it is itself a question",
    "length": "its length (log of its word count)",
    "dated": "the day it tells of falls in the days the search names",
}


def signals(memory: Mapping[str, Any]) -> Mapping[str, Any]:
    why = memory.get("metadata", {}).get("why")
    return why if isinstance(why, Mapping) else {}


def relevant(memory: Mapping[str, Any]) -> bool:
    """Whether the search lists `memory`: a shared word, or a meaning match at least SEMANTIC_FLOOR.
    A memory recalled without signals (an engine that did not explain) is listed as recall ranked it."""
    why = signals(memory)
    if not why:
        return True
    if why.get("lexical_rank") is not None:
        return True
    cosine = why.get("semantic")
    return isinstance(cosine, int | float) and cosine >= SEMANTIC_FLOOR


def ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _num(value: object, places: int = 3) -> str:
    return f"{value:.{places}f}" if isinstance(value, int | float) else ""


def _lines(why: Mapping[str, Any]) -> list[str]:
    out = []
    if why.get("lexical_rank") is not None:
        out.append(
            f"Shares words with the search: keyword (bm25) score {_num(why.get('lexical'))}, "
            f"{ordinal(int(why['lexical_rank']))} by keywords."
        )
    else:
        out.append("Shares no word with the search.")
    if why.get("semantic_rank") is not None:
        out.append(
            f"Close in meaning: cosine similarity {_num(why.get('semantic'))}, "
            f"{ordinal(int(why['semantic_rank']))} by meaning."
        )
    if why.get("fused") is not None:
        out.append(f"The keyword and meaning lists fused to {_num(why['fused'], 4)}.")
    if why.get("reranker") is not None:
        out.append(f"The reranker judged it {_num(100 * float(why['reranker']), 1)}% relevant.")
    if why.get("prior") is not None:
        out.append(f"Its confidence weighs the score by ×{_num(why['prior'])}.")
    if why.get("coverage") is not None:
        out.append(f"Word coverage rescored it to {_num(why['coverage'], 4)}.")
    if why.get("time") == "boosted":
        out.append(f"It is about a time the search names: score ×{_num(why.get('time_boost'), 2)}.")
    elif why.get("time") == "first":
        out.append("It is about the days asked for, so it comes first.")
    if isinstance(why.get("linked"), str):
        out.append(
            f"It names “{why['linked']}”, a rare name one of the best results mentions, so it ranks just "
            "below that result."
        )
    out.append(f"Final score {_num(why.get('score'), 4)}, {ordinal(int(why.get('rank', 0)))} in the results.")
    return out


def why_details(memory: Mapping[str, Any]) -> Html:
    """A closed <details class="why"> with the memory's signals in sentences, and the reranker's
    inputs as a table when it ran; nothing when recall gave no signals."""
    why = signals(memory)
    if not why:
        return Html("")
    lines = join(fill("<li>$line</li>", line=line) for line in _lines(why))
    features = why.get("features")
    table = Html("")
    if isinstance(features, Mapping) and features:
        rows = join(
            fill(
                '<tr><th scope="row">$what</th><td>$value</td></tr>',
                what=FEATURE_WORDS.get(k, k),
                value=_num(v),
            )
            for k, v in features.items()
        )
        table = fill(
            '<table class="features"><caption>What the reranker read</caption>$rows</table>', rows=rows
        )
    return fill(
        '<details class="why"><summary>Why this result</summary><ul>$lines</ul>$table</details>',
        lines=lines,
        table=table,
    )
