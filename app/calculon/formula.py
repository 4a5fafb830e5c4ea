"""The formula behind a computed answer, written so a person can check the reading: each of
their numbers labelled with their own words for it.

``10 = 15 (Paige raised goldfish in the pond) − 5 (were eaten)``: the calculator worked out
the right side; whether it is the right calculation is the person's call.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from app.calculon.implied import implied_numbers
from app.core.calculator_text import APPROX, call_formula, rounded, without_note
from app.core.numbers import Mention, find_numbers
from app.core.records import CallRecord

_BOUNDARY = re.compile(r"[.?!;:,]\s|[.?!;:]$|\bbut\b|\band\b|\bthen\b", re.IGNORECASE)
_WORD = re.compile(r"[$€£]?[A-Za-z][A-Za-z'’-]*")
# Words that say nothing about which number is which: left out of a label.
_FILLER = frozenset(
    ["a", "an", "the", "what", "whats", "is", "are", "how", "many", "much", "of", "to", "do", "does", "did"]
)
MAX_LABEL_WORDS = 6
_PERCENT = re.compile(r"%|\s*(?:percent|per\s+cent)\b", re.IGNORECASE)


def labelled_formula(asked: str, calls: Sequence[CallRecord]) -> str:
    """One line per successful call: ``result = formula``, the user's numbers labelled."""
    mine = find_numbers(asked)
    lines = []
    for call in calls:
        if call.is_error:
            continue
        lines.append(f"{_result_text(call.result)} = {_labelled(_expression(call), asked, mine)}")
    return "; ".join(lines)


def result_line(call: CallRecord) -> str:
    """A calculation and what it gave, as a person writes it: ``27 − 18 = 9``."""
    return f"{_expression(call)} = {_result_text(call.result)}"


def result_values(result: str) -> list[Fraction]:
    """The values a tool result states, the calculator's rounding note left out."""
    return [v for m in find_numbers(without_note(result)) for v in m.values()]


def _result_text(result: str) -> str:
    mentions = find_numbers(without_note(result))
    if not mentions:
        return " ".join(result.split())[:40]
    if len(mentions) > 1 and APPROX in result[mentions[0].end : mentions[1].start]:
        # "811/23 ≈ 35.26": the rounded value is what a person reads, not its 28 digits
        return f"{mentions[0].text} ≈ {rounded(mentions[1].text)}"
    head = result[: mentions[0].end].strip()
    return head if len(head) <= 40 else mentions[0].text


def _expression(call: CallRecord) -> str:
    args: Mapping[str, Any] = call.arguments
    name = call.tool.rsplit(".", 1)[-1]
    formula = call_formula(name if "expression" not in args else "evaluate", args)
    if formula is not None:
        return formula
    return f"{name}({', '.join(_arg(v) for v in args.values())})"


def _arg(value: Any) -> str:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _labelled(expression: str, asked: str, mine: list[Mention]) -> str:
    out, last = [], 0
    for mention in find_numbers(expression):
        out.append(expression[last : mention.end])
        label = _label(asked, mine, set(mention.values()), mention.text.endswith("%"))
        if label:
            out.append(f" ({label})")
        last = mention.end
    out.append(expression[last:])
    return "".join(out)


def _label(asked: str, mine: list[Mention], values: set[Fraction], shown_as_percent: bool = False) -> str:
    """The user's words around the number they wrote: the clause it stands in, nearest first."""
    found = next((m for m in mine if set(m.values()) & values), None)
    if found is None:  # "15 × 2": the 2 is the user's "twice", the 7 in "3 × 7 × 2" the days of their week
        # (a percentage's "÷100" is its own working: the percentage beside it is labelled already)
        said = implied_numbers(asked)
        return next((label for value, label in said if value in values and value != 100), "")
    # the clause it stands in, and no further than the numbers beside it: "A crate holds 48 boxes
    # of 37 bolts" labels 48 "crate holds boxes" and 37 "boxes bolts", not both the whole clause
    start = max((b.end() for b in _BOUNDARY.finditer(asked, 0, found.start)), default=0)
    start = max([start, *(m.end for m in mine if m.end <= found.start)])
    stop = next((b.start() for b in _BOUNDARY.finditer(asked, found.end)), len(asked))
    stop = min([stop, *(m.start for m in mine if m.start >= found.end)])
    following = _WORD.findall(asked[found.end : stop])
    if _PERCENT.match(found.text[-1:] + asked[found.end : stop]):
        # "20% of my monthly pay" labels 20 "percent of my monthly pay": the pay is not the 20
        rest = following[1:] if following[:1] and following[0].lower() in ("percent", "per") else following
        rest = rest[1:] if rest[:1] and rest[0].lower() == "cent" else rest
        return " ".join([*([] if shown_as_percent else ["percent"]), *rest][:MAX_LABEL_WORDS])
    before = [w for w in _WORD.findall(asked[start : found.start]) if w.lower() not in _FILLER]
    after = [w for w in following if w.lower() not in _FILLER]
    words = before[-4:] + after[: MAX_LABEL_WORDS - min(4, len(before))]
    return " ".join(words[:MAX_LABEL_WORDS])
