"""A worked answer's steps (Calculon mode, a model that reads a story itself).

The model writes its working as prose in one assistant turn. Where it writes an expression and
then "=", decoding stops there and the step ends with an inline call of ``evaluate`` on that
expression; the next step puts the calculator's result after the "=" (as the request's
``worked.inserted`` writes it), as the opening of its own text, and the model goes on from it.
The prompt is the worked format's instruction and examples, the conversation, and the answer
so far left open, so llama.cpp's cache keeps everything but the newest words between steps.

The working is decoded freely: the turn loop's check holds its numbers to the user's words and the
tools' results afterwards (a grammar that did so while decoding cost a third of the right answers).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from typing import Protocol

import numpy as np

from app.core.backend import BackendError, Chunk, ModelRequest, StepDone, TextChunk, ToolCallChunk
from app.core.messages import Message, ToolCall
from app.llm.local.calls import new_call_id
from app.llm.local.conversation import Turn
from app.llm.local.decoded import DecodeResult
from app.llm.local.decoder import Decoder, shared_prefix
from app.llm.local.formats import ChatFormat
from app.llm.local.hinted import evaluate_tool
from app.llm.local.phases import PARAGRAPH_END, PhaseSetup
from app.llm.local.step_rules import StepPolicy, stop_notices
from app.llm.local.working import expression_before


class StepRunner(Protocol):
    """What a worked step uses of the step runner (app.llm.local.step.StepRunner), which makes it:
    named here so that only step imports worked_step."""

    format: ChatFormat
    decoder: Decoder
    policy: StepPolicy
    last: DecodeResult | None

    def _tokens(self, text: str) -> list[int]: ...

    def open(self, tokens: list[int], stop: threading.Event) -> int: ...


logger = logging.getLogger(__name__)
EQUALS = "="
MAX_PROSE_EQUALS = 3  # an "=" after words, not a calculation, is kept and decoding goes on
MIN_OPENING = 32  # fewer shared tokens than this: reading them is as quick as loading a file


def worked_tail(messages: Sequence[Message]) -> tuple[int, list[Message]] | None:
    """Where the question being answered stands, and the worked steps since it; None when a step
    since then called a tool the ordinary way (this answer is not a worked one)."""
    start = max((i for i, m in enumerate(messages) if m.role == "user"), default=-1)
    tail = list(messages[start + 1 :])
    for message in tail:
        if message.role == "assistant" and not (
            message.tool_calls and all(c.inline for c in message.tool_calls)
        ):
            return None
    return start, tail


def collapsed(messages: Sequence[Message]) -> list[Turn]:
    """Earlier turns as plain chat: a worked answer as the one text it reads as, another tool's
    call and result as a note in the reply."""
    turns: list[Turn] = []
    inline: set[str] = set()
    for message in messages:
        if message.role == "user":
            turns.append(Turn("user", message.text))
            continue
        if message.role == "tool":
            if message.tool_call_id not in inline:
                _add_assistant(turns, f" ({message.tool_name}: {message.text.strip()[:200]})")
            continue
        inline |= {c.id for c in message.tool_calls if c.inline}
        _add_assistant(turns, message.text)
    return turns


def _add_assistant(turns: list[Turn], text: str) -> None:
    if turns and turns[-1].role == "assistant":
        turns[-1] = Turn("assistant", turns[-1].text + text)
    elif text.strip():
        turns.append(Turn("assistant", text.lstrip()))


class WorkedStep:
    """One step of a worked answer, on the runner's model and chat format."""

    def __init__(self, runner: StepRunner):
        self.runner = runner

    def applies(self, request: ModelRequest) -> bool:
        return (
            request.worked is not None
            and evaluate_tool(request.tools) is not None
            and worked_tail(request.messages) is not None
        )

    def run(self, request: ModelRequest, emit: Callable[[Chunk], None], stop: threading.Event) -> None:
        worked, spec = request.worked, evaluate_tool(request.tools)
        found = worked_tail(request.messages)
        assert worked is not None and spec is not None and found is not None
        start, tail = found
        opening = "".join(m.text for m in tail if m.role == "assistant")
        if tail:  # the last step ended at "=": the calculator's result stands after it
            inserted = worked.inserted[-1] if worked.inserted else ""
            emit(TextChunk(inserted))
            opening += inserted
        head = self._head(request, start)
        opened = self._open_shared(request, head, stop)
        written: list[str] = []
        tokens = 0

        def collect(chunk: Chunk) -> None:
            if isinstance(chunk, TextChunk):
                written.append(chunk.text)
            emit(chunk)

        for _ in range(MAX_PROSE_EQUALS + 1):
            prompt = self.runner._tokens(head + opening + "".join(written))
            self._fits(prompt)
            setup = PhaseSetup(None, self._stops(), False, self.runner.format.syntax, continues=True)
            budget = min(self.runner.policy.max_tokens, self.runner.decoder.n_ctx - len(prompt))
            result = self.runner.decoder.run(prompt, setup, budget, collect, stop)
            result.reused_tokens, opened = max(result.reused_tokens - opened, 0), 0  # read here, not kept
            self.runner.last, tokens = result, tokens + result.tokens
            if stop.is_set() or result.stop_text != EQUALS:
                emit(StepDone(tokens=tokens, notices=tuple(stop_notices(result))))
                return
            expression = expression_before(opening + "".join(written))
            if expression:
                call = ToolCall(new_call_id(), spec.name, {"expression": expression}, inline=True)
                emit(ToolCallChunk(call))
                emit(StepDone(tokens=tokens))
                return
            collect(TextChunk(EQUALS))  # an "=" after words ("the cost = ..."): prose, go on
        emit(StepDone(tokens=tokens, notices=("The working wrote '=' after words, not a calculation.",)))

    def _open_shared(self, request: ModelRequest, head: str, stop: threading.Event) -> int:
        """Load the instruction and examples every worked answer opens with from the saved state:
        a fresh process (`calculon ask`) otherwise reads those few hundred tokens on every question,
        seconds on two cores. The tokens read for it."""
        alone = self.runner._tokens(self.runner.format.render(self._opening(request)))
        full = self.runner._tokens(head)
        # rendered alone it ends in an open reply where the question follows: keep the part in common
        shared = full[: shared_prefix(np.asarray(alone), full)]
        return self.runner.open(shared, stop) if len(shared) >= MIN_OPENING else 0

    def _head(self, request: ModelRequest, start: int) -> str:
        """The prompt up to where the answer begins: instruction, examples, the conversation."""
        turns = self._opening(request) + collapsed(request.messages[: start + 1])
        return self.runner.format.render(turns)

    @staticmethod
    def _opening(request: ModelRequest) -> list[Turn]:
        """The worked format's instruction and examples, the same for every question."""
        worked = request.worked
        assert worked is not None
        turns = [Turn("system", worked.instruction)]
        for question, answer in worked.examples:
            turns += [Turn("user", question), Turn("assistant", answer)]
        return turns

    def _stops(self) -> tuple[str, ...]:
        fmt = self.runner.format
        return tuple(dict.fromkeys((*fmt.stop, *fmt.syntax.openers, PARAGRAPH_END, EQUALS)))

    def _fits(self, prompt: Sequence[int]) -> None:
        n_ctx = self.runner.decoder.n_ctx
        if len(prompt) >= n_ctx - 64:
            raise BackendError(
                f"The worked answer no longer fits the model's {n_ctx}-token context. Start a new "
                "conversation, or raise the context size in Settings.",
                category="context",
            )
