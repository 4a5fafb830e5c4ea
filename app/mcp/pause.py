"""Tool-call deadlines that stand still while the user is being asked.

A server may ask the user something in the middle of a call (an elicitation, a sampling
request): the call's time limit is for the server, not for the person reading the
question. Each server has one :class:`CallClock`; its calls run under
:meth:`CallClock.deadline`, and the handlers that ask the user run under
:meth:`CallClock.paused`, which stops every running deadline of that server and gives
each the time it had left once the last question is answered.
"""

from __future__ import annotations

import contextlib
import contextvars
import math
from collections.abc import Iterator

import anyio


class _Running:
    def __init__(self, scope: anyio.CancelScope, seconds: float) -> None:
        self.scope, self.left = scope, seconds

    def freeze(self) -> None:
        self.left = max(self.scope.deadline - anyio.current_time(), 0.0)
        self.scope.deadline = math.inf

    def resume(self) -> None:
        self.scope.deadline = anyio.current_time() + self.left


_current: contextvars.ContextVar[_Running | None] = contextvars.ContextVar(
    "calculon_call_deadline", default=None
)


class CallClock:
    def __init__(self) -> None:
        self._running: set[_Running] = set()
        self._asking = 0

    @property
    def asking(self) -> bool:
        return self._asking > 0

    @contextlib.contextmanager
    def deadline(self, seconds: float) -> Iterator[anyio.CancelScope]:
        """A cancel scope that expires after ``seconds`` of time nobody was being asked."""
        scope = anyio.CancelScope(deadline=math.inf if self.asking else anyio.current_time() + seconds)
        running = _Running(scope, seconds)
        self._running.add(running)
        token = _current.set(running)
        try:
            with scope:
                yield scope
        finally:
            _current.reset(token)
            self._running.discard(running)

    @staticmethod
    def lift() -> None:
        """The running call in this context has no deadline from now on (it became a task)."""
        running = _current.get()
        if running is not None:
            running.left = math.inf
            running.scope.deadline = math.inf

    @contextlib.contextmanager
    def paused(self) -> Iterator[None]:
        """While the user answers one of this server's questions."""
        if not self.asking:
            for running in self._running:
                running.freeze()
        self._asking += 1
        try:
            yield
        finally:
            self._asking -= 1
            if not self.asking:
                for running in self._running:
                    running.resume()
