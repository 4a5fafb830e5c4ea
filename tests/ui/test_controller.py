"""The controller: one turn at a time, Stop before and during a turn, failures shown once."""

from __future__ import annotations

import asyncio
from typing import Any

from app.core import events as ev
from app.core.backend import BackendError
from app.ui.controller import ChatController
from app.ui.main_window import MainWindow


class FakeRunner:
    """Stands in for the engine: ``ask`` waits for the test (or raises what it is told)."""

    def __init__(self, error: Exception | None = None) -> None:
        self.error = error
        self.release = asyncio.Event()
        self.cancelled = 0
        self.sinks: list[ev.EventSink] = []

    def subscribe(self, sink: ev.EventSink) -> None:
        self.sinks.append(sink)

    async def ask(self, text: str) -> Any:
        if self.error is not None:
            raise self.error
        await self.release.wait()  # like a model that is still loading

    def cancel(self) -> None:
        self.cancelled += 1


def test_only_one_turn_runs_at_a_time_and_empty_text_is_ignored(qtbot, qloop):
    runner = FakeRunner()
    controller = ChatController(runner)
    assert not controller.submit("   ")
    with qtbot.waitSignal(controller.busy_changed, timeout=1000) as busy:
        assert controller.submit("first")
    assert busy.args == [True] and not controller.submit("second")
    runner.release.set()
    qtbot.waitUntil(lambda: not controller.busy, timeout=2000)


def test_stop_before_the_turn_starts_cancels_the_wait(qtbot, qloop):
    runner = FakeRunner()
    controller = ChatController(runner)
    failures: list[str] = []
    controller.failed.connect(failures.append)
    controller.submit("question")
    controller.cancel()
    qtbot.waitUntil(lambda: not controller.busy, timeout=2000)
    assert failures == [] and runner.cancelled == 0


def test_a_model_that_cannot_load_shows_one_error_bubble(qtbot, qloop):
    runner = FakeRunner(BackendError("The model file is damaged.", category="model"))
    window = MainWindow(ChatController(runner), gpu_probe=None)
    qtbot.addWidget(window)
    window.controller.submit("question")
    qtbot.waitUntil(lambda: not window.controller.busy, timeout=2000)
    errors = [b for b in window.chat.bubbles() if b.kind == "error"]
    assert [b.text() for b in errors] == ["The model file is damaged."]
    assert window.chat.send_button.isEnabled()
