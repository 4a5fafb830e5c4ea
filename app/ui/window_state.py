"""Remembers window geometry and splitter positions in the config folder.

QSettings is pointed at an INI file under :func:`app.paths.config_dir`, so each
test (which gets its own config folder) starts from a clean slate.
"""

from __future__ import annotations

from PySide6.QtCore import QByteArray, QSettings
from PySide6.QtWidgets import QMainWindow, QSplitter

from app import paths


def store() -> QSettings:
    path = paths.config_dir() / "window.ini"
    path.parent.mkdir(parents=True, exist_ok=True)
    return QSettings(str(path), QSettings.Format.IniFormat)


def save(window: QMainWindow, splitters: dict[str, QSplitter]) -> None:
    settings = store()
    settings.setValue("window/geometry", window.saveGeometry())
    settings.setValue("window/state", window.saveState())
    for name, splitter in splitters.items():
        settings.setValue(f"splitters/{name}", splitter.saveState())
    settings.sync()


def restore(window: QMainWindow, splitters: dict[str, QSplitter]) -> bool:
    """Apply what was saved; False when nothing was (first start)."""
    settings = store()
    geometry = settings.value("window/geometry")
    if not isinstance(geometry, QByteArray):
        return False
    window.restoreGeometry(geometry)
    if isinstance(state := settings.value("window/state"), QByteArray):
        window.restoreState(state)
    for name, splitter in splitters.items():
        if isinstance(saved := settings.value(f"splitters/{name}"), QByteArray):
            splitter.restoreState(saved)
    return True
