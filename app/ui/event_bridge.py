"""Engine events to a Qt signal, delivered in slices the window can afford.

The engine emits events synchronously from its turn task: checking an answer
can emit a verdict, a re-ask notice and the next step in one go, and each
handler renders Markdown, lays out a bubble or grows the trace. Run back to
back, those handlers held the UI thread for 50-90 ms on two cores. So events
are queued and re-emitted from a zero-delay timer, at most ``budget_s`` of
handler time per slice; the event loop (input, painting, other tasks) runs
between slices. Order is kept, and callables queued with :meth:`call_after`
run in that order too, so "the turn is over" never overtakes its last words.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer, Signal

from app.core import events as ev

FRAME_BUDGET_S = 0.008  # half a 60 Hz frame; one handler may run past it, never two


class _Call:
    __slots__ = ("fn",)

    def __init__(self, fn: Callable[[], None]) -> None:
        self.fn = fn


class EventBridge(QObject):
    """Signals:
    engine_event(object): one :class:`app.core.events.Event`, in emission order,
        always on the UI thread (a sink called from another thread is queued there).
    """

    engine_event = Signal(object)
    _incoming = Signal(object)

    def __init__(self, parent: QObject | None = None, *, budget_s: float = FRAME_BUDGET_S) -> None:
        super().__init__(parent)
        self.budget_s = budget_s
        self._queue: deque[ev.Event | _Call] = deque()
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self._drain)
        self._incoming.connect(self._enqueue)  # direct on the UI thread, queued from any other

    @property
    def pending(self) -> int:
        """Events and calls waiting to be delivered."""
        return len(self._queue)

    def sink(self, event: ev.Event) -> None:
        self._incoming.emit(event)

    def call_after(self, fn: Callable[[], None]) -> None:
        """Run ``fn`` on the UI thread once every event sunk before it has been delivered."""
        self._incoming.emit(_Call(fn))

    def flush(self) -> None:
        """Deliver everything queued now, regardless of the budget."""
        self._timer.stop()
        while self._queue:
            self._deliver(self._queue.popleft())

    def _enqueue(self, item: ev.Event | _Call) -> None:
        self._queue.append(item)
        if not self._timer.isActive():
            self._timer.start()

    def _drain(self) -> None:
        deadline = time.perf_counter() + self.budget_s
        while self._queue:
            self._deliver(self._queue.popleft())
            if time.perf_counter() >= deadline:
                break
        if self._queue:
            self._timer.start()

    def _deliver(self, item: ev.Event | _Call) -> None:
        if isinstance(item, _Call):
            item.fn()
        else:
            self.engine_event.emit(item)
