"""Static token vectors distilled from all-MiniLM-L6-v2: a query embeds in well under 1 ms.

Each vocabulary token's vector is the contextual model's own embedding of that
token alone (``[CLS] token [SEP]``, mean-pooled), minus the mean over the
vocabulary: that shared component says nothing about meaning. A text's vector
is the normalised mean of its tokens' vectors, so a query costs one tokenizer
call and one gather instead of six transformer layers (about 15 ms for a
20-token query on one core, too slow for the 10 ms budget on a busy machine).
On the BFCL benchmark it keeps most of what the embeddings add to BM25;
docs/benchmarks.md has the figures for both encoders.

The table (30,522 x 384) is distilled once per machine, by ``make run`` or in the
window's background index build (about half a minute on two cores), and cached as
float16 (23 MB); a packaged build carries one distilled when it was built.
"""

from __future__ import annotations

import hashlib
import logging
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from tokenizers import Tokenizer

from app import paths
from app.mcp.retrieval.arrays import read_array, write_array
from app.mcp.retrieval.embed import MAX_TOKENS, MODEL_ID, MiniLMEncoder

logger = logging.getLogger(__name__)

DISTILL_VERSION = "1"  # bump when the distillation changes: cached tables depend on it


def table_root() -> Path:
    # Its own folder: the index cache next to it prunes old files.
    return paths.cache_dir() / "retrieval" / "static"


class StaticEncoder:
    """Same interface as :class:`MiniLMEncoder` (``encode``, ``load``, ``dim``, ``model_id``)."""

    dim = MiniLMEncoder.dim
    model_id = f"{MODEL_ID}+static{DISTILL_VERSION}"
    # Hybrid weight of BM25 for this encoder: best on the even half of the benchmark's
    # queries, checked on the odd half (bench/retrieval.py prints the sweep).
    fusion_weight = 0.5

    def __init__(self, source: MiniLMEncoder | None = None, *, root: Path | None = None) -> None:
        self.source = source or MiniLMEncoder()
        self.root = root
        self.calls = 0
        self.texts_encoded = 0
        self.distilled = 0  # tables distilled (not read from the cache) by this encoder
        self._lock = threading.Lock()
        self._table: np.ndarray | None = None
        self._tokenizers: dict[int, Tokenizer] = {}

    @property
    def loaded(self) -> bool:
        return self._table is not None

    @property
    def prepared(self) -> bool:
        return self._table is not None or any(path.exists() for path in self._tables())

    def table_path(self) -> Path:
        """Where this machine's table is written (and read first)."""
        return (self.root or table_root()) / self.file_name()

    @classmethod
    def file_name(cls) -> str:
        return f"static-{hashlib.sha256(cls.model_id.encode()).hexdigest()[:16]}.npy"

    def bundled_path(self) -> Path | None:
        """The table a packaged build carries, distilled when it was built."""
        folder = paths.bundled_dir("retrieval") if self.root is None else None
        return folder / self.file_name() if folder is not None else None

    def _tables(self) -> list[Path]:
        return [self.table_path(), *filter(None, [self.bundled_path()])]

    def _cached_table(self) -> np.ndarray | None:
        rows = self.source.vocab_size()
        for path in self._tables():
            table = _read_table(path, rows)
            if table is not None:
                return table
        return None

    def load(self) -> None:
        """Read the table, or distil and cache it (slow: run it in a worker thread)."""
        with self._lock:
            if self._table is not None:
                return
            path = self.table_path()
            table = self._cached_table()
            if table is None:
                logger.info("distilling static token vectors from %s (once per machine)", MODEL_ID)
                vectors = self.source.token_vectors(np.arange(self.source.vocab_size()))
                table = (vectors - vectors.mean(axis=0)).astype(np.float16)
                write_array(path, table, "static token table")  # if it fails: distilled again next start
                self.distilled += 1
            self._tokenizer_json = self.source.tokenizer_json()
            self._table = table

    def encode(self, texts: Sequence[str], *, max_tokens: int | None = None) -> np.ndarray:
        """Unit-length float32 vectors, one row per text (zero for a text with no tokens)."""
        self.load()
        assert self._table is not None
        tokenizer = self._tokenizer(max_tokens or MAX_TOKENS)
        encodings = tokenizer.encode_batch(list(texts), add_special_tokens=False)
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, encoding in enumerate(encodings):
            if encoding.ids:
                out[row] = self._table[encoding.ids].astype(np.float32).mean(axis=0)
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        with self._lock:
            self.calls += 1
            self.texts_encoded += len(texts)
        return out / np.maximum(norms, 1e-12)

    def _tokenizer(self, max_tokens: int) -> Tokenizer:
        with self._lock:
            if max_tokens not in self._tokenizers:
                tokenizer = Tokenizer.from_str(self._tokenizer_json)
                tokenizer.no_padding()
                tokenizer.enable_truncation(max_tokens)
                self._tokenizers[max_tokens] = tokenizer
            return self._tokenizers[max_tokens]


def _read_table(path: Path, rows: int) -> np.ndarray | None:
    return read_array(path, (rows, StaticEncoder.dim), np.float16, "static token table")


def prepare(root: Path | None = None) -> bool:
    """Distil the table into the cache where it is not there yet; True if it was distilled.

    ``make run`` calls this before the window opens. Left to the first question, the distilling
    (MiniLM over its whole vocabulary, about 30 s on 2 cores) ran during it, beside the model's
    first reading of its prompt, and a person's very first answer took about 40 s."""
    encoder = StaticEncoder(root=root)
    if encoder.prepared:
        return False
    print("Preparing tool search, once per machine (about half a minute on 2 cores)...", flush=True)
    encoder.load()
    return encoder.distilled > 0
