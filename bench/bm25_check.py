"""Our BM25 (``app/mcp/retrieval/bm25.py``) against the ``bm25s`` library, on BFCL's tool catalogue.

Both sides index the same documents and score the same query terms (our own
tokenisation, ``app.mcp.retrieval.text``, so only the scoring is compared), with
the same k1 and b. Ours is Okapi BM25 with Lucene's idf,
``log(1 + (N - df + 0.5) / (df + 0.5))``, and the classic term weight
``tf (k1 + 1) / (tf + k1 (1 - b + b |d| / avgdl))``. bm25s calls that term weight
"atire" and that idf "lucene", so the matched reference is ``method="atire",
idf_method="lucene"``. Its plain "lucene" leaves out the constant ``k1 + 1`` from the
term weight (as Lucene has since version 8), and so does its "robertson"; both are
compared after multiplying it back. "robertson" then differs in its idf,
``log((N - df + 0.5) / (df + 0.5))`` floored at 0, and "atire" in ``log(N / df)``:
those rows show what each difference does to the ranking.

Ours counts each distinct query term once; bm25s adds a term as often as the query
repeats it, so it is given each query's distinct terms.

    python -m bench bm25_check [--timed 1000] [--no-write]
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import time
from collections.abc import Sequence

import bm25s
import numpy as np

from app.mcp.retrieval import text
from app.mcp.retrieval.bm25 import BM25
from bench import _stats
from bench._bfcl_tools import load_bfcl
from bench._doc import load_average, write_section

HEADING = "## BM25 against bm25s"
K1, B = 1.2, 0.75  # our defaults, as the app builds its index
TIE = 1e-5  # scores this close (relative to the query's best) count as a tie
# bm25s variant -> (term weight, idf, factor that puts its scores on our scale)
VARIANTS = {
    "atire weight + lucene idf (matched)": ("atire", "lucene", 1.0),
    "lucene, x (k1 + 1)": ("lucene", "lucene", K1 + 1),
    "robertson, x (k1 + 1)": ("robertson", "robertson", K1 + 1),
    "atire": ("atire", "atire", 1.0),
}


@dataclasses.dataclass(frozen=True)
class Agreement:
    max_abs: float  # largest |ours - reference| over every query and document
    max_rel: float  # ... divided by that query's best reference score
    top1: int  # queries whose first document is the same on both sides
    top5: int  # queries whose five best documents are the same set
    top1_ties: int  # top-1 disagreements where the two firsts score within TIE of each other
    queries: int


def reference(documents: Sequence[Sequence[str]], weight: str, idf: str) -> bm25s.BM25:
    index = bm25s.BM25(k1=K1, b=B, method=weight, idf_method=idf)
    index.index([list(d) for d in documents], show_progress=False)
    return index


def top(scores: np.ndarray, k: int) -> np.ndarray:
    """The k best documents, ties broken by position, the same way on both sides."""
    return np.lexsort((np.arange(len(scores)), -scores))[:k]


def compare(ours: Sequence[np.ndarray], theirs: Sequence[np.ndarray]) -> Agreement:
    max_abs = max_rel = 0.0
    top1 = top5 = ties = 0
    for mine, ref in zip(ours, theirs, strict=True):
        diff = float(np.abs(mine - ref).max())
        best = float(ref.max()) or 1.0
        max_abs, max_rel = max(max_abs, diff), max(max_rel, diff / best)
        first_mine, first_ref = top(mine, 1)[0], top(ref, 1)[0]
        top1 += first_mine == first_ref
        ties += first_mine != first_ref and ref[first_ref] - ref[first_mine] <= TIE * best
        top5 += set(top(mine, 5)) == set(top(ref, 5))
    return Agreement(max_abs, max_rel, top1, top5, ties, len(ours))


def timed_pairs(ours: BM25, ref: bm25s.BM25, queries: Sequence[list[str]]) -> _stats.Paired:
    """Microseconds to score every document for one query, ours and bm25s back to back."""
    times: dict[str, list[float]] = {"ours": [], "raw": []}
    work = {"ours": ours.scores, "raw": ref.get_scores}
    for i, terms in enumerate(queries):
        for side in _stats.order(i):
            began = time.perf_counter()
            work[side](terms)
            times[side].append((time.perf_counter() - began) * 1e6)
    return _stats.paired(times["ours"], times["raw"])


def measure(timed: int) -> tuple[dict[str, Agreement], _stats.Paired, int, int, int]:
    tools, queries = load_bfcl()
    documents = [text.document_words(tool) for tool in tools]
    every = [list(dict.fromkeys(text.words(q.text))) for q in queries]
    terms = [t for t in every if t]  # bm25s refuses an empty query (ours scores it all zero)
    ours = BM25(documents, k1=K1, b=B)
    our_scores = [ours.scores(t) for t in terms]
    agreements, matched = {}, None
    for name, (weight, idf, factor) in VARIANTS.items():
        ref = reference(documents, weight, idf)
        matched = matched or ref
        agreements[name] = compare(our_scores, [ref.get_scores(t) * factor for t in terms])
    assert matched is not None
    ours.scores(terms[0]), matched.get_scores(terms[0])  # first-call costs out of the timing
    return agreements, timed_pairs(ours, matched, terms[:timed]), len(tools), len(terms), len(every)


def report(
    agreements: dict[str, Agreement], speed: _stats.Paired, tools: int, queries: int, loaded: int
) -> str:
    lines = [
        f"Command: `python -m bench bm25_check` (bm25s {bm25s.__version__}, numpy backend; k1 = {K1}, "
        f"b = {B}; BFCL's {tools:,} tools from `bench/_bfcl_tools.py`, {queries:,} queries (of {loaded:,}: "
        f"{loaded - queries} have no term left after our tokenisation, e.g. no Latin letters); our "
        "tokenisation on both sides, each query's distinct terms).",
        "",
        "| bm25s variant | largest score difference | relative to the query's best | top-1 agree "
        "| top-5 agree |",
        "|---|---|---|---|---|",
    ]
    for name, a in agreements.items():
        first = f"{a.top1}/{a.queries}" + (f" ({a.top1_ties} of the rest near-ties)" if a.top1_ties else "")
        lines.append(f"| {name} | {a.max_abs:.2e} | {a.max_rel:.2e} | {first} | {a.top5}/{a.queries} |")
    lines += [
        "",
        "Ours is the matched variant: Lucene's idf with the classic `(k1 + 1)` term weight. bm25s's "
        "`lucene` is the same up to that constant factor, so it ranks identically; `robertson` and "
        "`atire` change the idf, and with it some rankings.",
        "",
        f"Query time, every document scored for one query, against the matched bm25s index "
        f"({speed.pairs} queries): {_stats.sentence(speed, 'µs', digits=1)}. {_stats.NOTE}",
        "",
        f"Machine: {os.cpu_count()} CPUs, load average {load_average()} at the end of the run.",
    ]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m bench bm25_check")
    parser.add_argument("--timed", type=int, default=1000, help="queries timed on each side")
    parser.add_argument("--no-write", action="store_true", help="print only; leave docs/benchmarks.md alone")
    args = parser.parse_args(sys.argv[1:])
    agreements, speed, *counts = measure(args.timed)
    text_ = report(agreements, speed, *counts)
    print(text_)
    if not args.no_write:
        write_section(HEADING, text_)
    matched = agreements[next(iter(VARIANTS))]
    return 0 if matched.max_rel <= TIE and matched.top5 == matched.queries else 1


if __name__ == "__main__":
    sys.exit(main())
