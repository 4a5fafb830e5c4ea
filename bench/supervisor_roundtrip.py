"""A tool call's round trip through the supervisor, against the raw SDK client.

Both sides call the bundled calculator's ``add`` over stdio, each on its own
server process: ours through ``Supervisor.call_tool`` (name lookup, live-client
check, result conversion), the raw side through ``mcp.Client.call_tool``. Calls
alternate in small batches (the side going first alternating too) so both see the
same machine load; call k of our batch pairs with call k of raw's, and the figure
that matters is the paired ratio, the median of ours_k / raw_k (target: at most 1.05).

    python -m bench supervisor_roundtrip [--calls 1000] [--batch 10] [--no-write]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING

from bench import _doc, _stats

REPO_ROOT = Path(__file__).resolve().parents[1]
HEADING = "## Supervisor"
TARGET = 1.05  # ours/raw, paired, wall time per call

if TYPE_CHECKING:
    from app.mcp.supervisor import Supervisor

Call = Callable[[int], Awaitable[object]]


def percentile(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[int(q) - 1]


async def timed(call: Call, n: int, out: list[float], cpu: list[float] | None = None) -> None:
    """Wall time of each call into ``out`` (ms); this process's CPU per call into ``cpu`` (µs)."""
    cpu_began = time.process_time()
    for i in range(n):
        began = time.perf_counter()
        await call(i)
        out.append((time.perf_counter() - began) * 1000)
    if cpu is not None:
        cpu.append((time.process_time() - cpu_began) / n * 1e6)


async def measure(calls: int, batch: int) -> dict[str, list[float]]:
    from app.mcp.config import bundled_entry
    from app.mcp.supervisor import Supervisor

    with tempfile.TemporaryDirectory() as logs:
        supervisor = Supervisor([bundled_entry("calculator")], log_dir=Path(logs))
        return await _against_raw(supervisor, calls, batch)


async def _against_raw(supervisor: Supervisor, calls: int, batch: int) -> dict[str, list[float]]:
    from mcp import Client, StdioServerParameters

    raw_params = StdioServerParameters(command=sys.executable, args=["-m", "app", "serve", "calculator"])
    await supervisor.start()
    if supervisor.states()[0].state != "ready":
        raise SystemExit(f"the calculator did not start: {supervisor.states()[0].last_error}")
    try:
        async with Client(raw_params) as raw:
            sides: dict[str, Call] = {
                "ours": lambda i: supervisor.call_tool("add", {"a": i, "b": 1}),
                "raw": lambda i: raw.call_tool("add", {"a": i, "b": 1}),
            }
            return await _interleaved(sides, calls, batch)
    finally:
        await supervisor.aclose()


async def _interleaved(sides: dict[str, Call], calls: int, batch: int) -> dict[str, list[float]]:
    warm: list[float] = []
    for call in sides.values():
        await timed(call, 50, warm)
    times: dict[str, list[float]] = {name: [] for name in sides}
    cpu: dict[str, list[float]] = {name: [] for name in sides}
    for round_ in range(calls // batch):
        for name in _stats.order(round_):  # neither side always goes first
            await timed(sides[name], batch, times[name], cpu[name])
    return times | {f"{name} cpu": cpu[name] for name in sides}


def report(times: dict[str, list[float]], calls: int, batch: int) -> str:
    rows = [_row(name, times[name], times[f"{name} cpu"]) for name in ("ours", "raw")]
    (_, _, ours95, _), (_, _, raw95, _) = rows
    wall = _stats.paired(times["ours"], times["raw"], _stats.first_flags(len(times["ours"]), batch))
    cpu = _stats.paired(times["ours cpu"], times["raw cpu"])
    lines = [
        "### Tool call round trip",
        "",
        f"Command: `python -m bench supervisor_roundtrip --calls {calls} --batch {batch}` "
        f"({calls} warm calls of the bundled calculator's `add` per side, "
        f"alternating in batches of {batch}; each side has its own server process).",
        "",
        "| side | p50 (ms) | p95 (ms) | client CPU per call (µs, median of batches) |",
        "|---|---|---|---|",
        *(f"| {name} | {p50:.3f} | {p95:.3f} | {cpu:.0f} |" for name, p50, p95, cpu in rows),
        "",
        f"Wall time per call: {_stats.sentence(wall, 'ms', digits=3)}; target, a paired ratio of at most "
        f"{TARGET}: **{'met' if wall.ratio <= TARGET else 'missed'}**. "
        f"Client CPU per call, batch by batch: {_stats.sentence(cpu, 'µs', digits=0)}. "
        f"p95 ours/raw {ours95 / raw95:.3f} (a ratio of the two p95s, not paired). {_stats.NOTE}",
        "",
        "Ours includes a per-call timeout, the name lookup and the result conversion; "
        "raw is `mcp.Client.call_tool` with no timeout.",
        "",
        f"Machine: {os.cpu_count()} CPUs, load average {_doc.load_average()} at the end of the run.",
    ]
    return "\n".join(lines)


def _row(name: str, wall: list[float], cpu: list[float]) -> tuple[str, float, float, float]:
    return name, statistics.median(wall), percentile(wall, 95), statistics.median(cpu)


def write_subsection(body: str) -> None:
    """Replace one ``### `` block of the Supervisor section, leaving everything else alone."""
    _doc.write_subsection(HEADING, body)


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m bench supervisor_roundtrip")
    parser.add_argument("--calls", type=int, default=1000, help="timed calls per side")
    parser.add_argument("--batch", type=int, default=10, help="calls per side before switching")
    parser.add_argument("--no-write", action="store_true", help="print only; leave docs/benchmarks.md alone")
    args = parser.parse_args(sys.argv[1:])
    times = asyncio.run(measure(args.calls, args.batch))
    text = report(times, args.calls, args.batch)
    print(text)
    if not args.no_write:
        write_subsection(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
