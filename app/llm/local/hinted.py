"""The call Calculon mode's formula hint makes, in place of the small model writing one.

A built-in model of 135M parameters writes a call slowly (the first step is the slowest part
of an answer) and, on a story, badly: it multiplied the goldfish that were eaten by the ones
in the pond. Where the session hands a formula (a transcription of the user's arithmetic, or
the ranker's reading of a story) and the calculator's ``evaluate`` is on offer, the backend
makes that call itself and says so in the trace, and writes the answer from the result
(:func:`composed_answer`). The verdict does not change: a ranked formula stays *computed*.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from app.core.backend import FormulaHint, ModelRequest
from app.core.calculator_text import rounded
from app.core.messages import ToolCall, ToolSpec
from app.llm.local.calls import new_call_id


def evaluate_tool(tools: Sequence[ToolSpec]) -> ToolSpec | None:
    """The offered tool that takes an arithmetic expression (the bundled ``evaluate``)."""
    for spec in tools:
        properties = spec.input_schema.get("properties") or {}
        if spec.name.rsplit(".", 1)[-1] == "evaluate" and "expression" in properties:
            return spec
    return None


def hinted_call(hint: FormulaHint, tools: Sequence[ToolSpec]) -> tuple[ToolCall, str] | None:
    """The call, and the trace's note on where it came from; None without the tool it needs."""
    spec = _tool_of(hint, tools)
    if spec is None:
        return None
    call = ToolCall(new_call_id(), spec.name, _arguments(hint))
    return call, hint_note(hint, spec.name)


def _tool_of(hint: FormulaHint, tools: Sequence[ToolSpec]) -> ToolSpec | None:
    """The offered tool the hint's call needs: by its bare name, taking its arguments."""
    if hint.call is None:
        return evaluate_tool(tools)
    names, arguments = hint.call
    for spec in tools:
        properties = spec.input_schema.get("properties") or {}
        if spec.name.rsplit(".", 1)[-1] in names and {key for key, _ in arguments} <= set(properties):
            return spec
    return None


def _arguments(hint: FormulaHint) -> dict[str, str]:
    return dict(hint.call[1]) if hint.call else {"expression": hint.expression}


def hint_note(hint: FormulaHint, tool: str = "") -> str:
    if hint.call:  # "(Tokyo)" says less than the call: get_time("Asia/Tokyo")
        written = ", ".join(f'"{value}"' for _, value in hint.call[1])
        name = tool.rsplit(".", 1)[-1] or hint.call[0][0]
        return f"The call {name}({written}) was transcribed from your words, not written by the model."
    if hint.source == "transcription":
        return f"The call was transcribed from your words ({hint.shown}), not written by the model."
    others = "; ".join(f"{shown} {share:.0%}" for shown, share in hint.alternatives)
    tail = f" Other readings: {others}." if others else ""
    return (
        f"The formula {hint.shown} is a reading of the story ({hint.probability:.0%} likely among the "
        f"candidate formulas of its numbers), not a transcription: check it.{tail}"
    )


COMPOSED_NOTE = "The answer was written from your words' formula and the calculator's result, not the model."
# a reading is no formula of the user's: the note says whose it is
READING_NOTE = "The answer was written from the story's reading and the calculator's result, not the model."


def composed_note(hint: FormulaHint | None) -> str:
    if hint is not None and hint.call:  # the converter's or the clock's result: no formula, no calculator
        return f"The answer was written from {hint.call[0][0]}'s result, not the model."
    return READING_NOTE if hint is not None and hint.source != "transcription" else COMPOSED_NOTE


_PLAIN = re.compile(r"-?\d+(?:\.\d+)?")  # a result stated whole: "84", "-3.5"
# "65/7 ≈ 9.285714285714285714285714286 (rounded to 28 significant digits)", the calculator's
# inexact form: its rounding note is the calculator's business, not the answer's
_INEXACT = re.compile(
    r"(?P<fraction>-?\d+/\d+) ≈ (?P<decimal>-?\d+\.\d+)(?: \(rounded to \d+ significant digits\))?"
)
_AMOUNT = re.compile(r"-?\d+(?:\.\d+)? \S+")  # the converter's exact answer: "37 °C", "8.04672 km"
_INEXACT_AMOUNT = re.compile(
    r"(?P<fraction>-?\d+/\d+) ≈ (?P<decimal>-?\d+\.\d+) (?P<unit>\S+)"
    r"(?: \(rounded to \d+ significant digits\))?"
)
# what the calculator says a refusal was, without its "(at '/', character 5)": digits no one gave
_REASON = re.compile(r"((?:division|modulo) by zero)")


