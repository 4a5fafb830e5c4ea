"""The empty chat's welcome: what Calculon does, and example questions that run when clicked."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

INTRO = (
    "Calculon answers with numbers you can check: every calculation goes to a calculator tool, "
    "and each number in the answer says where it came from."
)
EXAMPLES = ("What is 12 times 7?", "What is 15% of 240?", "How many km is 26.2 miles?")


class Welcome(QWidget):
    """Shown until the first message.

    Signals:
        chosen(str): an example question was clicked.
    """

    chosen = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        intro = QLabel(INTRO, self)
        intro.setTextFormat(Qt.TextFormat.PlainText)
        intro.setWordWrap(True)
        intro.setAlignment(Qt.AlignmentFlag.AlignCenter)
        row = QHBoxLayout()
        row.addStretch(1)
        self.buttons = [self._example(text) for text in EXAMPLES]
        for button in self.buttons:
            row.addWidget(button)
        row.addStretch(1)
        column = QVBoxLayout(self)
        column.addStretch(1)
        column.addWidget(intro)
        column.addLayout(row)
        column.addStretch(1)

    def _example(self, text: str) -> QPushButton:
        button = QPushButton(text, self)
        button.setToolTip("Ask this")
        button.clicked.connect(lambda: self.chosen.emit(text))
        return button
