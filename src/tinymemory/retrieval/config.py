"""RetrievalConfig: every ranking stage by name, with its few parameters, so each can be switched off.

Engines read it; the stages themselves are pure functions in `tinymemory.retrieval`, so every engine
ranks alike. Defaults were chosen on LoCoMo conversations 0-1 of the dev file and checked on
conversations 2-3 of the same file (a check split, not held-out data); docs/architecture/retrieval.md
explains each choice.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Literal

FusionMethod = Literal["convex", "rrf"]

# bm25 weight of a memory's title against its body's 1.0 (every engine scores fields alike).
TITLE_WEIGHT = 2.0
# A read confined to a reach counts only the reach's postings when it prunes (privacy), while the index still
# reads every tenant's postings of each kept term; a fifth of the budget bounds that (1M items, one
# team's reach: p50 162 -> 54 ms) and leaves LoCoMo recall unchanged at every k (measured at 1, 0.2, 0.1).
SCOPED_BUDGET_SHARE = 0.2


def field_weights(context_weight: float) -> dict[str, float]:
    """The bm25 weight of each lexical field: title, body and the neighbouring turns' context."""
    return {"title": TITLE_WEIGHT, "body": 1.0, "context": max(0.0, context_weight)}


@dataclass(frozen=True, slots=True)
class AnalyzerConfig:
    """Lexical analysis. Changing it changes what is indexed, so it applies to items stored after."""

    stem: bool = True
    stop_words: bool = True


@dataclass(frozen=True, slots=True)
class ContextConfig:
    """Index the neighbouring turns of the same thread as an extra, lighter lexical field.

    A reply rarely repeats the words of the question it answers; its neighbours often do. `weight` is
    the field's bm25 weight against the body's 1.0; 0 leaves the field out of matching at query time.
    """

    enabled: bool = True
    weight: float = 0.5


@dataclass(frozen=True, slots=True)
class FusionConfig:
    """How hybrid merges lexical and semantic lists.

    `convex`: each list's scores min-max normalised over its pool, then `lexical_weight * lex +
    (1 - lexical_weight) * sem`. `rrf`: reciprocal rank fusion with `rrf_k` and the same weight split.
    """

    method: FusionMethod = "convex"
    lexical_weight: float = 0.5
    rrf_k: int = 60


@dataclass(frozen=True, slots=True)
class TemporalConfig:
    """Time expressions: resolved into an event range at store time, and into a TimeHint at query time.

    A derived hint multiplies the score of matching memory by `1 + boost` (an explicit hint from the
    request keeps its stronger partition); with `day_first`, a question naming one day outright ranks
    memory dated to that day by its own words first. Nothing is ever dropped. With `window`, each ranker also
    lists its best rows observed inside the derived hint's days, added to its pool.
    """

    extract_events: bool = True
    query_hints: bool = True
    boost: float = 0.25
    # a question naming a time also draws candidates from the days it names (observed then), so memory
    # worded unlike the question but said in that window reaches the pool (`window` stage)
    window: bool = True
    # a question naming one day outright ("on 1 May 2022") puts memory whose own event range lies in
    # that day first ("we watched it last night", said on 2 May), above the boost's tilt
    day_first: bool = True


@dataclass(frozen=True, slots=True)
class RerankConfig:
    """Re-order the fused pool before paging.

    `model`: the feature reranker (features.py, rerank_model.py): a fixed linear model over each pooled
    memory's two ranker scores and ranks, whether the query names its speaker, its neighbouring turns'
    scores, term coverage, its shape, and whether it carries its own date in the days the question asks
    about (`dated`). `speaker`, `neighbours` and `dated` switch those feature groups off for ablations.
    `coverage`: the older query-term coverage multiplier, score * (1 + strength * idf-weighted share of
    query terms in the text); off by default (the model reads coverage as one of its features).
    """

    model: bool = True
    speaker: bool = True
    neighbours: bool = True
    dated: bool = True
    coverage: bool = False
    strength: float = 0.5


@dataclass(frozen=True, slots=True)
class DecomposeConfig:
    """Ask a question about two named things (or two joined questions) once per part as well, and merge
    the reads by each memory's best score (decompose.py): each part's read finds its own side."""

    enabled: bool = True


