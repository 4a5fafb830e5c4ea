"""A completer that stands in for the host's model where the round trip, not the model, is tested."""

from __future__ import annotations

from app.core.sampling import Completion, Turns


class RecordingModel:
    """Answers every completion with ``text`` and records what it was asked."""

    def __init__(self, text: str = "Blue") -> None:
        self.text = text
        self.asked: list[tuple[str, Turns, int]] = []

    async def __call__(self, system: str, turns: Turns, max_tokens: int) -> Completion:
        self.asked.append((system, turns, max_tokens))
        return Completion(self.text, "recording-model")
