"""The elicitation form as a card: one editor per field of the server's flat schema.

Text, numbers and integers are typed (and parsed like the terminal's answers), booleans
are check boxes, a single choice a combo box, several choices a list of check boxes.
Submit checks the whole answer against the schema and shows each problem under its field;
nothing goes back to the server until it fits.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QCheckBox, QComboBox, QLabel, QLineEdit, QListWidget, QListWidgetItem, QWidget

from app.core import asking as q
from app.core import forms
from app.ui.card import Card


class FormEditors:
    """The editors of one form, and the problem label under each."""

    def __init__(self, card: Card, fields: list[forms.FormField]) -> None:
        self.card, self.fields = card, fields
        self.editors: dict[str, QWidget] = {}
        self.problems: dict[str, QLabel] = {}
        for field in fields:
            mark = " *" if field.required else ""
            card.add_text(f"{field.title}{mark}" + (f" — {field.description}" if field.description else ""))
            self.editors[field.name] = editor = _editor(field, card)
            editor.setObjectName(field.name)
            card.column.addWidget(editor)
            self.problems[field.name] = problem = card.add_text("")
            problem.setStyleSheet("color: #c0392b")
            problem.hide()

    def values(self) -> tuple[dict[str, Any], dict[str, str]]:
        """What the editors hold, and the fields whose text could not be read."""
        values: dict[str, Any] = {}
        unreadable: dict[str, str] = {}
        for field in self.fields:
            try:
                values[field.name] = _value(field, self.editors[field.name])
            except ValueError as exc:
                unreadable[field.name] = str(exc)
        return values, unreadable

    def show_problems(self, found: dict[str, str]) -> None:
        for name, label in self.problems.items():
            label.setText(found.get(name, ""))
            label.setVisible(name in found)


def form_card(request: q.FormRequest) -> Card:
    card = Card(request)
    card.add_text(request.message)
    card.add_text(forms.NOT_FOR_SECRETS).setStyleSheet("font-style: italic")
    editors = FormEditors(card, forms.form_fields(request.schema))
    general = card.add_text("")
    general.hide()

    def submit() -> q.FormAnswer | None:
        values, found = editors.values()
        content = forms.cleaned(values)
        found = found or forms.problems(request.schema, content)
        editors.show_problems(found)
        general.setText(found.get("", ""))
        general.setVisible("" in found)
        return None if found else q.FormAnswer("accept", content)

    card.add_button("submit", "Submit", submit)
    card.add_button("decline", "Decline", lambda: q.FormAnswer("decline"))
    card.add_button("cancel", "Cancel", lambda: q.FormAnswer("cancel"))
    card.finish_layout()
    return card


def _editor(field: forms.FormField, parent: QWidget) -> QWidget:
    if field.kind == "boolean":
        box = QCheckBox(parent)
        box.setChecked(bool(field.default))
        return box
    if field.kind == "choice":
        combo = QComboBox(parent)
        if not field.required:
            combo.addItem("", None)
        for value, label in field.choices:
            combo.addItem(label, value)
        if field.default is not None:
            combo.setCurrentIndex(max(combo.findData(field.default), 0))
        return combo
    if field.kind == "choices":
        return _checklist(field, parent)
    line = QLineEdit(parent)
    line.setPlaceholderText(field.format or field.kind)
    if field.default is not None:
        line.setText(str(field.default))
    return line


def _checklist(field: forms.FormField, parent: QWidget) -> QListWidget:
    listed = QListWidget(parent)
    chosen = field.default if isinstance(field.default, list) else []
    for value, label in field.choices:
        item = QListWidgetItem(label, listed)
        item.setData(Qt.ItemDataRole.UserRole, value)
        item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
        item.setCheckState(Qt.CheckState.Checked if value in chosen else Qt.CheckState.Unchecked)
    listed.setMaximumHeight(24 * max(len(field.choices), 1) + 8)
    return listed


def _value(field: forms.FormField, editor: QWidget) -> Any:
    if isinstance(editor, QCheckBox):
        return editor.isChecked()
    if isinstance(editor, QComboBox):
        return editor.currentData()
    if isinstance(editor, QListWidget):
        items = (editor.item(i) for i in range(editor.count()))
        return [i.data(Qt.ItemDataRole.UserRole) for i in items if i.checkState() == Qt.CheckState.Checked]
    assert isinstance(editor, QLineEdit)
    return forms.parse_text(field, editor.text())
