"""A per-server budget for notifications, so a server that floods them cannot swamp the app.

Progress, log messages, list_changed and resource updates all arrive as notifications; past
:data:`PER_SECOND` in one second the rest of that second's are dropped before the SDK parses
them further, and one note says how many went. Replies are never counted: a call's result
always arrives.
"""

from __future__ import annotations

import time
from collections.abc import Callable

PER_SECOND = 200
_EXEMPT = frozenset({"notifications/cancelled"})  # a server withdrawing its own request


class NotificationBudget:
    """``allow(method)`` for each notification; ``flush()`` says at once how many went (before a
    reply, so a flood during a call is told before its result; and when the session ends)."""

    def __init__(
        self,
        report: Callable[[int], None],
        per_second: int = PER_SECOND,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._report, self.per_second, self._clock = report, per_second, clock
        self._window = clock()
        self._seen = self._dropped = 0

    def allow(self, method: str) -> bool:
        if method in _EXEMPT:
            return True
        now = self._clock()
        if now - self._window >= 1.0:  # a new second: a new budget
            self.flush()
            self._window, self._seen = now, 0
        self._seen += 1
        if self._seen <= self.per_second:
            return True
        self._dropped += 1
        return False

    def flush(self) -> None:
        dropped, self._dropped = self._dropped, 0
        if dropped:
            self._report(dropped)
