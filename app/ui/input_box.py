"""The message box: Enter sends, Shift+Enter breaks the line, Esc stops."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QPlainTextEdit, QWidget

_ENTER_KEYS = (Qt.Key.Key_Return, Qt.Key.Key_Enter)


class MessageInput(QPlainTextEdit):
    """Multi-line input.

    Signals:
        send_requested(): Enter without Shift.
        stop_requested(): Esc.
    """

    send_requested = Signal()
    stop_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setPlaceholderText("Ask something to compute… (Enter sends, Shift+Enter new line, Esc stops)")
        self.setTabChangesFocus(True)
        lines = 3
        self.setFixedHeight(self.fontMetrics().lineSpacing() * lines + 14)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        shifted = event.modifiers() & Qt.KeyboardModifier.ShiftModifier
        if event.key() in _ENTER_KEYS and not shifted:
            self.send_requested.emit()
        elif event.key() == Qt.Key.Key_Escape:
            self.stop_requested.emit()
        else:
            super().keyPressEvent(event)

    def take_text(self) -> str:
        """The trimmed text, clearing the box."""
        text = self.toPlainText().strip()
        if text:
            self.clear()
        return text
