"""The status bar: model loading progress, generation speed, the model's name."""

from __future__ import annotations

from app.core import events as ev
from app.ui.status_bar import StatusBar


def test_loading_progress_shows_while_the_model_loads_and_hides_when_done(qtbot):
    bar = StatusBar()
    qtbot.addWidget(bar)
    bar.show()
    bar.handle(ev.ModelLoading(progress=0.4, message="Loading Gemma"))
    assert bar.progress.isVisible() and bar.progress.value() == 40
    assert bar.currentMessage() == "Loading Gemma"
    bar.handle(ev.ModelLoading(progress=1.0, done=True, message="Gemma ready"))
    assert not bar.progress.isVisible()


def test_a_failed_load_says_why(qtbot):
    bar = StatusBar()
    qtbot.addWidget(bar)
    bar.handle(ev.ModelLoading(progress=0.0, done=True, error="file not found"))
    assert bar.currentMessage() == "Model failed to load: file not found"


def test_tokens_per_second_come_from_each_finished_step(qtbot):
    bar = StatusBar()
    qtbot.addWidget(bar)
    bar.handle(ev.StepFinished(step=1, tokens=50, duration_ms=2000))
    assert bar.speed_label.text() == "25.0 tokens/s"
    bar.set_model("Local · Gemma 3 270M")
    bar.showMessage("a message")
    assert bar.model_label.isVisibleTo(bar)  # a message never hides the model's name
