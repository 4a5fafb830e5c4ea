"""Colours picked from the palette, so light and dark schemes both read well.

Each bubble kind gets a hue that is blended into the palette's base colour; the
window re-applies styles when the system switches between light and dark.
"""

from __future__ import annotations

from PySide6.QtGui import QColor, QGuiApplication, QPalette

# Hue per bubble kind; ``None`` keeps the palette's neutral colour.
_TINTS: dict[str, str | None] = {
    "user": "#3b82f6",
    "answer": None,
    "thought": "#a855f7",
    "tool_call": "#f59e0b",
    "tool_result": "#10b981",
    "tool_error": "#ef4444",
    "error": "#ef4444",
    "notice": None,
}

OK_COLOUR = "#16a34a"
BAD_COLOUR = "#dc2626"
RUNNING_COLOUR = "#d97706"
MUTED_COLOUR = "#6b7280"


def is_dark(palette: QPalette | None = None) -> bool:
    palette = palette or QGuiApplication.palette()
    return palette.color(QPalette.ColorRole.Window).lightness() < 128


def blend(base: QColor, tint: QColor, amount: float) -> QColor:
    """``amount`` of ``tint`` over ``base``."""

    def channel(b: int, t: int) -> int:
        return round(b * (1 - amount) + t * amount)

    return QColor(
        channel(base.red(), tint.red()),
        channel(base.green(), tint.green()),
        channel(base.blue(), tint.blue()),
    )


def bubble_colours(kind: str, palette: QPalette | None = None) -> tuple[str, str]:
    """Background and border colour names for a bubble of ``kind``."""
    palette = palette or QGuiApplication.palette()
    base = palette.color(QPalette.ColorRole.Base)
    tint_name = _TINTS.get(kind)
    tint = QColor(tint_name) if tint_name else palette.color(QPalette.ColorRole.Text)
    strength = 0.10 if tint_name else 0.04
    if is_dark(palette):
        strength *= 1.8  # tints wash out on dark bases
    return blend(base, tint, strength).name(), blend(base, tint, strength * 4).name()


def highlight_colour(palette: QPalette | None = None) -> QColor:
    """Background for unbacked numbers in an answer."""
    palette = palette or QGuiApplication.palette()
    return blend(
        palette.color(QPalette.ColorRole.Base), QColor(BAD_COLOUR), 0.45 if is_dark(palette) else 0.25
    )


def status_colour(status: str) -> str | None:
    return {"ok": OK_COLOUR, "error": BAD_COLOUR, "running": RUNNING_COLOUR, "cancelled": MUTED_COLOUR}.get(
        status
    )


SERVER_STATE_COLOURS = {
    "ready": OK_COLOUR,
    "starting": RUNNING_COLOUR,
    "loading": RUNNING_COLOUR,  # the local model's process (app.llm.local.process)
    "restarting": RUNNING_COLOUR,
    "crashed": BAD_COLOUR,
    "failed": BAD_COLOUR,
    "unauthorized": BAD_COLOUR,
    "stopped": MUTED_COLOUR,
    "idle": MUTED_COLOUR,  # offered from its last listing, started on first use (the CLI's ask)
    "disabled": MUTED_COLOUR,
}
