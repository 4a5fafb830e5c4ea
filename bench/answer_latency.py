"""Enter to verified answer for a one-operation question, where the time goes, against the floor.

Three ways a person meets the built-in model, and raw llama-cpp-python beside them:

- **CLI, fresh process**: ``calculon ask Q --backend local --json --no-save``; its event lines
  on stderr are time-stamped as they arrive, which splits the wall time into process start
  (interpreter and imports), servers ready, model loaded, prompt opening ready (restored or
  read), the call step, the tool call, the answer step (tokens and tokens/s), the check, and
  the rest (render, shutdown).
- **Window, first question**: a fresh window process (``bench/_window_latency.py``, offscreen)
  that submits the question as soon as it is shown: process start to the answer shown,
  model load included.
- **Window, warm**: the same window's next questions, Enter to answer shown.
- **Raw floor**: a fresh process that imports llama_cpp, loads the same GGUF and writes up to
  40 tokens for the same question with ``create_chat_completion`` (no tools, no servers); and
  the same call again in that process (the warm floor).

Runs alternate ours and raw, so machine drift hits both; medians and the paired ratio
(median over pairs of ours_i / raw_i) are printed. The machine's cache folder is used as a
person's would be: one untimed run first reads and saves the prompt state.

    python -m bench answer_latency [--runs 5] [--warm 5] [--no-write]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import threading
import time
from typing import Any

from bench import _stats
from bench._doc import load_average

QUESTIONS = [f"What is {a} times {b}?" for a, b in ((12, 7), (13, 8), (21, 4), (17, 6), (9, 14), (23, 5))]
TARGETS = {"cli": 1.5, "window_first": 2.0, "window_warm": 0.5}  # issue 37
_STEP = re.compile(r"^step (\d+): (\d+) tokens in ([0-9.]+) s")
_RAW = """
import sys, time, json
t0 = time.perf_counter()
from app.llm.local.loader import LoadRequest, load_llama  # the AMX guard; otherwise plain llama_cpp.Llama
from app.llm.local.model_file import resolve_model
model = load_llama(LoadRequest(resolve_model("", lambda *a: None), n_ctx=2048))
t1 = time.perf_counter()
def ask(q):
    s = time.perf_counter()
    out = model.create_chat_completion([{"role": "user", "content": q}], max_tokens=40, temperature=0)
    return time.perf_counter() - s, out["usage"]["completion_tokens"]
first, tokens = ask(sys.argv[1])
again, _ = ask(sys.argv[2])
print(json.dumps({"load_s": t1 - t0, "first_s": first, "again_s": again, "tokens": tokens}))
"""


def cli_run(question: str) -> dict[str, Any]:
    """One fresh ``calculon ask``: its phases, from the stderr lines' arrival times."""
    command = [sys.executable, "-m", "app", "ask", "--backend", "local", "--json", "--no-save", question]
    started = time.perf_counter()
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines: list[tuple[float, str]] = []

    def read() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            lines.append((time.perf_counter() - started, line.rstrip("\n")))

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    assert proc.stdout is not None
    out = proc.stdout.read()  # not communicate(): it would read stderr too, racing the reader
    proc.wait(timeout=300)
    total = time.perf_counter() - started
    reader.join(5)
    body = json.loads(out) if out.strip() else {}
    return phases(lines, total) | {"verdict": body.get("verdict"), "answer": body.get("answer", "")}


def phases(lines: list[tuple[float, str]], total: float) -> dict[str, Any]:
    """Marks (seconds since the process started) from the CLI's event lines."""

    def first(test: Any) -> float | None:
        return next((t for t, line in lines if test(line)), None)

    def last(test: Any) -> float | None:
        found = [t for t, line in lines if test(line)]
        return found[-1] if found else None

    marks: dict[str, Any] = {
        "first_line": lines[0][0] if lines else None,
        # a server left idle (started on first use, app.mcp.known) is as ready as it needs to be
        "servers_ready": last(lambda s: s.startswith("server ") and (": ready" in s or ": idle" in s)),
        "model_loaded": first(
            lambda s: s.startswith("model: ") and " ready (100%)" in s and "Prompt" not in s
        ),
        "prompt_ready": first(lambda s: s.startswith("model: Prompt opening ready")),
        "call_step": first(lambda s: s.startswith("step 1: ") and " tokens in " in s),
        "tool_done": first(lambda s: s.startswith("  <- ")),
        "answer_step": first(lambda s: bool(_STEP.match(s)) and not s.startswith("step 1:")),
        "checked": first(lambda s: s.startswith("  check:")),
        "answer_ready": first(lambda s: s.startswith("answer ready")),
        "total": total,
    }
    steps = [m for _, line in lines if (m := _STEP.match(line))]
    answer = steps[-1] if steps else None
    if answer is not None:
        tokens, seconds = int(answer.group(2)), float(answer.group(3))
        marks["answer_tokens"], marks["answer_step_s"] = tokens, seconds
    opening = next((line for _, line in lines if line.startswith("model: Prompt opening ready")), "")
    marks["opening"] = opening.removeprefix("model: Prompt opening ready ").rsplit(" (", 1)[0]
    return marks


