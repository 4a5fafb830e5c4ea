"""A calculation that works nothing out, made after a tool has fetched the data.

Qwen2.5-Coder-1.5B, asked "How many lines in server.log are ERROR lines?", read the log and then
sent the calculator ``15 - 5``, ``10 - 5``, ``5 - 5`` ... until the turn's step limit; asked to
count a file's lines it sent ``13 + 13``, ``26 - 26``, ``0 + 0``. Its data was in hand (and the
count in the app's note); the calculator was all it could think to call. Four of 51 real tasks
ended that way (docs/benchmarks.md). Such a call is not run, and the turn goes on without the
calculator: the model answers from what it read, or makes the call the task still needs.

Only after a call of another tool worked: a word problem's ``5 - 5`` ("gave away all 5") is
a step of its own, and a data value doubled is asked for with a multiplication. Idle is: a number
restated (``13``), a number taken from, divided by or added to itself (``26 - 26``, ``26 / 26``,
``13 + 13``), a number left as it is (``15.74 + 0``, ``9 * 1``), nothing but zeros, a calculation
made before, and the last calculation's step applied again to its own result (``34 - 1 - 1`` then
``32 - 1 - 1``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from fractions import Fraction

from app.core.calculator_text import without_note

_NUMBER = r"-?\d+(?:\.\d+)?"
_OPERATOR = re.compile(r"[-+*/%^]")
_SELF = re.compile(rf"^\s*\(?\s*({_NUMBER})\s*\)?\s*([-/+])\s*\(?\s*({_NUMBER})\s*\)?\s*$")
_TAKEN = {
    "-": "takes a number from itself",
    "/": "divides a number by itself",
    "+": "adds a number to itself",
}
_LEADING = re.compile(rf"^\s*\(?\s*({_NUMBER})")


def idle_reason(formula: str, earlier: Sequence[tuple[str, str]]) -> str:
    """Why ``formula`` (as the calculator takes it) works nothing out, given the turn's earlier
    calculations as (formula, result); "" when it does work something out."""
    written = " ".join(formula.split())
    numbers = re.findall(_NUMBER, written)
    if not numbers:
        return ""
    if not _OPERATOR.search(written.lstrip("(+- ")):
        return f"{written} only restates a number"
    if all(Fraction(n) == 0 for n in numbers):
        return f"{written} calculates nothing but zeros"
    taken = _SELF.match(written)
    if taken and Fraction(taken[1]) == Fraction(taken[3]):
        return f"{written} {_TAKEN[taken[2]]}"
    same = _unchanged(written)
    if same is not None:
        return f"{written} leaves {same} as it is"
    for before, _result in earlier:
        if " ".join(before.split()) == written:
            return f"{written} was already calculated"
    if earlier:
        before, result = earlier[-1]
        if _again(" ".join(before.split()), without_note(result).strip(), written):
            return f"{written} repeats the last step on its own result"
    return ""


def overused(formula: str, sources: Sequence[str]) -> str:
    """Why ``formula`` adds a value of the data into a sum and also multiplies or divides by it,
    where the data holds it fewer times than it is used; or "". With the day counts in hand, the
    1.5B model sent ``((120 + 95 + 143 + ...) / 7) * 143`` for their mean: 143 was one day's count.
    A price used in several products (``2 * 2.40 + 3 * 2.40``) is no such thing, nor is a value
    under 10: 2 or 7 may be a count of its own."""
    written = " ".join(formula.split())
    roles: dict[Fraction, list[tuple[str, str]]] = {}
    for found in re.finditer(_NUMBER, written):
        role = _role(written[: found.start()], written[found.end() :])
        roles.setdefault(abs(Fraction(found[0])), []).append((found[0].lstrip("-"), role))
    held = [abs(Fraction(n)) for text in sources for n in re.findall(_NUMBER, without_note(text))]
    for value, uses in roles.items():
        count, kinds = held.count(value), {role for _, role in uses}
        if value >= 10 and 0 < count < len(uses) and {"sum", "scale"} <= kinds:
            return (
                f"{written} uses {uses[0][0]} {_times(len(uses))}, and what was read holds it {_times(count)}"
            )
    return ""


def _role(before: str, after: str) -> str:
    """How a number stands in a formula: "sum" (a term added), "scale" (multiplied or divided)."""
    left, right = before.rstrip()[-1:], after.lstrip()[:1]
    return "scale" if (left and left in "*/") or (right and right in "*/") else "sum"


def _times(count: int) -> str:
    return {1: "once", 2: "twice"}.get(count, f"{count} times")


_PAIR = re.compile(rf"^\s*\(?\s*({_NUMBER})\s*\)?\s*([-+*/])\s*\(?\s*({_NUMBER})\s*\)?\s*$")


def _unchanged(written: str) -> str | None:
    """The number a step leaves as it was: plus or minus zero, times or divided by one (the 1.5B
    model, its total of 15.74 in hand, sent ``add(15.74, 0.00)``)."""
    pair = _PAIR.match(written)
    if pair is None:
        return None
    first, op, second = Fraction(pair[1]), pair[2], Fraction(pair[3])
    if (op in "+-" and second == 0) or (op in "*/" and second == 1):
        return pair[1]
    if (op == "+" and first == 0) or (op == "*" and first == 1):
        return pair[3]
    return None


def _again(before: str, result: str, written: str) -> bool:
    """``written`` is ``before``'s step with ``before``'s first number swapped for its result."""
    first = _LEADING.match(before)
    now = _LEADING.match(written)
    if first is None or now is None or not re.fullmatch(_NUMBER, result):
        return False
    if Fraction(now[1]) != Fraction(result):
        return False
    return before[first.end() :].strip() == written[now.end() :].strip() != ""
