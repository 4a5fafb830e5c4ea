"""Which of the user's numbers a step's call may use, in Calculon mode (the grammar of
:mod:`app.llm.local.operands`), with "that" standing for the previous turn's result."""

from __future__ import annotations

from app.core.backend import ModelRequest
from app.llm.local.backed import BackedForms, backed_forms
from app.llm.local.operands import Operands, operands


def operands_for(request: ModelRequest, forms: BackedForms | None, *, one_call: bool) -> Operands | None:
    """In Calculon mode, on the step that answers a user message: the user's numbers the call
    may use, each at most as often as written. All of them only where this is the one call
    the model may make and the user wrote the arithmetic out ("12 times 7"): a word problem
    carries numbers its question does not use, and forcing them in wrote ``5 * 15`` for
    "15 goldfish, 5 were eaten" and ``100 * 5 * 3 * 5000`` for "3 kids ... 20% of 5000".
    What the words say (``request.arithmetic``) is app.calculon's reading, made once a turn."""
    last = request.messages[-1] if request.messages else None
    if forms is None or request.backed is None or last is None or last.role != "user":
        return None
    if last.text not in request.backed:  # the app's own re-ask, not the user's words
        return None
    read = request.arithmetic
    if read is None:  # no reading of the words was sent: no rules on the call's numbers
        return None
    free = backed_forms(t for t in request.backed if t != last.text).arguments
    if read.earlier:  # "that" is an operand the call must use, not merely one it may
        free = free - backed_forms([read.earlier]).arguments
    every = one_call and read.spelled_out
    allowed = free | ({"100"} if forms.percent else set())
    return operands(read, allowed, every=every)
