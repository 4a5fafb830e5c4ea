"""A 10 MB tool result through the supervisor, against the raw SDK client on the same server code.

Each side has its own server process (``bench/_sized_server.py``) and calls ``sized`` for
``--mb`` megabytes of text; the sides take turns at going first, and the figure that matters
is the paired ratio of wall times, ours_i / raw_i (target: at most 1.1). Ours also caps the
text the model gets at 1 MB, with a note; the raw side keeps all of it.

    python -m bench big_result [--mb 10] [--pairs 10] [--no-write]
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

from bench import _doc, _stats

HEADING = "## Supervisor"
TARGET = 1.1
SERVER = Path(__file__).with_name("_sized_server.py")

Call = Callable[[], Awaitable[object]]


async def measure(mb: float, pairs: int) -> dict[str, list[float]]:
    from mcp import Client, StdioServerParameters

    from app.mcp.config import ServerEntry
    from app.mcp.kept import KeptResults
    from app.mcp.supervisor import Supervisor

    entry = ServerEntry("sized", command=sys.executable, args=(str(SERVER),))
    with tempfile.TemporaryDirectory() as logs:
        kept = KeptResults(Path(logs) / "results")  # the whole result is written each call, as in use
        supervisor = Supervisor([entry], log_dir=Path(logs), tool_timeout_s=120, kept=kept)
        await supervisor.start()
        try:
            async with Client(StdioServerParameters(command=sys.executable, args=[str(SERVER)])) as raw:
                sides: dict[str, Call] = {
                    "ours": lambda: supervisor.call_tool("sized", {"mb": mb}),
                    "raw": lambda: raw.call_tool("sized", {"mb": mb}),
                }
                return await _pairs(sides, pairs)
        finally:
            await supervisor.aclose()


async def _pairs(sides: dict[str, Call], pairs: int) -> dict[str, list[float]]:
    for call in sides.values():  # warm: imports, first allocations
        await call()
    times: dict[str, list[float]] = {name: [] for name in sides}
    for pair in range(pairs):
        for name in _stats.order(pair):
            began = time.perf_counter()
            await sides[name]()
            times[name].append(time.perf_counter() - began)
    return times


def report(times: dict[str, list[float]], mb: float, pairs: int) -> str:
    figures = _stats.paired(times["ours"], times["raw"])
    met = "met" if figures.ratio <= TARGET else "missed"
    return "\n".join(
        [
            "### Large result",
            "",
            f"Command: `python -m bench big_result --mb {mb:g} --pairs {pairs}` (one call of `sized` for "
            f"{mb:g} MB of text per side per pair; each side has its own server process).",
            "",
            f"Wall time per call: {_stats.sentence(figures, 's', digits=3)}; "
            f"target, a paired ratio of at most {TARGET}: **{met}**. {_stats.NOTE}",
            "",
            "Ours reads the reply through Calculon's stdio transport (lines assembled in one pass, capped at "
            "64 MiB), cuts the text the model gets to 1 MB with a note, and writes the whole result to a "
            "file (`app/mcp/kept.py`); raw is `mcp.Client` over the "
            "SDK's own stdio client.",
            "",
            f"Machine: {os.cpu_count()} CPUs, load average {_doc.load_average()} at the end of the run.",
        ]
    )


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench big_result")
    parser.add_argument("--mb", type=float, default=10.0, help="megabytes of text per result")
    parser.add_argument("--pairs", type=int, default=10, help="timed calls per side")
    parser.add_argument("--no-write", action="store_true", help="print only; leave docs/benchmarks.md alone")
    return parser.parse_args(sys.argv[1:])


def main() -> int:
    args = parse_args()
    text = report(asyncio.run(measure(args.mb, args.pairs)), args.mb, args.pairs)
    return _doc.publish(HEADING, text, write=not args.no_write)


if __name__ == "__main__":
    sys.exit(main())
