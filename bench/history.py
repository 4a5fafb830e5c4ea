"""The history's costs: appending events, opening a long conversation, searching many.

    QT_QPA_PLATFORM=offscreen .venv/bin/python -m bench history [--rounds 15] [--events 2000] [--no-write]

1. Append. Per event, what the caller (the event loop) pays: ours is ``History.append``
   (a queue put; the writer thread does the rest), raw is a bare ``sqlite3`` insert of the
   same JSON row into an open transaction on the same kind of file. The two take turns
   round by round; each round's p99 per event is paired. The writer's whole cost is
   reported too: events per second from the first append to the commit of the last
   (redaction, search rows and FTS index included), against raw's inserts plus commit.
2. Open: a saved 10,000-event conversation (50 turns, streamed answers, tool calls) into
   the window: read, decode, rebuild chat, trace and model history, and let Qt lay it out.
3. Search: one word over 1,000 saved conversations (FTS5), median and p95 of many queries.
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from app.core import events as ev
from app.history import History, Recorder
from bench import _doc, _stats
from bench._doc import load_average

HEADING = "## History"
WORDS = ("saturn", "bolts", "crate", "invoice", "metres", "kelvin", "average", "percent", "minutes", "orbit")


def turn_events(turn: str, question: str, deltas: int = 180) -> list[ev.Event]:
    """A turn as the engine emits it: two tool calls, then an answer streamed in ``deltas`` pieces."""
    events: list[ev.Event] = [
        ev.TurnStarted(turn_id=turn, text=question),
        ev.StepStarted(turn_id=turn, step=1),
    ]
    for n, (a, b) in enumerate(((48, 37), (1776, 12))):
        call = {"turn_id": turn, "call_id": f"{turn}-c{n}", "server": "calculator", "tool": "multiply"}
        events.append(ev.ToolCallStarted(**call, arguments={"a": a, "b": b}))
        result = str(a * b)
        events.append(
            ev.ToolCallFinished(
                **call, arguments={"a": a, "b": b}, result=result, is_error=False, duration_ms=2
            )
        )
    events.append(ev.StepFinished(turn_id=turn, step=1, tokens=12, duration_ms=300))
    events.append(ev.StepStarted(turn_id=turn, step=2))
    events.extend(ev.TextDelta(turn_id=turn, text=f"word{i} ") for i in range(deltas - 4))
    answer = "There are 21312 bolts."
    events.append(ev.StepFinished(turn_id=turn, step=2, tokens=deltas, duration_ms=900))
    events.append(
        ev.AnswerReady(turn_id=turn, text=answer, verified=True, backing=(("21312", "multiply(1776, 12)"),))
    )
    events.append(ev.TurnFinished(turn_id=turn, duration_ms=1300))
    return events


# --- 1. append ---------------------------------------------------------------


def _raw_db(path: Path) -> sqlite3.Connection:
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode = WAL")
    db.execute("PRAGMA synchronous = NORMAL")
    db.execute("CREATE TABLE events (seq INTEGER PRIMARY KEY, turn_id TEXT, kind TEXT, ts REAL, body TEXT)")
    return db


def raw_round(folder: Path, events: list[ev.Event]) -> tuple[list[float], float]:
    db = _raw_db(folder / f"raw-{time.perf_counter_ns()}.db")
    per_event, began = [], time.perf_counter()
    db.execute("BEGIN")
    for event in events:
        start = time.perf_counter()
        db.execute(
            "INSERT INTO events (turn_id, kind, ts, body) VALUES (?, ?, ?, ?)",
            (event.turn_id, event.kind, event.ts, json.dumps(event.to_dict())),
        )
        per_event.append(time.perf_counter() - start)
    db.execute("COMMIT")
    total = time.perf_counter() - began
    db.close()
    return per_event, total


def ours_round(folder: Path, events: list[ev.Event]) -> tuple[list[float], float]:
    history = History(folder / f"ours-{time.perf_counter_ns()}.db", print)
    conversation_id = history.new_conversation("bench")
    per_event, began = [], time.perf_counter()
    for event in events:
        start = time.perf_counter()
        history.append(conversation_id, event)
        per_event.append(time.perf_counter() - start)
    history.flush(60)
    total = time.perf_counter() - began
    history.close()
    return per_event, total


def p99(samples: list[float]) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]


def measure_append(folder: Path, rounds: int, count: int) -> dict[str, Any]:
    events = [e for t in range(count // 190 + 1) for e in turn_events(f"t{t}", f"question {t}")][:count]
    runs: dict[str, Callable[[Path, list[ev.Event]], tuple[list[float], float]]] = {
        "ours": ours_round,
        "raw": raw_round,
    }
    tails: dict[str, list[float]] = {"ours": [], "raw": []}
    medians: dict[str, list[float]] = {"ours": [], "raw": []}
    rates: dict[str, list[float]] = {"ours": [], "raw": []}
    for pair in range(rounds):
        for side in _stats.order(pair):
            per_event, total = runs[side](folder, events)
            tails[side].append(p99(per_event) * 1e6)
            medians[side].append(statistics.median(per_event) * 1e6)
            rates[side].append(len(events) / total)
    return {
        "p99": _stats.paired(tails["ours"], tails["raw"]),
        "median": _stats.paired(medians["ours"], medians["raw"]),
        "rate": _stats.paired(rates["ours"], rates["raw"]),
        "events": len(events),
    }


# --- 2. open ----------------------------------------------------------------


def measure_open(folder: Path, repeats: int) -> dict[str, Any]:
    """Opens two 10,000-event conversations in turn (so each open is a real reload)."""
    import asyncio

    import qasync
    from PySide6.QtWidgets import QApplication

    from app.ui.history_view import WindowHistory

    ids, history = _long_conversations(folder / "open.db")
    app = QApplication.instance() or QApplication([])
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    with loop:
        return loop.run_until_complete(_open_times(ids, repeats, history, WindowHistory))


def _long_conversations(path: Path) -> tuple[list[str], History]:
    history = History(path, print)
    ids = []
    for name in ("a", "b"):
        recorder = Recorder(history)
        for turn in range(50):
            for event in turn_events(f"{name}{turn}", f"How many bolts in crate {turn}?", deltas=193):
                recorder.sink(event)
        ids.append(recorder.conversation_id or "")
    history.flush(120)
    history.close()
    return ids, History(path, print)


async def _open_times(ids: list[str], repeats: int, history: History, view: Any) -> dict[str, Any]:
    from PySide6.QtWidgets import QApplication

    from app.engine import Engine
    from app.llm.scripted import ScriptedBackend
    from app.settings import Settings
    from app.ui.main import build_window

    servers = history.path.with_name("servers.json")
    servers.write_text('{"mcpServers": {}}', encoding="utf-8")
    engine = Engine(Settings(), servers_path=servers, backend=ScriptedBackend([]))
    window = build_window(engine, engine.settings)  # the window as the app builds it
    window.resize(1280, 800)
    window.show()
    saved = view(window, engine, history)
    times = []
    for n in range(repeats):
        start = time.perf_counter()
        saved.open(ids[n % 2])
        QApplication.processEvents()  # layout and paint of what was opened
        times.append((time.perf_counter() - start) * 1000)
    count = history.get(ids[0]).events  # type: ignore[union-attr]
    window.close()
    await engine.aclose()
    history.close()
    return {"median": statistics.median(times), "p95": _stats.p95(times), "events": count, "runs": repeats}


# --- 3. search --------------------------------------------------------------


def measure_search(folder: Path, conversations: int, queries: int) -> dict[str, Any]:
    history = History(folder / "search.db", print)
    for n in range(conversations):
        recorder = Recorder(history)
        word = WORDS[n % len(WORDS)]
        for turn in range(3):
            for event in turn_events(f"s{n}-{turn}", f"How many {word} in case {n} part {turn}?", deltas=8):
                recorder.sink(event)
    history.flush(300)
    times, found = [], []
    for n in range(queries):
        start = time.perf_counter()
        found.append(len(history.search(WORDS[n % len(WORDS)])))
        times.append((time.perf_counter() - start) * 1000)
    history.close()
    return {"median": statistics.median(times), "p95": _stats.p95(times), "hits": statistics.median(found)}


# --- report -----------------------------------------------------------------


def report(append: dict[str, Any], opened: dict[str, Any], searched: dict[str, Any], args: Any) -> str:
    p = append["p99"]
    return f"""### Append, open and search

