"""Chat bubbles: a clickable header over a text body, tinted by kind.

Thoughts, tool calls, tool results, answers, notices and errors are each a
:class:`Bubble`; the header's arrow collapses and expands the body. Header and
badge text is always plain: tool and server names come from servers we do not
control.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QFontDatabase, QGuiApplication
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.ui import theme
from app.ui.text_view import TextView

RENDER_INTERVAL_MS = 40  # re-render streamed Markdown at most this often
FIXED_FONT_KINDS = ("tool_call", "tool_result", "tool_error")


class Bubble(QFrame):
    """One block in the chat.

    Signals:
        toggled(bool): the body was collapsed (True) or expanded (False).
    """

    toggled = Signal(bool)

    def __init__(self, kind: str, title: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.kind = kind
        self.setObjectName("bubble")
        self.header = QToolButton(self)
        self.header.setObjectName("bubbleHeader")
        self.header.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.header.setAutoRaise(True)
        self.header.clicked.connect(self.toggle)
        self.badge = QLabel(self)
        self.badge.setTextFormat(Qt.TextFormat.PlainText)
        self.badge.setWordWrap(True)  # a computed answer's formula can be long
        self.badge.hide()
        self.body = TextView(self)
        self._layout(title)
        self.set_collapsed(False)
        self.apply_theme()

    def _layout(self, title: str) -> None:
        top = QHBoxLayout()
        top.setContentsMargins(0, 0, 0, 0)
        top.addWidget(self.header)
        top.addStretch(1)
        top.addWidget(self.badge)
        column = QVBoxLayout(self)
        column.setContentsMargins(8, 4, 8, 6)
        column.setSpacing(2)
        column.addLayout(top)
        column.addWidget(self.body)
        self.progress_bar = QProgressBar(self)  # shown only while a server reports progress
        self.progress_bar.hide()
        column.addWidget(self.progress_bar)
        self.set_title(title)

    def add_below(self, widget: QWidget) -> None:
        """Something the body's text cannot hold (a result's images and links), under the body."""
        layout = self.layout()
        assert isinstance(layout, QVBoxLayout)
        layout.insertWidget(layout.indexOf(self.progress_bar), widget)

    def show_progress(self, fraction: float | None, text: str) -> None:
        """A running call's progress; ``fraction`` None (no total) makes the bar indeterminate."""
        bar = self.progress_bar
        if fraction is None:
            bar.setRange(0, 0)
        else:
            bar.setRange(0, 1000)
            bar.setValue(round(fraction * 1000))
        bar.setFormat(text)
        bar.setTextVisible(True)
        bar.show()

    def end_progress(self) -> None:
        self.progress_bar.hide()

    def set_title(self, title: str) -> None:
        self.header.setText(title)

    @property
    def title(self) -> str:
        return self.header.text()

    @property
    def collapsed(self) -> bool:
        return self.body.isHidden()

    def set_collapsed(self, collapsed: bool) -> None:
        self.body.setVisible(not collapsed)
        arrow = Qt.ArrowType.RightArrow if collapsed else Qt.ArrowType.DownArrow
        self.header.setArrowType(arrow)

    def toggle(self) -> None:
        self.set_collapsed(not self.collapsed)
        self.toggled.emit(self.collapsed)

    def set_badge(self, text: str, colour: str) -> None:
        self.badge.setText(text)
        self.badge.setStyleSheet(f"color: {colour}; font-weight: bold;")
        self.badge.show()

    def text(self) -> str:
        return self.body.toPlainText()

    def apply_theme(self) -> bool:
        """Re-derive colours from the application palette; True when they changed."""
        background, border = theme.bubble_colours(self.kind, QGuiApplication.palette())
        sheet = (
            f"QFrame#bubble {{ background: {background}; border: 1px solid {border}; border-radius: 8px; }}"
            "QToolButton#bubbleHeader { font-weight: bold; border: none; }"
        )
        if sheet == self.styleSheet():
            return False  # setting a style sheet sends a palette change: stop the echo here
        self.setStyleSheet(sheet)
        return True


class PlainBubble(Bubble):
    """Plain text only: user words, thoughts, tool arguments and results (those in a fixed font)."""

    def __init__(self, kind: str, title: str, text: str = "", parent: QWidget | None = None) -> None:
        super().__init__(kind, title, parent)
        if kind in FIXED_FONT_KINDS:
            self.body.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.body.set_plain(text)

    def append(self, text: str) -> None:
        self.body.append_plain(text)


class MarkdownBubble(Bubble):
    """Model text rendered as Markdown (no HTML), re-rendered at a bounded rate while it streams."""

    _unbacked: tuple[str, ...] = ()  # class default: apply_theme runs before __init__ ends

    def __init__(self, kind: str, title: str, parent: QWidget | None = None) -> None:
        super().__init__(kind, title, parent)
        self._source: list[str] = []
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(RENDER_INTERVAL_MS)
        self._timer.timeout.connect(self.flush)

    @property
    def source(self) -> str:
        return "".join(self._source)

    def append(self, text: str) -> None:
        self._source.append(text)
        if not self._timer.isActive():
            self._timer.start()

    def set_source(self, text: str) -> None:
        self._source = [text]
        self.flush()

    def flush(self) -> None:
        self._timer.stop()
        self.body.set_markdown(self.source)

    def mark_unbacked(self, numbers: tuple[str, ...]) -> None:
        self._unbacked = numbers
        self.body.highlight(numbers)

    def apply_theme(self) -> bool:
        changed = super().apply_theme()
        if changed and self._unbacked:
            self.flush()  # highlights were drawn in the old scheme's colours
            self.body.highlight(self._unbacked)
        return changed
