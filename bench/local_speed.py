"""Local backend speed against raw llama-cpp-python, side by side in one run.

Same GGUF, same loaded model, same formatted prompt, greedy decoding, the cache
cleared before every run. Runs alternate (ours, raw, raw, ours, ...) so drift in
machine load hits both sides alike. Reported: decode tokens/s and time to first
token, both sides' medians, and per pair of runs the ratio (speed) or the
difference (first token), their median the headline. Targets: >= 0.95 of raw
speed, first token within 20 ms of raw.

Two scenarios: a plain chat turn, and the same turn with the calculator's tools
offered (our tool-call grammar is active until the reply is seen to be text;
raw gets the same prompt text, without a grammar). One untimed warm-up run per
side comes first.

    python -m bench local_speed [--model PATH] [--runs 5] [--tokens 128] [--gpu-layers 0] [--no-write]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from app.core.backend import ModelRequest, TextChunk
from app.core.messages import Message, ToolSpec
from app.llm.local import LocalBackend, LocalOptions
from bench import _stats
from bench._doc import load_average

PROMPT = "Tell me a long story about a lighthouse keeper and a storm."
Row = dict[str, float]


class Clock:
    """Wall and process CPU time at the start, the first token and the latest token.

    CPU time counts every thread of this process (llama.cpp's workers too), so
    it is far less disturbed than wall time by other programs on a busy machine.
    """

    def __init__(self) -> None:
        self.start = self.first = self.last = (time.perf_counter(), time.process_time())
        self.tokens_seen = 0

    def tick(self) -> None:
        self.last = (time.perf_counter(), time.process_time())
        if not self.tokens_seen:
            self.first = self.last
        self.tokens_seen += 1

    def figures(self, tokens: int) -> Row:
        wall, cpu = (self.last[i] - self.first[i] for i in (0, 1))
        return {
            "ttft_ms": (self.first[0] - self.start[0]) * 1000,
            "tok_s": (tokens - 1) / wall if tokens > 1 and wall > 0 else 0.0,
            "cpu_tok_s": (tokens - 1) / cpu if tokens > 1 and cpu > 0 else 0.0,
            "tokens": float(tokens),
        }


async def ours(backend: LocalBackend, request: ModelRequest, *, cold: bool = True) -> Row:
    assert backend.llama is not None
    if cold:
        backend.llama.reset()  # the whole prompt is decoded, as in the raw run
    clock = Clock()
    async for chunk in backend.stream(request):
        if isinstance(chunk, TextChunk):
            clock.tick()
    assert backend.last_step is not None and clock.tokens_seen
    return clock.figures(backend.last_step.tokens)


def raw(backend: LocalBackend, prompt: str, tokens: int, cold: bool = True) -> Row:
    llm = backend.llama
    assert llm is not None
    if cold:
        llm.reset()
    clock = Clock()
    for chunk in llm.create_completion(
        prompt, max_tokens=tokens, temperature=0.0, repeat_penalty=1.0, stream=True
    ):
        if chunk["choices"][0]["finish_reason"] is None:  # type: ignore[index]  # the closing chunk has no token
            clock.tick()
    return clock.figures(clock.tokens_seen)


async def calculator_tools(saved: Path | None) -> tuple[ToolSpec, ...]:
    """The calculator's tools: from the server module, or from a JSON dump where MCP is not installed."""
    if saved is not None:
        rows = json.loads(saved.read_text())
        return tuple(ToolSpec(t["name"], t["description"], t["input_schema"]) for t in rows)
    from app.servers.calculator import server

    listed = await server.list_tools()
    return tuple(ToolSpec(t.name, t.description or "", t.input_schema) for t in listed)


async def scenario(
    backend: LocalBackend, name: str, request: ModelRequest, runs: int, tokens: int
) -> dict[str, Any]:
    prompt = backend.prompt_text(request)
    await ours(backend, request)  # warm-up, untimed: first-use costs on both sides
    await asyncio.to_thread(raw, backend, prompt, tokens)
    mine, theirs = await pairs(backend, request, prompt, runs, tokens, cold=True)
    out = summary(name, mine, theirs)
    # the prompt left in the cache: both sides decode one token before the first pick, so the
    # difference is what each adds around llama.cpp, without the noise of a long prompt decode
    mine, theirs = await pairs(backend, request, prompt, runs, tokens, cold=False)
    out["cached_ttft_delta_ms"] = paired_delta(mine, theirs, "ttft_ms")
    out["ours_cached_ttft_ms"] = statistics.median(a["ttft_ms"] for a in mine)
    out["raw_cached_ttft_ms"] = statistics.median(b["ttft_ms"] for b in theirs)
    return out


async def pairs(
    backend: LocalBackend, request: ModelRequest, prompt: str, runs: int, tokens: int, *, cold: bool
) -> tuple[list[Row], list[Row]]:
    """``runs`` pairs of runs, the side going first alternating: ours, raw, ours, ..."""
    mine: list[Row] = []
    theirs: list[Row] = []
    for run in range(runs):
        for side in _stats.order(run):
            if side == "ours":
                mine.append(await ours(backend, request, cold=cold))
            else:
                theirs.append(await asyncio.to_thread(raw, backend, prompt, tokens, cold))
    return mine, theirs


def summary(name: str, mine: list[Row], theirs: list[Row]) -> dict[str, Any]:
    """Medians per side, and medians over the runs paired in time (ours_i with raw_i)."""
    out: dict[str, Any] = {"scenario": name}
    for side, rows in (("ours", mine), ("raw", theirs)):
        for key in ("ttft_ms", "tokens"):
            out[f"{side}_{key}"] = statistics.median(r[key] for r in rows)
    for key, ratio in (("tok_s", "speed"), ("cpu_tok_s", "cpu_speed")):
        side_by_side = _stats.paired([a[key] for a in mine], [b[key] for b in theirs])
        out |= {f"ours_{key}": side_by_side.ours, f"raw_{key}": side_by_side.raw}
        out |= {f"{ratio}_ratio": side_by_side.ratio, f"{ratio}_by_first": _stats.by_first(side_by_side)}
    out["ttft_delta_ms"] = paired_delta(mine, theirs, "ttft_ms")
    return out


def paired_delta(mine: list[Row], theirs: list[Row], key: str) -> float:
    """The median over pairs of ours_i - raw_i."""
    return statistics.median(a[key] - b[key] for a, b in zip(mine, theirs, strict=True))


def report(results: list[dict[str, Any]], label: str, args: argparse.Namespace, wall: float) -> str:
    where = "GPU, every layer offloaded" if args.gpu_layers else "CPU only"
    lines = [
        f"### Speed ({where})",
        "",
        f"Command: `python -m bench local_speed --runs {args.runs} --tokens {args.tokens}"
        f"{' --gpu-layers ' + str(args.gpu_layers) if args.gpu_layers else ''}` "
        f"({label}; greedy; {args.runs} runs per side, alternating; wall {wall:.0f} s).",
        "",
        "| scenario | tok/s ours / raw (medians) | paired ratio | CPU-time tok/s ours / raw | paired ratio "
        "| first token ms ours / raw | paired delta ms | same, prompt cached | paired delta ms |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        lines.append(
            f"| {r['scenario']} | {r['ours_tok_s']:.1f} / {r['raw_tok_s']:.1f} | **{r['speed_ratio']:.3f}** "
            f"| {r['ours_cpu_tok_s']:.1f} / {r['raw_cpu_tok_s']:.1f} | **{r['cpu_speed_ratio']:.3f}** "
            f"| {r['ours_ttft_ms']:.1f} / {r['raw_ttft_ms']:.1f} | **{r['ttft_delta_ms']:+.1f}** "
            f"| {r['ours_cached_ttft_ms']:.1f} / {r['raw_cached_ttft_ms']:.1f} "
            f"| **{r['cached_ttft_delta_ms']:+.1f}** |"
        )
    lines += [
        "",
        "Ratios and deltas are medians over runs paired in time (ours then raw, or raw then ours), "
        "not ratios of the medians. Cold runs decode the whole prompt; cached runs find it in the "
        "cache and decode one token. Paired speed ratio by the side that went first: "
        + "; ".join(f"{r['scenario']}: {r['speed_by_first']}" for r in results)
        + ".",
    ]
    load = load_average()
    lines += ["", f"Machine: {os.cpu_count()} CPUs, load average {load} at the end of the run."]
    return "\n".join(lines)


async def measure(args: argparse.Namespace) -> str:
    options = LocalOptions(
        model_path=args.model, n_ctx=4096, max_tokens=args.tokens, n_gpu_layers=args.gpu_layers, strict=False
    )
    backend = LocalBackend(options)
    await backend.load()
    try:
        plain = ModelRequest("", (Message("user", PROMPT),), ())
        with_tools = ModelRequest("", (Message("user", PROMPT),), await calculator_tools(args.tools_json))
        started = time.perf_counter()
        results = [
            await scenario(backend, "chat", plain, args.runs, args.tokens),
            await scenario(backend, "chat, calculator tools offered", with_tools, args.runs, args.tokens),
        ]
        wall = time.perf_counter() - started
        if args.json:
            args.json.write_text(
                json.dumps({"model": backend.model_label, "wall_s": wall, "results": results})
            )
        return report(results, backend.model_label, args, wall)
    finally:
        await backend.aclose()


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m bench local_speed", description=__doc__.split("\n")[0])
    parser.add_argument("--model", default="", help="GGUF path (default: the built-in model)")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--tokens", type=int, default=128, help="tokens generated per run")
    parser.add_argument("--gpu-layers", type=int, default=0)
    parser.add_argument(
        "--tools-json", type=Path, help="calculator tool schemas (bench/gpu_prepare.sh writes them)"
    )
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("--no-write", action="store_true", help="print only; leave docs/benchmarks.md alone")
    args = parser.parse_args(sys.argv[1:])
    text = asyncio.run(measure(args))
    print(text)
    if not args.no_write:
        from bench._local_doc import write_local_subsection

        write_local_subsection(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
