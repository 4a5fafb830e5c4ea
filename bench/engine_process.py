"""The model in its own process against the same model in this one: speed, first token, memory.

Interleaved in one run, on one GGUF: each round streams the same request through the
in-process :class:`LocalBackend` and through the :class:`ProcessBackend` (the model's own
process, frames over a pipe), the sides taking turns at going first. Per side: decode tokens
per second (first streamed token to the last) and time to the first token; both medians and the
paired ratios. Memory: a fresh interpreter loads the model each way and reports its own resident
set size (RSS), so the figure is the window process's, not the bench's.

    python -m bench engine_process [--rounds N] [--tokens N] [--model ID] [--no-write]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import time
from typing import Any

from bench import _doc, _stats

HEADING = "## The model's own process"
REQUEST_TEXT = "Tell me a long story about a lighthouse keeper and the sea."
_RSS = """
import asyncio, json, sys
from app.llm.local import {cls}, LocalOptions
def rss():
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
async def main():
    before = rss()
    backend = {cls}(LocalOptions(builtin_model=sys.argv[1], n_ctx=2048))
    await backend.load()
    after = rss()
    await backend.aclose()
    print(json.dumps({{"before": before, "after": after}}))
asyncio.run(main())
"""


async def stream_once(backend: Any, tokens: int) -> tuple[float, float, int]:
    """(seconds to the first text, tokens per second after it, tokens) for one step."""
    from app.core.backend import ModelRequest, StepDone, TextChunk
    from app.core.messages import Message

    request = ModelRequest("You tell stories.", (Message("user", REQUEST_TEXT),), ())
    started = time.perf_counter()
    first = last = 0.0
    count = 0
    async for chunk in backend.stream(request):
        now = time.perf_counter()
        if isinstance(chunk, TextChunk):
            first = first or now
            last = now
        elif isinstance(chunk, StepDone):
            count = chunk.tokens
    rate = (count - 1) / (last - first) if last > first else 0.0
    return first - started, rate, count


async def measure(model: str, rounds: int, tokens: int) -> dict[str, list[float]]:
    from app.llm.local import LocalBackend, LocalOptions, ProcessBackend

    options = LocalOptions(builtin_model=model, n_ctx=2048, max_tokens=tokens, strict=False)
    sides = {"process": ProcessBackend(options), "in-process": LocalBackend(options)}
    figures: dict[str, list[float]] = {f"{s} {k}": [] for s in sides for k in ("ttft", "rate")}
    try:
        for backend in sides.values():
            await backend.load()
            await stream_once(backend, tokens)  # warm: the prompt is cached the same way on both
        for index in range(rounds):
            for side in _stats.order(index, ("process", "in-process")):
                ttft, rate, _ = await stream_once(sides[side], tokens)
                figures[f"{side} ttft"].append(ttft)
                figures[f"{side} rate"].append(rate)
                print(
                    f"round {index + 1} {side}: first token {ttft * 1000:.0f} ms, {rate:.1f} tokens/s",
                    flush=True,
                )
    finally:
        for backend in sides.values():
            await backend.aclose()
    return figures


def rss(model: str, cls: str) -> dict[str, int]:
    code = _RSS.format(cls=cls)
    done = subprocess.run([sys.executable, "-c", code, model], capture_output=True, text=True, check=True)
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def report(
    model: str, figures: dict[str, list[float]], memory: dict[str, dict[str, int]], command: str
) -> str:
    rate = _stats.paired(figures["process rate"], figures["in-process rate"])
    ttft = _stats.paired(figures["process ttft"], figures["in-process ttft"])
    added = [(a - b) * 1000 for a, b in zip(figures["process ttft"], figures["in-process ttft"], strict=True)]
    mb = 1024**2
    lines = [
        f"Command: `{command}`. Model: {model}. 2 CPUs, load average {_doc.load_average()} at the end.",
        "",
        "| | model's own process | in this process | paired ratio (process / in-process) |",
        "|---|---|---|---|",
        f"| decode tokens/s (median of {rate.pairs}) | {rate.ours:.1f} | {rate.raw:.1f} | {rate.ratio:.3f} |",
        f"| time to first token, ms | {ttft.ours * 1000:.0f} | {ttft.raw * 1000:.0f} | {ttft.ratio:.3f} |",
        "",
        f"Added time to the first token, median over pairs: {sorted(added)[len(added) // 2]:.1f} ms.",
        "",
        "| resident memory of the app's process | before loading | after loading |",
        "|---|---|---|",
        *(f"| {name} | {m['before'] / mb:.0f} MB | {m['after'] / mb:.0f} MB |" for name, m in memory.items()),
        "",
        _stats.NOTE,
    ]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m bench engine_process")
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--tokens", type=int, default=96)
    parser.add_argument("--model", default="smollm2-135m-instruct")
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args(sys.argv[1:])
    figures = asyncio.run(measure(args.model, args.rounds, args.tokens))
    memory = {
        "model in its own process (ProcessBackend)": rss(args.model, "ProcessBackend"),
        "model in this process (LocalBackend)": rss(args.model, "LocalBackend"),
    }
    text = report(args.model, figures, memory, "python -m bench engine_process " + " ".join(sys.argv[1:]))
    print("\n" + text)
    if not args.no_write:
        _doc.write_section(HEADING, text)
    return 0
