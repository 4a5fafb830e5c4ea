"""The CLI's event lines: a model load says how it goes without a line per percent."""

from __future__ import annotations

import io

from app.cli.output import EventPrinter
from app.core import events as ev


def test_a_model_load_prints_a_line_per_quarter_and_per_new_message_not_per_percent():
    stream = io.StringIO()
    printer = EventPrinter(stream)
    printer(ev.ModelLoading(progress=0.0, message="Loading SmolLM2"))
    for percent in range(101):
        printer(ev.ModelLoading(progress=percent / 100, message="Loading the model"))
    printer(ev.ModelLoading(progress=1.0, done=True, message="SmolLM2 ready"))
    printer(
        ev.ModelLoading(
            progress=1.0, done=True, message="Prompt opening ready (restored the saved state, 0.1 s)"
        )
    )
    lines = stream.getvalue().splitlines()
    assert lines[0] == "model: Loading SmolLM2 (0%)"
    assert [line for line in lines if "Loading the model" in line] == [
        f"model: Loading the model ({p}%)" for p in (0, 25, 50, 75, 100)
    ]
    assert lines[-2:] == [
        "model: SmolLM2 ready (100%)",
        "model: Prompt opening ready (restored the saved state, 0.1 s) (100%)",
    ]
