"""Our BM25 against the bm25s library on the test catalogue: same tokens, same k1 and b.

Ours is Lucene's idf with the classic ``(k1 + 1)`` term weight, which bm25s calls
``method="atire", idf_method="lucene"`` (see bench/bm25_check.py for the other variants).
"""

from __future__ import annotations

import bm25s
import numpy as np
import pytest
import tqdm

from app.mcp.retrieval import text
from app.mcp.retrieval.bm25 import BM25
from tests.mcp.retrieval.catalogue import catalogue

# bm25s reports through tqdm, whose first progress bar starts a monitor thread that outlives the
# test (the leak check fails it); with no monitor interval tqdm starts none.
tqdm.tqdm.monitor_interval = 0

QUERIES = [
    "what is the weather forecast for Paris",
    "send an email to Bob about the meeting",
    "convert 5 miles to kilometres",
    "how many days between two dates",
    "read the file notes.txt and write a summary file",
    "add 2 and 3 then multiply by the number 4",
    "translate this text into French",
    "stock price of a company",
    "square root of a number raised to a power",
    "play a song",
]


def _both(k1: float, b: float) -> tuple[BM25, bm25s.BM25]:
    documents = [text.document_words(tool) for tool in catalogue()]
    reference = bm25s.BM25(k1=k1, b=b, method="atire", idf_method="lucene")
    reference.index(documents, show_progress=False)
    return BM25(documents, k1=k1, b=b), reference


def _pairs(k1: float, b: float) -> list[tuple[np.ndarray, np.ndarray]]:
    ours, reference = _both(k1, b)
    # Ours counts each distinct query term once; bm25s counts repeats, so it gets the distinct terms.
    queries = [list(dict.fromkeys(text.words(q))) for q in QUERIES]
    return [(ours.scores(terms), reference.get_scores(terms)) for terms in queries]


@pytest.mark.parametrize(("k1", "b"), [(1.2, 0.75), (1.5, 0.3), (0.9, 1.0)])
def test_scores_match_the_bm25s_reference(k1: float, b: float) -> None:
    for mine, theirs in _pairs(k1, b):
        assert theirs.max() > 0
        np.testing.assert_allclose(mine, theirs, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize(("k1", "b"), [(1.2, 0.75), (1.5, 0.3)])
def test_our_ranking_is_the_reference_ranking_up_to_ties(k1: float, b: float) -> None:
    for mine, theirs in _pairs(k1, b):
        ranked = np.lexsort((np.arange(len(mine)), -mine))
        tolerance = 1e-5 * theirs.max()
        # Read in our order, the reference's scores never rise beyond a tie.
        assert (np.diff(theirs[ranked]) <= tolerance).all()
        assert ranked[0] in np.flatnonzero(theirs >= theirs.max() - tolerance)
