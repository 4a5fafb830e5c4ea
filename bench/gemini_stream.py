"""GeminiBackend's streaming overhead over the raw google-genai SDK, side by side.

    .venv/bin/python -m bench gemini_stream [--chunks N] [--rounds R]

Both read the same scripted SSE reply from the local wire fixture
(``tests/llm/gemini_fixture.py``) in one process, alternating, so machine noise
hits both alike. Reported: median wall time of each and their ratio. No
network and no key are needed.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time

from google import genai
from google.genai import types

from app.core.backend import ModelRequest
from app.core.messages import Message
from app.llm.gemini import GeminiBackend
from tests.llm import gemini_fixture as g


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


async def measure(chunks: int, rounds: int) -> tuple[float, float]:
    with g.GeminiWireServer() as wire:
        options = types.HttpOptions(base_url=wire.base_url, retry_options=types.HttpRetryOptions(attempts=1))
        client = genai.Client(api_key="bench", http_options=options)
        backend = GeminiBackend("m", api_key="bench", base_url=wire.base_url)
        raw_times, our_times = [], []
        for _ in range(rounds):
            wire.script(reply(chunks), reply(chunks))
            raw_times.append(await _timed(raw_sdk(client)))
            our_times.append(await _timed(ours(backend)))
        await client.aio.aclose()
        await backend.aclose()
    return statistics.median(raw_times), statistics.median(our_times)


async def _timed(work: object) -> float:
    started = time.perf_counter()
    await work  # type: ignore[misc]
    return time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(prog="bench gemini_stream")
    parser.add_argument("--chunks", type=int, default=400)
    parser.add_argument("--rounds", type=int, default=9)
    args = parser.parse_args()
    raw, our = asyncio.run(measure(args.chunks, args.rounds))
    print(f"{args.chunks} SSE chunks, median of {args.rounds}:")
    print(f"  raw google-genai stream  {raw * 1000:8.1f} ms")
    print(f"  GeminiBackend.stream     {our * 1000:8.1f} ms")
    print(f"  ratio ours / raw         {our / raw:8.2f}")
    return 0
