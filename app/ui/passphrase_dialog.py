"""The window's question for the encrypted token file's passphrase (:mod:`app.token_file`).

Where the user opted in to the file and ``CALCULON_TOKEN_PASSPHRASE`` is unset, the window asks
before its servers start (a server signed in through the file would otherwise stop at
"unauthorized"), and again on Sign in while the file is still locked. What is typed is tried on
the file at once: a wrong passphrase is said in the dialog, which stays open; the right one is
kept in memory for this run only. Cancel leaves the file locked, and the servers that need it
say so.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QLineEdit,
    QVBoxLayout,
    QWidget,
)

from app import token_file


class PassphraseDialog(QDialog):
    """Asks for the passphrase; accepted only once it opens the file."""

    def __init__(self, where: Path, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Token file passphrase")
        prompt = QLabel(
            f"Sign-in tokens are kept in the encrypted file {where}.\n"
            "Its passphrase, to use them in this run:",
            self,
        )
        self.field = QLineEdit(self)
        self.field.setEchoMode(QLineEdit.EchoMode.Password)
        self.problem = QLabel("", self)
        self.problem.setWordWrap(True)
        self.problem.hide()
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, parent=self
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        for widget in (prompt, self.field, self.problem, buttons):
            layout.addWidget(widget)

    def accept(self) -> None:
        problem = token_file.unlock(self.field.text()) if self.field.text() else "Type the passphrase."
        if problem is not None:
            self.problem.setText(problem)
            self.problem.show()
            self.field.selectAll()
            return
        super().accept()


async def ask_passphrase(parent: QWidget | None) -> bool:
    """Ask where the file is locked; True when it is open now (or nothing needed asking)."""
    if not token_file.locked():
        return True
    dialog = PassphraseDialog(token_file.path(), parent)
    answered: asyncio.Future[int] = asyncio.get_running_loop().create_future()

    def finished(result: int) -> None:
        if not answered.done():
            answered.set_result(result)

    dialog.finished.connect(finished)
    dialog.open()  # window-modal without a nested event loop: asyncio keeps running
    try:
        return await answered == QDialog.DialogCode.Accepted.value
    finally:
        dialog.deleteLater()
