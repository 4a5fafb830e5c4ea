"""Growing the trace: synthetic finished turns, and the cost of one insert, ours against Qt's own model.

Used by ``bench/ui_stall.py``: ours is the TraceStore with our TraceModel (and
TraceView when painted); Qt's is a QStandardItemModel (C++) in a QTreeView,
grown the same way.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from PySide6.QtGui import QStandardItem, QStandardItemModel
from PySide6.QtWidgets import QApplication, QTreeView

from app.core import events as ev
from app.core.trace import TraceStore
from app.ui.trace_model import TraceModel
from app.ui.trace_view import TraceView
from bench import _stats


def synthetic_turn(turn_id: str, calls: int) -> list[ev.Event]:
    events: list[ev.Event] = [
        ev.TurnStarted(turn_id=turn_id, text="q"),
        ev.StepStarted(turn_id=turn_id, step=1),
    ]
    for n in range(calls):
        call: dict[str, Any] = {
            "call_id": f"{turn_id}-{n}",
            "server": "calculator",
            "tool": "add",
            "arguments": {"a": n, "b": 1},
        }
        events.append(ev.ToolCallStarted(turn_id=turn_id, **call))
        events.append(
            ev.ToolCallFinished(turn_id=turn_id, **call, result=str(n + 1), is_error=False, duration_ms=1)
        )
    events.append(ev.TurnFinished(turn_id=turn_id))
    return events


def fill(store: TraceStore, nodes: int) -> None:
    """Add finished turns of 20 nodes (turn, step, 18 calls) until the store holds ``nodes``."""
    have = store.count()
    for turn in range((nodes - have) // 20):
        for event in synthetic_turn(f"fill{turn}", 18):
            store.apply(event)


Grower = tuple[Callable[[int], object], Callable[[], None]]  # insert node n; close


def ours_grower(existing: int, inserts: int, painted: bool) -> Grower:
    """Our trace store and item model holding ``existing`` nodes, with a shown tree view when
    ``painted``; its insert adds one tool-call node to a live step, as in a turn."""
    store = TraceStore()
    view: TraceView | None = None
    if painted:
        view = TraceView(store)
        view.resize(500, 700)
        view.show()
    else:
        TraceModel(store)  # subscribes itself; no view asks it anything
    fill(store, existing)
    store.apply(ev.TurnStarted(turn_id="live", text="q"))
    store.apply(ev.StepStarted(turn_id="live", step=1))
    events = [
        ev.ToolCallStarted(turn_id="live", call_id=f"live-{n}", server="calc", tool="add", arguments={})
        for n in range(inserts)
    ]
    return (lambda n: store.apply(events[n])), (view.close if view is not None else lambda: None)


class QtGrowth:
    """The same growth through Qt's own QStandardItemModel (C++), for comparison. An object, so
    that the model lives as long as its insert does."""

    def __init__(self, existing: int, painted: bool) -> None:
        self.model = QStandardItemModel()
        self.model.setHorizontalHeaderLabels(["Step", "Server.tool", "Status", "Duration"])
        for turn in range(existing // 20):
            parent = QStandardItem(f"Turn {turn}")
            self.model.appendRow(parent)
            step = QStandardItem("Step 1")
            parent.appendRow(step)
            for _ in range(18):
                step.appendRow([QStandardItem("Tool call"), QStandardItem("calc.add"), QStandardItem("ok")])
        self.live = QStandardItem("Step 1")
        self.model.appendRow(self.live)
        self.view: QTreeView | None = None
        if painted:
            self.view = QTreeView()
            self.view.setUniformRowHeights(True)
            self.view.setModel(self.model)
            self.view.resize(500, 700)
            self.view.show()
            self.view.expand(self.live.index())

    def insert(self, _: int) -> None:
        self.live.appendRow([QStandardItem("Tool call"), QStandardItem("calc.add"), QStandardItem("running")])

    def close(self) -> None:
        if self.view is not None:
            self.view.close()


def insert_us(app: QApplication, existing: int, inserts: int, painted: bool) -> _stats.Paired:
    """µs per insert, ours and Qt's taking turns insert by insert (pairs interleaved in time);
    ``painted``: each insert's view laid out and painted before the clock stops."""
    qt = QtGrowth(existing, painted)
    growers = {"ours": ours_grower(existing, inserts, painted), "raw": (qt.insert, qt.close)}
    app.processEvents()
    times: dict[str, list[float]] = {"ours": [], "raw": []}
    for n in range(inserts):
        for side in _stats.order(n):
            began = time.perf_counter()
            growers[side][0](n)
            if painted:
                app.processEvents()
            times[side].append((time.perf_counter() - began) * 1e6)
    for _, close in growers.values():
        close()
    return _stats.paired(times["ours"], times["raw"])
