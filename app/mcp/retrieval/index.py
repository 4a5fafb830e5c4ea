"""A searchable index over one tool list: BM25 plus embeddings, cached on disk.

The cache file is named by a hash of every tool's name, description and schema
(plus the model and document format), so any change to a server's tools makes
a new key; only the embeddings are cached, BM25 is cheap to rebuild.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from app import paths
from app.core.tools import ToolInfo
from app.mcp.retrieval import text
from app.mcp.retrieval.arrays import read_array, write_array
from app.mcp.retrieval.bm25 import BM25
from app.mcp.retrieval.embed import EmbeddingUnavailable
from app.mcp.retrieval.encoders import Encoder

logger = logging.getLogger(__name__)

# Hybrid score = w * BM25 / BM25.reference(query) + (1 - w) * cosine, with w the
# encoder's ``fusion_weight``, chosen on bench/retrieval.py (docs/benchmarks.md).
DOC_TOKENS = 128  # the model was trained on 128-token inputs; longer tool docs add little
# Queries are cut at 64 tokens: the turn loop's context can hold a long tool
# result, and a 256-token query costs about 5x a 64-token one (8x a typical
# 26-token one). On the benchmark this cost 0.8 points of recall@5 (0.874 -> 0.866).
QUERY_TOKENS = 64
# Ordered word pairs (text.pairs) add this share of their own BM25 score: enough to tell
# "fahrenheit to celsius" from "celsius to fahrenheit", little enough that a phrase shared
# with a look-alike tool does not outweigh the words. On bench/retrieval.py's BFCL set (static), 0.25
# kept R@1 at least where it was without pairs; 0.5 and 1 lowered it.
PAIR_WEIGHT = 0.25
KEEP_CACHED = 8  # index files kept per cache folder, newest first


def cache_root() -> Path:
    return paths.cache_dir() / "retrieval"


def fingerprint(tools: Sequence[ToolInfo], model_id: str) -> str:
    """Changes whenever any tool's name, description or schema changes, or the encoder does."""
    digest = hashlib.sha256(f"{model_id}|{text.DOC_VERSION}|{DOC_TOKENS}".encode())
    for tool in sorted(tools, key=lambda t: t.name):
        body = [tool.name, tool.description, tool.input_schema]
        digest.update(json.dumps(body, sort_keys=True, default=str).encode())
        digest.update(b"\0")
    return digest.hexdigest()[:32]


@dataclasses.dataclass(frozen=True)
class Scores:
    """Per-tool scores, rows in the index's tool order."""

    bm25: np.ndarray
    dense: np.ndarray
    hybrid: np.ndarray


class ToolIndex:
    """Ranks one fixed tool list. ``vectors`` is None when no embedding model is available."""

    def __init__(
        self, key: str, tools: Sequence[ToolInfo], vectors: np.ndarray | None, weight: float = 1.0
    ) -> None:
        self.key = key
        self.weight = weight  # BM25's share of the hybrid score
        self.tools = tuple(tools)
        self.rows = {tool.name: row for row, tool in enumerate(self.tools)}
        self.bm25 = BM25([text.document_words(tool) for tool in self.tools])
        self.pairs = BM25([text.pairs(text.document(tool)) for tool in self.tools])
        self.vectors = vectors

    @property
    def dense(self) -> bool:
        return self.vectors is not None

    def scores(self, query: str, query_vector: np.ndarray | None) -> Scores:
        terms, lead = text.query_words(query), text.lead_weights(query)
        lexical = self.bm25.scores(terms, lead) + PAIR_WEIGHT * self.pairs.scores(text.query_pairs(query))
        # The words alone set the scale: a matching pair is a bonus, and a query whose pairs
        # match nothing keeps the balance with the embeddings it had without them.
        scale = self.bm25.reference(terms, lead)
        if self.vectors is None or query_vector is None:
            cosine = np.zeros(len(self.tools), dtype=np.float32)
            return Scores(lexical, cosine, fuse(lexical, cosine, scale, weight=1.0))
        cosine = self.vectors @ query_vector
        return Scores(lexical, cosine, fuse(lexical, cosine, scale, self.weight))


def fuse(lexical: np.ndarray, cosine: np.ndarray, scale: float, weight: float) -> np.ndarray:
    """Weighted sum of BM25 (divided by the query's reference score) and cosine similarity."""
    scaled = lexical / scale if scale > 0 else lexical
    return weight * scaled + (1.0 - weight) * cosine


def index_key(tools: Sequence[ToolInfo], encoder: Encoder | None) -> str:
    return fingerprint(tools, encoder.model_id if encoder is not None else "bm25")


def build_index(tools: Sequence[ToolInfo], encoder: Encoder | None, root: Path | None = None) -> ToolIndex:
    """Blocking: loads the model, reads or computes the embeddings. Run it in a worker thread."""
    tools = sorted(tools, key=lambda t: t.name)
    if encoder is None:
        return ToolIndex(index_key(tools, None), tools, None)
    key = index_key(tools, encoder)
    try:
        vectors = _vectors(tools, key, encoder, root or cache_root())
        return ToolIndex(key, tools, vectors, encoder.fusion_weight)
    except EmbeddingUnavailable:
        logger.warning("tool retrieval falls back to BM25 only", exc_info=True)
        return ToolIndex(key, tools, None)


def _vectors(tools: Sequence[ToolInfo], key: str, encoder: Encoder, root: Path) -> np.ndarray:
    encoder.load()  # queries need the model even when the tool vectors come from the cache
    cached = _read_cache(root / f"{key}.npy", len(tools), encoder.dim)
    if cached is not None:
        return cached
    vectors = encoder.encode([text.document(tool) for tool in tools], max_tokens=DOC_TOKENS)
    _write_cache(root, key, vectors)
    return vectors


def _read_cache(path: Path, rows: int, dim: int) -> np.ndarray | None:
    vectors = read_array(path, (rows, dim), np.float32, "retrieval cache")
    if vectors is not None:
        os.utime(path)  # keep recently used indexes when pruning
    return vectors


def _write_cache(root: Path, key: str, vectors: np.ndarray) -> None:
    """Then prune old files; a cache that cannot be written is only logged."""
    if write_array(root / f"{key}.npy", vectors, "retrieval cache"):
        _prune(root)


def _prune(root: Path) -> None:
    files = sorted(root.glob("*.npy"), key=lambda p: p.stat().st_mtime, reverse=True)
    for old in files[KEEP_CACHED:]:
        old.unlink(missing_ok=True)
