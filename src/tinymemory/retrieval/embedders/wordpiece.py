"""MiniLM's WordPiece tokenizer as the static tables use it: the static embedder reads with it and the
distiller builds with it, so it lives below both (no import cycle between them)."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported by the load, on the thread that first embeds, not at engine start
    from tokenizers import Tokenizer

UNK_ID = 100  # [UNK] in the MiniLM (bert-base-uncased) vocabulary: the vector of a text with no tokens


def load_tokenizer(path: Path) -> Tokenizer:
    """MiniLM's WordPiece tokenizer (`tokenizer.json`) with padding and truncation off: a sum has no
    length limit."""
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(path))
    tokenizer.no_padding()
    tokenizer.no_truncation()
    return tokenizer


# A plain ASCII text (no control character but tab, newline and carriage return): BERT's normaliser only
# lower-cases it, and its pre-tokenizer splits it into runs of letters and digits and single punctuation
# marks (every other printable ASCII character is punctuation to it), dropping the whitespace.
_PLAIN_ASCII = re.compile(r"[\t\n\r\x20-\x7e]*")
_PRE_TOKENS = re.compile(r"[a-z0-9]+|[^a-z0-9\t\n\r ]")
# words whose ids are kept while the cache is below this many words (then it starts again): about 6 MB
_WORDS_MAX = 20_000


class WordIds:
    """A BERT WordPiece tokenizer's ids for texts, with each word's ids cached: WordPiece splits a word
    the same way wherever it stands, so a plain ASCII text's ids are its words' ids in order, read from
    the cache (a miss asks the tokenizer once). Anything else, or a text holding one of the tokenizer's
    added tokens (`[CLS]`, matched before normalising), goes to the tokenizer whole. The tokenizer's
    per-text work was most of a short text's embedding."""

    def __init__(self, tokenizer: Tokenizer) -> None:
        self.tokenizer = tokenizer
        config = json.loads(tokenizer.to_str())
        normalizer = config.get("normalizer") or {}
        self.cached = (  # the pipeline the split above mirrors; another tokenizer is asked every time
            normalizer.get("type") == "BertNormalizer"
            and normalizer.get("lowercase") is True
            and normalizer.get("clean_text") is True
            and (config.get("pre_tokenizer") or {}).get("type") == "BertPreTokenizer"
            and (config.get("model") or {}).get("type") == "WordPiece"
        )
        self._added = tuple(str(t["content"]) for t in config.get("added_tokens") or ())
        self._words: dict[str, tuple[int, ...]] = {}
        model = config.get("model") or {}
        self._vocab: dict[str, int] = dict(model.get("vocab") or {})
        self._prefix = str(model.get("continuing_subword_prefix", "##"))
        self._longest = int(model.get("max_input_chars_per_word", 100))
        unk = self._vocab.get(str(model.get("unk_token", "[UNK]")))
        self.cached = self.cached and unk is not None and bool(self._vocab)
        self._unk = (unk,) if unk is not None else ()

    def ids(self, texts: Sequence[str]) -> list[list[int]]:
        """Each text's token ids, without special tokens: the same as the tokenizer's."""
        out: list[list[int]] = [[] for _ in texts]
        whole: list[int] = []  # texts the tokenizer reads whole
        split: list[tuple[int, list[str]]] = []
        for i, text in enumerate(texts):
            if self.cached and _PLAIN_ASCII.fullmatch(text) and not any(a in text for a in self._added):
                split.append((i, _PRE_TOKENS.findall(text.lower())))
            else:
                whole.append(i)
        if whole:
            encoded = self.tokenizer.encode_batch([texts[i] for i in whole], add_special_tokens=False)
            for i, enc in zip(whole, encoded, strict=True):
                out[i] = list(enc.ids)
        if split:
            words = self._lookup({w for _, ws in split for w in ws})
            for i, ws in split:
                ids = out[i]
                for w in ws:
                    ids.extend(words[w])
        return out

    def _lookup(self, distinct: set[str]) -> dict[str, tuple[int, ...]]:
        """These words' ids: from the cache, the missing ones from the tokenizer in one call (and kept)."""
        known = self._words
        found: dict[str, tuple[int, ...]] = {}
        missing: list[str] = []
        for w in distinct:
            got = known.get(w)
            if got is None:
                missing.append(w)
            else:
                found[w] = got
        if missing:
            new = {w: self._pieces(w) for w in missing}
            if len(known) + len(new) > _WORDS_MAX:
                known.clear()
            known.update(new)
            found.update(new)
        return found

    def _pieces(self, word: str) -> tuple[int, ...]:
        """WordPiece on one pre-token, as the tokenizer's model does it: the longest piece of the vocabulary
        at each point (after the first, with the continuation prefix), and the unknown token for a word
        that is too long or that some point has no piece for. Cheaper in Python than a call into the
        tokenizer for one word."""
        if len(word) > self._longest:
            return self._unk
        vocab, out, start = self._vocab, [], 0
        while start < len(word):
            end = len(word)
            while end > start:
                piece = word[start:end] if start == 0 else self._prefix + word[start:end]
                got = vocab.get(piece)
                if got is not None:
                    out.append(got)
                    break
                end -= 1
            else:
                return self._unk
            start = end
        return tuple(out)
