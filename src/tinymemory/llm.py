"""An optional OpenAI-compatible chat client (OpenAI, Ollama, vLLM, llama.cpp server, ...).

Recall's answers, compaction summaries and belief builds use it when one is configured; without one,
every feature falls back to its extractive or rule-based path. Every failure (timeout, HTTP error,
malformed JSON, an answer in the wrong shape) is raised as `api.Unavailable` with a clear message,
so callers fail cleanly before writing anything.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import httpx

from tinymemory.api import LEARNING_KINDS, Hit, Unavailable
from tinymemory.retrieval.answer import span_label

ENV_PREFIX = "TINYMEMORY_LLM_"


@dataclass(frozen=True, slots=True)
class LLMConfig:
    """Where the server is. `base_url` ends before `/chat/completions`, e.g. `http://127.0.0.1:11434/v1`."""

    base_url: str
    model: str
    api_key: str | None = None
    timeout: float = 30.0
    temperature: float = 0.0
    max_tokens: int = 800

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> LLMConfig | None:
        """Read TINYMEMORY_LLM_BASE_URL, _MODEL, _API_KEY and _TIMEOUT; None when no base URL is set."""
        env = os.environ if env is None else env
        base = env.get(ENV_PREFIX + "BASE_URL")
        if not base:
            return None
        model = env.get(ENV_PREFIX + "MODEL")
        if not model:
            raise Unavailable("llm config: `TINYMEMORY_LLM_MODEL` must be set with the base url")
        timeout = env.get(ENV_PREFIX + "TIMEOUT")
        try:
            seconds = float(timeout) if timeout else 30.0
        except ValueError:
            raise Unavailable(f"llm config: `TINYMEMORY_LLM_TIMEOUT` `{timeout}` is not a number") from None
        return cls(base.rstrip("/"), model, env.get(ENV_PREFIX + "API_KEY") or None, seconds)


@dataclass(frozen=True, slots=True)
class ExtractedLearning:
    """One learning the model distilled from numbered turns."""

    text: str
    kind: str
    turns: tuple[int, ...]
    about_kind: str | None = None
    about_key: str | None = None
    confidence: float = 0.8


class LLM:
    """Chat completions over httpx. One instance per host; `aclose()` when done."""

    def __init__(self, config: LLMConfig, *, transport: httpx.AsyncBaseTransport | None = None) -> None:
        self.config = config
        headers = {"Authorization": f"Bearer {config.api_key}"} if config.api_key else {}
        self._client = httpx.AsyncClient(
            base_url=config.base_url, headers=headers, timeout=config.timeout, transport=transport
        )

    @classmethod
    def from_env(cls) -> LLM | None:
        config = LLMConfig.from_env()
        return None if config is None else cls(config)

    async def aclose(self) -> None:
        await self._client.aclose()

    async def chat(self, messages: Sequence[Mapping[str, str]], *, op: str = "llm chat") -> str:
        """Send messages, return the first choice's content."""
        payload: dict[str, Any] = {
            "model": self.config.model,
            "messages": [dict(m) for m in messages],
            "temperature": self.config.temperature,
            "max_tokens": self.config.max_tokens,
        }
        try:
            response = await self._client.post("/chat/completions", json=payload)
        except httpx.TimeoutException:
            raise Unavailable(f"{op}: the server did not answer within {self.config.timeout:g}s") from None
        except httpx.HTTPError as exc:
            raise Unavailable(f"{op}: request failed ({type(exc).__name__}: {exc})") from None
        if response.status_code >= 400:
            raise Unavailable(f"{op}: the server answered http {response.status_code}: {response.text[:200]}")
        try:
            body = response.json()
        except ValueError:
            raise Unavailable(f"{op}: the response body is not valid json") from None
        try:
            content = body["choices"][0]["message"]["content"]
        except (KeyError, IndexError, TypeError):
            raise Unavailable(f"{op}: the response has no `choices[0].message.content`") from None
        if not isinstance(content, str):
            raise Unavailable(f"{op}: `choices[0].message.content` is not a string")
        return content.strip()

    async def summarise(self, texts: Sequence[str], *, max_words: int = 120) -> str:
        """A faithful summary of conversation lines (used by compaction)."""
        joined = "\n".join(texts)
        content = await self.chat(
            [
                {
                    "role": "system",
                    "content": f"Summarise the conversation in at most {max_words} words. Keep names, "
                    "decisions, dates and preferences. Plain prose, no preamble.",
                },
                {"role": "user", "content": joined},
            ],
            op="llm summarise",
        )
        if not content:
            raise Unavailable("llm summarise: the model returned an empty summary")
        return content

    async def extract(self, turns: Sequence[str]) -> list[ExtractedLearning]:
        """Durable learnings from numbered user turns, validated strictly (any bad field fails all)."""
        numbered = "\n".join(f"[{i}] {t}" for i, t in enumerate(turns))
        content = await self.chat(
            [
                {"role": "system", "content": _EXTRACT_PROMPT},
                {"role": "user", "content": numbered},
            ],
            op="llm extract",
        )
        return parse_extraction(content, len(turns))

    async def answer(self, question: str, context: Sequence[str], instructions: str | None) -> str:
        sources = "\n".join(f"[{i + 1}] {c}" for i, c in enumerate(context))
        system = "Answer from the numbered memories only. Say briefly when they do not hold the answer."
        if instructions:
            system += f" Instructions: {instructions}"
        return await self.chat(
            [
                {"role": "system", "content": system},
                {"role": "user", "content": f"Memories:\n{sources}\n\nQuestion: {question}"},
            ],
            op="llm answer",
        )


