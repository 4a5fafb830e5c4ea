"""A step after the model repeated a call of this turn: another tool's call, or the answer.

Its own module: the step (app.llm.local.step) decodes, and this decides what a repeat turns into.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from app.core.acting import lookups, results_reask
from app.core.backend import Chunk, ModelRequest
from app.core.messages import Message, ToolCall, ToolSpec
from app.llm.local.answer_forms import asked_index, repeats_failed_call
from app.llm.local.backed import BackedForms
from app.llm.local.decoded import DecodeResult
from app.llm.local.sampling import GrammarError
from app.llm.local.schema_grammar import StepGrammar, answer_only

Emit = Callable[[Chunk], None]
REPEAT_NOTICE = "The model repeated a tool call whose result it already had; it was asked to answer instead."
RETRY_NOTICE = (
    "The model repeated a tool call it had made (one that failed, or where a call was required); "
    "it was made to call another tool."
)


class Repeating(Protocol):
    """What this uses of the step runner (app.llm.local.step's StepRunner)."""

    format: Any

    def _decode(
        self, prompt: list[int], grammar: StepGrammar | None, emit: Emit, stop: threading.Event
    ) -> DecodeResult: ...

    def grammar_for(
        self, tools: Sequence[ToolSpec], *, forced: bool, forms: BackedForms | None = None
    ) -> StepGrammar: ...

    def held(self, request: ModelRequest, tools: Sequence[ToolSpec]) -> tuple[ToolSpec, ...]: ...

    def _fresh(self, calls: Sequence[ToolCall], request: ModelRequest) -> tuple[ToolCall, ...]: ...

    def _calls_of(self, result: DecodeResult, tools: Sequence[ToolSpec]) -> tuple[ToolCall, ...]: ...

    def fit(self, request: ModelRequest, *, listed: bool = True) -> tuple[list[int], list[str]]: ...


def after_repeat(
    runner: Repeating,
    request: ModelRequest,
    prompt: list[int],
    calls: Sequence[ToolCall],
    forms: BackedForms | None,
    notices: list[str],
    emit: Emit,
    stop: threading.Event,
) -> tuple[DecodeResult, tuple[ToolCall, ...]]:
    """The step again after the model repeated a call of this turn. A call that worked has
    its result in the conversation: the step answers. A call that failed fails again: told
    "no such table: shop" and asked to fix it, Qwen2.5-Coder-1.5B sent the same UPDATE
    twice and then apologised (4 of 51 real tasks ended so). The step calls again, from
    the other tools, those that look things up first (``list_tables``, ``describe_table``):
    offered every other tool, it created the table it had misnamed."""
    failed = {c.name for c in calls if repeats_failed_call(c, request.messages, request.backed)}
    repeated = {c.name for c in calls}
    # a step that must call (a named file not yet used, a failure to fix) and repeats a call
    # that worked is no answer either: asked to save a count in errors.txt, the 1.5B model
    # read the log again. The others are offered, the look-ups first after a failure.
    withdrawn = repeated if request.must_call else failed
    others = [t for t in request.tools if t.name not in withdrawn]
    # a failure is fixed with its own server's tools: told "no such column", the model offered
    # the look-ups of every server searched the filesystem for the database
    servers = {t.server for t in request.tools if t.name in failed and t.server}
    others = [t for t in others if t.server in servers] or others
    # the look-ups not made yet come first: list_tables had worked, and made to call again, the
    # model listed the tables again instead of describing one
    worked = [m.tool_name for m in request.messages if m.role == "tool" and not m.is_error]
    found = lookups(others, "", worked) if failed else []
    looking = [n for n in found if n not in worked] or found
    others = [t for t in others if t.name in looking] or others
    if withdrawn and others:
        notices.append(RETRY_NOTICE)
        try:
            grammar = runner.grammar_for(runner.held(request, others), forced=True, forms=forms)
            result = runner._decode(prompt, grammar, emit, stop)
        except GrammarError:
            result = None
        fresh = runner._fresh(runner._calls_of(result, others), request) if result is not None else ()
        if result is not None and fresh:
            return result, fresh
    notices.append(REPEAT_NOTICE)
    # decoded where the model meant to call, the answer was "This is the final answer.",
    # twice in 51 real tasks: the request is written again after the results first
    own = asked_index(request.messages, request.backed)
    if own >= 0:
        told = Message("user", results_reask(request.messages[own].text))
        prompt, _ = runner.fit(dataclasses.replace(request, messages=(*request.messages, told)))
    return runner._decode(prompt, answer_only(forms, syntax=runner.format.syntax), emit, stop), ()
