"""The chat column: a scrolling list of bubbles over the message box."""

from __future__ import annotations

from PySide6.QtCore import QEvent, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from app.ui.bubbles import Bubble
from app.ui.input_box import MessageInput
from app.ui.welcome import Welcome

_STICK_SLACK_PX = 24  # this close to the bottom counts as "following the conversation"


class ChatPane(QWidget):
    """Bubbles and the input row.

    Signals:
        submitted(str): the user sent a non-empty message.
        stop_requested(): Stop was clicked or Esc pressed.
    """

    submitted = Signal(str)
    stop_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._busy = False
        self._stick = True
        self.scroll_area = QScrollArea(self)
        self.scroll_area.setWidgetResizable(True)
        self._content = QWidget()
        self._column = QVBoxLayout(self._content)
        self._column.setSpacing(8)
        self.welcome = Welcome(self._content)
        self._column.addWidget(self.welcome)
        self._column.addStretch(1)
        self.scroll_area.setWidget(self._content)
        self.input = MessageInput(self)
        self.send_button = QPushButton("Send", self)
        self.stop_button = QPushButton("Stop", self)
        self._layout()
        self._connect()
        self.set_busy(False)

    def _layout(self) -> None:
        buttons = QVBoxLayout()
        buttons.addWidget(self.send_button)
        buttons.addWidget(self.stop_button)
        buttons.addStretch(1)
        row = QHBoxLayout()
        row.addWidget(self.input, 1)
        row.addLayout(buttons)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.scroll_area, 1)
        column.addLayout(row)

    def _connect(self) -> None:
        self.welcome.chosen.connect(self._ask_example)
        self.send_button.clicked.connect(self._send)
        self.input.send_requested.connect(self._send)
        self.stop_button.clicked.connect(self.stop_requested)
        self.input.stop_requested.connect(self.stop_requested)
        bar = self.scroll_area.verticalScrollBar()
        bar.valueChanged.connect(
            lambda value: setattr(self, "_stick", value >= bar.maximum() - _STICK_SLACK_PX)
        )
        bar.rangeChanged.connect(lambda _low, high: bar.setValue(high) if self._stick else None)

    def _send(self) -> None:
        if self._busy:
            return
        if text := self.input.take_text():
            self.submitted.emit(text)

    def _ask_example(self, text: str) -> None:
        if not self._busy:
            self.submitted.emit(text)

    def set_busy(self, busy: bool) -> None:
        self._busy = busy
        self.send_button.setEnabled(not busy)
        self.stop_button.setEnabled(busy)

    def add_bubble(self, bubble: Bubble) -> Bubble:
        self.welcome.hide()  # the conversation has begun
        self._column.insertWidget(self._column.count() - 1, bubble)
        return bubble

    def add_widget(self, widget: QWidget) -> None:
        """Anything else the chat shows in line, such as a question card (app.ui.ask_cards)."""
        self.welcome.hide()
        self._column.insertWidget(self._column.count() - 1, widget)
        widget.setFocus()

    def clear(self) -> None:
        """Empty the chat for another conversation: every bubble and card goes, the welcome returns."""
        for index in reversed(range(self._column.count())):
            item = self._column.itemAt(index)
            widget = item.widget() if item is not None else None
            if widget is not None and widget is not self.welcome:
                self._column.removeWidget(widget)
                widget.deleteLater()
        self.welcome.show()

    def bubbles(self) -> list[Bubble]:
        items = (self._column.itemAt(i) for i in range(self._column.count()))
        return [w for item in items if item is not None and isinstance(w := item.widget(), Bubble)]

    def restyle(self) -> None:
        for bubble in self.bubbles():
            bubble.apply_theme()

    def changeEvent(self, event: QEvent) -> None:
        # Light/dark follows the system. Bubbles carry style sheets, which pin their palette,
        # so this pane (which has none) hears of the change and re-tints them.
        if event.type() in (QEvent.Type.PaletteChange, QEvent.Type.ApplicationPaletteChange):
            self.restyle()
        super().changeEvent(event)