Command: `QT_QPA_PLATFORM=offscreen .venv/bin/python -m bench history --rounds {args.rounds} \
--events {args.events}`; load average (1/5/15 min) at the end: {load_average()} on a shared 2-core machine.

| Measure | Ours | Raw sqlite3 | Paired ratio | Target |
|---|---|---|---|---|
| Append, p99 per event (µs), what the loop pays | {_stats.cells(p)} | ≤ 1.5 |
| Append, median per event (µs) | {_stats.cells(append["median"])} | |
| Append, events per second to the last commit | {_stats.cells(append["rate"], 0)} | |

{args.rounds} rounds of {append["events"]} events per side, sides taking turns at going first; \
p99 ratio by who went first: {_stats.by_first(p)}. {_stats.NOTE} Ours hands each event to the writer \
thread (a queue put); raw inserts the same JSON row itself, in an open transaction. The events-per-second \
row is the writer's whole cost: redaction, the search rows and the FTS index, and the commits every \
{1000 * 0.003:.0f} ms, against raw's bare rows and one commit.

| Measure | Median | p95 | Target |
|---|---|---|---|
| Open a {opened["events"]:,}-event conversation into the window (ms, {opened["runs"]} opens) | \
{opened["median"]:.0f} | {opened["p95"]:.0f} | 300 |
| Search one word over {args.conversations:,} conversations (ms, {args.queries} queries, \
median {searched["hits"]:.0f} hits) | {searched["median"]:.1f} | {searched["p95"]:.1f} | 50 |
"""


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m bench history")
    parser.add_argument("--rounds", type=int, default=15, help="append rounds per side")
    parser.add_argument("--events", type=int, default=2000, help="events per append round")
    parser.add_argument("--opens", type=int, default=10, help="times a long conversation is opened")
    parser.add_argument("--conversations", type=int, default=1000, help="conversations searched")
    parser.add_argument("--queries", type=int, default=100, help="search queries")
    parser.add_argument("--no-write", action="store_true", help="print only; leave docs/benchmarks.md alone")
    args = parser.parse_args(sys.argv[1:])
    with tempfile.TemporaryDirectory(prefix="calculon-bench-history-") as folder:
        root = Path(folder)
        append = measure_append(root, args.rounds, args.events)
        opened = measure_open(root, args.opens)
        searched = measure_search(root, args.conversations, args.queries)
    text = report(append, opened, searched, args)
    print(text)
    if not args.no_write:
        _doc.write_subsection(HEADING, text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
