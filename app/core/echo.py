"""Spotting a reply that only repeats the model's own instructions or tool list.

Small models, base models above all, often answer by continuing the prompt:
they recite the system instruction or the tool descriptions. Such a reply is
no answer, whatever its numbers, so the turn loop asks once more and then
stops with a note instead of showing it. A reply counts as an echo when most
of its word sequences (runs of ``SPAN`` words) stand word for word in the
instructions or tool text; a real answer shares a few words at most.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

SPAN = 5  # words per compared run: short enough to catch a paraphrase, long enough to be rare
ECHO_SHARE = 0.5  # at least this share of the reply's runs come from the prompt
MIN_RUNS = 4  # a reply shorter than this many runs is judged on its merits

ECHO_REASK = "That repeated your instructions. Answer my question in one short sentence."
ECHO_FAILURE = (
    "The model repeated its instructions instead of answering, twice, so no answer is shown. "
    "Try rephrasing the question, or choose another model in Settings."
)

_WORD = re.compile(r"[A-Za-z0-9_]+")


def _runs(text: str) -> list[tuple[str, ...]]:
    words = [w.lower() for w in _WORD.findall(text)]
    return [tuple(words[i : i + SPAN]) for i in range(len(words) - SPAN + 1)]


class EchoDetector:
    """Built once per step from the prompt's own text (instructions, tool descriptions)."""

    def __init__(self, prompt_texts: Iterable[str]) -> None:
        self._known = {run for text in prompt_texts for run in _runs(text)}

    def is_echo(self, reply: str) -> bool:
        runs = _runs(reply)
        if len(runs) < MIN_RUNS:
            return False
        repeated = sum(run in self._known for run in runs)
        return repeated >= ECHO_SHARE * len(runs)
