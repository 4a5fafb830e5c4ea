"""What in the selected server needs the user's eye: its flagged descriptions (hidden characters,
named; text that instructs the model), and its tools held back since they changed, each one's diff
(old against new, as plain text, hidden characters written out) with an Accept button that offers
it to the model again, exactly as shown."""

from __future__ import annotations

from typing import Any, Protocol

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QListWidget, QPlainTextEdit, QPushButton, QVBoxLayout, QWidget

from app.mcp.flags import escaped
from app.ui import theme


class ReviewControl(Protocol):
    """``app.mcp.review.Review``."""

    def of(self, server: str) -> Any: ...

    def accept(self, server: str, tool: str = "", sha256: str = "") -> list[str]: ...


class ReviewView(QWidget):
    """Hidden while the selected server has nothing to review."""

    def __init__(self, control: ReviewControl, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.control = control
        self.server = ""
        self.changes: list[Any] = []
        self.warning = QLabel(self)
        self.warning.setTextFormat(Qt.TextFormat.PlainText)
        self.warning.setWordWrap(True)
        self.warning.setStyleSheet(f"color: {theme.BAD_COLOUR}")
        self.changed = QListWidget(self)
        self.diff = QPlainTextEdit(self)
        self.diff.setReadOnly(True)
        self.accept_button = QPushButton("Accept", self)
        self.accept_button.setToolTip("Offer this tool to the model again, as the diff shows it now.")
        self.changed.currentRowChanged.connect(lambda _row: self._show_diff())
        self.accept_button.clicked.connect(self.accept_selected)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        for widget in (self.warning, self.changed, self.diff, self.accept_button):
            column.addWidget(widget)

    def show_server(self, server: str) -> None:
        self.server = server
        review = self.control.of(server)
        self.changes = list(review.changed)
        lines = [review.problem] if review.problem else []
        lines += [f"Flagged ({flag.kind}): {flag.where}: {flag.detail}" for flag in review.flags]
        if self.changes:
            lines.append(
                f"{len(self.changes)} tool(s) changed since first seen; they are not offered to the model"
                " until you accept them."
            )
        self.warning.setText("\n".join(lines))
        self.changed.clear()
        self.changed.addItems([change.tool for change in self.changes])
        for widget in (self.changed, self.diff, self.accept_button):
            widget.setVisible(bool(self.changes))
        self.setVisible(bool(lines))
        if self.changes:
            self.changed.setCurrentRow(0)

    def _show_diff(self) -> None:
        row = self.changed.currentRow()
        diff = self.changes[row].diff() if 0 <= row < len(self.changes) else []
        self.diff.setPlainText(escaped("\n".join(diff)))

    def accept_selected(self) -> None:
        row = self.changed.currentRow()
        if 0 <= row < len(self.changes):
            change = self.changes[row]
            self.control.accept(self.server, change.tool, change.new.sha256)
            self.show_server(self.server)
