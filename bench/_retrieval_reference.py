"""Our contextual encoder against sentence-transformers on the same queries, interleaved and paired.

One child of the reference interpreter (one that has sentence-transformers and torch)
keeps the model loaded and embeds on request: one line of JSON in on stdin
(``{"text": ...}``), one line out (``{"ms": ..., "embedding": [...]}``). The child
times its own ``encode`` call, so the pipe is not counted; ours is timed around
``encode`` the same way. Query by query the sides take turns at going first
(:func:`bench._stats.order`), so each quotient ours_i / raw_i compares two runs made
back to back.
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO

import numpy as np

from app.mcp.retrieval import MiniLMEncoder
from app.mcp.retrieval.embed import default_model_dir
from bench import _stats

SIDES = ("ours", "raw")
CLOSE_S = 10.0  # how long the child may take to exit once its stdin is closed

_REFERENCE_SCRIPT = """
import json, sys, time
import sentence_transformers, torch
from sentence_transformers import SentenceTransformer
torch.set_num_threads(1)  # as ours: one thread, so the ratio compares the code, not the threading
model = SentenceTransformer(sys.argv[1], device="cpu")
model.encode(["warm up"] * 8, normalize_embeddings=True)
versions = f"torch {torch.__version__}, sentence-transformers {sentence_transformers.__version__}"
print(json.dumps({"versions": versions}), flush=True)
for line in sys.stdin:
    text = json.loads(line)["text"]
    started = time.perf_counter()
    row = model.encode([text], normalize_embeddings=True)[0]
    ms = (time.perf_counter() - started) * 1000
    print(json.dumps({"ms": ms, "embedding": row.tolist()}), flush=True)
"""

Embed = Callable[[str], tuple[np.ndarray, float]]  # one text -> (its vector, milliseconds)


class ReferenceChild:
    """The reference interpreter, model loaded, embedding one text per request."""

    def __init__(self, python: str, model_dir: Path) -> None:
        self._stderr: IO[str] = tempfile.TemporaryFile("w+", encoding="utf-8")  # noqa: SIM115 (closed in close())
        args = [python, "-c", _REFERENCE_SCRIPT, str(model_dir)]
        self._process = subprocess.Popen(
            args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr, text=True
        )
        self.versions = str(self._reply()["versions"])  # the first line: loaded and warm

    def embed(self, text: str) -> tuple[np.ndarray, float]:
        assert self._process.stdin is not None
        self._process.stdin.write(json.dumps({"text": text}) + "\n")
        self._process.stdin.flush()
        reply = self._reply()
        return np.array(reply["embedding"], dtype=np.float32), float(reply["ms"])

    def _reply(self) -> dict[str, object]:
        assert self._process.stdout is not None
        line = self._process.stdout.readline()
        if not line:
            self._stderr.seek(0)
            raise RuntimeError(f"the reference process stopped: {self._stderr.read()[-2000:]}")
        reply: dict[str, object] = json.loads(line)
        return reply

    def close(self) -> None:
        """Close stdin (the child's loop ends), wait a bounded time, then kill."""
        if self._process.stdin is not None:
            self._process.stdin.close()
        try:
            self._process.wait(CLOSE_S)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        if self._process.stdout is not None:
            self._process.stdout.close()
        self._stderr.close()

    def __enter__(self) -> ReferenceChild:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@dataclasses.dataclass(frozen=True)
class Interleaved:
    ms: dict[str, list[float]]  # per side, one sample per query
    ours_first: list[bool]
    max_diff: float  # largest difference between the two sides' vectors


def interleave(texts: Sequence[str], ours: Embed, raw: Embed) -> Interleaved:
    """Each text embedded by both sides back to back, the side going first alternating."""
    embed = {"ours": ours, "raw": raw}
    ms: dict[str, list[float]] = {side: [] for side in SIDES}
    first, diff = [], 0.0
    for i, line in enumerate(texts):
        sides = _stats.order(i, SIDES)
        first.append(sides[0] == "ours")
        vectors = {}
        for side in sides:
            vectors[side], took = embed[side](line)
            ms[side].append(took)
        diff = max(diff, float(np.abs(vectors["ours"] - vectors["raw"]).max()))
    return Interleaved(ms, first, diff)


def timed(encoder: MiniLMEncoder) -> Embed:
    def embed(line: str) -> tuple[np.ndarray, float]:
        started = time.perf_counter()
        vector = encoder.encode([line])[0]
        return vector, (time.perf_counter() - started) * 1000

    return embed


def compare_reference(python: str, encoder: MiniLMEncoder, texts: Sequence[str]) -> str:
    """The side-by-side paragraph for the report."""
    encoder.encode(list(texts[:8]))  # our warm-up, as the child's
    with ReferenceChild(python, default_model_dir()) as child:
        run = interleave(texts, timed(encoder), child.embed)
    pair = _stats.paired(run.ms["ours"], run.ms["raw"], run.ours_first)
    return (
        f"Side by side (`--reference-python PY`, PY with {child.versions}, CPU), interleaved: the same"
        f" {len(texts)} queries embedded one at a time, full length, by the contextual encoder (ours,"
        " numpy) and by sentence-transformers (one torch thread, one child process kept running),"
        " the side going first alternating query by query:"
        f" p50 ours {pair.ours:.1f} ms, raw {pair.raw:.1f} ms; p95 ours {_stats.p95(run.ms['ours']):.1f} ms,"
        f" raw {_stats.p95(run.ms['raw']):.1f} ms; **paired ratio ours/raw {pair.ratio:.3f}**"
        f" ({pair.pairs} pairs; {_stats.by_first(pair)}). {_stats.NOTE}"
        f" Largest difference between the two embeddings: {run.max_diff:.1e}."
    )
