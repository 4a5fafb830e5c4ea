"""The OpenAI-compatible tab's extra rows: the API key (kept in the keyring) and "Test connection"."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFormLayout, QLabel, QLineEdit, QPushButton, QWidget

from app import secrets
from app.core.backend import BackendError
from app.secrets import SecretStoreError


def key_status() -> str:
    source = secrets.openai_key_source()
    if source == "keyring":
        return "A key is stored in the system keyring."
    if source:
        return f"Using the key from the {source} environment variable (it takes precedence)."
    return "No key: most local servers need none. Paste one to store it in the system keyring."


class OpenAITab:
    """Adds its rows to ``form``; ``values()`` gives the form's current settings values."""

    def __init__(self, form: QFormLayout, parent: QWidget, values: Callable[[], dict[str, Any]]) -> None:
        self.values = values
        self.key_edit = QLineEdit(parent)
        self.key_edit.setEchoMode(QLineEdit.EchoMode.Password)
        self.key_edit.setPlaceholderText("Optional; leave empty to keep the current one")
        self.test_button = QPushButton("Test connection", parent)
        self.result = QLabel(key_status(), parent)
        self.result.setTextFormat(Qt.TextFormat.PlainText)
        self.result.setWordWrap(True)
        form.addRow("API key", self.key_edit)
        form.addRow("", self.test_button)
        form.addRow("", self.result)
        self.test_button.clicked.connect(self._start_test)
        self._task: asyncio.Task[None] | None = None

    def _start_test(self) -> None:
        self.test_button.setEnabled(False)
        self.result.setText("Connecting…")
        self._task = asyncio.ensure_future(self.test())

    async def test(self) -> None:
        from app.llm.openai import check_connection

        values = self.values()
        key = self.key_edit.text().strip() or None
        try:
            self.result.setText(
                await check_connection(values["openai_base_url"], values["openai_model"], key)
            )
        except BackendError as exc:
            self.result.setText(exc.message)
        finally:
            self.test_button.setEnabled(True)

    def store_key(self) -> str | None:
        """Store a key typed in; None on success (or nothing typed), else why it failed."""
        key = self.key_edit.text().strip()
        if not key:
            return None
        try:
            secrets.set_openai_key(key)
        except (SecretStoreError, ValueError) as exc:
            return str(exc)
        return None

    def cancel(self) -> None:
        if self._task is not None:
            self._task.cancel()
