"""Which of the user's numbers a step's call may use, in Calculon mode (the grammar of
:mod:`app.llm.local.operands`), with "that" standing for the previous turn's result."""

from __future__ import annotations

from app.calculon.transcript import transcribe, with_earlier
from app.core.backend import ModelRequest
from app.core.numbers import find_numbers
from app.llm.local.answer_forms import asked_index
from app.llm.local.backed import BackedForms, backed_forms
from app.llm.local.operands import Operands, operands


def operands_for(request: ModelRequest, forms: BackedForms | None, *, one_call: bool) -> Operands | None:
    """In Calculon mode, on the step that answers a user message: the user's numbers the call
    may use, each at most as often as written. All of them only where this is the one call
    the model may make and the user wrote the arithmetic out ("12 times 7"): a word problem
    carries numbers its question does not use, and forcing them in wrote ``5 * 15`` for
    "15 goldfish, 5 were eaten" and ``100 * 5 * 3 * 5000`` for "3 kids ... 20% of 5000"."""
    last = request.messages[-1] if request.messages else None
    if forms is None or request.backed is None or last is None or last.role != "user":
        return None
    if last.text not in request.backed:  # the app's own re-ask, not the user's words
        return None
    free = backed_forms(t for t in request.backed if t != last.text).arguments
    earlier = earlier_result(request)
    text = with_earlier(last.text, earlier) if earlier else last.text
    if text != last.text:  # "that" is an operand the call must use, not merely one it may
        free = free - backed_forms([earlier]).arguments
    every = one_call and transcribe(text) is not None
    return operands(text, free | ({"100"} if forms.percent else set()), every=every)


def earlier_result(request: ModelRequest) -> str:
    """The previous turn's last result, as written ("84"), for "add 16 to that"; "" if none."""
    asked = asked_index(request.messages, request.backed)
    results = [m for m in request.messages[:asked] if m.role == "tool" and not m.is_error]
    mentions = find_numbers(results[-1].text) if results else []
    return mentions[0].text if mentions else ""
