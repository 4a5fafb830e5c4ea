"""A conversation continued from the command line, turn by turn, against a fresh question.

``calculon ask "What is 12 times 7?"`` starts a conversation; each later turn is a fresh process
``calculon ask --continue "Now add N to that."``. Between turns the same fresh question is asked
in a fresh process (``--no-save``), so load drift hits both. A process that re-reads the whole
conversation every time gets slower with each turn, which is what this measures.

Reported: the median fresh question, turns 2-4 and turns 19-21 (medians), the two ratios the
issue sets (20th / 2nd <= 1.2, 2nd / fresh <= 1.5), and how many turns' answers held the right
running total (84 plus every N so far), so a fast wrong answer cannot pass for a fast one.

    python -m bench continued [--turns 21] [--no-write]
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from fractions import Fraction

from bench._calculon_check import states_result
from bench._doc import load_average, parser, write_subsection

FIRST = "What is 12 times 7?"
START = 84


def _ask(env: dict[str, str], *args: str) -> tuple[float, str]:
    command = [sys.executable, "-m", "app", "ask", "--backend", "local", "--json", *args]
    started = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600, check=False)
    seconds = time.perf_counter() - started
    try:
        answer = str(json.loads(done.stdout).get("answer", ""))
    except ValueError:
        answer = done.stderr.strip().splitlines()[-1] if done.stderr.strip() else ""
    return seconds, answer


def run(turns: int) -> dict[str, object]:
    with tempfile.TemporaryDirectory(prefix="calculon-continued-") as folder:
        env = {**os.environ, "CALCULON_CONFIG_DIR": folder, "CALCULON_DATA_DIR": folder}
        _ask(env, FIRST, "--no-save")  # untimed: the machine's prompt state read and saved once
        fresh: list[float] = []
        chain: list[float] = []
        right = 0
        total = START
        for turn in range(1, turns + 1):
            seconds, _ = _ask(env, FIRST, "--no-save")
            fresh.append(seconds)
            if turn == 1:
                seconds, answer = _ask(env, FIRST)
            else:
                total += turn
                seconds, answer = _ask(env, f"Now add {turn} to that.", "--continue")
            chain.append(seconds)
            right += states_result(answer, Fraction(total), FIRST if turn == 1 else f"Now add {turn}")
            print(f"turn {turn}: {seconds:.2f}s (fresh {fresh[-1]:.2f}s) {answer[:90]!r}", flush=True)
    early = statistics.median(chain[1:4])
    late = statistics.median(chain[-3:])
    fresh_median = statistics.median(fresh)
    return {
        "turns": turns,
        "fresh": fresh_median,
        "early": early,
        "late": late,
        "late_over_early": late / early,
        "early_over_fresh": early / fresh_median,
        "right": right,
    }


def report(figures: dict[str, object], load: str) -> str:
    f = figures
    turns = f["turns"]
    return "\n".join(
        [
            "### A conversation continued from the command line",
            "",
            f"`python -m bench continued --turns {turns}` (built-in model, 2 cores, load {load}).",
            "",
            "| Fresh question (median) | Turns 2-4 (median) | Turns 19-21 (median) "
            "| late / early (target <= 1.2) | early / fresh (target <= 1.5) | Turns with the right total |",
            "|---|---|---|---|---|---|",
            f"| {f['fresh']:.2f} s | {f['early']:.2f} s | {f['late']:.2f} s | {f['late_over_early']:.2f} "
            f"| {f['early_over_fresh']:.2f} | {f['right']}/{turns} |",
        ]
    )


def main(argv: list[str] | None = None) -> None:
    made = parser("continued")
    made.add_argument("--turns", type=int, default=21)
    args = made.parse_args(argv)
    load = load_average()
    figures = run(max(5, args.turns))
    body = report(figures, load)
    print(body)
    if not args.no_write:
        write_subsection("## Answer latency", body)


if __name__ == "__main__":
    main()
