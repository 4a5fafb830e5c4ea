"""Where a running tool call's progress goes.

The turn loop (or ``calculon call``) names a receiver for the call it is about to run;
the MCP side reads it when the call starts and hands the server's progress notifications
to it. A context variable, so the tool provider's interface stays as it is: a call made
without a receiver still sends a progress token, and its updates are only logged.
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
from collections.abc import Callable, Iterator


@dataclasses.dataclass(frozen=True)
class ProgressUpdate:
    """One ``notifications/progress`` for a call: ``total`` and ``message`` when the server gave them."""

    progress: float
    total: float | None = None
    message: str | None = None

    @property
    def fraction(self) -> float | None:
        """Progress in [0, 1] when the server gave a total, else None (the bar is indeterminate)."""
        if not self.total or self.total <= 0:
            return None
        return min(max(self.progress / self.total, 0.0), 1.0)

    def to_dict(self) -> dict[str, float | str | None]:
        return dataclasses.asdict(self)

    def event_fields(self) -> dict[str, float | str | None]:
        """The fields of a ``ToolCallProgress`` event (whose message is text, empty when none)."""
        return {**self.to_dict(), "message": self.message or ""}


ProgressReceiver = Callable[[ProgressUpdate], None]

_receiver: contextvars.ContextVar[ProgressReceiver | None] = contextvars.ContextVar(
    "calculon_progress_receiver", default=None
)


@contextlib.contextmanager
def reporting_to(receiver: ProgressReceiver) -> Iterator[None]:
    """Calls started inside this block report their progress to ``receiver``."""
    token = _receiver.set(receiver)
    try:
        yield
    finally:
        _receiver.reset(token)


def current_receiver() -> ProgressReceiver | None:
    return _receiver.get()
