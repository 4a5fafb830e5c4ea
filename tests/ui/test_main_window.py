"""The window end to end over a real turn loop, with a scripted model and fake tools."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import Qt

from app.core.backend import ThoughtChunk, ToolCallChunk
from app.core.messages import ToolCall
from app.core.session import ChatSession
from app.llm.scripted import ScriptedBackend
from app.ui.bubbles import MarkdownBubble
from app.ui.controller import ChatController
from app.ui.main_window import MainWindow
from tests.ui.conftest import FakeTools, SessionRunner


@pytest.fixture
def make_window(qtbot, qloop):
    def make(steps: list[list[Any]], results: dict[str, str] | None = None, delay: float = 0.0) -> MainWindow:
        session = ChatSession(ScriptedBackend(steps, delay=delay), FakeTools(results or {}))
        window = MainWindow(ChatController(SessionRunner(session)), gpu_probe=None)
        qtbot.addWidget(window)
        window.show()
        return window

    return make


def send(qtbot, window: MainWindow, text: str) -> None:
    window.chat.input.setPlainText(text)
    qtbot.keyClick(window.chat.input, Qt.Key.Key_Return)


def test_sending_a_message_shows_streamed_text(qtbot, make_window):
    window = make_window([["The ", "sum ", "is ", "**42**."]], delay=0.01)
    send(qtbot, window, "What is 40 + 2?")
    qtbot.waitUntil(lambda: any(isinstance(b, MarkdownBubble) for b in window.chat.bubbles()), timeout=5000)
    assert window.controller.busy  # the first words are on screen while the turn still runs
    qtbot.waitUntil(lambda: not window.controller.busy, timeout=5000)
    answer = window.chat.bubbles()[-1]
    assert answer.title == "Answer"
    assert answer.text().strip() == "The sum is 42."
    assert answer.body.document().toMarkdown().count("**42**") == 1  # rendered bold, not literal stars
    assert window.chat.bubbles()[0].text() == "What is 40 + 2?"


def test_a_tool_call_appears_in_the_trace_with_its_result_and_duration(qtbot, make_window):
    call = ToolCall("c1", "add", {"a": 40, "b": 2})
    window = make_window([[ThoughtChunk("Use the tool."), ToolCallChunk(call)], ["It is 42."]], {"add": "42"})
    send(qtbot, window, "What is 40 + 2?")
    qtbot.waitUntil(lambda: not window.controller.busy, timeout=5000)
    model = window.trace_view.model
    node = next(n for n in window.trace.walk() if n.kind == "tool_call")
    index = model.index_of(node)
    assert model.data(index.siblingAtColumn(1)) == "fake.add"
    assert model.data(index.siblingAtColumn(2)) == "ok"
    assert model.data(index.siblingAtColumn(3)).endswith("ms")
    window.trace_view.tree.setCurrentIndex(index)
    details = window.trace_view.details.toPlainText()
    assert '"result": "42"' in details and '"a": 40' in details
    kinds = [b.kind for b in window.chat.bubbles()]
    assert kinds == ["user", "thought", "tool_call", "tool_result", "answer"]


def test_stop_cancels_the_turn(qtbot, make_window):
    window = make_window([["word "] * 400], delay=0.02)
    send(qtbot, window, "Talk for a long time.")
    qtbot.waitUntil(lambda: any(isinstance(b, MarkdownBubble) for b in window.chat.bubbles()), timeout=5000)
    qtbot.mouseClick(window.chat.stop_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not window.controller.busy, timeout=5000)
    assert window.chat.bubbles()[-1].title == "Stopped"
    assert window.trace.roots[0].status == "cancelled"
    assert window.chat.send_button.isEnabled() and not window.chat.stop_button.isEnabled()


def test_escape_in_the_input_box_stops_the_turn(qtbot, make_window):
    window = make_window([["word "] * 400], delay=0.02)
    send(qtbot, window, "Talk for a long time.")
    qtbot.waitUntil(lambda: bool(window.trace.roots and window.trace.roots[0].children), timeout=5000)
    qtbot.keyClick(window.chat.input, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: not window.controller.busy, timeout=5000)
    assert window.trace.roots[0].status == "cancelled"


def test_shift_enter_adds_a_line_instead_of_sending(qtbot, make_window):
    window = make_window([])
    window.chat.input.setPlainText("first")
    window.chat.input.moveCursor(window.chat.input.textCursor().MoveOperation.End)
    qtbot.keyClick(window.chat.input, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)
    qtbot.keyClicks(window.chat.input, "second")
    assert window.chat.input.toPlainText() == "first\nsecond"
    assert window.chat.bubbles() == []


HOSTILE = '<b>bold</b><script>alert(1)</script> <img src=x> & "quotes"'


def echoed(qtbot, make_window, text: str) -> tuple[MainWindow, dict[str, Any]]:
    """A turn in which the model echoes ``text`` through a tool and copies it into its answer: the
    window (kept, or its bubbles go with it) and its bubbles by kind."""
    call = ToolCall("c1", "echo", {"text": text})
    window = make_window([[ToolCallChunk(call)], [f"Echoed: {text}"]], {"echo": text})
    send(qtbot, window, "Echo this")
    qtbot.waitUntil(lambda: not window.controller.busy, timeout=5000)
    return window, {b.kind: b for b in window.chat.bubbles()}


def test_tool_output_with_markup_is_shown_as_plain_text(qtbot, make_window):
    _window, by_kind = echoed(qtbot, make_window, HOSTILE)
    for bubble in (by_kind["tool_call"], by_kind["tool_result"], by_kind["answer"]):
        assert "<b>bold</b><script>alert(1)</script>" in bubble.text()
        assert "<img src=x>" in bubble.text()
        assert not _has_rich_formatting(bubble.body.document())
    assert by_kind["tool_result"].text() == HOSTILE


CONTROLLING = "red \x1b[31mtext\x1b[0m evil\u202etxt.exe \u2067isolated\u2069 bell\x07 👨\u200d👩\u200d👧 ok"


def test_tool_output_with_escapes_and_bidi_overrides_shows_them_as_code_points_never_acted_on(
    qtbot, make_window
):
    _window, by_kind = echoed(qtbot, make_window, CONTROLLING)
    for bubble in (by_kind["tool_call"], by_kind["tool_result"], by_kind["answer"]):
        text = bubble.text()  # the call's arguments are JSON: there the controls are \u001b already
        assert "evil<U+202E>txt.exe <U+2067>isolated<U+2069>" in text
        assert not any(c in text for c in "\x1b\x07\u202e\u2067\u2069")
    result = by_kind["tool_result"].text()
    assert result == CONTROLLING.translate({0x1B: "<U+001B>", 0x7: "<U+0007>", 0x202E: "<U+202E>",
                                            0x2067: "<U+2067>", 0x2069: "<U+2069>"})  # fmt: skip
    assert "👨\u200d👩\u200d👧" in result  # a zero-width joiner is text, not a control


def _has_rich_formatting(document) -> bool:
    block = document.begin()
    while block.isValid():
        for fragment_range in block.textFormats():
            fmt = fragment_range.format
            if fmt.fontWeight() > 400 or fmt.isImageFormat() or fmt.isAnchor() or fmt.fontItalic():
                return True
        block = block.next()
    return False


def test_window_size_and_splitter_positions_are_remembered(qtbot, make_window):
    first = make_window([])
    first.resize(760, 560)
    qtbot.waitUntil(lambda: first.width() == 760, timeout=2000)
    first.splitter.setSizes([300, 460])
    chat_width = first.splitter.sizes()[0]
    assert chat_width != first.splitter.sizes()[1]  # a position a fresh window would not have
    first.close()
    second = make_window([])
    assert (second.width(), second.height()) == (760, 560)
    assert second.splitter.sizes()[0] == chat_width
