"""The calculation a worked answer wrote just before its "=", read back for the calculator.

"Her bills come to 2 * $20 + 3 * $5 + $4.50 " ends with ``2 * 20 + 3 * 5 + 4.50``: the longest
run of numbers, operators and brackets at the end of the text, with at least one operator between
two numbers. Money signs and thousands commas are dropped, "x" and "×" multiply, brackets are
balanced by dropping the unmatched ones at its left edge. Words end the run: "$126 per minute ="
holds no calculation.
"""

from __future__ import annotations

import re

_TAIL = re.compile(r"(?:[\d.$€£()%+\-*/×÷]|\s|(?<=\d),(?=\d{3})|(?<=\s)[x×](?=\s))+$")
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
_OPERATOR = re.compile(r"//|[-+*/%×÷]|(?<=\s)x(?=\s)")


def expression_before(text: str) -> str:
    """The expression ``text`` ends with, as the calculator's ``evaluate`` takes it; "" if none."""
    match = _TAIL.search(text)
    if match is None:
        return ""
    run = _balanced(match.group().strip().lstrip("+-*/×÷%) "))
    cleaned = re.sub(r"[$€£]|(?<=\d),(?=\d{3})", "", run)
    cleaned = re.sub(r"(?<=\s)x(?=\s)|×", "*", cleaned).replace("÷", "/")
    cleaned = " ".join(cleaned.split())
    numbers = _NUMBER.findall(cleaned)
    if len(numbers) < 2 or not _OPERATOR.search(_NUMBER.sub(" ", cleaned)):
        return ""
    if not re.search(r"[\d)%]$", cleaned):
        return ""
    return cleaned


def _balanced(run: str) -> str:
    """Drop unmatched brackets from the left ("2) + 3" -> "2 + 3" is not meant: "(2 + 3" -> "2 + 3")."""
    while run.count("(") > run.count(")") and "(" in run:
        run = run.replace("(", "", 1)
    while run.count(")") > run.count("("):
        index = run.rfind(")")
        if not run[index + 1 :].strip():
            run = run[:index]
        else:
            break
    return run.strip() if run.count("(") == run.count(")") else ""
