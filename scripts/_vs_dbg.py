"""The verdict badges in the real window on the real built-in model, for the README.

    .venv/bin/python scripts/verdict_screenshot.py [--out docs/screenshots]

Nothing scripted: the default GGUF through llama.cpp, the bundled servers, Calculon mode.
It asks a written-out question and a word problem written by others (MAWPS-style), and saves
``verdicts.png``: the first answer verified, the second computed with its formula to check.
Needs what ``scripts/screenshots.py`` needs (Xvfb or a display).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from PySide6.QtWidgets import QApplication

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))

from scripts.screenshots import answers_shot, on_display  # noqa: E402

QUESTIONS = (
    "What is 12 times 7?",
    "Paige raised 15 goldfish in the pond but stray cats loved eating them. 5 were eaten. "
    "How many goldfish remained?",
)


async def shoot(app: QApplication, out: Path, servers_path: Path) -> Path:
    from app.engine import Engine
    from app.settings import Settings
    from app.ui.main import build_window, prepare

    settings = Settings(strict=True, backend="local")
    engine = Engine.from_settings(settings, servers_path=servers_path)
    window = build_window(engine, settings)
    window.resize(1280, 800)  # the size the trace must read at (issue 37)
    window.show()
    try:
        await prepare(engine, window)
        await engine.ensure_backend()
        states = window.servers_panel.states
        while not all(
            name in states and states[name].state == "ready" for name in ("calculator", "converter")
        ):
            await asyncio.sleep(0.1)  # a question typed before the calculator is up is answered without it
        for question in QUESTIONS:
            window.controller.submit(question)
            await asyncio.wait_for(window.controller.wait_idle(), 180)
        for n in window.trace.walk():
            print("TRACE", n.kind, round(n.started, 2), n.duration_ms, n.label[:70])
        return await answers_shot(app, window, out / "verdicts.png")
    finally:
        window.close()
        await engine.aclose()


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--out", type=Path, default=REPO_ROOT / "docs" / "screenshots")
    print(on_display(shoot, parser.parse_args().out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
