"""The window's verdict badges over the real engine (Calculon mode, the real calculator child,
a scripted model): written-out arithmetic is verified; a story's formula is shown to check."""

from __future__ import annotations

from app.calculon import CalculonMode
from app.core.backend import ToolCallChunk
from app.core.messages import ToolCall
from app.engine import Engine
from app.llm.scripted import ScriptedBackend
from app.settings import Settings
from app.ui.main import build_window, prepare
from tests.calculon.stories import PAIGE
from tests.ui.test_main import CALCULATOR, servers_file


def test_the_badge_says_verified_only_where_the_formula_is_written_out(qtbot, qloop, arun, tmp_path):
    backend = ScriptedBackend(
        [
            [ToolCallChunk(ToolCall("c1", "multiply", {"a": 12, "b": 7}))],
            ["12 × 7 = 84."],
            [ToolCallChunk(ToolCall("c2", "subtract", {"a": 15, "b": 5}))],
            ["10 goldfish remained."],
        ]
    )
    settings = Settings(strict=True, trusted_servers=["calculator"])
    servers = servers_file(tmp_path, {"calculator": CALCULATOR})
    engine = Engine(settings, servers_path=servers, backend=backend, verifier=CalculonMode())
    window = build_window(engine, settings)
    qtbot.addWidget(window)
    window.show()
    qloop.create_task(prepare(engine, window))
    try:
        states = window.servers_panel.states
        qtbot.waitUntil(
            lambda: "calculator" in states and states["calculator"].state == "ready", timeout=30_000
        )
        badges = []
        for question in ("What is 12 times 7?", PAIGE):
            window.controller.submit(question)
            qtbot.waitUntil(lambda: not window.controller.busy, timeout=30_000)
            badges.append(window.chat.bubbles()[-1].badge.text())
        assert badges[0] == "✓ verified · 84 = 12 × 7"
        assert badges[1].startswith("≈ computed, check the formula: 10 = 15 (Paige raised goldfish")
        assert "5 (were eaten)" in badges[1] and "verified" not in badges[1]
        answers = [n.label for n in window.trace.walk() if n.kind == "answer"]
        assert answers[0].startswith("Answer ✓ verified · Your words spell out 12 × 7")
        assert answers[1].startswith("Answer ≈ computed · 10 = 15 (")
    finally:
        arun(engine.aclose(), timeout=30)
