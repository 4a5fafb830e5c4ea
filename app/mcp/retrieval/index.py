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
import tempfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from app import paths
from app.core.tools import ToolInfo
from app.mcp.retrieval import text
from app.mcp.retrieval.bm25 import BM25
from app.mcp.retrieval.embed import MODEL_ID, EmbeddingUnavailable, MiniLMEncoder

logger = logging.getLogger(__name__)

# Hybrid score = BM25_WEIGHT * BM25 / BM25.reference(query) + (1 - BM25_WEIGHT) * cosine.
# Chosen on bench/retrieval.py (see docs/benchmarks.md, "Tool retrieval").
BM25_WEIGHT = 0.4
DOC_TOKENS = 128  # the model was trained on 128-token inputs; longer tool docs add little
# Queries are cut at 64 tokens: the turn loop's context can hold a long tool
# result, and a 256-token query costs about 5x a 64-token one (8x a typical
# 26-token one). On the benchmark this cost 0.8 points of recall@5 (0.874 -> 0.866).
QUERY_TOKENS = 64
KEEP_CACHED = 8  # index files kept per cache folder, newest first


def cache_root() -> Path:
    return paths.cache_dir() / "retrieval"


def fingerprint(tools: Sequence[ToolInfo]) -> str:
    """Changes whenever any tool's name, description or schema changes."""
    digest = hashlib.sha256(f"{MODEL_ID}|{text.DOC_VERSION}|{DOC_TOKENS}".encode())
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

    def __init__(self, key: str, tools: Sequence[ToolInfo], vectors: np.ndarray | None) -> None:
        self.key = key
        self.tools = tuple(tools)
        self.rows = {tool.name: row for row, tool in enumerate(self.tools)}
        self.bm25 = BM25([text.document_words(tool) for tool in self.tools])
        self.vectors = vectors

    @property
    def dense(self) -> bool:
        return self.vectors is not None

    def scores(self, query: str, query_vector: np.ndarray | None) -> Scores:
        terms = text.words(query)
        lexical = self.bm25.scores(terms)
        scale = self.bm25.reference(terms)
        if self.vectors is None or query_vector is None:
            cosine = np.zeros(len(self.tools), dtype=np.float32)
            return Scores(lexical, cosine, fuse(lexical, cosine, scale, weight=1.0))
        cosine = self.vectors @ query_vector
        return Scores(lexical, cosine, fuse(lexical, cosine, scale))


def fuse(lexical: np.ndarray, cosine: np.ndarray, scale: float, weight: float = BM25_WEIGHT) -> np.ndarray:
    """Weighted sum of BM25 (divided by the query's reference score) and cosine similarity."""
    scaled = lexical / scale if scale > 0 else lexical
    return weight * scaled + (1.0 - weight) * cosine


def build_index(
    tools: Sequence[ToolInfo], encoder: MiniLMEncoder | None, root: Path | None = None
) -> ToolIndex:
    """Blocking: loads the model, reads or computes the embeddings. Run it in a worker thread."""
    tools = sorted(tools, key=lambda t: t.name)
    key = fingerprint(tools)
    vectors = None
    if encoder is not None:
        try:
            vectors = _vectors(tools, key, encoder, root or cache_root())
        except EmbeddingUnavailable:
            logger.warning("tool retrieval falls back to BM25 only", exc_info=True)
    return ToolIndex(key, tools, vectors)


def _vectors(tools: Sequence[ToolInfo], key: str, encoder: MiniLMEncoder, root: Path) -> np.ndarray:
    encoder.load()  # queries need the model even when the tool vectors come from the cache
    cached = _read_cache(root / f"{key}.npy", len(tools), encoder.dim)
    if cached is not None:
        return cached
    vectors = encoder.encode([text.document(tool) for tool in tools], max_tokens=DOC_TOKENS)
    _write_cache(root, key, vectors)
    return vectors


def _read_cache(path: Path, rows: int, dim: int) -> np.ndarray | None:
    try:
        vectors = np.load(path, allow_pickle=False)
    except FileNotFoundError:
        return None
    except (OSError, ValueError):
        logger.warning("ignoring unreadable retrieval cache %s", path, exc_info=True)
        return None
    if vectors.shape != (rows, dim) or vectors.dtype != np.float32:
        logger.warning("ignoring retrieval cache %s of shape %s", path, vectors.shape)
        return None
    os.utime(path)  # keep recently used indexes when pruning
    return vectors


def _write_cache(root: Path, key: str, vectors: np.ndarray) -> None:
    """Atomic write, then prune old files; a cache that cannot be written is only logged."""
    try:
        root.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{key}.", suffix=".tmp", dir=root)
    except OSError:
        logger.warning("could not write the retrieval cache under %s", root, exc_info=True)
        return
    try:
        with os.fdopen(fd, "wb") as handle:
            np.save(handle, vectors, allow_pickle=False)
        os.replace(tmp, root / f"{key}.npy")
        _prune(root)
    except OSError:
        logger.warning("could not write the retrieval cache under %s", root, exc_info=True)
    finally:
        Path(tmp).unlink(missing_ok=True)


def _prune(root: Path) -> None:
    files = sorted(root.glob("*.npy"), key=lambda p: p.stat().st_mtime, reverse=True)
    for old in files[KEEP_CACHED:]:
        old.unlink(missing_ok=True)
