"""Tool retrieval benchmark on BFCL's function docs and questions.

    python -m bench retrieval [--limit N] [--latency-queries N] [--reference-python PATH]

Tools: the union of every function doc shipped in the ``bfcl-eval`` package's
single-turn categories (irrelevance ones included as distractors), deduplicated
by name. Queries: each question with a ground truth; its labels are the
ground-truth function names. Compares BM25 alone, dense alone and the hybrid
(recall@1/3/5), then times queries and index builds and counts schema tokens.

``--reference-python`` names an interpreter that has sentence-transformers
(torch): the same queries are embedded there too, side by side, to report the
speed ratio and the largest difference from our numpy forward pass.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.resources
import importlib.util
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from app.core.tools import ToolInfo
from app.mcp.retrieval import MiniLMEncoder, ToolRetriever, schema_tokens, text
from app.mcp.retrieval.embed import default_model_dir
from app.mcp.retrieval.index import BM25_WEIGHT, QUERY_TOKENS, ToolIndex, fuse

CATEGORIES = (
    "simple_python",
    "multiple",
    "parallel",
    "parallel_multiple",
    "live_simple",
    "live_multiple",
    "live_parallel",
    "live_parallel_multiple",
    "simple_java",
    "simple_javascript",
)
DISTRACTORS = ("irrelevance", "live_irrelevance", "live_relevance")
KS = (1, 3, 5)


@dataclasses.dataclass(frozen=True)
class Query:
    id: str
    text: str
    labels: frozenset[str]


# --- the data ---


def _jsonl(name: str) -> Iterator[dict[str, Any]]:
    path = importlib.resources.files("bfcl_eval") / "data" / name
    if not path.is_file():
        return
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            yield json.loads(line)


def _as_tool(doc: dict[str, Any]) -> ToolInfo:
    name = doc["name"]
    return ToolInfo("bfcl", name, name, doc.get("description", ""), doc.get("parameters", {}))


def _question_text(question: list[list[dict[str, str]]]) -> str:
    return " ".join(m["content"] for m in question[0] if m.get("role") == "user")


def load_bfcl() -> tuple[list[ToolInfo], list[Query]]:
    tools: dict[str, ToolInfo] = {}
    queries = []
    for category in (*CATEGORIES, *DISTRACTORS):
        answers = {a["id"]: a["ground_truth"] for a in _jsonl(f"possible_answer/BFCL_v4_{category}.json")}
        for entry in _jsonl(f"BFCL_v4_{category}.json"):
            for doc in entry["function"]:
                tools.setdefault(doc["name"], _as_tool(doc))
            if entry["id"] in answers:
                labels = frozenset(name for call in answers[entry["id"]] for name in call)
                queries.append(Query(entry["id"], _question_text(entry["question"]), labels))
    return list(tools.values()), [q for q in queries if q.text and q.labels <= tools.keys()]


# --- measuring ---


def recall(ranking: np.ndarray, labels: frozenset[str], names: Sequence[str], k: int) -> float:
    return len(labels & {names[i] for i in ranking[:k]}) / len(labels)


def top(scores: np.ndarray, k: int = max(KS)) -> np.ndarray:
    best = np.argpartition(-scores, k)[:k]
    return best[np.argsort(-scores[best], kind="stable")]


@dataclasses.dataclass
class Scored:
    query: Query
    bm25: np.ndarray
    dense: np.ndarray
    scale: float  # BM25's reference score for the query


def score_all(index: ToolIndex, encoder: MiniLMEncoder, queries: Sequence[Query]) -> list[Scored]:
    vectors = encoder.encode([q.text for q in queries], max_tokens=QUERY_TOKENS)
    out = []
    for query, vector in zip(queries, vectors, strict=True):
        s = index.scores(query.text, vector)
        out.append(Scored(query, s.bm25, s.dense, index.bm25.reference(text.words(query.text))))
    return out


Method = Callable[[Scored], np.ndarray]


def recalls(scored: Sequence[Scored], names: Sequence[str], method: Method) -> list[float]:
    totals = [0.0] * len(KS)
    for item in scored:
        ranking = top(method(item))
        for i, k in enumerate(KS):
            totals[i] += recall(ranking, item.query.labels, names, k)
    return [t / len(scored) for t in totals]


def rrf(item: Scored, k: int = 60) -> np.ndarray:
    """Reciprocal rank fusion, for comparison with the weighted sum."""
    fused = np.zeros_like(item.bm25)
    for scores in (item.bm25, item.dense):
        ranks = np.empty(len(scores), dtype=np.int64)
        ranks[np.argsort(-scores, kind="stable")] = np.arange(len(scores))
        fused += 1.0 / (k + ranks + 1)
    return fused


def max_normalised(item: Scored, weight: float = 0.2) -> np.ndarray:
    """The first fusion tried: BM25 divided by the best match (best weight 0.2 on this set)."""
    best = float(item.bm25.max())
    return fuse(item.bm25, item.dense, best if best > 0 else 1.0, weight)


METHODS: dict[str, Method] = {
    "bm25": lambda s: s.bm25,
    "dense": lambda s: s.dense,
    f"hybrid (w={BM25_WEIGHT})": lambda s: fuse(s.bm25, s.dense, s.scale),
    "max-norm (w=0.2)": max_normalised,
    "rrf (k=60)": rrf,
}


def percentiles(samples_ms: Sequence[float]) -> tuple[float, float]:
    ordered = sorted(samples_ms)
    return statistics.median(ordered), ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]


def time_queries(
    retriever: ToolRetriever, tools: Sequence[ToolInfo], queries: Sequence[Query]
) -> list[float]:
    """End-to-end ``ranked`` latency, query embedding included (the query cache is emptied each time)."""
    samples = []
    for query in queries:
        retriever.forget_queries()
        started = time.perf_counter()
        retriever.ranked(query.text, tools, 5)
        samples.append((time.perf_counter() - started) * 1000)
    return samples


def time_build(tools: Sequence[ToolInfo], cache: Path, encoder: MiniLMEncoder) -> tuple[float, ToolRetriever]:
    retriever = ToolRetriever(encoder=encoder, cache_root=cache)
    started = time.perf_counter()
    retriever.refresh_blocking(tools)
    return time.perf_counter() - started, retriever


# --- the raw library, side by side ---

_REFERENCE_SCRIPT = """
import json, sys, time
import torch
from sentence_transformers import SentenceTransformer
torch.set_num_threads(1)  # as ours: one thread, so the ratio compares the code, not the threading
model = SentenceTransformer(sys.argv[1], device="cpu")
texts = json.load(open(sys.argv[2]))
model.encode(texts[:8], normalize_embeddings=True)
rows, times = [], []
for text in texts:
    started = time.perf_counter()
    rows.append(model.encode([text], normalize_embeddings=True)[0].tolist())
    times.append((time.perf_counter() - started) * 1000)
