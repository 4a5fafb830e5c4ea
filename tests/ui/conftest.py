"""Qt and asyncio on one loop in tests: qasync around pytest-qt's application.

``qloop`` marks a ``qasync.QEventLoop`` as already running, so every wait that
spins Qt events (``qtbot.waitUntil``, ``qtbot.waitSignal``) also runs asyncio
callbacks and tasks, exactly as in the app. ``arun`` drives one coroutine to
completion that way, under a time limit. Any Qt warning fails a UI test.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
import qasync

from app.core import events as ev
from app.core.session import ChatSession
from app.core.tools import ToolInfo, ToolResult
from app.ui.gc_guard import MainThreadCollector

HERE = Path(__file__).parent
# The offscreen platform's own limits, not problems of ours.
OFFSCREEN_NOISE = ("This plugin does not support propagateSizeHints",)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if HERE in Path(item.path).parents:
            item.add_marker(pytest.mark.qt_log_level_fail("WARNING"))
            item.add_marker(pytest.mark.qt_log_ignore(*OFFSCREEN_NOISE))


@pytest.fixture(autouse=True)
def main_thread_gc(qapp):
    """As in the app: no cyclic collection on worker threads (it would free Qt objects there)."""
    collector = MainThreadCollector()
    collector.start()
    yield collector
    collector.stop()


@pytest.fixture
def qloop(qapp, qtbot):
    loop = qasync.QEventLoop(qapp, already_running=True)
    asyncio.set_event_loop(loop)
    try:
        yield loop
    finally:
        _cancel_leftovers(loop, qtbot)
        qapp.aboutToQuit.disconnect(loop._after_run_forever)
        _mark_stopped(loop)
        asyncio.events._set_running_loop(None)
        loop.close()
        asyncio.set_event_loop(None)


def _mark_stopped(loop: qasync.QEventLoop) -> None:
    # loop.stop() would call QApplication.exit(): that sets Qt's quit flag for good and
    # starves every later test's timers. Clear qasync's running mark instead.
    loop._QEventLoop__is_running = False
    assert not loop.is_running(), "qasync changed how it tracks the running state"


def _cancel_leftovers(loop: asyncio.AbstractEventLoop, qtbot) -> None:
    pending = [task for task in asyncio.all_tasks(loop) if not task.done()]
    for task in pending:
        task.cancel()
    qtbot.waitUntil(lambda: all(task.done() for task in pending), timeout=10_000)


@pytest.fixture
def arun(qloop, qtbot) -> Callable[..., Any]:
    """``arun(coro, timeout=10)``: run a coroutine on the Qt loop and return its result."""

    def run(coro: Coroutine[Any, Any, Any], timeout: float = 10.0) -> Any:
        task = qloop.create_task(coro)
        qtbot.waitUntil(task.done, timeout=int(timeout * 1000))
        return task.result()

    return run


class SessionRunner:
    """The window's ``TurnRunner`` over a bare ChatSession, until a test needs the whole engine."""

    def __init__(self, session: ChatSession) -> None:
        self.session = session

    def subscribe(self, sink: ev.EventSink) -> None:
        self.session.subscribe(sink)

    async def ask(self, text: str) -> Any:
        return await self.session.run_turn(text)

    def cancel(self) -> None:
        self.session.cancel()

    def cancel_call(self, call_id: str) -> bool:
        return self.session.cancel_call(call_id)


def surface_window(qtbot: Any, supervisor: Any, steps: list[list[Any]]) -> Any:
    """The main window over a real supervisor, a scripted model taking ``steps``, and what the
    servers offer wired in (app.ui.surface_ui), shown."""
    from app.llm.scripted import ScriptedBackend
    from app.mcp.surface import Surface
    from app.ui import surface_ui
    from app.ui.controller import ChatController
    from app.ui.main_window import MainWindow

    runner = SessionRunner(ChatSession(ScriptedBackend(steps), supervisor))
    window = MainWindow(ChatController(runner), servers=supervisor, gpu_probe=None)
    qtbot.addWidget(window)
    window.show()
    surface_ui.install(window, Surface(supervisor))
    return window


class FakeTools:
    """A ToolProvider fake: fixed tools whose results the test chooses, no server behind them."""

    def __init__(self, results: Mapping[str, str], server: str = "fake") -> None:
        self.results = dict(results)
        self.server = server
        self.calls: list[tuple[str, dict[str, Any]]] = []

    def list_tools(self) -> list[ToolInfo]:
        schema = {"type": "object", "additionalProperties": True}
        return [ToolInfo(self.server, name, name, f"{name} (fake)", schema) for name in self.results]

    def resolve(self, name: str) -> ToolInfo | None:
        return next((t for t in self.list_tools() if name in (t.name, f"{t.server}.{t.tool}")), None)

    async def call_tool(self, name: str, arguments: Mapping[str, Any]) -> ToolResult:
        self.calls.append((name, dict(arguments)))
        return ToolResult(self.results[name.split(".")[-1]])


def bubble_titles(bubbles: Sequence[Any]) -> list[str]:
    return [b.title for b in bubbles]
