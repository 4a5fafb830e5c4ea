"""The question card that every kind of request is shown on (:mod:`app.ui.ask_cards`,
:mod:`app.ui.form_card`); its own module so those two need not import each other."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPlainTextEdit, QPushButton, QVBoxLayout, QWidget

from app.core import asking as q


class Card(QFrame):
    """One question, answered once.

    Signals:
        answered(object): the answer, when one of the buttons gave it.
    """

    answered = Signal(object)

    def __init__(self, request: q.Request[Any], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.request = request
        self.setObjectName("askCard")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.column = QVBoxLayout(self)
        self.header = self.add_text(request.title())
        self.header.setStyleSheet("font-weight: bold")
        self.buttons: dict[str, QPushButton] = {}
        self._row = QHBoxLayout()
        self._row.addStretch(1)
        self.outcome = QLabel(self)
        self.outcome.setTextFormat(Qt.TextFormat.PlainText)
        self.outcome.hide()

    def finish_layout(self) -> None:
        self.column.addLayout(self._row)
        self.column.addWidget(self.outcome)

    def add_text(self, text: str) -> QLabel:
        label = QLabel(text, self)
        label.setTextFormat(Qt.TextFormat.PlainText)  # server words are never markup
        label.setWordWrap(True)
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.column.addWidget(label)
        return label

    def add_block(self, text: str, *, editable: bool = False) -> QPlainTextEdit:
        block = QPlainTextEdit(text, self)
        block.setReadOnly(not editable)
        block.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        block.setMaximumHeight(140)
        self.column.addWidget(block)
        return block

    def add_button(self, name: str, label: str, answer: Callable[[], Any]) -> QPushButton:
        button = QPushButton(label, self)
        button.setObjectName(name)
        button.clicked.connect(lambda: self._clicked(answer))
        self._row.addWidget(button)
        self.buttons[name] = button
        return button

    def _clicked(self, answer: Callable[[], Any]) -> None:
        value = answer()
        if value is not None:  # None: the card showed what to fix and waits
            self.settle(f"→ {value.summary()}")
            self.answered.emit(value)

    def settle(self, note: str) -> None:
        for button in self.buttons.values():
            button.setEnabled(False)
        self.outcome.setText(note)
        self.outcome.show()
