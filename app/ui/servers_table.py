"""The MCP servers tab of the settings dialog: a table of ``mcpServers`` entries."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.mcp import config as mcp_config
from app.mcp.config import ConfigError, ServerEntry, ServersConfig
from app.ui.servers_editor import EntryFields, claude_desktop_config_path, command_summary

COLUMNS = ("On", "Name", "Command or URL")


class ServersTable(QWidget):
    """Add, edit, remove, enable and import servers; edits stay in ``config`` until saved.

    Signals:
        changed(): the config was edited.
        problem(str): an edit was refused, with the reason.
    """

    changed = Signal()
    problem = Signal(str)

    def __init__(self, config: ServersConfig, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.config = config
        self.modified = False
        self.table = QTableWidget(0, len(COLUMNS), self)
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.setSelectionBehavior(QTableWidget.SelectionBehavior.SelectRows)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().hide()
        self.table.cellDoubleClicked.connect(lambda row, _column: self.edit_row(row))
        self.table.itemChanged.connect(self._enabled_toggled)
        self._buttons()
        self._fill()

    def _buttons(self) -> None:
        row = QHBoxLayout()
        for text, slot in (
            ("Add…", self.add),
            ("Edit…", lambda: self.edit_row(self.table.currentRow())),
            ("Remove", self.remove_current),
            ("Import Claude Desktop config…", self.import_claude),
        ):
            button = QPushButton(text, self)
            button.clicked.connect(slot)
            row.addWidget(button)
        row.addStretch(1)
        column = QVBoxLayout(self)
        column.addWidget(QLabel(f"Saved to {self.config.path}", self))
        column.addWidget(self.table, 1)
        column.addLayout(row)

    def _fill(self) -> None:
        self.table.blockSignals(True)
        self.table.setRowCount(0)
        for entry in self.config.servers.values():
            row = self.table.rowCount()
            self.table.insertRow(row)
            switch = QTableWidgetItem()
            switch.setFlags(Qt.ItemFlag.ItemIsUserCheckable | Qt.ItemFlag.ItemIsEnabled)
            switch.setCheckState(Qt.CheckState.Unchecked if entry.disabled else Qt.CheckState.Checked)
            self.table.setItem(row, 0, switch)
            self.table.setItem(row, 1, QTableWidgetItem(entry.name))
            self.table.setItem(row, 2, QTableWidgetItem(command_summary(entry)))
        self.table.resizeColumnToContents(0)
        self.table.blockSignals(False)

    def names(self) -> list[str]:
        return list(self.config.servers)

    def apply(self, config: ServersConfig) -> None:
        self.config, self.modified = config, True
        self._fill()
        self.changed.emit()

    def _enabled_toggled(self, item: QTableWidgetItem) -> None:
        if item.column() == 0:
            name = self.names()[item.row()]
            self.apply(mcp_config.set_enabled(self.config, name, item.checkState() == Qt.CheckState.Checked))

    def add(self) -> None:
        self._edit(EntryFields(), replacing=None)

    def edit_row(self, row: int) -> None:
        if 0 <= row < len(self.names()):
            entry = self.config.servers[self.names()[row]]
            self._edit(EntryFields.from_entry(entry), replacing=entry)

    def _edit(self, fields: EntryFields, replacing: ServerEntry | None) -> None:
        dialog = EntryDialog(fields, self)
        if dialog.exec() != QDialog.DialogCode.Accepted:
            return
        self.put(dialog.fields(), replacing)

    def put(self, fields: EntryFields, replacing: ServerEntry | None = None) -> bool:
        """Validate and store one entry; False (and ``problem``) when it is refused."""
        try:
            entry = fields.to_entry(_kept(replacing))
            config = self.config
            if replacing is not None and replacing.name != entry.name:
                config = mcp_config.remove_server(config, replacing.name)
            self.apply(mcp_config.add_server(config, entry))
        except ConfigError as exc:
            self.problem.emit(str(exc))
            return False
        return True

    def remove_current(self) -> None:
        row = self.table.currentRow()
        if 0 <= row < len(self.names()):
            self.apply(mcp_config.remove_server(self.config, self.names()[row]))

    def import_claude(self) -> None:
        start = claude_desktop_config_path()
        chosen, _ = QFileDialog.getOpenFileName(self, "Claude Desktop config", str(start), "JSON (*.json)")
        if chosen:
            self.import_from(Path(chosen))

    def import_from(self, source: Path) -> list[str]:
        try:
            config, names = mcp_config.import_claude_desktop(self.config, source)
        except ConfigError as exc:
            self.problem.emit(str(exc))
            return []
        self.apply(config)
        return names


class EntryDialog(QDialog):
    """Edit one server: a local command with arguments and environment, or a URL."""

    def __init__(self, fields: EntryFields, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("MCP server")
        self._enabled = QCheckBox("Enabled", self)
        self._enabled.setChecked(fields.enabled)
        self._lines = {
            key: QLineEdit(getattr(fields, key), self) for key in ("name", "command", "args", "url")
        }
        self._lines["args"].setPlaceholderText('shell-quoted, e.g. -y "@scope/server" --flag')
        self._lines["url"].setPlaceholderText("https://… (instead of a command)")
        self._env = QPlainTextEdit(fields.env, self)
        self._env.setPlaceholderText("KEY=VALUE, one per line")
        self._roots = QPlainTextEdit(fields.roots, self)
        self._roots.setPlaceholderText("Folders this server may work in, one per line")
        form = QFormLayout(self)
        for key, label in (("name", "Name"), ("command", "Command"), ("args", "Arguments"), ("url", "URL")):
            form.addRow(label, self._lines[key])
        form.addRow("Environment", self._env)
        form.addRow("Roots", self._roots)
        form.addRow("", self._enabled)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)

    def fields(self) -> EntryFields:
        text = {key: line.text() for key, line in self._lines.items()}
        return EntryFields(
            name=text["name"],
            command=text["command"],
            args=text["args"],
            env=self._env.toPlainText(),
            url=text["url"],
            enabled=self._enabled.isChecked(),
            roots=self._roots.toPlainText(),
        )


def _kept(replacing: ServerEntry | None) -> dict[str, Any] | None:
    """What the edit dialog does not show but the entry keeps: unknown keys, and a remote
    entry's headers (their ``${NAME}`` placeholders as written) and transport type."""
    if replacing is None:
        return None
    kept: dict[str, Any] = dict(replacing.extra)
    if replacing.remote:
        kept.update({k: v for k, v in (("headers", dict(replacing.headers)), ("type", replacing.type)) if v})
    return kept