@dataclass(frozen=True, slots=True)
class LinksConfig:
    """Entity links (links.py): on a hybrid read, the memories of the reach holding a rare name (held
    by 2..`most` memories) that one of the `top` best memories (a turn of a thread) mentions join the
    order at that memory's score times `weight`. Chosen on LoCoMo conversations 0-1 (a plateau over top
    3-10, weight 0.5-0.8)."""

    enabled: bool = True
    top: int = 5
    most: int = 3
    weight: float = 0.7


@dataclass(frozen=True, slots=True)
class PriorConfig:
    """A confidence multiplier in [1 - confidence_strength, 1]: confident memory wins near-ties."""

    confidence_strength: float = 0.05


STAGES = (
    "analyzer",
    "context",
    "fusion",
    "temporal",
    "window",
    "rerank",
    "speaker",
    "neighbours",
    "dated",
    "priors",
    "decompose",
    "links",
)


@dataclass(frozen=True, slots=True)
class RetrievalConfig:
    analyzer: AnalyzerConfig = field(default_factory=AnalyzerConfig)
    context: ContextConfig = field(default_factory=ContextConfig)
    fusion: FusionConfig = field(default_factory=FusionConfig)
    temporal: TemporalConfig = field(default_factory=TemporalConfig)
    rerank: RerankConfig = field(default_factory=RerankConfig)
    priors: PriorConfig = field(default_factory=PriorConfig)
    decompose: DecomposeConfig = field(default_factory=DecomposeConfig)
    links: LinksConfig = field(default_factory=LinksConfig)

    def __post_init__(self) -> None:
        if not 0.0 <= self.fusion.lexical_weight <= 1.0:
            raise ValueError("retrieval: `fusion.lexical_weight` must be within [0, 1]")
        if self.fusion.rrf_k < 1:
            raise ValueError("retrieval: `fusion.rrf_k` must be at least 1")
        if self.fusion.method not in ("convex", "rrf"):
            raise ValueError(f"retrieval: `fusion.method` `{self.fusion.method}` is not convex or rrf")
        for name, value in (
            ("context.weight", self.context.weight),
            ("temporal.boost", self.temporal.boost),
            ("rerank.strength", self.rerank.strength),
        ):
            if value < 0:
                raise ValueError(f"retrieval: `{name}` must not be negative")
        if not 0.0 <= self.priors.confidence_strength <= 1.0:
            raise ValueError("retrieval: `priors.confidence_strength` must be within [0, 1]")
        if not 0.0 <= self.links.weight <= 1.0:
            raise ValueError("retrieval: `links.weight` must be within [0, 1]")
        if self.links.top < 0:
            raise ValueError("retrieval: `links.top` must not be negative")
        if self.links.most < 2:
            raise ValueError("retrieval: `links.most` must be at least 2")

    def without(self, stage: str) -> RetrievalConfig:
        """This config with one stage switched off (its plainest form), for ablations."""
        if stage == "analyzer":
            return replace(self, analyzer=AnalyzerConfig(stem=False, stop_words=False))
        if stage == "context":
            return replace(self, context=ContextConfig(enabled=False, weight=0.0))
        if stage == "fusion":
            return replace(self, fusion=replace(self.fusion, method="rrf"))
        if stage == "temporal":
            return replace(
                self, temporal=replace(self.temporal, extract_events=False, query_hints=False, window=False)
            )
        if stage == "window":
            return replace(self, temporal=replace(self.temporal, window=False))
        if stage == "rerank":
            return replace(self, rerank=replace(self.rerank, model=False, coverage=False))
        if stage == "speaker":
            return replace(self, rerank=replace(self.rerank, speaker=False))
        if stage == "neighbours":
            return replace(self, rerank=replace(self.rerank, neighbours=False))
        if stage == "dated":
            return replace(self, rerank=replace(self.rerank, dated=False))
        if stage == "priors":
            return replace(self, priors=PriorConfig(confidence_strength=0.0))
        if stage == "decompose":
            return replace(self, decompose=DecomposeConfig(enabled=False))
        if stage == "links":
            return replace(self, links=replace(self.links, enabled=False))
        raise ValueError(f"retrieval: `stage` `{stage}` is not one of {', '.join(STAGES)}")

    def all_off(self) -> RetrievalConfig:
        cfg = self
        for stage in STAGES:
            cfg = cfg.without(stage)
        return cfg


DEFAULT_CONFIG = RetrievalConfig()
