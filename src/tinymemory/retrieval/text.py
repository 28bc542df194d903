"""Text analysis shared by every engine: one Analyzer turns text into index and query terms.

Engines store the analysed terms (not the raw text) in their lexical index, split by a plain tokenizer
(SQLite's postings, Postgres's `tsvector`), so stemming and stop words behave the same in both.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

import Stemmer

from tinymemory.retrieval.config import AnalyzerConfig

_TOKEN = re.compile(r"[^\W_]+")
MAX_TOKEN_CHARS = 64
QUERY_CACHE = 1024  # distinct queries whose terms an analyzer keeps

# A compact English stop list: function words that carry no topic.
_STOP_TEXT = """
    a about above after again against all am an and any are as at be because been before being below
    between both but by can could did do does doing down during each few for from further had has have
    having he her here hers herself him himself his how i if in into is it its itself just me more most
    my myself no nor not now of off on once only or other our ours ourselves out over own same she
    should so some such than that the their theirs them themselves then there these they this those
    through to too under until up very was we were what when where which while who whom why will with
    would you your yours yourself yourselves s t d ll m re ve
"""
ENGLISH_STOP_WORDS = frozenset(_STOP_TEXT.split())

# Words that ask for memory in general rather than about a topic; a query made only of these and stop
# words is answered with the newest memories on a lexical read.
OPEN_QUESTION_WORDS = frozenset(
    [
        "know",
        "knows",
        "remember",
        "remembers",
        "recall",
        "tell",
        "anything",
        "something",
        "everything",
        "stuff",
        "please",
    ]
)


def normalise(text: str) -> str:
    """Compatibility-normalise, drop diacritics and case-fold, so `Café` and `cafe` meet."""
    if text.isascii():  # nothing to decompose or strip: the same result, without the per-character pass
        return text.casefold()
    decomposed = unicodedata.normalize("NFKD", text)
    stripped = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return unicodedata.normalize("NFC", stripped).casefold()


def tokenize(text: str) -> list[str]:
    """Runs of letters and digits (numbers are kept: versions, years, ids matter in memory)."""
    found: list[str] = _TOKEN.findall(normalise(text))
    if max(map(len, found), default=0) <= MAX_TOKEN_CHARS:  # the usual text: nothing to cut
        return found
    return [t[:MAX_TOKEN_CHARS] for t in found]


class Analyzer:
    """English analysis: normalise, tokenise, drop stop words, Snowball-stem (PyStemmer)."""

    def __init__(
        self,
        language: str = "english",
        stop_words: frozenset[str] = ENGLISH_STOP_WORDS,
        *,
        stem: bool = True,
    ) -> None:
        self._stemmer = Stemmer.Stemmer(language)
        self._stemmer.maxCacheSize = 50_000
        self._stop = stop_words
        self._do_stem = stem
        # a fetch's query is analysed by the core, by storage's statistics and by its lexical ranker;
        # the terms depend on the text alone, so each distinct query is analysed once
        self._query_terms = lru_cache(maxsize=QUERY_CACHE)(self._analyse_query)

    def _stem(self, tokens: list[str]) -> list[str]:
        if not self._do_stem:
            return tokens
        stems: list[str] = self._stemmer.stemWords(tokens)  # PyStemmer answers a list of str
        return stems

    def index_terms(self, text: str) -> list[str]:
        """Terms to index, in text order (repeats kept so term frequency counts).

        A text made only of stop words keeps them, mirroring `query_terms`, so it stays findable.
        """
        tokens = tokenize(text)
        return self._stem([t for t in tokens if t not in self._stop] or tokens)

    def query_terms(self, text: str) -> list[str]:
        """Distinct terms of a query; a query made only of stop words keeps them rather than go empty."""
        return list(self._query_terms(text)[0])

    def _analyse_query(self, text: str) -> tuple[tuple[str, ...], bool]:
        """A query's distinct terms and whether it names a topic, from one tokenisation."""
        tokens = tokenize(text)
        kept = [t for t in tokens if t not in self._stop] or tokens
        content = any(t not in self._stop and t not in OPEN_QUESTION_WORDS for t in tokens)
        return tuple(dict.fromkeys(self._stem(kept))), content

    def has_content_words(self, text: str) -> bool:
        """Whether a query names a topic: a word that is neither a stop word nor one of the words people
        use to ask a memory for anything at all ("what do you know about me?")."""
        return self._query_terms(text)[1]

    def index_text(self, text: str) -> str:
        """The analysed text as one space-joined string, ready for a plain whitespace/unicode tokenizer."""
        return " ".join(self.index_terms(text))


@lru_cache(maxsize=8192)
def term_set(analyzer: Analyzer, text: str) -> frozenset[str]:
    """A text's index terms as a set. Cached: the same memories reach the pools (and the answers) of
    many reads, and their analysis is most of the reranker's cost (the terms depend on the text alone)."""
    return frozenset(analyzer.index_terms(text))


@lru_cache(maxsize=8192)
def stored_terms(analysed: str) -> frozenset[str]:
    """The terms of a text analysed as an index keeps it (`Analyzer.index_text`: space-joined), as a
    set: `term_set` of the text, without analysing it again. Cached as `term_set` is, so a memory met
    again costs a look-up either way."""
    return frozenset(analysed.split())


@lru_cache(maxsize=1)
def default_analyzer() -> Analyzer:
    return Analyzer()


def analyzer_for(config: AnalyzerConfig) -> Analyzer:
    """The analyzer a RetrievalConfig asks for (the shared default when it asks for the defaults)."""
    if config == AnalyzerConfig():
        return default_analyzer()
    return Analyzer(stop_words=ENGLISH_STOP_WORDS if config.stop_words else frozenset(), stem=config.stem)
