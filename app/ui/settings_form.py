"""Form fields generated from :class:`app.settings.Settings`.

Each dataclass field gets an editor chosen by its type (choice, switch,
number, text, list); a small table adds labels, ranges and which tab a field
belongs on. A field added to ``Settings`` later shows up here by itself.
"""

from __future__ import annotations

import dataclasses
import typing
from typing import Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QCheckBox, QComboBox, QDoubleSpinBox, QLineEdit, QSpinBox, QWidget

from app.settings import Settings


@dataclasses.dataclass(frozen=True)
class FieldUI:
    tab: str
    label: str
    hint: str = ""
    low: float = 0
    high: float = 1_000_000


FIELDS: dict[str, FieldUI] = {
    "backend": FieldUI("General", "Backend", "Where the model runs: on this machine, or Google Gemini."),
    "strict": FieldUI("General", "Calculon mode", "Check every number in an answer against tool results."),
    "max_rounds": FieldUI("General", "Max steps per turn", low=1, high=100),
    "model_path": FieldUI("Local model", "GGUF file", "Empty: the bundled default model."),
    "n_gpu_layers": FieldUI("Local model", "GPU layers", "0 = CPU only, -1 = every layer.", low=-1, high=999),
    "n_ctx": FieldUI("Local model", "Context size (tokens)", low=256, high=1_048_576),
    "n_threads": FieldUI("Local model", "Threads", "0 = let llama.cpp choose.", low=0, high=512),
    "gemini_model": FieldUI("Gemini", "Model name"),
    "tool_threshold": FieldUI(
        "Tools", "Offer all tools up to", "Above this many, offer only the best matches."
    ),
    "top_k": FieldUI("Tools", "Best matches offered", low=1, high=100),
    "pinned_tools": FieldUI("Tools", "Always offer", "Comma-separated tool names."),
    "tool_encoder": FieldUI(
        "Tools",
        "Matching",
        "static: under a millisecond per step. contextual: the full embedding model,"
        " a little more accurate, about 15 ms per step on one core.",
    ),
    "tool_timeout_s": FieldUI("Tools", "Tool timeout (s)", low=0.1, high=3600),
}


def field_ui(name: str) -> FieldUI:
    return FIELDS.get(name) or FieldUI("General", name.replace("_", " ").capitalize())


class SettingsForm(QObject):
    """One editor per settings field.

    Signals:
        changed(): any editor's value changed.
    """

    changed = Signal()

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        hints = typing.get_type_hints(Settings)
        self.editors: dict[str, QWidget] = {}
        for field in dataclasses.fields(Settings):
            self.editors[field.name] = self._editor(field.name, hints[field.name], parent)

    def _editor(self, name: str, hint: Any, parent: QWidget) -> QWidget:
        ui = field_ui(name)
        editor: QWidget
        if typing.get_origin(hint) is typing.Literal:
            editor = QComboBox(parent)
            editor.addItems([str(choice) for choice in typing.get_args(hint)])
            editor.currentIndexChanged.connect(self.changed)
        elif hint is bool:
            editor = QCheckBox(ui.label, parent)
            editor.toggled.connect(self.changed)
        elif hint is int:
            editor = QSpinBox(parent)
            editor.setRange(int(ui.low), int(ui.high))
            editor.valueChanged.connect(self.changed)
        elif hint is float:
            editor = QDoubleSpinBox(parent)
            editor.setRange(ui.low, ui.high)
            editor.valueChanged.connect(self.changed)
        else:  # str and list[str]
            editor = QLineEdit(parent)
            editor.textChanged.connect(self.changed)
        editor.setObjectName(name)
        editor.setToolTip(ui.hint)
        return editor

    def write(self, settings: Settings) -> None:
        for name, editor in self.editors.items():
            _set_value(editor, getattr(settings, name))

    def values(self) -> dict[str, Any]:
        return {name: _get_value(editor) for name, editor in self.editors.items()}


def _set_value(editor: QWidget, value: Any) -> None:
    if isinstance(editor, QComboBox):
        editor.setCurrentText(str(value))
    elif isinstance(editor, QCheckBox):
        editor.setChecked(bool(value))
    elif isinstance(editor, QSpinBox | QDoubleSpinBox):
        editor.setValue(value)
    elif isinstance(editor, QLineEdit):
        editor.setText(", ".join(value) if isinstance(value, list) else str(value))


def _get_value(editor: QWidget) -> Any:
    if isinstance(editor, QComboBox):
        return editor.currentText()
    if isinstance(editor, QCheckBox):
        return editor.isChecked()
    if isinstance(editor, QSpinBox | QDoubleSpinBox):
        return editor.value()
    assert isinstance(editor, QLineEdit)
    if editor.objectName() in _LIST_FIELDS:
        return [part.strip() for part in editor.text().split(",") if part.strip()]
    return editor.text()


_LIST_FIELDS = {
    name for name, hint in typing.get_type_hints(Settings).items() if typing.get_origin(hint) is list
}
