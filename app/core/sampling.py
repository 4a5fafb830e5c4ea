"""Sampling: a server asks the host's model for a completion, and the user stays in charge.

The request is shown (messages, system prompt, max tokens, whether it wanted tools) and
may be edited or declined; the approved request runs on the current backend; the result
is shown again and goes back only if the user approves it. Each server may sample at most
``per_minute`` times a minute; past that its requests are refused without asking.
"""

from __future__ import annotations

import collections
import dataclasses
import logging
import time
from collections.abc import Awaitable, Callable

from app.core.asking import Asker, SamplingAnswer, SamplingRequest, SamplingReview
from app.core.backend import Backend, ModelRequest, TextChunk
from app.core.messages import Message

logger = logging.getLogger(__name__)

Turns = tuple[tuple[str, str], ...]  # (role, text)


@dataclasses.dataclass(frozen=True)
class Completion:
    text: str
    model: str
    stop_reason: str = "endTurn"  # or maxTokens


# (system prompt, messages, max tokens) -> the model's completion
Completer = Callable[[str, Turns, int], Awaitable[Completion]]


class SamplingRefused(Exception):
    """The request was declined, its result rejected, or the server asked too often; worded for it."""


class SamplingGate:
    def __init__(
        self,
        asker: Asker,
        complete: Completer,
        *,
        per_minute: int = 10,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.asker, self.complete = asker, complete
        self.per_minute = per_minute
        self.clock = clock
        self._recent: dict[str, collections.deque[float]] = collections.defaultdict(collections.deque)

    async def sample(self, request: SamplingRequest) -> Completion:
        """The approved completion; raises :class:`SamplingRefused` otherwise."""
        self._count(request.server)
        approved = _approved(await self.asker.ask(request), "the user declined the sampling request")
        edited = _edited(request, approved)
        completion = await self.complete(edited.system_prompt, edited.messages, edited.max_tokens)
        review = SamplingReview(server=request.server, text=completion.text, model=completion.model)
        checked = _approved(await self.asker.ask(review), "the user rejected the model's completion")
        return dataclasses.replace(completion, text=checked.text or completion.text)

    def _count(self, server: str) -> None:
        now, recent = self.clock(), self._recent[server]
        while recent and now - recent[0] >= 60:
            recent.popleft()
        if len(recent) >= self.per_minute:
            logger.warning("sampling request from %s refused: over %d a minute", server, self.per_minute)
            raise SamplingRefused(f"too many sampling requests: at most {self.per_minute} a minute")
        recent.append(now)


def _approved(answer: SamplingAnswer, refusal: str) -> SamplingAnswer:
    if not answer.approved:
        raise SamplingRefused(f"{refusal} ({answer.note})" if answer.note else refusal)
    return answer


def _edited(request: SamplingRequest, answer: SamplingAnswer) -> SamplingRequest:
    """The request as the user left it: only what they changed is replaced."""
    return dataclasses.replace(
        request,
        system_prompt=answer.system_prompt or request.system_prompt,
        messages=answer.messages or request.messages,
        max_tokens=answer.max_tokens or request.max_tokens,
    )


def backend_completer(backend: Callable[[], Awaitable[Backend]]) -> Completer:
    """Completions from the host's current backend (loaded on first use), without tools.

    ``max_tokens`` counts text chunks: one token each from the local backend, a few from Gemini."""

    async def complete(system: str, turns: Turns, max_tokens: int) -> Completion:
        model = await backend()
        messages = tuple(Message("user" if role == "user" else "assistant", text) for role, text in turns)
        parts: list[str] = []
        stream = model.stream(ModelRequest(system, messages, ()))
        try:
            async for chunk in stream:
                if isinstance(chunk, TextChunk):
                    parts.append(chunk.text)
                    if len(parts) >= max_tokens:
                        return Completion("".join(parts), model.model_label, "maxTokens")
        finally:
            close = getattr(stream, "aclose", None)
            if close is not None:  # stop the generation now, not when the generator is collected
                await close()
        return Completion("".join(parts), model.model_label)

    return complete
