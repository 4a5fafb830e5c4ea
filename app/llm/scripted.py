"""A scripted backend: replays fixed steps instead of running a model.

It exists for tests and demos of the engine and the window, where the point is
the turn loop or the UI rather than a model. Nothing else uses it.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence

from app.core.backend import Chunk, ModelRequest, ProgressCallback, StepDone, TextChunk


class ScriptedBackend:
    """Each step is a list of chunks, yielded in order; a string stands for text.

    ``delay`` spaces the chunks out so streaming and cancelling can be watched.
    Every request it receives is kept in ``requests`` for assertions.
    """

    name = "scripted"

    def __init__(self, steps: Sequence[Sequence[Chunk | str]], *, delay: float = 0.0) -> None:
        self.steps = [list(step) for step in steps]
        self.delay = delay
        self.requests: list[ModelRequest] = []

    @property
    def model_label(self) -> str:
        return "scripted"

    @property
    def context_tokens(self) -> int | None:
        return None

    async def load(self, progress: ProgressCallback | None = None) -> None:
        if progress:
            progress(1.0, "scripted backend ready")

    async def stream(self, request: ModelRequest) -> AsyncIterator[Chunk]:
        self.requests.append(request)
        if not self.steps:
            raise AssertionError("the script has no step left for this request")
        step = self.steps.pop(0)
        for item in step:
            if self.delay:
                await asyncio.sleep(self.delay)
            yield TextChunk(item) if isinstance(item, str) else item
        if not any(isinstance(item, StepDone) for item in step):
            yield StepDone(tokens=len(step))

    async def aclose(self) -> None:
        return None
