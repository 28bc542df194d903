"""The static embedder's word cache gives exactly the WordPiece tokenizer's ids, text by text: plain ASCII
from its words (each split by WordPiece in Python once, then cached), anything else (non-ASCII, control
characters, the tokenizer's added tokens) from the tokenizer itself."""

from __future__ import annotations

import random
import string

from tinymemory.retrieval.embedders.tables import SHIPPED_TOKENIZER
from tinymemory.retrieval.embedders.wordpiece import WordIds, load_tokenizer

EDGES = [
    "",
    "   ",
    "Dana drinks flat whites",
    "don't e-mail C++ & C# at 3.14 for $5,000 (a_b) ~x~ `q` {y} [z] <w> @v",
    "a\tb\nc\rd",
    "x" * 150,  # past WordPiece's longest word: [UNK]
    "ab" * 60 + " ok",
    "##ing ##",
    "[CLS] hello [SEP]",
    "x[MASK]y",
    "[unk] is not [UNK]",
    "A\x0bB\x0cC\x00D\x7fE",
    "naïve café résumé",
    "東京で会いましょう",
    "Hello, World!!",
    "unaffable xyzzyplugh qwertyuiopasdfghjkl 1234567890123 tokenization's",  # several pieces, or none
]


def tokenizer_ids(texts: list[str]) -> list[list[int]]:
    tok = load_tokenizer(SHIPPED_TOKENIZER)
    return [list(e.ids) for e in tok.encode_batch(texts, add_special_tokens=False)]


def test_cached_ids_are_the_tokenizers_for_every_text() -> None:
    rng = random.Random(7)
    alphabet = string.printable + "é日\x00\x0b\x0c\x7f"
    texts = EDGES + ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 60))) for _ in range(3000)]
    words = WordIds(load_tokenizer(SHIPPED_TOKENIZER))
    assert words.cached
    want = tokenizer_ids(texts)
    assert words.ids(texts) == want  # cold: every word asked of the tokenizer
    assert words.ids(texts) == want  # warm: from the cache
    assert [words.ids([t])[0] for t in texts[:200]] == want[:200]  # alone as in a batch
