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

from scripts.screenshots import answers_shot, on_display, real_window  # noqa: E402

QUESTIONS = (
    "What is 12 times 7?",
    "Paige raised 15 goldfish in the pond but stray cats loved eating them. 5 were eaten. "
    "How many goldfish remained?",
)


async def shoot(app: QApplication, out: Path, servers_path: Path) -> Path:
    from app.mcp.retrieval.static import prepare
    from app.settings import Settings

    # as `make run` does before it opens the window: the tool index's table is distilled once
    # per machine, and in these fresh folders the first turn would wait for it (docs/benchmarks.md)
    prepare()
    up = {"calculator": "ready", "converter": "ready"}
    async with real_window(Settings(strict=True, backend="local"), servers_path, up) as window:
        for question in QUESTIONS:
            window.controller.submit(question)
            await asyncio.wait_for(window.controller.wait_idle(), 180)
        return await answers_shot(app, window, out / "verdicts.png")


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--out", type=Path, default=REPO_ROOT / "docs" / "screenshots")
    print(on_display(shoot, parser.parse_args().out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