_EXTRACT_PROMPT = (
    "Extract durable learnings about the user from the numbered user turns. Reply with JSON only: "
    '{"learnings": [{"text": str (third person, e.g. \\"The user prefers tea.\\"), '
    f'"kind": one of {list(LEARNING_KINDS)}, "turns": [turn numbers], '
    '"about_kind": str or null, "about_key": str or null (a stable subject such as '
    '\\"preference\\"/\\"drink\\" so a later correction replaces it), "confidence": 0..1}]}. '
    'Reply {"learnings": []} when there is nothing durable.'
)


def answer_list(content: str, key: str, op: str) -> list[Any]:
    """The `key` list of the model's JSON object answer (optionally fenced); Unavailable otherwise."""
    text = content.strip()
    if text.startswith("```"):
        text = text.strip("`")
        text = text[text.find("\n") + 1 :] if "\n" in text else text
    try:
        data = json.loads(text)
    except ValueError:
        raise Unavailable(f"{op}: the model's answer is not valid json") from None
    items = data.get(key) if isinstance(data, dict) else None
    if not isinstance(items, list):
        raise Unavailable(f"{op}: the answer has no `{key}` list")
    return items


def parse_extraction(content: str, n_turns: int) -> list[ExtractedLearning]:
    """Read the model's JSON (optionally fenced) into learnings; any defect raises Unavailable."""
    items = answer_list(content, "learnings", "llm extract")
    out: list[ExtractedLearning] = []
    for i, raw in enumerate(items):
        field = f"learnings[{i}]"
        if not isinstance(raw, dict):
            raise Unavailable(f"llm extract: `{field}` is not an object")
        text_v, kind = raw.get("text"), raw.get("kind")
        if not isinstance(text_v, str) or not text_v.strip():
            raise Unavailable(f"llm extract: `{field}.text` is missing or empty")
        if kind not in LEARNING_KINDS:
            raise Unavailable(f"llm extract: `{field}.kind` `{kind}` is not a learning kind")
        turns = raw.get("turns", [])
        if not isinstance(turns, list) or not all(
            isinstance(t, int) and not isinstance(t, bool) and 0 <= t < n_turns for t in turns
        ):
            raise Unavailable(f"llm extract: `{field}.turns` must list turn numbers below {n_turns}")
        about_kind, about_key = raw.get("about_kind"), raw.get("about_key")
        if not (about_kind is None or isinstance(about_kind, str)) or not (
            about_key is None or isinstance(about_key, str)
        ):
            raise Unavailable(f"llm extract: `{field}.about_kind`/`about_key` must be strings or null")
        conf = raw.get("confidence", 0.8)
        if isinstance(conf, bool) or not isinstance(conf, int | float) or not 0 <= conf <= 1:
            raise Unavailable(f"llm extract: `{field}.confidence` must be a number between 0 and 1")
        both = bool(about_kind and about_kind.strip() and about_key and about_key.strip())
        out.append(
            ExtractedLearning(
                text=" ".join(text_v.split()),
                kind=kind,
                turns=tuple(sorted(set(turns))),
                about_kind=about_kind.strip().lower() if both and about_kind else None,
                about_key=about_key.strip().lower() if both and about_key else None,
                confidence=float(conf),
            )
        )
    return out


class LLMAnswerer:
    """retrieval.answer.Answerer backed by the LLM: recall's answer when a model is configured."""

    def __init__(self, llm: LLM, *, max_hits: int = 8, max_chars: int = 1_200) -> None:
        self.llm = llm
        self.max_hits = max_hits
        self.max_chars = max_chars

    async def answer(self, question: str, hits: Sequence[Hit], instructions: str | None) -> str:
        if not hits:
            return ""
        shown = hits[: self.max_hits]
        context = [f"({when_of(h)}) " + " ".join(h.item.text.split())[: self.max_chars] for h in shown]
        return await self.llm.answer(question, context, instructions)


def when_of(hit: Hit) -> str:
    """The dates a model needs to read a memory's own time words ("yesterday", "last week"): the day it
    was recorded and, when it names one, the days it is about."""
    meta = hit.item.meta
    out = "recorded " + (
        span_label(meta.observed_at, meta.observed_at) if meta.observed_at else "at an unknown time"
    )
    start, end = meta.event_from or meta.event_to, meta.event_to or meta.event_from
    if start is not None and end is not None and start <= end:
        out += f"; about {span_label(start, end)}"
    return out
