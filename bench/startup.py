"""Startup: from ``Supervisor.start()`` until every bundled server is ready.

Side by side with the raw SDK starting the same servers concurrently (one
``mcp.Client`` per server, ``list_tools`` once each), in pairs of runs whose
first side alternates (ours first, raw first, ...), so warm caches and CPU state
favour neither. Reported: both medians, the paired ratio (median over pairs of
ours_i / raw_i), and that ratio over the pairs where ours went first and where
raw did.
Then where the time goes: process creation, the child's interpreter start and
imports (measured on their own, one at a time), and the protocol steps
(initialize/discover, tools/list) as the supervisor timed them.

    python -m bench startup [--runs 5] [--no-write]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench import _stats
from bench._doc import load_average
from bench.supervisor_roundtrip import write_subsection

TARGET_S = 1.5


async def ours_once(names: list[str], logs: Path) -> tuple[float, dict[str, tuple[float, float, float]]]:
    from app.mcp.config import bundled_entry
    from app.mcp.supervisor import Supervisor

    supervisor = Supervisor([bundled_entry(n) for n in names], log_dir=logs)
    began = time.perf_counter()
    await supervisor.start()
    total = time.perf_counter() - began
    try:
        not_ready = [s.name for s in supervisor.states() if s.state != "ready"]
        if not_ready:
            raise SystemExit(f"not ready: {not_ready}")
        steps = {n: _steps(supervisor.connections[n].timing) for n in names}
    finally:
        await supervisor.aclose()
    return total, steps


def _steps(timing: object) -> tuple[float, float, float]:
    spawned, connected, listed = (getattr(timing, k) for k in ("spawned", "connected", "listed"))
    return spawned, connected - spawned, listed - connected


async def raw_once(names: list[str]) -> float:
    import anyio
    from mcp import Client, StdioServerParameters

    ready, release = anyio.Event(), anyio.Event()
    pending = len(names)

    async def one(name: str) -> None:
        nonlocal pending
        params = StdioServerParameters(command=sys.executable, args=["-m", "app", "serve", name])
        async with Client(params) as client:
            await client.list_tools()
            pending -= 1
            if not pending:
                ready.set()
            await release.wait()

    began = time.perf_counter()
    async with anyio.create_task_group() as group:
        for name in names:
            group.start_soon(one, name)
        await ready.wait()
        total = time.perf_counter() - began
        release.set()
    return total


def child_costs(names: list[str], runs: int = 5) -> dict[str, float]:
    """Seconds for a bare interpreter, and for importing each server module, one process at a time.

    The fastest of ``runs``: the cost itself, with as little interference from other load as we get."""
    from app.servers import BUNDLED

    def run(code: str) -> float:
        samples = []
        for _ in range(runs):
            began = time.perf_counter()
            subprocess.run([sys.executable, "-c", code], check=True)
            samples.append(time.perf_counter() - began)
        return min(samples)

    costs = {"python -c pass": run("pass"), "import mcp.server.mcpserver": run("import mcp.server.mcpserver")}
    costs |= {f"import {BUNDLED[n]}": run(f"import {BUNDLED[n]}") for n in names}
    return costs


async def measure(runs: int) -> dict[str, object]:
    from app.servers import BUNDLED

    names = list(BUNDLED)
    ours: list[float] = []
    raw: list[float] = []
    steps: dict[str, list[tuple[float, float, float]]] = {n: [] for n in names}
    with tempfile.TemporaryDirectory() as logs:
        for run in range(runs):
            for side in _stats.order(run):
                if side == "raw":
                    raw.append(await raw_once(names))
                    continue
                total, per_server = await ours_once(names, Path(logs))
                ours.append(total)
                for name, step in per_server.items():
                    steps[name].append(step)
    return {"names": names, "ours": ours, "raw": raw, "steps": steps}


def report(
    figures: dict[str, object], costs: dict[str, float], parent_import: float, runs: int, load: str
) -> str:
    ours, raw = figures["ours"], figures["raw"]
    steps = figures["steps"]
    assert isinstance(ours, list) and isinstance(raw, list) and isinstance(steps, dict)
    side_by_side = _stats.paired(ours, raw)
    verdict = "within" if side_by_side.ours <= TARGET_S else "over"
    lines = [
        "### Startup",
        "",
        f"Command: `python -m bench startup --runs {runs}` ({runs} pairs of runs, the side going first "
        "alternating: ours, raw, ours, ...; all bundled servers at once).",
        "",
        f"`Supervisor.start()` until every bundled server is ready: **median {side_by_side.ours:.2f} s** "
        f"(runs: {', '.join(f'{t:.2f}' for t in ours)}), {verdict} the {TARGET_S} s target. "
        f"The raw SDK starting the same servers concurrently: median {side_by_side.raw:.2f} s "
        f"(runs: {', '.join(f'{t:.2f}' for t in raw)}).",
        "",
        f"Side by side: {_stats.sentence(side_by_side, 's')}. {_stats.NOTE}",
        "",
        "Per server, medians (s), as the supervisor timed them:",
        "",
        "| server | spawn | to initialized | tools/list |",
        "|---|---|---|---|",
        *(_step_row(name, rows) for name, rows in steps.items()),
        "",
        "Child costs, one process at a time (s, fastest of 5):",
        "",
        "| command | time |",
        "|---|---|",
        *(f"| `{what}` | {seconds:.2f} |" for what, seconds in costs.items()),
        "",
        f"Not counted above: importing the SDK in the app itself, {parent_import:.2f} s, done once "
        "before any server starts.",
        "",
        f"Machine: {os.cpu_count()} CPUs, load average {load} at the end of the run. "
        "Each child spends nearly all its time importing the SDK (mostly `mcp_types`' pydantic "
        f"models). {overhead(side_by_side)}",
    ]
    return "\n".join(lines)


def overhead(side_by_side: _stats.Paired, noise: float = 0.05) -> str:
    """What the paired ratio says about the supervisor's own cost, within ``noise`` of 1 or not."""
    share = side_by_side.ratio - 1
    if abs(share) <= noise:
        return f"The supervisor's own cost is within the noise (paired ratio within {noise:.0%} of 1)."
    return f"The supervisor's start is {abs(share):.0%} {'slower' if share > 0 else 'faster'} than raw."


def _step_row(name: str, rows: list[tuple[float, float, float]]) -> str:
    spawn, init, listing = (statistics.median(column) for column in zip(*rows, strict=True))
    return f"| {name} | {spawn:.3f} | {init:.3f} | {listing:.3f} |"


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m bench startup")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--no-write", action="store_true", help="print only; leave docs/benchmarks.md alone")
    args = parser.parse_args(sys.argv[1:])
    began = time.perf_counter()
    import mcp  # noqa: F401  # the app pays this once, before start(); timed here for the record

    parent_import = time.perf_counter() - began
    figures = asyncio.run(measure(args.runs))
    costs = child_costs(list(figures["names"]))  # type: ignore[call-overload]
    load = load_average()
    text = report(figures, costs, parent_import, args.runs, load)
    print(text)
    if not args.no_write:
        write_subsection(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
