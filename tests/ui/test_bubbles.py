"""Bubbles: collapsible, plain or Markdown without HTML, highlighted numbers, palette-following."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QGuiApplication, QPalette

from app.ui import theme
from app.ui.bubbles import MarkdownBubble, PlainBubble
from app.ui.chat_pane import ChatPane


def test_clicking_a_bubble_header_collapses_and_expands_it(qtbot):
    bubble = PlainBubble("thought", "Thinking", "step by step")
    qtbot.addWidget(bubble)
    bubble.show()
    with qtbot.waitSignal(bubble.toggled, timeout=1000) as toggled:
        qtbot.mouseClick(bubble.header, Qt.MouseButton.LeftButton)
    assert toggled.args == [True] and bubble.body.isHidden()
    qtbot.mouseClick(bubble.header, Qt.MouseButton.LeftButton)
    assert bubble.body.isVisible()


def test_unbacked_numbers_are_highlighted_only_where_they_stand_alone(qtbot):
    bubble = MarkdownBubble("answer", "Answer")
    qtbot.addWidget(bubble)
    bubble.set_source("It is 43, not 143 or 4.3 or 43.5; again 43.")
    assert bubble.body.highlight(("43",)) == 2
    background = theme.highlight_colour(bubble.palette())
    marked = [
        fragment.format.background().color() == background
        for fragment in bubble.body.document().begin().textFormats()
    ]
    assert marked.count(True) == 2


def test_streamed_markdown_is_rendered_once_the_stream_pauses(qtbot):
    bubble = MarkdownBubble("answer", "Calculon")
    qtbot.addWidget(bubble)
    for part in ("The ", "answer ", "is ", "**7**"):
        bubble.append(part)
    qtbot.waitUntil(lambda: bubble.text().strip() == "The answer is 7", timeout=2000)


@pytest.fixture
def dark_palette(qapp):
    previous = QGuiApplication.palette()
    palette = QPalette()
    for role, colour in (
        (QPalette.ColorRole.Window, "#2b2b2b"),
        (QPalette.ColorRole.Base, "#1f1f1f"),
        (QPalette.ColorRole.Text, "#e6e6e6"),
        (QPalette.ColorRole.WindowText, "#e6e6e6"),
    ):
        palette.setColor(role, QColor(colour))
    yield palette
    qapp.setPalette(previous)


def test_bubbles_follow_a_switch_to_a_dark_palette(qtbot, qapp, dark_palette):
    pane = ChatPane()
    qtbot.addWidget(pane)
    bubble = pane.add_bubble(PlainBubble("tool_result", "Result", "42"))
    pane.show()
    light_sheet = bubble.styleSheet()
    qapp.setPalette(dark_palette)
    qtbot.waitUntil(lambda: bubble.styleSheet() != light_sheet, timeout=2000)
    background, _ = theme.bubble_colours("tool_result", dark_palette)
    assert background in bubble.styleSheet() and QColor(background).lightness() < 128
    assert bubble.body.palette().color(QPalette.ColorRole.Text).lightness() > 128


def test_a_number_word_is_highlighted_as_a_word_never_inside_another(qtbot):
    bubble = MarkdownBubble("answer", "Answer")
    qtbot.addWidget(bubble)
    bubble.set_source("In one timezone, exponents and phones: one, and 12kg.")
    assert bubble.body.highlight(("one", "12")) == 3  # "one" twice as a word, "12" before its unit


def test_multiplication_signs_stay_signs_and_are_not_read_as_emphasis(qtbot):
    # Seen in the window: "12 * 7 = 12 * 7 = 12" showed as "12 7 = 12 7 = 12", the middle in italics.
    bubble = MarkdownBubble("answer", "Answer")
    qtbot.addWidget(bubble)
    bubble.set_source("12 * 7 = 7*12 = 12*7 = 84, and 2**10 is 1024; **bold** stays bold.")
    assert bubble.text().strip() == "12 * 7 = 7*12 = 12*7 = 84, and 2**10 is 1024; bold stays bold."
    italic = [f.format.fontItalic() for f in bubble.body.document().begin().textFormats()]
    assert not any(italic)


def test_bold_right_after_a_number_is_still_bold():
    from app.ui.text_view import arithmetic_kept

    assert arithmetic_kept("The sum is **42**.") == "The sum is **42**."
    assert arithmetic_kept("The result is **43** (36 + 7).") == "The result is **43** (36 + 7)."
    assert arithmetic_kept("7*12 and 3*-2") == "7\\*12 and 3\\*-2"
