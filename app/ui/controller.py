"""The only way widgets reach the engine: ``submit(text)`` and ``cancel()``.

Engine events come back through one :class:`EventBridge`, re-emitted as a Qt
signal; widgets listen to that signal and never hold the engine themselves.
The end of a turn (``busy_changed(False)``, ``failed``) goes through the same
queue, so it never arrives before the turn's last events.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Protocol

from PySide6.QtCore import QObject, Signal

from app.core import events as ev
from app.core.backend import BackendError
from app.ui.event_bridge import EventBridge

logger = logging.getLogger(__name__)


class TurnRunner(Protocol):
    """What the window needs from the engine (``app.engine.Engine`` fits)."""

    def subscribe(self, sink: ev.EventSink) -> None: ...

    async def ask(self, text: str) -> Any: ...

    def cancel(self) -> None: ...


class ChatController(QObject):
    """Runs one turn at a time as an asyncio task on the Qt loop.

    Signals:
        busy_changed(bool): a turn started (True) or ended (False).
        failed(str): a turn could not run at all (e.g. the model failed to load);
            failures inside a turn arrive as ``TurnError`` events instead.
    """

    busy_changed = Signal(bool)
    failed = Signal(str)

    def __init__(self, runner: TurnRunner, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.runner = runner
        self.bridge = EventBridge(self)
        self._task: asyncio.Task[None] | None = None
        self._in_turn = False
        self._idle = asyncio.Event()
        self._idle.set()
        # Directly, not through the bridge's queue: Stop must know at once whether a turn runs.
        runner.subscribe(self._watch)
        runner.subscribe(self.bridge.sink)

    @property
    def busy(self) -> bool:
        return self._task is not None

    def submit(self, text: str) -> bool:
        """Start a turn; False when the text is empty or a turn is running."""
        text = text.strip()
        if not text or self.busy:
            return False
        self._idle.clear()
        self._task = asyncio.ensure_future(self._run(text))
        # A callback, not a ``finally``: a task cancelled before it first runs never enters _run.
        self._task.add_done_callback(self._finished)
        self.busy_changed.emit(True)
        return True

    def cancel(self) -> None:
        """Stop the running turn, or the wait before it (model still loading)."""
        if self._task is None:
            return
        if self._in_turn:
            self.runner.cancel()  # lets the engine record a clean, cancelled turn
        else:
            self._task.cancel()

    def cancel_call(self, call_id: str) -> bool:
        """Stop one running tool call; the turn goes on (the model hears it was cancelled)."""
        cancel_call = getattr(self.runner, "cancel_call", None)
        return bool(cancel_call(call_id)) if cancel_call is not None else False

    async def wait_idle(self) -> None:
        """Until the turn is over and the window has shown all of it."""
        await self._idle.wait()

    def _watch(self, event: ev.Event) -> None:
        if isinstance(event, ev.TurnStarted):
            self._in_turn = True
        elif isinstance(event, ev.TurnFinished):
            self._in_turn = False

    async def _run(self, text: str) -> None:
        try:
            await self.runner.ask(text)
        except asyncio.CancelledError:
            logger.info("turn cancelled before it started")
        except BackendError as exc:
            self._fail(exc.message)
        except Exception as exc:  # top of a user action: show it, keep the window alive
            logger.exception("turn failed")
            self._fail(f"Unexpected error: {exc}")

    def _fail(self, message: str) -> None:
        self.bridge.call_after(lambda: self.failed.emit(message))

    def _finished(self, task: asyncio.Future[None]) -> None:
        self.bridge.call_after(lambda: self._became_idle(task))

    def _became_idle(self, task: asyncio.Future[None]) -> None:
        if task is self._task:
            self._task, self._in_turn = None, False
            self._idle.set()
            self.busy_changed.emit(False)
