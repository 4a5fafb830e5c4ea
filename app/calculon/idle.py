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

from app.calculon.output import without_note

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
