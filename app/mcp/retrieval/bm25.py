"""Okapi BM25 over a fixed set of documents, with an inverted index in numpy.

Each term's per-document weight ``tf * (k1 + 1) / (tf + k1 * norm)`` is computed
once at build time, so a query costs one vector add per query term.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

import numpy as np


class BM25:
    def __init__(self, documents: Sequence[Sequence[str]], *, k1: float = 1.2, b: float = 0.75) -> None:
        self.size = len(documents)
        lengths = np.array([len(d) for d in documents], dtype=np.float32)
        average = float(lengths.mean()) if self.size and lengths.sum() else 1.0
        norm = 1.0 - b + b * lengths / average
        postings: dict[str, tuple[list[int], list[float]]] = {}
        for row, document in enumerate(documents):
            for term, tf in Counter(document).items():
                rows, weights = postings.setdefault(term, ([], []))
                rows.append(row)
                weights.append(tf * (k1 + 1) / (tf + k1 * norm[row]))
        self._df = {term: len(rows) for term, (rows, _) in postings.items()}
        self._postings = {
            term: (np.array(rows, dtype=np.int32), np.array(weights, dtype=np.float32) * self._idf(len(rows)))
            for term, (rows, weights) in postings.items()
        }

    def _idf(self, df: int) -> float:
        # Lucene's form: never negative, so a very common term cannot push a match down.
        return math.log(1.0 + (self.size - df + 0.5) / (df + 0.5))

    def reference(self, terms: Iterable[str], weights: Mapping[str, float] | None = None) -> float:
        """What a document of average length holding each query term once would score.

        Dividing by it puts scores on a 0..~1 scale that depends on the query, not
        on the best match: a tool that shares one stray word with a long question
        stays low instead of being stretched to 1. Unknown terms count at full
        idf, so a question the tool texts barely cover leans on the embeddings.
        """
        weights = weights or {}
        return sum(self._idf(self._df.get(t, 0)) * weights.get(t, 1.0) for t in dict.fromkeys(terms))

    def scores(self, terms: Iterable[str], weights: Mapping[str, float] | None = None) -> np.ndarray:
        """Score of every document for the query terms (each distinct term counted once, times its
        weight where ``weights`` gives one)."""
        weights = weights or {}
        total = np.zeros(self.size, dtype=np.float32)
        for term in dict.fromkeys(terms):
            posting = self._postings.get(term)
            if posting is not None:
                total[posting[0]] += posting[1] * weights.get(term, 1.0)  # rows are distinct within a posting
        return total