def raw_run(question: str, again: str) -> dict[str, Any]:
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", _RAW, question, again], capture_output=True, text=True, timeout=300, check=True
    )
    wall = time.perf_counter() - started
    return json.loads(done.stdout.strip().splitlines()[-1]) | {"total": wall}


def window_run(questions: list[str]) -> dict[str, Any]:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    command = [sys.executable, "-m", "bench._window_latency", *questions]
    done = subprocess.run(command, capture_output=True, text=True, timeout=900, env=env, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"the window run failed: {done.stderr[-2000:]}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5, help="fresh CLI and raw processes, each")
    parser.add_argument("--warm", type=int, default=5, help="questions after the window's first")
    parser.add_argument("--windows", type=int, default=3, help="fresh windows, for the first question")
    parser.add_argument("--no-window", action="store_true")
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    print("untimed first run (reads and saves the prompt state if this machine has none)", flush=True)
    cli_run(QUESTIONS[0])
    cli, raw = [], []
    for i in range(args.runs):
        question, again = QUESTIONS[i % len(QUESTIONS)], QUESTIONS[(i + 1) % len(QUESTIONS)]
        for side in _stats.order(i, ("ours", "raw")):
            if side == "ours":
                cli.append(cli_run(question))
            else:
                raw.append(raw_run(question, again))
        print(
            f"run {i + 1}: ours {cli[-1]['total']:.2f} s ({cli[-1]['verdict']}), raw {raw[-1]['total']:.2f} s"
        )
    window: dict[str, Any] | None = None
    if not args.no_window:  # the first window also asks the warm questions; the others only the first
        window = window_run(QUESTIONS[: args.warm + 1])
        window["firsts"] = [window["answers"][0]["seconds"]]
        for i in range(1, args.windows):
            window["firsts"].append(
                window_run(QUESTIONS[i % len(QUESTIONS) : i % len(QUESTIONS) + 1])["answers"][0]["seconds"]
            )
        print(f"window first questions: {', '.join(f'{s:.2f}' for s in window['firsts'])} s")
    text = report(cli, raw, window)
    print(text)
    if not args.no_write:
        from bench._doc import write_section

        command = (
            f"python -m bench answer_latency --runs {args.runs} --warm {args.warm} --windows {args.windows}"
        )
        machine = f"2 CPUs, load average (1, 5, 15 min) at the end {load_average()}"
        note = "medians of each mark on its own, so a later mark can read earlier"
        write_section("## Answer latency", f"Command: `{command}`. {machine}; {note}.\n\n{text}")


def _median(rows: list[dict[str, Any]], key: str) -> float | None:
    values = [r[key] for r in rows if r.get(key) is not None]
    return statistics.median(values) if values else None


def _s(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def report(cli: list[dict[str, Any]], raw: list[dict[str, Any]], window: dict[str, Any] | None) -> str:
    ratio = _stats.paired([c["total"] for c in cli], [r["total"] for r in raw]).ratio
    verdicts = ", ".join(sorted({str(c["verdict"]) for c in cli}))
    lines = [
        "| scenario | ours median s | target | raw llama-cpp-python median s | paired ratio ours/raw |",
        "|---|---|---|---|---|",
        f"| CLI, fresh process (n={len(cli)}; verdicts: {verdicts}) | {_s(_median(cli, 'total'))} | "
        f"{TARGETS['cli']} | {_s(_median(raw, 'total'))} (load + 40 tokens, fresh process) | {ratio:.2f} |",
    ]
    if window is not None:
        answers = window["answers"]
        warm = [a["seconds"] for a in answers[1:]]
        firsts = window.get("firsts") or [answers[0]["seconds"]]
        lines += [
            f"| window, first question after launch (n={len(firsts)}) | {statistics.median(firsts):.2f} | "
            f"{TARGETS['window_first']} | {_s(_median(raw, 'total'))} | - |",
            f"| window, warm (n={len(warm)}) | {_s(statistics.median(warm) if warm else None)} | "
            f"{TARGETS['window_warm']} | {_s(_median(raw, 'again_s'))} (the same call again, warm) | - |",
        ]
    lines += [
        "",
        "Where a fresh `calculon ask` spends its time (median seconds since the process started):",
        "",
    ]
    lines += ["| mark | s |", "|---|---|"]
    for key in (
        "first_line",
        "servers_ready",
        "model_loaded",
        "prompt_ready",
        "call_step",
        "tool_done",
        "answer_step",
        "checked",
        "answer_ready",
        "total",
    ):
        lines.append(f"| {key.replace('_', ' ')} | {_s(_median(cli, key))} |")
    tokens, seconds = _median(cli, "answer_tokens"), _median(cli, "answer_step_s")
    if tokens and seconds:
        lines.append(
            f"| answer step: {tokens:.0f} tokens in {seconds:.2f} s | {tokens / seconds:.1f} tokens/s |"
        )
    openings = sorted({c.get("opening", "") for c in cli})
    lines += ["", f"Prompt opening: {'; '.join(o for o in openings if o)}."]
    lines.append(
        f"Raw floor: load {_s(_median(raw, 'load_s'))} s, first reply {_s(_median(raw, 'first_s'))} s, "
        f"again {_s(_median(raw, 'again_s'))} s ({_median(raw, 'tokens') or 0:.0f} tokens)."
    )
    return "\n".join(lines)


if __name__ == "__main__":
    main()
