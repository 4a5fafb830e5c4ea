"""Does the window's event loop ever stall? Heartbeat lateness while answers stream.

    QT_QPA_PLATFORM=offscreen .venv/bin/python -m bench.ui_stall [--backend auto|local|scripted]
        [--turns 3] [--rate 60] [--trace-nodes 10000] [--save] [--json]

A 1 ms asyncio heartbeat runs on the qasync loop (so it goes through Qt's own
timers) and records how late each beat wakes. The window is the app's own
(``app.ui.main.build_window`` over ``app.engine.Engine``, Calculon mode on,
the real bundled calculator as an MCP child process). Phases, in one run:

1. idle: the window shown, nothing happening: the loop's own noise floor;
2. stream: turns whose model calls the calculator and streams an answer;
3. stream, big trace: the same after 10,000 nodes were put in the trace store.

Then the median cost of adding one node to the trace with 100 and with 10,000
nodes already there: through the store and item model alone, and with the tree
view laid out and painted after each insert; side by side with Qt's own
QStandardItemModel (C++) growing the same way, the two taking turns insert by
insert, reported as both medians and the paired ratio.

The model is the real local GGUF when ``app.llm.local`` loads (``auto``), else
the ScriptedBackend at ``--rate`` tokens per second; the report says which.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import qasync
from PySide6.QtWidgets import QApplication

from app.calculon.provenance import CalculonVerifier
from app.core import events as ev
from app.core.backend import Backend, BackendError, StepDone, ThoughtChunk, ToolCallChunk
from app.core.messages import ToolCall
from app.engine import Engine
from app.llm.scripted import ScriptedBackend
from app.settings import Settings
from app.ui.gc_guard import MainThreadCollector
from app.ui.history_view import WindowHistory
from app.ui.main import build_window
from app.ui.main_window import MainWindow
from bench import _stats
from bench._doc import load_average
from bench._trace_growth import fill, insert_us

REPO_ROOT = Path(__file__).resolve().parents[1]
QUESTION = "A crate holds 48 boxes of 37 bolts each. How many bolts are in 12 crates?"


class Heartbeat:
    """Wakes every ``interval`` seconds and records how late each wake-up was (ms).

    Wall-clock lateness includes time the OS gave to other processes; the UI
    thread's own CPU time between two beats (``time.thread_time``) is what our
    code spent, so both are kept.
    """

    def __init__(self, interval: float = 0.001) -> None:
        self.interval = interval
        self.late_ms: list[float] = []
        self.busy_ms: list[float] = []
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self.late_ms.clear()
        self.busy_ms.clear()
        self._task = asyncio.ensure_future(self._beat())

    async def stop(self) -> dict[str, float]:
        assert self._task is not None
        self._task.cancel()
        await asyncio.gather(self._task, return_exceptions=True)
        return {**summary(self.late_ms, "wall"), **summary(self.busy_ms, "cpu")}

    async def _beat(self) -> None:
        while True:
            began, cpu = time.perf_counter(), time.thread_time()
            await asyncio.sleep(self.interval)
            self.late_ms.append(max(0.0, (time.perf_counter() - began - self.interval) * 1000))
            self.busy_ms.append((time.thread_time() - cpu) * 1000)


def summary(samples: list[float], name: str) -> dict[str, float]:
    ordered = sorted(samples) or [0.0]

    def pick(q: float) -> float:
        return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))], 2)

    return {
        "beats": len(samples),
        f"{name}_p50_ms": pick(0.5),
        f"{name}_p99_ms": pick(0.99),
        f"{name}_max_ms": pick(1.0),
    }


# --- the model -------------------------------------------------------------------


def scripted_steps(turns: int, answer_tokens: int) -> list[list[Any]]:
    """Per turn: a thought and a calculator call, then an answer of ``answer_tokens`` words."""
    sentence = "The 12 crates hold 21312 bolts in total, computed exactly by the calculator. "
    words = [w + " " for w in (sentence * 40).split(" ")][:answer_tokens]
    steps: list[list[Any]] = []
    for turn in range(turns):
        thought = [
            ThoughtChunk(w + " ")
            for w in ["One", "crate", "is", "48", "times", "37", "bolts;", "then", "times", "12."]
        ]
        call = ToolCall(f"c{turn}", "multiply", {"a": 1776, "b": 12})
        steps.append([*thought, ToolCallChunk(call), StepDone(tokens=len(thought) + 12)])
        steps.append([*words, StepDone(tokens=len(words))])
    return steps


def make_backend(choice: str, turns: int, rate: float, answer_tokens: int) -> tuple[Backend, str]:
    if choice in ("auto", "local"):
        from app.llm.registry import create_backend

        try:
            backend = create_backend("local", **Settings().to_dict())
            return backend, f"local llama.cpp ({backend.model_label})"
        except BackendError as exc:
            if choice == "local":
                raise
            print(f"local backend unavailable ({exc.message}); using ScriptedBackend", file=sys.stderr)
    backend = ScriptedBackend(scripted_steps(turns, answer_tokens), delay=1 / rate)
    return backend, f"ScriptedBackend at {rate:g} tokens/s"


def servers_file(folder: Path) -> Path:
    calculator = {
        "command": sys.executable,
        "args": ["-m", "app.servers.calculator"],
        "env": {"PYTHONPATH": str(REPO_ROOT)},
    }
    path = folder / "servers.json"
    path.write_text(json.dumps({"mcpServers": {"calculator": calculator}}), encoding="utf-8")
    return path


# --- phases ----------------------------------------------------------------------


class Tally:
    """Counts what streamed through the window during a phase."""

    def __init__(self) -> None:
        self.counts: dict[str, int] = {}

    def __call__(self, event: ev.Event) -> None:
        self.counts[event.kind] = self.counts.get(event.kind, 0) + 1


async def measure_phase(window: MainWindow, turns: int) -> dict[str, Any]:
    tally = Tally()
    window.controller.bridge.engine_event.connect(tally)
    beat = Heartbeat()
    beat.start()
    for _ in range(turns):
        assert window.controller.submit(QUESTION)
        await asyncio.wait_for(window.controller.wait_idle(), 600)
    result: dict[str, Any] = await beat.stop()
    window.controller.bridge.engine_event.disconnect(tally)
    result.update(
        tool_calls=tally.counts.get("tool_call_finished", 0),
        text_deltas=tally.counts.get("text_delta", 0) + tally.counts.get("thought_delta", 0),
    )
    return result


async def measure_idle(seconds: float) -> dict[str, Any]:
    beat = Heartbeat()
    beat.start()
    await asyncio.sleep(seconds)
    return await beat.stop()


# --- the run ---------------------------------------------------------------------


async def bench(
    app: QApplication, args: argparse.Namespace, servers_path: Path, collector: MainThreadCollector
) -> dict[str, Any]:
    backend, label = make_backend(args.backend, args.turns * 2, args.rate, args.answer_tokens)
    # Trusted, as the bundled one is: its read-only tools run without asking (nobody clicks here).
    settings = Settings(strict=True, trusted_servers=["calculator"])
    engine = Engine(settings, servers_path=servers_path, backend=backend, verifier=CalculonVerifier())
    window = build_window(engine, settings)
    saved = WindowHistory.attach(window, engine) if args.save else None  # every event into the history
    window.resize(1280, 800)
    window.show()
    results: dict[str, Any] = {"backend": label, "saving": args.save}
    try:
        await engine.start()
        await engine.ensure_backend()
        collector.freeze_startup()  # as app.ui.main.prepare does once the model is loaded
        results["idle"] = progress("idle", await measure_idle(2.0))
        results["stream"] = progress("stream", await measure_phase(window, args.turns))
        fill(window.trace, args.trace_nodes)
        results["stream_big_trace"] = progress("stream_big_trace", await measure_phase(window, args.turns))
    finally:
        window.close()
        await engine.aclose()
        if saved is not None:
            saved.close()
    for painted in (False, True):
        for existing in (100, args.trace_nodes):
            key = f"{'painted' if painted else 'model'}_{existing}"
            figures = insert_us(app, existing, args.inserts, painted)
            results[f"insert_us_ours_{key}"] = round(figures.ours, 1)
            results[f"insert_us_qt_{key}"] = round(figures.raw, 1)
            results[f"insert_ratio_{key}"] = round(figures.ratio, 3)
    return results


def progress(phase: str, figures: dict[str, Any]) -> dict[str, Any]:
    print(f"{phase}: {json.dumps(figures)}", file=sys.stderr, flush=True)  # long local runs
    return figures


def report(results: dict[str, Any], nodes: int) -> str:
    lines = [
        f"model: {results['backend']}; history saving {'on' if results['saving'] else 'off'}",
        "",
        "| phase | beats | tool calls | deltas | wall p50 / p99 / max ms | UI-thread CPU p99 / max ms |",
        "|---|---|---|---|---|---|",
    ]
    for phase in ("idle", "stream", "stream_big_trace"):
        r = results[phase]
        wall = f"{r['wall_p50_ms']} / {r['wall_p99_ms']} / {r['wall_max_ms']}"
        cpu = f"{r['cpu_p99_ms']} / {r['cpu_max_ms']}"
        counts = f"{r.get('tool_calls', '-')} | {r.get('text_deltas', '-')}"
        lines.append(f"| {phase} | {r['beats']} | {counts} | {wall} | {cpu} |")
    lines += [
        "",
        f"| per insert, median (µs) | 100 nodes | {nodes} nodes | {nodes} / 100 |",
        "|---|---|---|---|",
    ]
    for kind, label in (("model", "store + model, no view"), ("painted", "with the tree view, painted")):
        for who, name in (("ours", "TraceModel (ours)"), ("qt", "QStandardItemModel (Qt)")):
            small, big = results[f"insert_us_{who}_{kind}_100"], results[f"insert_us_{who}_{kind}_{nodes}"]
            lines.append(f"| {name}, {label} | {small} | {big} | {big / small:.2f} |")
    lines += [
        "",
        "| per insert, ours against Qt | nodes | ours, median (µs) | Qt, median (µs) "
        "| paired ratio ours/Qt |",
        "|---|---|---|---|---|",
    ]
    for kind, label in (("model", "store + model, no view"), ("painted", "with the tree view, painted")):
        for existing in (100, nodes):
            key = f"{kind}_{existing}"
            ours, qt, ratio = (results[f"insert_{what}_{key}"] for what in ("us_ours", "us_qt", "ratio"))
            lines.append(f"| {label} | {existing} | {ours} | {qt} | **{ratio:.2f}** |")
    lines += [
        "",
        _stats.note(("ours", "qt")),
        "",
        f"Machine: {os.cpu_count()} CPUs, load average {load_average()}.",
    ]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--backend", choices=("auto", "local", "scripted"), default="auto")
    parser.add_argument("--turns", type=int, default=3)
    parser.add_argument("--rate", type=float, default=60.0, help="scripted tokens per second")
    parser.add_argument("--answer-tokens", type=int, default=150)
    parser.add_argument("--trace-nodes", type=int, default=10_000)
    parser.add_argument("--inserts", type=int, default=300)
    parser.add_argument("--save", action="store_true", help="with the history saving every event, as the app")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    app = QApplication.instance() or QApplication(sys.argv[:1])
    assert isinstance(app, QApplication)
    app.setQuitOnLastWindowClosed(False)  # closing the window must not end the run
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    collector = MainThreadCollector()  # as in the app: collection only on the UI thread
    collector.start()
    with tempfile.TemporaryDirectory(prefix="calculon-bench-") as folder, loop:
        os.environ.setdefault("CALCULON_CACHE_DIR", str(Path(folder) / "cache"))
        os.environ.setdefault("CALCULON_DATA_DIR", str(Path(folder) / "data"))
        results = loop.run_until_complete(bench(app, args, servers_file(Path(folder)), collector))
    collector.stop()
    print(json.dumps(results, indent=2) if args.json else report(results, args.trace_nodes))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
