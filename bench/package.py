"""The packaged executable: its size, and how long it takes to start, against the source install.

Needs a build first (``make package``). Runs, in pairs whose first side
alternates, the frozen and the source ``calculon --self-test`` (servers up, one
call each) and the window started with ``--quit-after 0`` (window shown, servers
ready, default model loaded, then closed), and reports both medians and the
paired frozen/source ratio (median over pairs of frozen_i / source_i).

    python -m bench package [--runs 5] [--no-write]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench import _stats
from bench._doc import load_average, write_section

ROOT = Path(__file__).resolve().parents[1]
DIST = ROOT / "dist" / "calculon"
SOURCE = [str(ROOT / ".venv" / "bin" / "calculon")]
FROZEN = [str(DIST / "calculon")]
SIDES = ("frozen", "source")  # "ours" and "raw" in the paired figures
TASKS = {"self-test": ["--self-test"], "window start": ["--quit-after", "0"]}


def folder_size(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file() and not f.is_symlink())


def timed(command: list[str], home: Path) -> float:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", CALCULON_CONFIG_DIR=str(home / "config"))
    env["CALCULON_CACHE_DIR"] = str(home / "cache")
    started = time.perf_counter()
    subprocess.run(command, env=env, check=True, capture_output=True, timeout=300)
    return time.perf_counter() - started


def measure(runs: int) -> dict[str, _stats.Paired]:
    """Per task, frozen as "ours" and source as "raw" in the paired figures."""
    figures: dict[str, _stats.Paired] = {}
    commands = {"frozen": FROZEN, "source": SOURCE}
    with tempfile.TemporaryDirectory() as scratch:
        home = Path(scratch)
        for task, args in TASKS.items():
            timed(SOURCE + args, home)  # the source side assembles its model into the cache once
            samples: dict[str, list[float]] = {"frozen": [], "source": []}
            for run in range(runs):
                for side in _stats.order(run, SIDES):
                    samples[side].append(timed(commands[side] + args, home))
            figures[task] = _stats.paired(samples["frozen"], samples["source"])
    return figures


def report(figures: dict[str, _stats.Paired], runs: int) -> str:
    total, models = folder_size(DIST), folder_size(DIST / "_internal" / "models")
    lines = [
        f"Command: `make package && python -m bench package --runs {runs}`"
        f" (one-folder build in `dist/calculon/`; {runs} pairs of runs, the side going first alternating).",
        "",
        f"Size: **{total / 2**20:.0f} MiB** in all, of which {models / 2**20:.0f} MiB is the embedded default"
        f" model and {(total - models) / 2**20:.0f} MiB the program.",
        "",
        "| start | frozen, median (s) | from source, median (s) | paired ratio frozen / source "
        "| the same, frozen first / source first |",
        "|---|---|---|---|---|",
    ]
    for task, p in figures.items():
        split = _stats.by_first(p, 2, SIDES)
        lines.append(f"| {task} | {_stats.cells(p, ratio_digits=2)} | {split} |")
    load = load_average()
    lines += [
        "",
        _stats.note(SIDES),
        "",
        f"Machine: {os.cpu_count()} CPUs, load average {load} at the end of the run.",
    ]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m bench package")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--no-write", action="store_true", help="print only; leave docs/benchmarks.md alone")
    options = parser.parse_args(sys.argv[1:])
    if not Path(FROZEN[0]).is_file():
        print("no build in dist/calculon: run `make package` first", file=sys.stderr)
        return 2
    text = report(measure(options.runs), options.runs)
    print(text)
    if not options.no_write:
        write_section("## Packaged executable", text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
