"""The settings dialog: generated from ``Settings``, validated by it, saved atomically."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from app.llm.library.library import ModelEntry
from app.mcp.config import ServersConfig, save_config
from app.settings import Settings, save_settings
from app.ui import secrets_ui, theme
from app.ui.gpu import probe_gpu
from app.ui.model_panel import ModelLibraryPanel, probe_gpu_memory
from app.ui.openai_tab import OpenAITab
from app.ui.servers_table import ServersTable
from app.ui.settings_form import SettingsForm

TABS = ("General", "Local model", "Gemini", "OpenAI-compatible", "Tools")
GpuProbe = Callable[[], Awaitable[str]]


def _plain(text: str, parent: QWidget) -> QLabel:
    label = QLabel(text, parent)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setWordWrap(True)
    return label


class SettingsDialog(QDialog):
    """Edits settings, the Gemini key and the MCP servers file.

    Signals:
        saved(object): the new :class:`Settings`, after they were written to disk.
    """

    saved = Signal(object)

    def __init__(
        self,
        settings: Settings,
        servers: ServersConfig,
        parent: QWidget | None = None,
        gpu_probe: GpuProbe | None = probe_gpu,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Calculon settings")
        self.form = SettingsForm(self)
        self.form.write(settings)
        self.servers = ServersTable(servers, self)
        self.gpu_label = _plain("Checking for a GPU…", self)
        self.library = ModelLibraryPanel(self, gpu_probe=probe_gpu_memory if gpu_probe else None)
        self.key_edit = QLineEdit(self)
        self.key_status = _plain(secrets_ui.key_status(), self)
        self.problems_label = _plain("", self)
        self.problems_label.setStyleSheet(f"color: {theme.BAD_COLOUR};")
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel
        )
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        self._layout()
        self.form.changed.connect(self.check)
        self.form.changed.connect(self._offload_changed)
        self.library.chosen.connect(self._use_model)
        self._offload_changed()
        self.servers.problem.connect(self._show_problem)
        self._probe = asyncio.ensure_future(self._show_gpu(gpu_probe)) if gpu_probe else None
        self.check()

    def _layout(self) -> None:
        self.tabs = QTabWidget(self)
        forms = {name: QFormLayout() for name in TABS}
        for name, editor in self.form.editors.items():
            spec = self.form.specs[name]
            form = forms.setdefault(spec.tab, QFormLayout())
            row = self._with_browse(editor) if name == "model_path" else editor
            form.addRow("" if isinstance(editor, QCheckBox) else spec.label, row)
            if spec.hint and not isinstance(editor, QCheckBox):
                form.addRow("", _plain(spec.hint, self))
        forms["Local model"].addRow("GPU", self.gpu_label)
        forms["Local model"].addRow(self.library)
        self._key_rows(forms["Gemini"])
        self.openai = OpenAITab(forms["OpenAI-compatible"], self, self.form.values)
        for name, form in forms.items():
            page = QWidget(self)
            page.setLayout(form)
            self.tabs.addTab(page, name)
        self.tabs.addTab(self.servers, "MCP servers")
        column = QVBoxLayout(self)
        column.addWidget(self.tabs, 1)
        column.addWidget(self.problems_label)
        column.addWidget(self.buttons)

    def _with_browse(self, editor: QWidget) -> QWidget:
        box = QWidget(self)
        row = QHBoxLayout(box)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(editor, 1)
        browse = QPushButton("Browse…", box)
        browse.clicked.connect(lambda: self._pick_model(editor))
        row.addWidget(browse)
        return box

    def _pick_model(self, editor: QWidget) -> None:
        chosen, _ = QFileDialog.getOpenFileName(self, "GGUF model", "", "GGUF models (*.gguf);;All files (*)")
        if chosen and isinstance(editor, QLineEdit):
            editor.setText(chosen)

    def _key_rows(self, form: QFormLayout) -> None:
        self.key_edit.setEchoMode(QLineEdit.EchoMode.Password)
        self.key_edit.setPlaceholderText("Paste a new key to store it; leave empty to keep the current one")
        form.addRow("API key", self.key_edit)
        form.addRow("", self.key_status)

    def _offload_changed(self) -> None:
        values = self.form.values()
        self.library.set_offload(int(values["n_gpu_layers"]), int(values["n_ctx"]))

    def _use_model(self, entry: ModelEntry) -> None:
        """A built-in clears the GGUF path and picks it; any other entry sets the path."""
        path = self.form.editors["model_path"]
        if isinstance(path, QLineEdit):
            path.setText("" if entry.builtin else str(entry.path))
        builtin = self.form.editors["builtin_model"]
        if entry.builtin and isinstance(builtin, QComboBox):
            builtin.setCurrentText(entry.builtin)

    async def _show_gpu(self, probe: GpuProbe) -> None:
        self.gpu_label.setText(await probe())

    # --- validation and saving ---

    def candidate(self) -> tuple[Settings | None, list[str]]:
        """The settings as edited (None when a value is invalid), and every problem with them."""
        settings, invalid = Settings.salvage(self.form.values())
        return (None if invalid else settings), invalid + settings.problems()

    def check(self) -> list[str]:
        _, problems = self.candidate()
        self._show_problem("\n".join(f"• {p}" for p in problems))
        self.buttons.button(QDialogButtonBox.StandardButton.Save).setEnabled(not problems)
        return problems

    def _show_problem(self, text: str) -> None:
        self.problems_label.setText(text)
        self.problems_label.setVisible(bool(text))

    def accept(self) -> None:
        if self.save():
            super().accept()

    def save(self) -> bool:
        settings, problems = self.candidate()
        if settings is None or problems:
            self.check()
            return False
        key = self.key_edit.text().strip()
        failure = (secrets_ui.store_key(key) if key else None) or self.openai.store_key()
        if failure is not None:
            self._show_problem(failure)
            return False
        try:
            save_settings(settings)
            if self.servers.modified:
                save_config(self.servers.config)
        except OSError as exc:
            self._show_problem(f"Could not save: {exc}")
            return False
        self.saved.emit(settings)
        return True

    def done(self, result: int) -> None:
        if self._probe is not None:
            self._probe.cancel()
        self.library.close_down()
        self.openai.cancel()
        super().done(result)
