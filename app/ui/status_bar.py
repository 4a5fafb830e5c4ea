"""Status bar: model, loading progress, generation speed, and a context meter slot."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QProgressBar, QStatusBar, QWidget

from app.core import events as ev


def _plain_label(parent: QWidget) -> QLabel:
    label = QLabel(parent)
    label.setTextFormat(Qt.TextFormat.PlainText)
    return label


class StatusBar(QStatusBar):
    """Listens to ``ModelLoading``, ``ModelStateChanged`` and ``StepFinished`` events."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model_label = _plain_label(self)
        self.progress = QProgressBar(self)
        self.progress.setRange(0, 100)
        self.progress.setMaximumWidth(180)
        self.progress.setFormat("Loading model %p%")
        self.progress.hide()
        self.speed_label = _plain_label(self)
        # Filled when tool retrieval reports how much of the context the tool schemas use.
        self.context_label = _plain_label(self)
        self.context_label.hide()
        # Permanent widgets stay visible while a message shows (plain ones are hidden by it).
        self.addPermanentWidget(self.model_label)
        self.addPermanentWidget(self.context_label)
        self.addPermanentWidget(self.speed_label)
        self.addPermanentWidget(self.progress)

    def set_model(self, text: str) -> None:
        self.model_label.setText(text)

    def set_context_meter(self, used_tokens: int, total_tokens: int) -> None:
        share = f" ({used_tokens / total_tokens:.0%} of context)" if total_tokens else ""
        self.context_label.setText(f"Tool schemas: {used_tokens} tokens{share}")
        self.context_label.show()

    def handle(self, event: ev.Event) -> None:
        if isinstance(event, ev.ModelLoading):
            self._loading(event)
        elif isinstance(event, ev.ModelStateChanged):
            self._model_state(event)
        elif isinstance(event, ev.StepFinished) and event.tokens_per_s > 0:
            self.speed_label.setText(f"{event.tokens_per_s:.1f} tokens/s")

    def _model_state(self, event: ev.ModelStateChanged) -> None:
        """The model's own process: a crash and its restart are said here; the turn it broke says
        so in the chat."""
        if event.state == "crashed":
            self.showMessage(event.detail)
        elif event.state == "restarting":
            self.showMessage(f"The model's process is restarting ({event.detail}).")
        elif event.state == "failed" and event.detail:
            self.showMessage(f"Model failed to load: {event.detail}")

    def _loading(self, event: ev.ModelLoading) -> None:
        if event.done:
            self.progress.hide()
            if event.error:
                self.showMessage(f"Model failed to load: {event.error}")
            else:
                self.showMessage(event.message or "Model ready", 5000)
            return
        self.progress.show()
        self.progress.setValue(round(event.progress * 100))
        if event.message:
            self.showMessage(event.message)
