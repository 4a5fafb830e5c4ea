"""Form fields generated from the JSON schema of :class:`app.settings.Settings`.

Each property gets an editor chosen by its schema (an ``enum``: a choice; boolean:
a switch; integer and number: spin boxes over its bounds; array: a comma-separated
list; object: comma-separated ``key=value`` pairs; otherwise text), labelled with its
title, hinted with its description and put on the tab the schema names. A field added
to ``Settings`` shows up here by itself.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QCheckBox, QComboBox, QDoubleSpinBox, QLineEdit, QSpinBox, QWidget

from app.settings import Settings

UNBOUNDED = 1_000_000  # a spin box needs some upper bound where the schema gives none
NUMBER_STEP = 0.01  # a QDoubleSpinBox's resolution (two decimals): how far above an exclusive minimum


@dataclasses.dataclass(frozen=True)
class FieldSpec:
    """One setting as the dialog shows it, read from the settings' JSON schema."""

    name: str
    tab: str
    label: str
    hint: str
    kind: str  # choice, switch, integer, number, list, mapping or text
    low: float = 0
    high: float = UNBOUNDED
    choices: tuple[str, ...] = ()


_KINDS = {"boolean": "switch", "integer": "integer", "number": "number", "array": "list", "object": "mapping"}


def field_specs() -> list[FieldSpec]:
    """Every setting in declaration order; choices are the registries' at this moment."""
    properties: dict[str, dict[str, Any]] = Settings.model_json_schema()["properties"]
    return [_spec(name, prop) for name, prop in properties.items()]


def _spec(name: str, prop: dict[str, Any]) -> FieldSpec:
    if "exclusiveMinimum" in prop:
        low = prop["exclusiveMinimum"] + (NUMBER_STEP if prop.get("type") == "number" else 1)
    else:
        low = prop.get("minimum", 0)
    return FieldSpec(
        name,
        tab=prop.get("tab", "General"),
        label=prop.get("title", name),
        hint=prop.get("description", ""),
        kind="choice" if "enum" in prop else _KINDS.get(prop.get("type", ""), "text"),
        low=low,
        high=prop.get("maximum", UNBOUNDED),
        choices=tuple(str(choice) for choice in prop.get("enum", ())),
    )


class SettingsForm(QObject):
    """One editor per settings field.

    Signals:
        changed(): any editor's value changed.
    """

    changed = Signal()

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self.specs = {spec.name: spec for spec in field_specs()}
        self.editors = {name: self._editor(spec, parent) for name, spec in self.specs.items()}

    def _editor(self, spec: FieldSpec, parent: QWidget) -> QWidget:
        editor: QWidget
        if spec.kind == "choice":
            editor = QComboBox(parent)
            editor.addItems(list(spec.choices))
            editor.currentIndexChanged.connect(self.changed)
        elif spec.kind == "switch":
            editor = QCheckBox(spec.label, parent)
            editor.toggled.connect(self.changed)
        elif spec.kind == "integer":
            editor = QSpinBox(parent)
            editor.setRange(int(spec.low), int(spec.high))
            editor.valueChanged.connect(self.changed)
        elif spec.kind == "number":
            editor = QDoubleSpinBox(parent)
            editor.setRange(spec.low, spec.high)
            editor.valueChanged.connect(self.changed)
        else:  # text, and lists as comma-separated text
            editor = QLineEdit(parent)
            editor.textChanged.connect(self.changed)
        editor.setObjectName(spec.name)
        editor.setToolTip(spec.hint)
        return editor

    def write(self, settings: Settings) -> None:
        for name, editor in self.editors.items():
            _set_value(editor, getattr(settings, name))

    def values(self) -> dict[str, Any]:
        return {name: _get_value(editor, self.specs[name]) for name, editor in self.editors.items()}


def _set_value(editor: QWidget, value: Any) -> None:
    if isinstance(editor, QComboBox):
        editor.setCurrentText(str(value))
    elif isinstance(editor, QCheckBox):
        editor.setChecked(bool(value))
    elif isinstance(editor, QSpinBox | QDoubleSpinBox):
        editor.setValue(value)
    elif isinstance(editor, QLineEdit):
        editor.setText(_as_text(value))


def _get_value(editor: QWidget, spec: FieldSpec) -> Any:
    if isinstance(editor, QComboBox):
        return editor.currentText()
    if isinstance(editor, QCheckBox):
        return editor.isChecked()
    if isinstance(editor, QSpinBox | QDoubleSpinBox):
        return editor.value()
    assert isinstance(editor, QLineEdit)
    parts = [part.strip() for part in editor.text().split(",") if part.strip()]
    if spec.kind == "list":
        return parts
    if spec.kind == "mapping":  # a part without "=" maps to "", which the settings then refuse by name
        return {key.strip(): value.strip() for key, _, value in (part.partition("=") for part in parts)}
    return editor.text()


def _as_text(value: Any) -> str:
    if isinstance(value, list):
        return ", ".join(value)
    if isinstance(value, dict):
        return ", ".join(f"{key}={item}" for key, item in value.items())
    return str(value)
