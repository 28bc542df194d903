"""A BERT encoder forward pass in plain numpy (float32), enough to run MiniLM-class sentence models.

Why numpy: the model is small (22M parameters), so a handful of large matmuls per layer keeps BLAS busy
and the pass needs neither torch nor onnxruntime. Every weight is laid out once at load time (fused QKV,
transposed, contiguous) so the hot path is matmuls and a few vectorised element-wise passes.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

F32 = npt.NDArray[np.float32]
I64 = npt.NDArray[np.int64]

# GELU(x) = x * Phi(x), Phi(x) = 0.5 + 0.5 * erf(x / sqrt(2)). erf is the float32 rational approximation
# used by Eigen/XLA (odd numerator over even denominator on [-4, 4], max abs error about 4e-7); numpy has
# no erf ufunc. The 0.5 and the 1/sqrt(2) are folded into the coefficients below, which saves passes.
_ERF_NUM = (
    -2.72614225801306e-10,
    2.77068142495902e-08,
    -2.10102402082508e-06,
    -5.69250639462346e-05,
    -7.34990630326855e-04,
    -2.95459980854025e-03,
    -1.60960333262415e-02,
)
_ERF_DEN = (
    -1.45660718464996e-05,
    -2.13374055278905e-04,
    -1.68282697438203e-03,
    -7.37332916720468e-03,
    -1.42647390514189e-02,
)
# With z = x / sqrt(2): z^2 = x^2 / 2, so the coefficient of z^(2k) gains 2^-k; the numerator also takes
# the 1/sqrt(2) of its leading z and the 0.5 of Phi.
_PHI_NUM = tuple(
    np.float32(0.5 * c * 0.5 ** (len(_ERF_NUM) - 1 - i) / np.sqrt(2.0)) for i, c in enumerate(_ERF_NUM)
)
_PHI_DEN = tuple(np.float32(c * 0.5 ** (len(_ERF_DEN) - 1 - i)) for i, c in enumerate(_ERF_DEN))
_CLIP = np.float32(4.0 * np.sqrt(2.0))
_HALF = np.float32(0.5)
# Element-wise work runs in chunks that stay in L2 cache: about 2x faster than whole-array passes.
_CHUNK = 1 << 16


@dataclass(frozen=True)
class BertConfig:
    hidden: int
    heads: int
    layers: int
    intermediate: int
    max_positions: int
    layer_norm_eps: float

    @property
    def head_dim(self) -> int:
        return self.hidden // self.heads

    @classmethod
    def from_file(cls, path: Path) -> BertConfig:
        raw = json.loads(path.read_text(encoding="utf-8"))
        if raw.get("hidden_act", "gelu") != "gelu":
            raise ValueError(f"bert config: `hidden_act` {raw.get('hidden_act')!r} is not supported")
        return cls(
            hidden=int(raw["hidden_size"]),
            heads=int(raw["num_attention_heads"]),
            layers=int(raw["num_hidden_layers"]),
            intermediate=int(raw["intermediate_size"]),
            max_positions=int(raw["max_position_embeddings"]),
            layer_norm_eps=float(raw.get("layer_norm_eps", 1e-12)),
        )


@dataclass(frozen=True)
class LayerWeights:
    """One encoder layer, with matrices stored (in, out) so activations multiply on the left."""

    qkv_w: F32  # (hidden, 3*hidden); the query third is pre-scaled by 1/sqrt(head_dim)
    qkv_b: F32
    out_w: F32
    out_b: F32
    ln1_g: F32
    ln1_b: F32
    ff1_w: F32
    ff1_b: F32
    ff2_w: F32
    ff2_b: F32
    ln2_g: F32
    ln2_b: F32


@dataclass(frozen=True)
class BertWeights:
    config: BertConfig
    word: F32
    position: F32
    token_type0: F32
    emb_ln_g: F32
    emb_ln_b: F32
    layers: tuple[LayerWeights, ...]

    @classmethod
    def from_tensors(cls, config: BertConfig, t: Mapping[str, npt.NDArray[np.generic]]) -> BertWeights:
        def get(name: str) -> F32:
            key = name if name in t else f"bert.{name}"
            return np.ascontiguousarray(t[key], dtype=np.float32)

        def t_(name: str) -> F32:
            return np.ascontiguousarray(get(name).T)

        scale = np.float32(1.0 / np.sqrt(config.head_dim))
        layers = []
        for i in range(config.layers):
            p = f"encoder.layer.{i}."
            a = p + "attention."
            qkv_w = np.concatenate(
                [t_(a + "self.query.weight") * scale, t_(a + "self.key.weight"), t_(a + "self.value.weight")],
                axis=1,
            )
            qkv_b = np.concatenate(
                [get(a + "self.query.bias") * scale, get(a + "self.key.bias"), get(a + "self.value.bias")]
            )
            layers.append(
                LayerWeights(
                    qkv_w=np.ascontiguousarray(qkv_w),
                    qkv_b=qkv_b,
                    out_w=t_(a + "output.dense.weight"),
                    out_b=get(a + "output.dense.bias"),
                    ln1_g=get(a + "output.LayerNorm.weight"),
                    ln1_b=get(a + "output.LayerNorm.bias"),
                    ff1_w=t_(p + "intermediate.dense.weight"),
                    ff1_b=get(p + "intermediate.dense.bias"),
                    ff2_w=t_(p + "output.dense.weight"),
                    ff2_b=get(p + "output.dense.bias"),
                    ln2_g=get(p + "output.LayerNorm.weight"),
                    ln2_b=get(p + "output.LayerNorm.bias"),
                )
            )
        return cls(
            config=config,
            word=get("embeddings.word_embeddings.weight"),
            position=get("embeddings.position_embeddings.weight"),
            token_type0=get("embeddings.token_type_embeddings.weight")[0].copy(),
            emb_ln_g=get("embeddings.LayerNorm.weight"),
            emb_ln_b=get("embeddings.LayerNorm.bias"),
            layers=tuple(layers),
        )


def layer_norm(x: F32, g: F32, b: F32, eps: float) -> F32:
    """LayerNorm over the last axis, in place on `x` (which the caller no longer needs)."""
    x -= x.mean(axis=-1, keepdims=True)
    var = np.einsum("ij,ij->i", x, x)[:, None]
    var /= np.float32(x.shape[-1])
    var += np.float32(eps)
    np.sqrt(var, out=var)
    x /= var
    x *= g
    x += b
    return x


def gelu_erf(x: F32) -> F32:
    """Exact (erf) GELU, in place on the C-contiguous `x`."""
    flat = x.reshape(-1)
    size = min(_CHUNK, flat.size)
    clipped, sq, num, den = (np.empty(size, dtype=np.float32) for _ in range(4))
    for start in range(0, flat.size, size):
        xs = flat[start : start + size]
        n = xs.size
        c, x2, p, q = clipped[:n], sq[:n], num[:n], den[:n]
        np.clip(xs, -_CLIP, _CLIP, out=c)
        np.multiply(c, c, out=x2)
        np.multiply(x2, _PHI_NUM[0], out=p)
        p += _PHI_NUM[1]
        for coef in _PHI_NUM[2:]:
            p *= x2
            p += coef
        p *= c
        np.multiply(x2, _PHI_DEN[0], out=q)
        q += _PHI_DEN[1]
        for coef in _PHI_DEN[2:]:
            q *= x2
            q += coef
        p /= q
        p += _HALF  # p is now Phi(x)
        xs *= p
    return x


def _attention(qkv: F32, lengths: list[int], cfg: BertConfig, bias: F32 | None = None) -> F32:
    """Self-attention per sequence over its real tokens only, so padding needs no mask and costs nothing.

    `qkv` is (batch*seq, 3*hidden) with the query part pre-scaled; returns the context (batch*seq, hidden),
    zero on padded rows (they never reach the pooled vector). `bias` (heads, seq, seq), when given, is
    added to the attention scores (MPNet's relative-position bias).
    """
    bsz = len(lengths)
    seq = qkv.shape[0] // bsz
    parts = qkv.reshape(bsz, seq, 3, cfg.heads, cfg.head_dim)
    ctx = np.zeros((bsz, seq, cfg.heads, cfg.head_dim), dtype=np.float32)
    for b, n in enumerate(lengths):
        q = parts[b, :n, 0].transpose(1, 0, 2)  # (heads, n, head_dim)
        k_t = parts[b, :n, 1].transpose(1, 2, 0)  # (heads, head_dim, n)
        v = parts[b, :n, 2].transpose(1, 0, 2)
        scores = np.matmul(q, k_t)
        if bias is not None:
            scores += bias[:, :n, :n]
        scores -= scores.max(axis=-1, keepdims=True)
        np.exp(scores, out=scores)
        scores /= scores.sum(axis=-1, keepdims=True)
        ctx[b, :n] = np.matmul(scores, v).transpose(1, 0, 2)
    return ctx.reshape(bsz * seq, cfg.hidden)


def encode(w: BertWeights, ids: I64, lengths: list[int], bias: F32 | None = None) -> F32:
    """Right-padded token ids (batch, seq) and each row's real length -> mean-pooled, L2-normalised vectors.

    Matches sentence-transformers (BertModel, mean pooling over the attention mask, Normalize). `bias`:
    an attention bias for every layer (see `_attention`).
    """
    cfg = w.config
    bsz, seq = ids.shape
    eps = cfg.layer_norm_eps
    x = w.word[ids.reshape(-1)]
    x += np.tile(w.position[:seq], (bsz, 1))
    x += w.token_type0
    x = layer_norm(x, w.emb_ln_g, w.emb_ln_b, eps)
    for lw in w.layers:
        qkv = x @ lw.qkv_w
        qkv += lw.qkv_b
        h = _attention(qkv, lengths, cfg, bias) @ lw.out_w
        h += lw.out_b
        h += x
        x = layer_norm(h, lw.ln1_g, lw.ln1_b, eps)
        f = x @ lw.ff1_w
        f += lw.ff1_b
        h = gelu_erf(f) @ lw.ff2_w
        h += lw.ff2_b
        h += x
        x = layer_norm(h, lw.ln2_g, lw.ln2_b, eps)
    hidden = x.reshape(bsz, seq, cfg.hidden)
    pooled = np.stack(
        [hidden[b, :n].mean(axis=0) for b, n in enumerate(lengths)]
    )  # lengths >= 2 ([CLS], [SEP])
    pooled /= np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), np.float32(1e-12))
    return pooled.astype(np.float32, copy=False)