json.dump({"embeddings": rows, "ms": times}, open(sys.argv[3], "w"))
"""


def reference_run(python: str, texts: Sequence[str]) -> tuple[np.ndarray, list[float]]:
    with tempfile.TemporaryDirectory() as tmp:
        src, dst = Path(tmp) / "in.json", Path(tmp) / "out.json"
        src.write_text(json.dumps(list(texts)), encoding="utf-8")
        args = [python, "-c", _REFERENCE_SCRIPT, str(default_model_dir()), str(src), str(dst)]
        subprocess.run(args, check=True, capture_output=True)
        data = json.loads(dst.read_text(encoding="utf-8"))
    return np.array(data["embeddings"], dtype=np.float32), data["ms"]


def compare_reference(python: str, encoder: MiniLMEncoder, queries: Sequence[Query]) -> None:
    texts = [q.text for q in queries]
    theirs, their_ms = reference_run(python, texts)
    ours_ms, ours = [], []
    for line in texts:
        started = time.perf_counter()
        ours.append(encoder.encode([line])[0])
        ours_ms.append((time.perf_counter() - started) * 1000)
    diff = float(np.abs(np.array(ours) - theirs).max())
    (o50, o95), (t50, t95) = percentiles(ours_ms), percentiles(their_ms)
    print(f"\nquery embedding, {len(texts)} queries, one at a time (ms)")
    print(f"  numpy (ours)            p50 {o50:6.2f}  p95 {o95:6.2f}")
    print(f"  sentence-transformers   p50 {t50:6.2f}  p95 {t95:6.2f}   (torch, one thread)")
    print(f"  ratio ours/theirs       p50 {o50 / t50:6.2f}  p95 {o95 / t95:6.2f}   max |diff| {diff:.2e}")


# --- the report ---


def print_recall_table(scored: Sequence[Scored], names: Sequence[str], title: str) -> None:
    print(f"\n{title}")
    print(f"{'method':<18}" + "".join(f"  R@{k:<4}" for k in KS))
    for label, method in METHODS.items():
        print(f"{label:<18}" + "".join(f"  {r:.3f}" for r in recalls(scored, names, method)))


def print_weight_sweep(dev: Sequence[Scored], test: Sequence[Scored], names: Sequence[str]) -> None:
    print("\nfusion weight sweep (w * BM25/reference + (1-w) * cosine): R@1 / R@5, even | odd queries")
    for weight in np.round(np.arange(0.0, 1.01, 0.1), 1):

        def method(s: Scored, w: float = float(weight)) -> np.ndarray:
            return fuse(s.bm25, s.dense, s.scale, w)

        d, t = recalls(dev, names, method), recalls(test, names, method)
        print(f"  w={weight:.1f}   {d[0]:.3f} / {d[2]:.3f}  |  {t[0]:.3f} / {t[2]:.3f}")


def report_speed(retriever: ToolRetriever, tools: Sequence[ToolInfo], sample: Sequence[Query]) -> None:
    bm25_only = ToolRetriever(dense=False)
    bm25_only.refresh_blocking(tools)
    (h50, h95), (b50, b95) = (
        percentiles(time_queries(retriever, tools, sample)),
        percentiles(time_queries(bm25_only, tools, sample)),
    )
    print(f"\nquery latency, {len(sample)} queries over {len(tools)} tools (ms, one BLAS thread)")
    print(f"  hybrid, query embedding included   p50 {h50:6.2f}  p95 {h95:6.2f}")
    print(f"  BM25 only                          p50 {b50:6.2f}  p95 {b95:6.2f}")


def report_tokens(index: ToolIndex, scored: Sequence[Scored]) -> None:
    every = schema_tokens(index.tools)
    offered = statistics.mean(
        schema_tokens([index.tools[i] for i in top(fuse(s.bm25, s.dense, s.scale))[:5]]) for s in scored
    )
    print(f"\nschema tokens (chars/4): every tool {every:,}; top-5 mean {offered:,.0f}", end="")
    print(f" ({offered / every:.2%} of every tool; {every - offered:,.0f} saved per step)")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--limit", type=int, default=0, help="use only the first N queries")
    parser.add_argument("--latency-queries", type=int, default=300, help="queries timed one by one")
    parser.add_argument("--reference-python", help="an interpreter with sentence-transformers")
    args = parser.parse_args(argv)
    if importlib.util.find_spec("bfcl_eval") is None:
        print("needs the BFCL data: pip install --no-deps 'bfcl-eval==2026.3.23'", file=sys.stderr)
        return 2

    tools, queries = load_bfcl()
    queries = queries[: args.limit] if args.limit else queries
    sample = queries[:: max(1, len(queries) // args.latency_queries)][: args.latency_queries]
    print(f"{len(tools)} tools, {len(queries)} queries (BFCL, bfcl-eval package)")

    encoder = MiniLMEncoder()
    with tempfile.TemporaryDirectory() as tmp:
        cold, retriever = time_build(tools, Path(tmp), encoder)
        embedded = encoder.texts_encoded
        warm, _ = time_build(tools, Path(tmp), MiniLMEncoder())
    print(f"index build: cold {cold:.1f} s ({embedded} tools embedded); from the disk cache {warm:.2f} s")
    print("  (the cached build includes loading the model: 90 MB of weights)")
    index = retriever.index
    assert index is not None
    names = [t.name for t in index.tools]

    scored = score_all(index, encoder, queries)
    print_recall_table(scored, names, f"recall, {len(scored)} queries")
    print_weight_sweep(scored[0::2], scored[1::2], names)
    report_speed(retriever, tools, sample)
    report_tokens(index, scored)
    if args.reference_python:
        compare_reference(args.reference_python, encoder, sample)
    return 0


if __name__ == "__main__":
    sys.exit(main())
