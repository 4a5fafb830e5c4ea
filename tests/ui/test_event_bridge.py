"""Engine events reach the window in order, in slices the event loop can run between."""

from __future__ import annotations

import threading

from PySide6.QtCore import QTimer

from app.core import events as ev
from app.ui.controller import ChatController
from app.ui.event_bridge import EventBridge
from tests.ui.test_controller import FakeRunner


def notice(n: int) -> ev.Notice:
    return ev.Notice(turn_id="t", message=f"n{n}")


def test_events_and_queued_calls_arrive_in_the_order_they_were_sunk(qtbot):
    bridge = EventBridge()
    log: list[str] = []
    bridge.engine_event.connect(lambda event: log.append(event.message))
    bridge.sink(notice(1))
    bridge.call_after(lambda: log.append("call"))
    bridge.sink(notice(2))
    assert log == []  # nothing runs inside the engine's emit
    qtbot.waitUntil(lambda: bridge.pending == 0, timeout=2000)
    assert log == ["n1", "call", "n2"]


def burst(qtbot, bridge: EventBridge) -> list[str]:
    """Three events at once; the first one's handler queues work on the event loop."""
    log: list[str] = []

    def handle(event: ev.Notice) -> None:
        log.append(event.message)
        if event.message == "n1":
            QTimer.singleShot(0, lambda: log.append("loop ran"))

    bridge.engine_event.connect(handle)
    for n in range(1, 4):
        bridge.sink(notice(n))
    qtbot.waitUntil(lambda: len(log) == 4, timeout=2000)
    return log


def test_the_event_loop_runs_between_slices_of_a_burst(qtbot):
    log = burst(qtbot, EventBridge(budget_s=0.0))  # one event per slice
    assert log.index("loop ran") < log.index("n3")  # the burst did not hold the loop to its end


def test_a_generous_budget_delivers_a_burst_in_one_slice(qtbot):
    assert burst(qtbot, EventBridge(budget_s=10.0)) == ["n1", "n2", "n3", "loop ran"]


def test_events_sunk_on_another_thread_are_delivered_on_the_ui_thread(qtbot):
    bridge = EventBridge()
    seen: list[tuple[str, bool]] = []
    bridge.engine_event.connect(
        lambda event: seen.append((event.message, threading.current_thread() is threading.main_thread()))
    )
    worker = threading.Thread(target=lambda: bridge.sink(notice(1)))
    worker.start()
    worker.join()
    qtbot.waitUntil(lambda: bool(seen), timeout=2000)
    assert seen == [("n1", True)]


def test_flush_delivers_everything_at_once(qtbot):
    bridge = EventBridge(budget_s=0.0)
    log: list[str] = []
    bridge.engine_event.connect(lambda event: log.append(event.message))
    for n in range(1, 4):
        bridge.sink(notice(n))
    bridge.flush()
    assert log == ["n1", "n2", "n3"] and bridge.pending == 0


def test_the_turn_ends_for_the_window_only_after_its_last_event(qtbot, qloop):
    runner = FakeRunner()
    controller = ChatController(runner)
    order: list[str] = []
    controller.bridge.engine_event.connect(lambda event: order.append(event.kind))
    controller.busy_changed.connect(lambda busy: order.append(f"busy={busy}"))
    controller.submit("question")
    for sink in runner.sinks:
        sink(ev.TurnStarted(turn_id="t", text="question"))
        sink(ev.TurnFinished(turn_id="t"))
    runner.release.set()
    qtbot.waitUntil(lambda: not controller.busy, timeout=2000)
    assert order == ["busy=True", "turn_started", "turn_finished", "busy=False"]
