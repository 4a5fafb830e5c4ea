"""The history in the window: the conversation list, opening and continuing, deleting with
undo, and the read-only replay of a JSON export.

Opening a conversation builds a fresh trace store from its events and hands it to the tree
in one reset, and replays the events into a fresh chat; the engine gets the model's history
back (:func:`app.history.restore.model_history`) so the next question continues it.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import time
from collections.abc import Sequence
from fractions import Fraction
from pathlib import Path
from typing import Protocol

from PySide6.QtCore import QObject, QTimer
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QFileDialog, QPushButton

from app.core import events as ev
from app.core.messages import Message
from app.core.tools import Source
from app.core.trace import TraceStore
from app.history import Conversation, History, Recorder
from app.history.recorder import title_of
from app.history.replay import ReplayProblem, display_events, read_export
from app.history.restore import earlier_result, model_history
from app.ui.chat_feed import ChatFeed
from app.ui.conversations import ConversationList
from app.ui.main_window import MainWindow

logger = logging.getLogger(__name__)

UNDO_S = 10
SHOWN_TURNS = 3  # a reopened chat shows its last few turns at once; the trace shows them all


class HistoryEngine(Protocol):
    """What this needs of the engine (``app.engine.Engine`` fits)."""

    def subscribe(self, sink: ev.EventSink) -> None: ...

    def restore_history(
        self, history: list[Message], sources: list[Source], earlier: Fraction | None = None
    ) -> None: ...


def show_events(window: MainWindow, events: Sequence[ev.Event], turns: int | None = SHOWN_TURNS) -> None:
    """Replace the window's chat and trace with these events' (none: an empty conversation).

    The trace gets every turn; the chat the last ``turns`` (None: all), and a button for the rest."""
    shown = display_events(events)
    store = TraceStore()
    for event in shown:
        store.apply(event)
    window.trace = store
    window.trace_view.set_store(store)
    live = window.feed
    live.close_apps("another conversation is shown")
    window.chat.clear()
    window.feed = ChatFeed(window.chat)  # a saved conversation's apps are not shown: no live server for them
    starts = [i for i, event in enumerate(shown) if isinstance(event, ev.TurnStarted)]
    if turns is not None and len(starts) > turns:
        earlier = QPushButton(f"Show the {len(starts) - turns} earlier turns", window.chat)
        earlier.clicked.connect(lambda: show_events(window, events, None))
        window.chat.add_widget(earlier)
        shown = shown[starts[-turns] :]
    for event in shown:
        window.feed.handle(event)
    # Its next turns are live: their links and apps work again.
    window.feed.read_link, window.feed.open_app = live.read_link, live.open_app


class WindowHistory(QObject):
    def __init__(self, window: MainWindow, engine: HistoryEngine, history: History) -> None:
        super().__init__(window)
        self.window, self.engine, self.history = window, engine, history
        self.recorder = Recorder(history)
        self.list = ConversationList(window)
        self.known = history.conversations()
        self._undo: QPushButton | None = None
        self._placeholder = window.chat.input.placeholderText()
        engine.subscribe(self.recorder.sink)
        window.controller.bridge.engine_event.connect(self._on_event)
        window.splitter.insertWidget(0, self.list)
        window.splitter.setSizes([240, 600, 460])
        self._actions()
        self._connect()

    @classmethod
    def attach(cls, window: MainWindow, engine: HistoryEngine, keep_days: int = 0) -> WindowHistory:
        """The history file, opened for this window; its problems are shown in the chat."""
        loop = asyncio.get_running_loop()

        def report(message: str) -> None:  # also called from the writer's thread
            loop.call_soon_threadsafe(window.feed.show_error, message, "History")

        history = History.open(report)
        history.purge(keep_days)
        saved = cls(window, engine, history)
        saved.render()
        if saved.known:  # as the window was left, even after a crash
            saved.open(saved.known[0].id)
        return saved

    def close(self) -> None:
        self.history.close()

    def _actions(self) -> None:
        menu = self.window.menuBar().addMenu("&Conversations")
        new = QAction("&New conversation", self.window, shortcut=QKeySequence(QKeySequence.StandardKey.New))
        new.triggered.connect(self.new_conversation)
        replay = QAction("&Open an export…", self.window)
        replay.triggered.connect(self._choose_export)
        self.toggle = QAction("&Show the list", self.window, checkable=True, checked=True)
        self.toggle.setShortcut(QKeySequence("Ctrl+Shift+L"))
        self.toggle.toggled.connect(self.list.setVisible)
        menu.addActions([new, replay, self.toggle])

    def _connect(self) -> None:
        self.list.new_requested.connect(self.new_conversation)
        self.list.chosen.connect(self.open)
        self.list.renamed.connect(self.rename)
        self.list.pin_requested.connect(self.pin)
        self.list.delete_requested.connect(self.delete)
        self.list.search_changed.connect(self.search)

    # --- the list ---

    def render(self) -> None:
        ordered = sorted(self.known, key=lambda c: (not c.pinned, -c.updated))
        self.known = ordered
        self.list.show_conversations(ordered, self.recorder.conversation_id)

    def search(self, text: str) -> None:
        if text:
            self.list.show_hits(self.history.search(text))
        else:
            self.render()

    def _on_event(self, event: ev.Event) -> None:
        if isinstance(event, ev.TurnStarted | ev.TurnFinished):
            self._touched(self.recorder.conversation_id, event)

    def _touched(self, conversation_id: str | None, event: ev.Event) -> None:
        if conversation_id is None:
            return
        found = self._find(conversation_id)
        if found is None and isinstance(event, ev.TurnStarted) and self.history.saving:
            found = Conversation(conversation_id, title_of(event.text), event.ts, event.ts)
            self.known.append(found)
        if found is not None:
            self._replace(dataclasses.replace(found, updated=event.ts))

    def _find(self, conversation_id: str) -> Conversation | None:
        return next((c for c in self.known if c.id == conversation_id), None)

    def _replace(self, changed: Conversation) -> None:
        self.known = [changed if c.id == changed.id else c for c in self.known]
        if not self.list.search.text():
            self.render()

    def rename(self, conversation_id: str, title: str) -> None:
        if (found := self._find(conversation_id)) is not None and title != found.title:
            self.history.rename(conversation_id, title)
            self._replace(dataclasses.replace(found, title=title))

    def pin(self, conversation_id: str, pinned: bool) -> None:
        if (found := self._find(conversation_id)) is not None:
            self.history.pin(conversation_id, pinned)
            self._replace(dataclasses.replace(found, pinned=pinned))

    # --- opening ---

    def _refused_while_busy(self) -> bool:
        if self.window.controller.busy:
            self.window.status.showMessage("Stop the running turn first.", 5000)
        return self.window.controller.busy

    def new_conversation(self) -> None:
        if self._refused_while_busy():
            return
        self._open_as(None, [])

    def open(self, conversation_id: str) -> None:
        if conversation_id == self.recorder.conversation_id or self._refused_while_busy():
            return
        started = time.perf_counter()
        self._open_as(conversation_id, self.history.events(conversation_id))
        logger.info("opened %s in %.0f ms", conversation_id, (time.perf_counter() - started) * 1000)

    def _open_as(self, conversation_id: str | None, events: list[ev.Event]) -> None:
        self._read_only(False)
        show_events(self.window, events)
        self.recorder.conversation_id = conversation_id
        self.engine.restore_history(*model_history(events), earlier_result(events))
        self.list.select(conversation_id)

    def replay(self, path: Path) -> bool:
        """Show an export read-only; a file that is not one is said so in the chat."""
        if self._refused_while_busy():
            return False
        try:
            title, events = read_export(path)
        except ReplayProblem as exc:
            self.window.feed.show_error(str(exc), "Replay")
            return False
        self._open_as(None, [])
        show_events(self.window, events)
        self._read_only(True)
        self.window.status.showMessage(f"Replay of “{title}”, read-only. Ctrl+N starts a new conversation.")
        return True

    def _choose_export(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self.window, "Open an export", "", "Calculon export (*.json)")
        if path:
            self.replay(Path(path))

    def _read_only(self, read_only: bool) -> None:
        chat = self.window.chat
        chat.input.setReadOnly(read_only)
        chat.send_button.setVisible(not read_only)
        replaying = "A replay is read-only: Ctrl+N starts a new conversation."
        chat.input.setPlaceholderText(replaying if read_only else self._placeholder)

    # --- deleting, with undo ---

    def delete(self, conversation_id: str) -> None:
        found = self._find(conversation_id)
        if found is None or (conversation_id == self.recorder.conversation_id and self._refused_while_busy()):
            return
        self.history.delete(conversation_id)
        self.known = [c for c in self.known if c.id != conversation_id]
        if conversation_id == self.recorder.conversation_id:
            self._open_as(None, [])
        self.search(self.list.search.text().strip())
        self._offer_undo(found)

    def _offer_undo(self, deleted: Conversation) -> None:
        self._drop_undo()
        button = self._undo = QPushButton("Undo", self.window.status)
        button.clicked.connect(lambda: self.undo_delete(deleted))
        self.window.status.addPermanentWidget(button)
        self.window.status.showMessage(f"Deleted “{deleted.title}”.", UNDO_S * 1000)
        QTimer.singleShot(UNDO_S * 1000, button, lambda: self._drop_undo(button))

    def undo_delete(self, deleted: Conversation) -> None:
        self.history.undelete(deleted.id)
        self.known.append(deleted)
        self._drop_undo()
        self.search(self.list.search.text().strip())
        self.window.status.showMessage(f"Restored “{deleted.title}”.", 5000)

    def _drop_undo(self, only: QPushButton | None = None) -> None:
        if self._undo is not None and (only is None or only is self._undo):
            self.window.status.removeWidget(self._undo)
            self._undo.deleteLater()
            self._undo = None
