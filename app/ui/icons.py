"""Server, tool, resource and prompt icons as small pixmaps, drawn from bytes.

:mod:`app.mcp.icons` decides which icons may be drawn at all (raster ``data:`` URIs under a
byte cap, whole and of their stated type; never SVG, never fetched); here the image's header is
read first and one larger than ``MAX_ICON_SIDE`` pixels is refused before its pixels are decoded.
An icon that is given but not drawn shows as a dashed outline, and every icon is named in the
row's tooltip, so its presence shows. Each icon is decoded once per run (rows are redrawn often).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from typing import Any

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QSize, Qt
from PySide6.QtGui import QColor, QIcon, QImage, QImageReader, QPainter, QPen, QPixmap
from PySide6.QtWidgets import QListWidgetItem, QTreeWidgetItem

from app.mcp.icons import MAX_ICON_SIDE, IconImage, decode

ICON_SIDE = 16  # pixels on screen
_FORMATS = {"image/png": b"png", "image/jpeg": b"jpeg", "image/gif": b"gif", "image/webp": b"webp"}
_NOT_DRAWN = QColor(128, 128, 128)


def pixmap(image: IconImage, side: int = ICON_SIDE) -> QPixmap | None:
    """The icon scaled to ``side`` pixels, or None when its bytes make no image or too large a one."""
    decoded = _decoded(image.mime_type, image.data, side)
    return None if decoded.isNull() else QPixmap.fromImage(decoded)


@functools.lru_cache(maxsize=256)
def _decoded(mime_type: str, data: bytes, side: int) -> QImage:
    """A null image when the icon cannot be drawn. QImage, not QPixmap: it may outlive the application."""
    buffer = QBuffer()
    buffer.setData(QByteArray(data))
    buffer.open(QIODevice.OpenModeFlag.ReadOnly)
    reader = QImageReader(buffer, _FORMATS[mime_type])
    size = reader.size()  # from the header alone
    if not size.isValid() or max(size.width(), size.height()) > MAX_ICON_SIDE:
        return QImage()
    reader.setScaledSize(size.scaled(QSize(side, side), Qt.AspectRatioMode.KeepAspectRatio))
    return reader.read()


@functools.lru_cache(maxsize=1)
def not_drawn_mark(side: int = ICON_SIDE) -> QImage:
    """A dashed grey outline: the item has icons, none of which is drawn."""
    mark = QImage(side, side, QImage.Format.Format_ARGB32)
    mark.fill(Qt.GlobalColor.transparent)
    painter = QPainter(mark)
    painter.setPen(QPen(_NOT_DRAWN, 1, Qt.PenStyle.DashLine))
    painter.drawRect(1, 1, side - 3, side - 3)
    painter.end()
    return mark


def decorate(item: QTreeWidgetItem | QListWidgetItem, icons: Iterable[Any] | None) -> None:
    """Give a row the first drawable icon, and name all its icons in its tooltip."""
    icon, note = icon_and_note(icons)
    if isinstance(item, QTreeWidgetItem):
        item.setIcon(0, icon or QIcon())
        item.setToolTip(0, note)
    else:
        item.setIcon(icon or QIcon())
        item.setToolTip(note)


def icon_and_note(icons: Iterable[Any] | None) -> tuple[QIcon | None, str]:
    """The first icon that can be drawn (else the not-drawn mark, when any is given; None when
    none is), and a line naming every icon given, for a tooltip."""
    drawn = [_drawn(icon) for icon in icons or ()]
    if not drawn:
        return None, ""
    first = next((made for made, _ in drawn if made is not None), None)
    shown = first if first is not None else QPixmap.fromImage(not_drawn_mark())
    return QIcon(shown), "Icons: " + "; ".join(why for _, why in drawn)


def _drawn(icon: Any) -> tuple[QPixmap | None, str]:
    decoded = decode(icon)
    if isinstance(decoded, str):
        return None, decoded
    made = pixmap(decoded)
    if made is None:
        return None, f"an {decoded.mime_type} icon that cannot be drawn (broken, or over {MAX_ICON_SIDE} px)"
    return made, f"an {decoded.mime_type} icon, drawn"
