"""The conversation list beside the chat: saving, reopening, continuing, renaming, pinning,
deleting with undo, searching, and replaying an export, over a real history file."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QPushButton

from app.calculon.provenance import CalculonVerifier
from app.core.backend import ToolCallChunk
from app.core.messages import ToolCall
from app.core.session import ChatSession
from app.history import History, Recorder, history_path
from app.history.export import to_json
from app.history.replay import INTERRUPTED
from app.llm.scripted import ScriptedBackend
from app.ui.bubbles import Bubble
from app.ui.controller import ChatController
from app.ui.conversations import HIGHLIGHT, IdRole
from app.ui.history_view import SHOWN_TURNS, WindowHistory
from app.ui.main_window import MainWindow
from tests.history.turns import a_turn
from tests.ui.conftest import FakeTools, SessionRunner


class Runner(SessionRunner):
    def restore_history(self, history: list[Any], sources: list[Any], earlier: Any = None) -> None:
        self.session.restore(history, sources, earlier)


@pytest.fixture
def open_window(qtbot, qloop):
    """``open_window(steps)``: a window over a scripted model with the history attached."""
    opened: list[WindowHistory] = []

    def make(*steps: list[Any]) -> WindowHistory:
        backend = ScriptedBackend(list(steps))
        session = ChatSession(backend, FakeTools({"add": "42"}), verifier=CalculonVerifier())
        runner = Runner(session)
        window = MainWindow(ChatController(runner), gpu_probe=None)
        qtbot.addWidget(window)
        saved = WindowHistory.attach(window, runner)
        opened.append(saved)
        window.show()
        return saved

    yield make
    for saved in opened:
        saved.close()


def send(qtbot, saved: WindowHistory, text: str) -> None:
    """Ask ``text`` and wait for its answer: the turn starts on the loop's next pass, so "not busy"
    alone held before it began (seen under load: the turn then ran on after the test moved on)."""
    shown = len(saved.window.chat.bubbles())
    saved.window.chat.input.setPlainText(text)
    qtbot.keyClick(saved.window.chat.input, Qt.Key.Key_Return)
    qtbot.waitUntil(
        lambda: len(saved.window.chat.bubbles()) >= shown + 2 and not saved.window.controller.busy,
        timeout=5000,
    )


def titles(saved: WindowHistory) -> list[str]:
    return [saved.list.list.item(row).text() for row in range(saved.list.list.count())]


def add(a: int, b: int) -> ToolCallChunk:
    return ToolCallChunk(ToolCall("c1", "add", {"a": a, "b": b}))


def chat(saved: WindowHistory) -> list[tuple[str, str]]:
    return [(b.title, b.badge.text() if not b.badge.isHidden() else "") for b in saved.window.chat.bubbles()]


def test_a_question_becomes_a_conversation_titled_by_it(qtbot, open_window):
    saved = open_window([add(40, 2)], ["It is 42."])
    send(qtbot, saved, "What is 40 + 2?")
    assert titles(saved) == ["What is 40 + 2?"]
    assert saved.list.list.currentItem().data(IdRole) == saved.recorder.conversation_id


def test_reopened_window_restores_chat_badges_and_trace_and_continues(qtbot, open_window):
    first = open_window([add(40, 2)], ["It is 42."])
    send(qtbot, first, "What is 40 + 2?")
    shown, nodes = chat(first), [(n.kind, n.label, n.status) for n in first.window.trace.walk()]
    assert "✓ verified · 42 ← add(40, 2)" in shown[-1][1], shown
    first.window.close()
    first.close()
    again = open_window(["Still 42."])
    assert titles(again) == ["What is 40 + 2?"]
    assert again.list.list.currentItem().data(IdRole) == again.recorder.conversation_id
    assert chat(again) == shown
    assert [(n.kind, n.label, n.status) for n in again.window.trace.walk()] == nodes
    send(qtbot, again, "And now?")
    session = again.window.controller.runner.session  # type: ignore[attr-defined]
    told = [(m.role, m.text) for m in session.backend.requests[0].messages]
    assert told[0] == ("user", "What is 40 + 2?") and told[-1] == ("user", "And now?") and len(told) == 5
    assert titles(again) == ["What is 40 + 2?"]


def test_ctrl_n_starts_a_new_conversation_with_an_empty_chat(qtbot, open_window):
    saved = open_window(["Done."], ["Fine."])
    send(qtbot, saved, "first")
    qtbot.keyClick(saved.window, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier)
    assert saved.window.chat.bubbles() == [] and saved.window.trace.roots == []
    send(qtbot, saved, "second")
    assert titles(saved) == ["second", "first"]


def test_renaming_and_pinning_are_saved(qtbot, open_window):
    saved = open_window(["Done."], ["Fine."])
    send(qtbot, saved, "first")
    first = saved.recorder.conversation_id
    saved.new_conversation()
    send(qtbot, saved, "second")
    saved.list.list.item(1).setText("The first one")  # as an edit in place ends
    saved.pin(first, True)
    assert titles(saved) == ["The first one", "second"]
    saved.history.flush()
    assert next((c.title, c.pinned) for c in saved.history.conversations()) == ("The first one", True)


def test_a_deleted_conversation_comes_back_with_undo(qtbot, open_window):
    saved = open_window(["Done."])
    send(qtbot, saved, "keep me")
    conversation_id = saved.recorder.conversation_id
    saved.delete(conversation_id)
    assert titles(saved) == [] and saved.window.chat.bubbles() == []
    assert saved._undo is not None
    qtbot.mouseClick(saved._undo, Qt.MouseButton.LeftButton)
    assert titles(saved) == ["keep me"] and saved._undo is None
    saved.open(conversation_id)
    assert next(b.text() for b in saved.window.chat.bubbles()) == "keep me"


def test_search_lists_matching_conversations_with_the_hits_highlighted(qtbot, open_window):
    saved = open_window([add(40, 2)], ["It is 42."], ["Blue."])
    send(qtbot, saved, "What is 40 + 2?")
    saved.new_conversation()
    send(qtbot, saved, "Which colour is the sky?")
    with qtbot.waitSignal(saved.list.search_changed, timeout=2000):
        saved.list.search.setText("sky")
    (label,) = [saved.list.list.itemWidget(saved.list.list.item(r)) for r in range(saved.list.list.count())]
    assert isinstance(label, QLabel) and f"{HIGHLIGHT}sky</b>" in label.text()
    saved.list.search.clear()
    saved.search("")
    assert len(titles(saved)) == 2


def test_an_interrupted_turn_reopens_closed_with_a_note(qtbot, open_window):
    history = History(history_path(), print)
    recorder = Recorder(history)
    for event in a_turn("t1", "Killed midway", "never shown")[:5]:  # up to the tool's result
        recorder.sink(event)
    history.close()
    saved = open_window()
    turn = saved.window.trace.roots[0]
    assert turn.status == "error" and any(INTERRUPTED in n.label for n in turn.children)
    assert [b.title for b in saved.window.chat.bubbles()][-1] == "Error (interrupted)"


def test_an_export_replays_read_only(qtbot, open_window, tmp_path):
    history = History(history_path(), print)
    recorder = Recorder(history)
    for event in a_turn("t1", "Replay me", "It is 42."):
        recorder.sink(event)
    history.flush()
    conversation = history.get(recorder.conversation_id or "")
    assert conversation is not None
    export = tmp_path / "export.json"
    export.write_text(to_json(conversation, history.event_bodies(conversation.id)))
    history.close()
    saved = open_window()
    saved.new_conversation()
    assert saved.replay(export)
    assert saved.window.chat.input.isReadOnly() and not saved.window.chat.send_button.isVisible()
    assert next(b.title for b in saved.window.chat.bubbles()) == "You"
    assert isinstance(saved.window.chat.bubbles()[-1], Bubble)
    assert not saved.replay(tmp_path / "missing.json")
    saved.new_conversation()
    assert not saved.window.chat.input.isReadOnly()
    assert saved.window.chat.input.placeholderText().startswith("Ask something")


def test_a_long_conversation_shows_its_last_turns_and_the_rest_on_request(qtbot, open_window):
    history = History(history_path(), print)
    recorder = Recorder(history)
    for turn in range(SHOWN_TURNS + 2):
        for event in a_turn(f"t{turn}", f"question {turn}", "It is 42."):
            recorder.sink(event)
    history.close()
    saved = open_window()
    asked = [b.text() for b in saved.window.chat.bubbles() if b.title == "You"]
    assert asked == [f"question {n}" for n in range(2, SHOWN_TURNS + 2)]
    assert len(saved.window.trace.roots) == SHOWN_TURNS + 2
    (button,) = [b for b in saved.window.chat.findChildren(QPushButton) if b.text().startswith("Show")]
    assert button.text() == "Show the 2 earlier turns"
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    asked = [b.text() for b in saved.window.chat.bubbles() if b.title == "You"]
    assert len(asked) == SHOWN_TURNS + 2


def test_a_history_that_cannot_be_saved_is_said_once_in_the_chat(qtbot, open_window, tmp_path, monkeypatch):
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("")
    monkeypatch.setenv("CALCULON_DATA_DIR", str(blocked))
    saved = open_window(["Fine."])
    qtbot.waitUntil(lambda: len(saved.window.chat.bubbles()) == 1, timeout=2000)
    (bubble,) = saved.window.chat.bubbles()
    assert bubble.title == "History" and "cannot be saved" in bubble.text()
    send(qtbot, saved, "still works?")
    assert titles(saved) == [] and saved.window.chat.bubbles()[-1].title == "Answer"