def composed_answer(request: ModelRequest) -> str | None:
    """The answer to the hint's own call, just returned: its number ("12 × 7 = 84.", "(79 − 14)
    ÷ 7 = 65/7 ≈ 9.286."), or the calculator's refusal where the arithmetic has no value ("134 ÷
    0 has no value (division by zero)."); None for anything else: another call, a worked answer's
    inline call (the model goes on from it), a failed call of a formula that has a value.

    A reading's answer is written here too. Left to the built-in model, it named the wrong thing
    around the result ("2 children each get 395 apples.", "66 cars.") and took a step of its own;
    after a re-ask (ModelRequest.reading_due) the 0.5B model wrote the formula in broken LaTeX.
    The verdict is the same either way: a reading is computed, its formula labelled."""
    hint, messages = request.formula, request.messages
    if hint is None or len(messages) < 3 or request.backed is None:
        return None
    user, asked, result = messages[-3:]
    if user.role != "user" or result.role != "tool":
        return None
    if hint.source == "transcription" and user.text not in request.backed:
        return None  # the app's re-ask stands between: the call is the model's, after it
    made = [c for c in asked.tool_calls if c.id == result.tool_call_id]
    if asked.role != "assistant" or len(asked.tool_calls) != 1 or not made or made[0].inline:
        return None
    if dict(made[0].arguments) != _arguments(hint):
        return None
    if result.is_error != (not hint.defined):
        return None  # only the refusal answers "134 ÷ 0", and a refusal answers nothing else
    if not hint.defined:
        reason = _REASON.search(result.text)
        return f"{hint.shown} has no value{f' ({reason.group(1)})' if reason else ''}."
    value = result.text.strip()
    if hint.call and "convert" in hint.call[0]:
        return _converted(hint.shown, value)
    if hint.call:
        return _looked_up(hint.shown, value)
    if _PLAIN.fullmatch(value):
        return f"{hint.shown} = {value}{hint.groups}."
    inexact = _INEXACT.fullmatch(value)
    if inexact is None:
        return None
    return f"{hint.shown} = {inexact['fraction']} ≈ {rounded(inexact['decimal'])}{hint.groups}."


def _converted(quantity: str, value: str) -> str | None:
    """ "98.6 °F is 37 °C."; an inexact one rounded as a person writes it: "10 kg is about 22.05 lb"."""
    plain = _AMOUNT.fullmatch(value)
    if plain is not None:
        return f"{quantity[:1].upper()}{quantity[1:]} is {value}."
    inexact = _INEXACT_AMOUNT.fullmatch(value)
    if inexact is None:
        return None
    about, exact = (
        f"{rounded(inexact['decimal'])} {inexact['unit']}",
        f"{inexact['fraction']} {inexact['unit']}",
    )
    return f"{quantity[:1].upper()}{quantity[1:]} is about {about} ({exact} exactly)."


def _looked_up(place: str, value: str) -> str | None:
    """ "In Tokyo it is 21:06:45 on 2026-12-06 (Asia/Tokyo, UTC+09:00)." from the clock's
    "2026-12-06T21:06:45+09:00 (Asia/Tokyo)"."""
    stamp = _STAMP.fullmatch(value)
    if stamp is None:
        return None
    return f"In {place} it is {stamp['time']} on {stamp['date']} ({stamp['zone']}, UTC{stamp['offset']})."


_STAMP = re.compile(  # the clock's get_time: "2026-12-06T21:06:45+09:00 (Asia/Tokyo)"
    r"(?P<date>\d{4}-\d{2}-\d{2})T(?P<time>\d{2}:\d{2}:\d{2})(?P<offset>[+-]\d{2}:\d{2})"
    r" \((?P<zone>[\w/+-]+)\)"
)
