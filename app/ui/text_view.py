"""A read-only text block that sizes itself to its content.

Model text and tool output are untrusted: Markdown is rendered with raw HTML
switched off (``MarkdownNoHTML``), everything else goes in as plain text, and
no resource (image, link target) is ever loaded, so nothing in a reply can
reach the network or the disk. Controls and bidi embeddings, overrides and
isolates are written as ``<U+202E>``: Qt would reorder the text after an
override (``evil\u202etxt.exe`` reads ``evilexe.txt``) and show a control as
nothing. Zero-width joiners and the one-character direction marks stay: emoji
and some scripts need them, and they cannot reorder a run.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from PySide6.QtCore import QRegularExpression, Qt, QUrl
from PySide6.QtGui import QTextCharFormat, QTextCursor, QTextDocument
from PySide6.QtWidgets import QFrame, QSizePolicy, QTextBrowser, QWidget

from app.mcp.flags import escaped
from app.ui import theme

MARKDOWN_FEATURES = (
    QTextDocument.MarkdownFeature.MarkdownDialectGitHub | QTextDocument.MarkdownFeature.MarkdownNoHTML
)
# C0 controls but tab, newline and carriage return; DEL and C1; bidi embeddings, overrides, isolates.
_ACTED_ON = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


# A multiplication or power sign glued to its operands ("7*12", "2**10"): Markdown reads such a
# run as emphasis ("12 * 7 = 7*12 = 12*7" showed "712 = 712", italic); a spaced one never is.
_ARITHMETIC_STAR = re.compile(r"(?<=[\d)])(\*\*?)(?=[\d(]|[.−-]\d)")


def arithmetic_kept(text: str) -> str:
    """Markdown source with the ``*`` of arithmetic escaped, so it stays a ``*``."""
    return _ARITHMETIC_STAR.sub(lambda m: m.group(1).replace("*", "\\*"), text)


def shown(text: str) -> str:
    """``text`` with what Qt would act on, or show as nothing, written as ``<U+202E>``."""
    return escaped(text, _ACTED_ON)


class TextView(QTextBrowser):
    """Selectable, never scrolls itself: its height follows the document."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setOpenLinks(False)
        self.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextSelectableByMouse | Qt.TextInteractionFlag.TextSelectableByKeyboard
        )
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.viewport().setAutoFillBackground(False)
        self.document().setDocumentMargin(2)
        self.document().documentLayout().documentSizeChanged.connect(self._fit_height)
        self._fit_height()

    def loadResource(self, type: int, name: QUrl | str) -> Any:
        return None  # untrusted content may name files or URLs: load none of them

    def set_markdown(self, text: str) -> None:
        self.document().setMarkdown(arithmetic_kept(shown(text)), MARKDOWN_FEATURES)

    def set_plain(self, text: str) -> None:
        self.setPlainText(shown(text))

    def append_plain(self, text: str) -> None:
        """Append at the end in constant time per delta (no re-layout of earlier text)."""
        cursor = QTextCursor(self.document())
        cursor.movePosition(QTextCursor.MoveOperation.End)
        cursor.insertText(shown(text))

    def highlight(self, needles: Iterable[str]) -> int:
        """Mark each whole-number occurrence of ``needles``; returns how many were marked."""
        pattern = _numbers_pattern(needles)
        if pattern is None:
            return 0
        fmt = QTextCharFormat()
        fmt.setBackground(theme.highlight_colour(self.palette()))
        fmt.setFontWeight(700)
        doc, count = self.document(), 0
        cursor = doc.find(pattern)  # one pass for every number: a draft may have dozens
        while not cursor.isNull():
            cursor.mergeCharFormat(fmt)
            count += 1
            cursor = doc.find(pattern, cursor)
        return count

    def _fit_height(self) -> None:
        height = int(self.document().size().height()) + 2 * self.frameWidth() + 2
        if height != self.height():
            self.setFixedHeight(height)


def _numbers_pattern(numbers: Iterable[str]) -> QRegularExpression | None:
    # Do not mark "12" inside "123" or "1.25": digits, separators and a decimal point on
    # either side mean a different number (a unit may follow: "12kg"); nor "one" inside
    # "timezone": letters on either side of a number word mean another word. Longest
    # first, so "1,234" wins over "1".
    unique = sorted(set(numbers), key=len, reverse=True)
    if not unique:
        return None
    parts = [
        rf"(?<![\w.,]){re.escape(n)}(?!\d|[.,]\d)"
        if n[:1].isdigit() or n[:1] in "-−.$€£"
        else rf"(?<![\w]){re.escape(n)}(?!\w)"
        for n in unique
    ]
    return QRegularExpression("|".join(parts))
