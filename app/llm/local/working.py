"""The calculation a worked answer wrote just before its "=", read back for the calculator.

"Two $20 bills amount to $20 x 2 " ends with ``20 * 2``; "3 pots x 4 leaves/pot " with ``3 * 4``:
the last clause's run of numbers, operators and brackets, where a few words right after a number
are its unit and are left out. Money signs and thousands commas are dropped, "x" and "×" multiply.
Words anywhere else end the run: "the cost " holds no calculation, and neither does "3 apples and
4 pears " (two numbers, no operator).
"""

from __future__ import annotations

import re

_CLAUSE_END = re.compile(r"[.;:!?,](?!\d)|\n")  # not the point of 4.50 or the comma of 1,000
_TOKEN = re.compile(
    r"(?P<num>[$€£]?\d{1,3}(?:,\d{3})+(?:\.\d+)?|[$€£]?\d+(?:\.\d+)?%?)"
    r"|(?P<op>//|[-+*/×÷%]|(?<![\w])x(?![\w]))"
    r"|(?P<paren>[()])"
    r"|(?P<word>[^\W\d_][\w'’/-]*)"
)
MAX_UNIT_WORDS = 3


def expression_before(text: str) -> str:
    """The expression ``text`` ends with, as the calculator's ``evaluate`` takes it; "" if none."""
    clause = _CLAUSE_END.split(text)[-1]
    tokens = [(m.lastgroup or "", m.group()) for m in _TOKEN.finditer(clause)]
    kept = _without_units(tokens)
    run: list[tuple[str, str]] = []
    for kind, value in reversed(kept):
        if kind == "word":
            break
        run.append((kind, value))
    run.reverse()
    run = _from_last_gap(run)
    while run and run[0][0] == "op" and run[0][1] not in "-(":
        run.pop(0)  # "...and then + 3 =" reads from the first operand
    return _written(run)


def _without_units(tokens: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Drop up to a few words straight after a number or a closing bracket: its unit."""
    kept: list[tuple[str, str]] = []
    words_after = -1  # words since the last number; -1: not after a number
    for kind, value in tokens:
        if kind == "word" and value.lower() == "of" and kept and kept[-1][1].endswith("%"):
            kept.append(("op", "*"))  # "20% of 80"
            words_after = -1
            continue
        if kind == "word" and 0 <= words_after < MAX_UNIT_WORDS:
            words_after += 1
            continue
        words_after = 0 if kind == "num" or value == ")" else -1
        kept.append((kind, value))
    return kept


def _from_last_gap(run: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The run after its last two numbers with no operator between them: "15 tickets cost $51 x
    15" lost its words as the first number's unit, and "15 51 * 15" is no calculation."""
    start = 0
    for index in range(1, len(run)):
        before, here = run[index - 1], run[index]
        if (here[0] == "num" or here[1] == "(") and (before[0] == "num" or before[1] == ")"):
            start = index
    return run[start:]


def _written(run: list[tuple[str, str]]) -> str:
    numbers = sum(1 for kind, _ in run if kind == "num")
    operators = sum(1 for kind, _ in run if kind == "op")
    if numbers < 2 or not operators or not run or run[-1][0] == "op":
        return ""
    parts = [_plain(kind, value) for kind, value in run]
    text = " ".join(parts).replace("( ", "(").replace(" )", ")")
    if text.count("(") != text.count(")"):
        text = text.replace("(", "").replace(")", "")  # an unmatched bracket left of the clause
    return text


def _plain(kind: str, value: str) -> str:
    if kind == "num":
        return re.sub(r"[$€£,]", "", value)
    return {"x": "*", "×": "*", "÷": "/"}.get(value, value)
