"""GeminiBackend's streaming overhead over the raw google-genai SDK, side by side.

    .venv/bin/python -m bench gemini_stream [--chunks N] [--rounds R] [--no-write]

Both read the same scripted SSE reply from the local wire fixture
(``tests/llm/gemini_fixture.py``) in one process, in pairs whose first side
alternates, so machine noise hits both alike. Reported: the median wall time of
each and the paired ratio (median over rounds of ours_i / raw_i). No network and
no key are needed.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import os
import sys
import time

from google import genai
from google.genai import types

from app.core.backend import ModelRequest
from app.core.messages import Message
from app.llm.gemini import GeminiBackend
from bench import _stats
from bench._doc import load_average, write_section
from tests.llm import gemini_fixture as g

HEADING = "## Gemini streaming"


def reply(chunks: int) -> g.Stream:
    body = [g.chunk(g.text_part(f"word{i} ")) for i in range(chunks - 1)]
    return g.Stream([*body, g.chunk(g.text_part("end."), finish="STOP", usage=g.usage(5, chunks))])


async def raw_sdk(client: genai.Client) -> None:
    config = types.GenerateContentConfig(
        automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True)
    )
    async for _ in await client.aio.models.generate_content_stream(model="m", contents="hi", config=config):
        pass


async def ours(backend: GeminiBackend) -> None:
    async for _ in backend.stream(ModelRequest("", (Message("user", "hi"),), ())):
        pass


async def measure(chunks: int, rounds: int) -> _stats.Paired:
    with g.GeminiWireServer() as wire:
        options = types.HttpOptions(base_url=wire.base_url, retry_options=types.HttpRetryOptions(attempts=1))
        client = genai.Client(api_key="bench", http_options=options)
        backend = GeminiBackend("m", api_key="bench", base_url=wire.base_url)
        wire.script(reply(chunks), reply(chunks))
        await raw_sdk(client)  # warm-up, untimed: first connection and first-use costs on both sides
        await ours(backend)
        times: dict[str, list[float]] = {"ours": [], "raw": []}
        for round_ in range(rounds):
            wire.script(reply(chunks), reply(chunks))
            for side in _stats.order(round_):
                times[side].append(await _timed(ours(backend) if side == "ours" else raw_sdk(client)))
        await client.aio.aclose()
        await backend.aclose()
    return _stats.paired(times["ours"], times["raw"])


async def _timed(work: object) -> float:
    started = time.perf_counter()
    await work  # type: ignore[misc]
    return time.perf_counter() - started


def report(times: _stats.Paired, chunks: int, rounds: int) -> str:
    ms = dataclasses.replace(times, ours=times.ours * 1000, raw=times.raw * 1000)
    return "\n".join(
        [
            f"Command: `python -m bench gemini_stream --chunks {chunks} --rounds {rounds}` (one scripted "
            f"reply of {chunks} SSE chunks from the local wire fixture, read {rounds} times by each side "
            "in one process after one untimed read each; ours is `GeminiBackend.stream`, raw is "
            "google-genai's `generate_content_stream`; no network).",
            "",
            f"Whole reply: {_stats.sentence(ms, 'ms', digits=1)}. {_stats.NOTE}",
            "",
            f"Machine: {os.cpu_count()} CPUs, load average {load_average()} at the end of the run.",
        ]
    )


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m bench gemini_stream")
    parser.add_argument("--chunks", type=int, default=400)
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--no-write", action="store_true", help="print only; leave docs/benchmarks.md alone")
    args = parser.parse_args(sys.argv[1:])
    text = report(asyncio.run(measure(args.chunks, args.rounds)), args.chunks, args.rounds)
    print(text)
    if not args.no_write:
        write_section(HEADING, text)
    return 0
