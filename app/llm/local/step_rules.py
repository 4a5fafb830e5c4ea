"""What decides a local model's step before it decodes, and the trace's lines on how it went.

The step itself runs in app.llm.local.step; the rules here read only the request and the policy.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence

from app.core.backend import ModelRequest
from app.core.messages import Message
from app.core.named import without_names
from app.core.numbers import find_numbers
from app.llm.local.conversation import RESULT_OPEN
from app.llm.local.decoded import DecodeResult
from app.llm.local.formats import ChatFormat
from app.llm.local.options import CallPolicy

_DIGIT = re.compile(r"\d")


@dataclasses.dataclass(frozen=True)
class StepPolicy:
    max_tokens: int = 512  # per step: a model that will not stop is cut off here
    call_policy: CallPolicy = "numbers"
    max_tool_calls: int | None = None  # per user message; None: no limit
    family: str = ""  # which worked examples open the prompt (app/llm/local/fewshot.py); "": none
    hinted_calls: bool = True  # make Calculon mode's formula call instead of decoding one
    # Who reads a story in Calculon mode: "ranker" (the backend makes the ranker's call: a model
    # too small to read one), or "model" (it writes a worked answer, app/llm/local/worked_step.py)
    reader: str = "ranker"


def stops_for(chat_format: ChatFormat) -> tuple[str, ...]:
    """What ends a reply: the format's end of turn, the start of a made-up tool result, and a
    call written where none may be made (where one may, the call marker is seen first)."""
    syntax = chat_format.syntax
    return tuple(dict.fromkeys((*chat_format.stop, RESULT_OPEN, syntax.result_open, *syntax.openers)))


def format_notice(chat_format: ChatFormat) -> str:
    """The trace's line on how the model was shown its tools (once per loaded model)."""
    if chat_format.native:
        return (
            f"Tools were given in the model's own format ({chat_format.syntax.name}, from its chat"
            " template); its calls are decoded in that syntax."
        )
    return f"Tools were given in Calculon's own call format ({chat_format.name} chat format)."


def forces_call(request: ModelRequest, policy: StepPolicy) -> bool:
    """Whether this step may only call a tool: it answers a user message, tools are on
    offer, and the policy says so ("numbers": in Calculon mode, when the message has a
    digit, or two numbers in words, as in "Twelve birds ... five flew away";
    "always": every user message; "auto": never), or the turn requires a call this step
    (``must_call``: the model described a task instead of doing it)."""
    last = request.messages[-1] if request.messages else None
    if not (request.tools and last is not None and last.role == "user"):
        return False
    if policy.call_policy == "always" or request.must_call:
        return True
    if not (policy.call_policy == "numbers" and in_calculon_mode(request)):
        return False
    if _DIGIT.search(without_names(last.text)):  # a digit in "/tmp/task1/notes.txt" is no number
        return True
    # No digit: a calculation where Calculon reads one (request.worked) over two numbers or more,
    # written ("twelve") or named ("twice", "a week"); "Which one ...?" has one and is no sum.
    worked = request.worked
    return worked is not None and len(find_numbers(without_names(last.text))) + len(worked.numbers) >= 2


def in_calculon_mode(request: ModelRequest) -> bool:
    """Whether this step is in Calculon mode: the request says so (``backed`` is set), not the
    settings the model was loaded with, so turning the mode on or off needs no reload."""
    return request.backed is not None


def trim_notice(dropped: Sequence[Sequence[Message]], n_ctx: int) -> str:
    count = sum(len(group) for group in dropped)
    return (
        f"Earlier conversation trimmed to fit the model's {n_ctx}-token context "
        f"({count} older message{'s' if count != 1 else ''} left out)."
    )


def stop_notices(result: DecodeResult) -> list[str]:
    """The trace's lines on how a decode ended, where it did not end as a model stops."""
    if result.closed_early:
        why = "went round in a loop" if result.closed_early == "loop" else "was about to run out of tokens"
        return [f"The model {why} inside a tool call; the call was closed early."]
    if result.steered:
        return [
            f"The model's answer went round in a loop before it stated the result; its last"
            f" {result.steered} tokens were kept to spelling out the tool's result."
        ]
    if result.stop_reason == "cap":
        return [f"The model's reply was cut off at {result.tokens} tokens (the per-step limit)."]
    if result.stop_reason == "loop":
        return [f"The model's answer went round in a loop; it was cut off after {result.tokens} tokens."]
    if result.stop_reason == "context":
        return ["The model's reply filled its context window and was cut off."]
    return []
