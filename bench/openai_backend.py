"""The OpenAI-compatible backend against the raw ``openai`` SDK, and a remote tool call
through the supervisor against the raw MCP client, side by side.

    .venv/bin/python -m bench openai_backend [--rounds 12] [--calls 400] [--threads 1] [--no-write]

Model: both sides stream the same request (the body our backend builds) from one real
``llama_cpp.server`` on the embedded SmolLM2, in pairs whose first side alternates. Per run:
the time to the first text token, and tokens per second after it (content chunks, one token
each on llama.cpp, over the time from the first to the last). Targets: a paired ratio of
tokens/s of at least 0.95, and a first token within raw + 20 ms.

Tool call: ``multiply`` on an ``MCPServer`` over Streamable HTTP on 127.0.0.1 (served by
uvicorn in this process, so both sides share its cost), through ``Supervisor.call_tool``
against ``mcp.Client.call_tool``, in alternating batches. Target: a paired ratio of at most 1.05.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import openai

from app.core.backend import ModelRequest, TextChunk
from app.core.messages import Message
from app.llm.openai import OpenAIBackend
from app.llm.openai.convert import request_body
from bench import _stats
from bench._doc import load_average, write_section
from bench._llama_server import llama_server
from bench.supervisor_roundtrip import _interleaved

HEADING = "## OpenAI-compatible backend"
REQUEST = ModelRequest("Answer in a few sentences.", (Message("user", "Describe the sea."),), ())
RATE_TARGET, FIRST_TOKEN_SLACK_MS, CALL_TARGET = 0.95, 20.0, 1.05

Run = tuple[float, float]  # (first token in ms, tokens per second after it)


async def ours(backend: OpenAIBackend) -> Run:
    return await _timed(chunk.text async for chunk in backend.stream(REQUEST) if isinstance(chunk, TextChunk))


async def raw(client: openai.AsyncOpenAI, model: str) -> Run:
    stream = await client.chat.completions.create(**request_body(model, REQUEST), stream=True)

    async def texts():  # type: ignore[no-untyped-def]
        async with stream:
            async for event in stream:
                for choice in event.choices[:1]:
                    if choice.delta.content:
                        yield choice.delta.content

    return await _timed(texts())


async def _timed(texts) -> Run:  # type: ignore[no-untyped-def]
    began, stamps = time.perf_counter(), []
    async for _text in texts:
        stamps.append(time.perf_counter())
    if len(stamps) < 2:
        raise SystemExit("the model answered in under two tokens; nothing to time")
    return (stamps[0] - began) * 1000, (len(stamps) - 1) / (stamps[-1] - stamps[0])


async def measure_model(base_url: str, rounds: int) -> dict[str, list[Run]]:
    backend = OpenAIBackend(base_url, timeout_s=300)
    await backend.load()
    client = openai.AsyncOpenAI(base_url=base_url, api_key="none", max_retries=0, timeout=300)
    sides: dict[str, Callable[[], Awaitable[Run]]] = {
        "ours": lambda: ours(backend),
        "raw": lambda: raw(client, backend.model),
    }
    runs: dict[str, list[Run]] = {"ours": [], "raw": []}
    try:
        for side in sides.values():  # warm: the model's prompt cache and both clients' connections
            await side()
        for round_ in range(rounds):
            for name in _stats.order(round_):
                runs[name].append(await sides[name]())
    finally:
        await backend.aclose()
        await client.close()
    return runs


async def measure_calls(calls: int, batch: int) -> dict[str, list[float]]:
    from mcp import Client

    from app.mcp.config import ServerEntry
    from app.mcp.supervisor import Supervisor
    from tests.mcp.remote_servers import http_app, multiplier, serving

    async with serving(http_app(multiplier())) as base:
        with tempfile.TemporaryDirectory() as logs:
            supervisor = Supervisor([ServerEntry("remote", url=f"{base}/mcp")], log_dir=Path(logs))
            await supervisor.start()
            try:
                async with Client(f"{base}/mcp") as client:
                    sides = {
                        "ours": lambda i: supervisor.call_tool("multiply", {"a": i, "b": 7}),
                        "raw": lambda i: client.call_tool("multiply", {"a": i, "b": 7}),
                    }
                    return await _interleaved(sides, calls, batch)
            finally:
                await supervisor.aclose()


def report(runs: dict[str, list[Run]], times: dict[str, list[float]], args: argparse.Namespace) -> str:
    first = _stats.paired([r[0] for r in runs["ours"]], [r[0] for r in runs["raw"]])
    rate = _stats.paired([r[1] for r in runs["ours"]], [r[1] for r in runs["raw"]])
    call = _stats.paired(times["ours"], times["raw"], _stats.first_flags(len(times["ours"]), args.batch))
    first_ok = first.ours <= first.raw + FIRST_TOKEN_SLACK_MS
    lines = [
        f"Command: `python -m bench openai_backend --rounds {args.rounds} --calls {args.calls} "
        f"--threads {args.threads}`. Machine: {os.cpu_count()} CPUs, load average {load_average()} "
        "at the end of the run (the machine is shared).",
        "",
        f"### Streaming from llama_cpp.server ({args.rounds} replies per side, SmolLM2 135M, "
        f"{args.threads} thread)",
        "",
        "| figure | ours (median) | raw SDK (median) | paired ratio |",
        "|---|---|---|---|",
        f"| first token (ms) | {_stats.cells(first, digits=1)} |",
        f"| tokens/s after it | {_stats.cells(rate, digits=1)} |",
        "",
        f"Tokens/s: target a paired ratio of at least {RATE_TARGET}: "
        f"**{'met' if rate.ratio >= RATE_TARGET else 'missed'}**. First token: target ours within raw + "
        f"{FIRST_TOKEN_SLACK_MS:g} ms (medians): **{'met' if first_ok else 'missed'}**. {_stats.NOTE}",
        "",
        f"### Tool call over Streamable HTTP ({args.calls} calls per side, batches of {args.batch})",
        "",
        "| figure | ours (median) | raw SDK (median) | paired ratio |",
        "|---|---|---|---|",
        f"| round trip (ms) | {_stats.cells(call, digits=3)} |",
        "",
        f"Target: a paired ratio of at most {CALL_TARGET}: "
        f"**{'met' if call.ratio <= CALL_TARGET else 'missed'}**. "
        "Ours is `Supervisor.call_tool` (name lookup, per-call timeout, result conversion); raw is "
        "`mcp.Client.call_tool` on its own connection to the same server.",
    ]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m bench openai_backend")
    parser.add_argument("--rounds", type=int, default=12, help="streamed replies per side")
    parser.add_argument("--calls", type=int, default=400, help="tool calls per side")
    parser.add_argument("--batch", type=int, default=10, help="calls per side before switching")
    parser.add_argument("--threads", type=int, default=1, help="llama.cpp threads for the server")
    parser.add_argument("--no-write", action="store_true", help="print only; leave docs/benchmarks.md alone")
    args = parser.parse_args(sys.argv[1:])
    with (
        tempfile.TemporaryDirectory() as folder,
        llama_server(Path(folder) / "server.log", threads=args.threads) as server,
    ):
        runs = asyncio.run(measure_model(server.base_url, args.rounds))
    times = asyncio.run(measure_calls(args.calls, args.batch))
    text = report(runs, times, args)
    print(text)
    if not args.no_write:
        write_section(HEADING, text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
