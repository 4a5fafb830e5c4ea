"""The parts of a tool result or resource beyond its text (:mod:`app.mcp.content`), as widgets.

Images are drawn from their bytes (already checked and capped by the engine) and scaled
down to fit; everything else is plain text: nothing a server sends is read as HTML.
A resource link is a button that asks for the resource to be read; a result cut for the model
has a button that opens the whole of it, kept on disk (:mod:`app.mcp.kept`).
"""

from __future__ import annotations

import base64
from collections.abc import Mapping, Sequence
from typing import Any

from PySide6.QtCore import Qt, QUrl, Signal
from PySide6.QtGui import QDesktopServices, QImage, QPixmap
from PySide6.QtWidgets import QLabel, QPushButton, QVBoxLayout, QWidget

MAX_SIDE = 320  # pixels: a larger image is scaled down to this


class ContentParts(QWidget):
    """One widget per part.

    Signals:
        link_activated(str): the user asked to read the resource at this URI.
    """

    link_activated = Signal(str)

    def __init__(self, parts: Sequence[Mapping[str, Any]], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 4, 0, 0)
        for part in parts:
            column.addWidget(self._widget(part))
        column.addStretch(1)  # parts stay at the top of a tall view

    def _widget(self, part: Mapping[str, Any]) -> QWidget:
        kind = part.get("type")
        if kind == "image":
            return image_label(part, self)
        if kind == "resource_link":
            button = QPushButton(f"Read {part.get('name') or part['uri']} ({part['uri']})", self)
            button.clicked.connect(lambda: self.link_activated.emit(part["uri"]))
            return button
        return plain_label(describe(part), self)


def full_result_button(path: str, parent: QWidget) -> QPushButton:
    """Opens the file holding a whole result the model got only the start of, in the desktop's viewer."""
    button = QPushButton("Open full result", parent)
    button.setToolTip(path)
    button.clicked.connect(lambda: QDesktopServices.openUrl(QUrl.fromLocalFile(path)))
    return button


def describe(part: Mapping[str, Any]) -> str:
    """A part other than an image or a link, in words."""
    kind = part.get("type")
    prefix = "For you only (not sent to the model): " if part.get("audience") == "user" else ""
    if kind == "resource":
        body = part["text"] if "text" in part else f"({part.get('bytes', 0):,} bytes)"
        return f"{prefix}Resource {part['uri']} [{part.get('mime_type') or 'unknown type'}]\n{body}"
    if kind == "audio":
        return f"{prefix}Audio [{part.get('mime_type')}], {part.get('bytes', 0):,} bytes (not played)"
    return prefix + str(part.get("text", ""))


def plain_label(text: str, parent: QWidget) -> QLabel:
    label = QLabel(text, parent)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setWordWrap(True)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label


def image_label(part: Mapping[str, Any], parent: QWidget) -> QLabel:
    image = QImage.fromData(base64.b64decode(part["data"]))
    if image.isNull():
        return plain_label(f"An {part.get('mime_type')} image that could not be drawn", parent)
    if max(image.width(), image.height()) > MAX_SIDE:
        image = image.scaled(MAX_SIDE, MAX_SIDE, Qt.AspectRatioMode.KeepAspectRatio)
    label = QLabel(parent)
    label.setPixmap(QPixmap.fromImage(image))
    label.setToolTip(f"{part.get('mime_type')}, {part.get('bytes', 0):,} bytes")
    return label
