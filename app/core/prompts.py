"""The system instructions, kept as text files under ``resources/prompts``.

Calculon mode (strict) sends every arithmetic step to the calculator and uses
no number that a tool did not return; the plain prompt is for when it is off.
Both backends get the same text.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

from app.paths import resources_dir

PROMPT_FILES = {True: "calculon.md", False: "plain.md"}


@functools.cache
def system_prompt(strict: bool) -> str:
    """The system instruction for Calculon mode (``strict``) or plain chat."""
    path = resources_dir() / "prompts" / PROMPT_FILES[strict]
    return path.read_text(encoding="utf-8").strip()


# What the model is told when its answer holds numbers nothing backs (the turn loop, and a restored history).
REASK_TEMPLATE = (
    "Your answer contains numbers that no tool returned and the user did not give: {numbers}. "
    "Compute each of them with the calculator tools, then answer again using only numbers "
    "from tool results or from the question."
)


def calculate_reask(readings: Sequence[str]) -> str:
    """What the model is told when its answer states a number no tool computed (a story's answer
    that repeats one of its numbers): calculate, and here are the ways Calculon reads the question."""
    told = "Your answer states no calculated result. Send the calculation to the calculator, then answer."
    if not readings:
        return told
    return f"{told} Possible calculations: {'; '.join(readings)}."
