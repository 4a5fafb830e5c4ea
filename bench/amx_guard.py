"""Both paths of the loader's AMX guard on this CPU: llama.cpp's extra buffer types on and off.

The guard turns the CPU's extra buffer types (weight repacking, AMX) off where the CPU reports
AMX (llama.cpp #20824). On a CPU without AMX both paths must load, decode and agree; this shows
which buffers llama.cpp chose on each (from its own log), what each costs, and whether greedy
decoding writes the same text. The two sides load the same GGUF through the project's loader,
one model each, and take turns at going first.

    python -m bench amx_guard [--builtin ID | --model PATH] [--rounds 5] [--prompt 256] [--tokens 32]
"""

from __future__ import annotations

import logging
import statistics
import time
from pathlib import Path
from typing import Any

from app.llm.local import catalog
from app.llm.local.loader import LoadRequest, cpu_reports_amx, load_llama
from app.llm.local.model_file import resolve_model
from bench import _stats
from bench._doc import machine, parser, publish

SIDES = ("extra buffers on", "extra buffers off")
TEXT = (
    "The lighthouse keeper counted the ships that passed each night and wrote their names in a book. "
) * 40


class _BufferLines(logging.Handler):
    """llama.cpp's load lines that name a buffer (``CPU_REPACK model buffer size = ...``)."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        message = record.getMessage()
        if "buffer size" in message:
            self.lines.append(message.strip())


def _load(path: Path, extra: bool) -> tuple[Any, list[str]]:
    native = logging.getLogger("llama.cpp")
    handler, level = _BufferLines(), native.level
    native.addHandler(handler)
    native.setLevel(logging.DEBUG)
    try:
        model = load_llama(LoadRequest(path, n_ctx=1024, extra_buffers=extra))
    finally:
        native.removeHandler(handler)
        native.setLevel(level)
    kinds = {" ".join(line.split(" buffer size")[0].split(":")[-1].split()) for line in handler.lines}
    return model, sorted(kinds)


def _run(model: Any, prompt: list[int], tokens: int) -> tuple[float, float, list[int]]:
    """Prompt tokens a second, generated tokens a second, and the greedy tokens written."""
    model.reset()
    start = time.perf_counter()
    model.eval(prompt)
    read = time.perf_counter()
    written: list[int] = []
    for _ in range(tokens):
        token = model.sample(temp=0.0)
        written.append(token)
        model.eval([token])
    done = time.perf_counter()
    return len(prompt) / (read - start), tokens / (done - read), written


def main() -> int:
    args = _parser().parse_args()
    path = resolve_model(args.model, lambda *_: None, args.builtin)
    loaded = {side: _load(path, side == SIDES[0]) for side in SIDES}
    prompt = loaded[SIDES[0]][0].tokenize(TEXT.encode())[: args.prompt]
    figures: dict[str, dict[str, list[float]]] = {side: {"read": [], "write": []} for side in SIDES}
    texts: dict[str, set[tuple[int, ...]]] = {side: set() for side in SIDES}
    for side in SIDES:  # one untimed run each: pages in, threads up
        _run(loaded[side][0], prompt, 4)
    for round_ in range(args.rounds):
        for side in _stats.order(round_, SIDES):
            read, write, written = _run(loaded[side][0], prompt, args.tokens)
            figures[side]["read"].append(read)
            figures[side]["write"].append(write)
            texts[side].add(tuple(written))
    report = _report(args, path, loaded, figures, texts)
    return publish("## The model's own process", report, write=not args.no_write)


def _report(
    args: Any,
    path: Path,
    loaded: dict[str, tuple[Any, list[str]]],
    figures: dict[str, dict[str, list[float]]],
    texts: dict[str, set[tuple[int, ...]]],
) -> str:
    reads = _stats.paired(figures[SIDES[0]]["read"], figures[SIDES[1]]["read"])
    writes = _stats.paired(figures[SIDES[0]]["write"], figures[SIDES[1]]["write"])
    same = len(texts[SIDES[0]] | texts[SIDES[1]]) == 1
    which = f"--model {path.name}" if args.model else f"--builtin {args.builtin}"
    lines = [
        "### The loader's AMX guard, both paths on one CPU",
        "",
        f"Command: `python -m bench amx_guard {which}"
        f" --rounds {args.rounds} --prompt {args.prompt} --tokens {args.tokens}`;"
        f" the CPU {'reports' if cpu_reports_amx() else 'does not report'} AMX.",
        "",
        "| | buffers llama.cpp chose | prompt tokens/s (median) | generated tokens/s (median) |",
        "|---|---|---|---|",
    ]
    for side in SIDES:
        kinds = ", ".join(loaded[side][1]) or "(none logged)"
        read, write = (statistics.median(figures[side][k]) for k in ("read", "write"))
        lines.append(f"| {side} | {kinds} | {read:.1f} | {write:.1f} |")
    lines += [
        "",
        f"Paired ratio on / off: prompt **{reads.ratio:.3f}**, generation **{writes.ratio:.3f}**"
        f" ({reads.pairs} pairs).",
        f"Greedy text of {args.tokens} tokens: "
        + ("the same on both paths." if same else "different between the paths."),
        "",
        _stats.note(SIDES),
        machine(),
    ]
    return "\n".join(lines)


def _parser() -> Any:
    made = parser("amx_guard")
    made.add_argument("--builtin", default=catalog.DEFAULT_MODEL_ID, help="a built-in model id")
    made.add_argument("--model", default="", help="GGUF path (default: the built-in named by --builtin)")
    made.add_argument("--rounds", type=int, default=5)
    made.add_argument("--prompt", type=int, default=256, help="prompt tokens read per run")
    made.add_argument("--tokens", type=int, default=32, help="tokens generated per run")
    return made


if __name__ == "__main__":
    raise SystemExit(main())
