"""The empty chat shows what Calculon does, and its example questions ask themselves."""

from __future__ import annotations

from PySide6.QtCore import Qt

from app.ui.bubbles import PlainBubble
from app.ui.chat_pane import ChatPane
from app.ui.welcome import EXAMPLES


def test_clicking_an_example_question_sends_it(qtbot):
    pane = ChatPane()
    qtbot.addWidget(pane)
    pane.show()
    assert pane.welcome.isVisible() and len(pane.welcome.buttons) == 3
    with qtbot.waitSignal(pane.submitted) as sent:
        qtbot.mouseClick(pane.welcome.buttons[0], Qt.MouseButton.LeftButton)
    assert sent.args == [EXAMPLES[0]]


def test_an_example_is_not_sent_while_a_turn_runs(qtbot):
    pane = ChatPane()
    qtbot.addWidget(pane)
    pane.set_busy(True)
    with qtbot.assertNotEmitted(pane.submitted):
        pane.welcome.buttons[1].click()


def test_the_welcome_gives_way_to_the_conversation(qtbot):
    pane = ChatPane()
    qtbot.addWidget(pane)
    pane.show()
    pane.add_bubble(PlainBubble("user", "You", "hi"))
    assert pane.welcome.isHidden()
