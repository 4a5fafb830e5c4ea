"""Files each engine event under the conversation it belongs to, as it happens.

Subscribe :meth:`Recorder.sink` to the engine. A turn's events (and the questions asked
during it) go to the current conversation, which is created at the first question with
that question as its title; events outside a turn (servers, model loading) are kept too,
under no conversation.
"""

from __future__ import annotations

from app.core import events as ev
from app.history.store import History

TITLE_CHARS = 80


def title_of(question: str) -> str:
    flat = " ".join(question.split())
    return flat if len(flat) <= TITLE_CHARS else flat[: TITLE_CHARS - 1] + "…"


class Recorder:
    def __init__(self, history: History, conversation_id: str | None = None) -> None:
        self.history = history
        self.conversation_id = conversation_id  # None: the next question starts a new one
        self._in_turn = False

    def sink(self, event: ev.Event) -> None:
        if isinstance(event, ev.TurnStarted):
            if self.conversation_id is None:
                self.conversation_id = self.history.new_conversation(title_of(event.text), event.ts)
            self._in_turn = True
        self.history.append(self.conversation_id if self._in_turn else None, event)
        if isinstance(event, ev.TurnFinished):
            self._in_turn = False
