"""The packaged executable: its size, and how long it takes to start, against the source install.

Needs a build first (``make package``). Runs, interleaved, the frozen and the
source ``calculon --self-test`` (servers up, one call each) and the window
started with ``--quit-after 0`` (window shown, servers ready, default model
loaded, then closed), and reports medians and the frozen/source ratio.

    python -m bench package [--runs 5] [--no-write]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench._doc import load_average, write_section

ROOT = Path(__file__).resolve().parents[1]
DIST = ROOT / "dist" / "calculon"
SOURCE = [str(ROOT / ".venv" / "bin" / "calculon")]
FROZEN = [str(DIST / "calculon")]
TASKS = {"self-test": ["--self-test"], "window start": ["--quit-after", "0"]}


def folder_size(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file() and not f.is_symlink())


def timed(command: list[str], home: Path) -> float:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", CALCULON_CONFIG_DIR=str(home / "config"))
    env["CALCULON_CACHE_DIR"] = str(home / "cache")
    started = time.perf_counter()
    subprocess.run(command, env=env, check=True, capture_output=True, timeout=300)
    return time.perf_counter() - started


def measure(runs: int) -> dict[str, dict[str, float]]:
    medians: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as scratch:
        home = Path(scratch)
        for task, args in TASKS.items():
            timed(SOURCE + args, home)  # the source side assembles its model into the cache once
            samples: dict[str, list[float]] = {"frozen": [], "source": []}
            for _ in range(runs):
                samples["frozen"].append(timed(FROZEN + args, home))
                samples["source"].append(timed(SOURCE + args, home))
            medians[task] = {side: statistics.median(values) for side, values in samples.items()}
    return medians


def report(medians: dict[str, dict[str, float]], runs: int) -> str:
    total, models = folder_size(DIST), folder_size(DIST / "_internal" / "models")
    lines = [
        f"Command: `make package && python -m bench package --runs {runs}`"
        f" (one-folder build in `dist/calculon/`; {runs} runs per side, interleaved; medians).",
        "",
        f"Size: **{total / 2**20:.0f} MiB** in all, of which {models / 2**20:.0f} MiB is the embedded default"
        f" model and {(total - models) / 2**20:.0f} MiB the program.",
        "",
        "| start | frozen (s) | from source (s) | frozen / source |",
        "|---|---|---|---|",
    ]
    for task, sides in medians.items():
        ratio = sides["frozen"] / sides["source"]
        lines.append(f"| {task} | {sides['frozen']:.2f} | {sides['source']:.2f} | {ratio:.2f} |")
    load = load_average()
    lines += ["", f"Machine: {os.cpu_count()} CPUs, load average {load} at the end of the run."]
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
