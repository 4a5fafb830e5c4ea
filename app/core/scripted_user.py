"""A scripted user: answers requests from a fixed list instead of a person.

It exists for tests and demos, where the point is the engine, a server's round trip or
the trace rather than a person clicking. Nothing in the app uses it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import Any

from app.core.asking import A, AnyAnswer, Request

Script = AnyAnswer | Callable[[Request[Any]], AnyAnswer]


class ScriptedUser:
    """Each request takes the next answer (or the answer a function gives for it).

    Every request is kept in ``asked``; ``think_s`` is how long the user takes to answer,
    and ``asked_event`` is set whenever a request arrives, so a test can watch a turn wait.
    """

    def __init__(self, answers: Sequence[Script] = (), *, think_s: float = 0.0) -> None:
        self.answers = list(answers)
        self.think_s = think_s
        self.asked: list[Request[Any]] = []
        self.asked_event = asyncio.Event()

    async def answer(self, request: Request[A]) -> A:
        self.asked.append(request)
        self.asked_event.set()
        if not self.answers:
            raise AssertionError(f"the script has no answer left for {request.kind} from {request.server}")
        script = self.answers.pop(0)
        answer = script(request) if callable(script) else script
        if self.think_s:
            await asyncio.sleep(self.think_s)  # the person reading the question: the scenario, not a wait
        return answer  # type: ignore[return-value]
