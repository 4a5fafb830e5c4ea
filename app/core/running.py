"""The tool calls of a turn that are running now: each reports its progress, each can be stopped alone.

Stopping one call (``cancel``) ends only that call: the SDK tells the server
(``notifications/cancelled``) as the request is abandoned, and the model gets a tool
error saying the user cancelled it, so the turn goes on. Stopping the whole turn
cancels the turn's task instead, which ends the running call the same way on its way out.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import Any

import anyio

from app.core import progress
from app.core.tools import ToolResult

CANCELLED_TEXT = "The call was cancelled by the user."
CANCELLED = ToolResult(CANCELLED_TEXT, is_error=True)  # compared by identity: this call was stopped


def finished_fields(result: ToolResult, ms: float) -> dict[str, Any]:
    """A call's ``ToolCallFinished`` fields beyond its name and arguments."""
    return {
        "result": result.text,
        "is_error": result.is_error,
        "duration_ms": ms,
        "cancelled": result is CANCELLED,
        "structured": result.structured,
        "parts": result.parts,
        "kept": result.kept,
    }


def as_message(result: ToolResult) -> dict[str, Any]:
    """The fields of the tool message the model gets for ``result``."""
    return {"text": result.text, "is_error": result.is_error, "structured": result.structured}


class RunningCalls:
    def __init__(self) -> None:
        self._scopes: dict[str, anyio.CancelScope] = {}

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(self._scopes)

    def cancel(self, call_id: str) -> bool:
        """Stop one running call; False when it is not running (finished, or never was)."""
        scope = self._scopes.get(call_id)
        if scope is None:
            return False
        scope.cancel()
        return True

    async def run(
        self,
        call_id: str,
        work: Callable[[], Awaitable[tuple[ToolResult, float]]],
        receiver: progress.ProgressReceiver,
    ) -> tuple[ToolResult, float]:
        """``work``'s result and duration, or a "cancelled by the user" error if the call was stopped."""
        started = time.perf_counter()
        with progress.reporting_to(receiver), anyio.CancelScope() as scope:
            self._scopes[call_id] = scope
            try:
                return await work()
            finally:
                del self._scopes[call_id]
        return CANCELLED, (time.perf_counter() - started) * 1000
