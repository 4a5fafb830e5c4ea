"""A per-server budget for notifications, so a server that floods them cannot swamp the app.

Progress, log messages, list_changed and resource updates all arrive as notifications; past
:data:`PER_SECOND` in one second the rest of that second's are dropped before the session
dispatches them, and one note says how many went. Replies are never counted: a call's result
always arrives. A local server's lines are counted as they are read (:mod:`app.mcp.inbound`);
a remote server's messages, already parsed by the SDK's HTTP transport, pass through
:func:`budgeted` on their way to the session.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import anyio
import mcp_types
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.shared.message import SessionMessage

PER_SECOND = 200
# Never dropped: they change no view and the session needs them (a server withdrawing its
# own request; the answer to the client's listen, without which no change is ever reported).
_EXEMPT = frozenset({"notifications/cancelled", "notifications/subscriptions/acknowledged"})


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


@contextlib.asynccontextmanager
async def budgeted(streams: tuple[Any, Any], budget: NotificationBudget) -> AsyncIterator[tuple[Any, Any]]:
    """``(read, write)`` with ``read`` held to ``budget``: a relay task drops what is over it."""
    read, write = streams
    send, receive = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    async with anyio.create_task_group() as group:
        group.start_soon(_relay, read, send, budget)
        try:
            yield receive, write
        finally:
            budget.flush()  # a flood's last second is told too
            group.cancel_scope.cancel()


async def _relay(
    read: MemoryObjectReceiveStream[Any], send: MemoryObjectSendStream[Any], budget: NotificationBudget
) -> None:
    async with send:
        async for item in read:
            message = item.message if isinstance(item, SessionMessage) else None
            if isinstance(message, mcp_types.JSONRPCNotification):
                if not budget.allow(message.method):
                    continue
            elif message is not None:
                budget.flush()  # before a reply, so a flood during a call is told before its result
            await send.send(item)
