"""The calculator's result as the answer, where the model's answer states no number.

Asked how many degrees apart a high of 27 and a low of 18 are, Qwen2.5-Coder-1.5B called
subtract(27, 18), got 9, and then answered with a plan written as JSON; asked what 6 users of a
$15 plan cost, it ran 15 * 6 and answered "we need to multiply the cost per user by the number of
users". Both were asked again, and wrote no number again. The number the person asked for was in
hand, worked out by the calculator: the app states it, as the calculation, rather than show an
answer that holds none (the model's text stays in the trace).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from app.calculon.formula import result_line
from app.calculon.verdict import ARITHMETIC_TOOLS, asks_to_calculate
from app.core.named import without_names, without_quoted_words
from app.core.numbers import find_numbers
from app.core.records import CallRecord


def stated_result(answer: str, asked: str, calls: Sequence[CallRecord]) -> str:
    """``27 − 18 = 9``, the turn's last calculation that worked, where ``answer`` holds no number
    outside its code and ``asked`` wants one worked out; "" otherwise."""
    if find_numbers(without_names(prose(answer))) or not asks_to_calculate(
        without_quoted_words(without_names(asked))
    ):
        return ""
    last = next((c for c in reversed(calls) if not c.is_error and _calculates(c)), None)
    return result_line(last) if last is not None else ""


def _calculates(call: CallRecord) -> bool:
    return call.tool.rsplit(".", 1)[-1] in ARITHMETIC_TOOLS


# Code in an answer is a plan, not a statement: asked the temperature range after subtract(27, 18)
# gave 9, the 1.5B model answered with the calls written as JSON in a fence, "50.  // Maximum
# length" among them; the number asked for was nowhere, and the 50 made the answer "unverified".
_CODE = re.compile(r"```.*?(?:```|\Z)|`[^`\n]*`", re.DOTALL)


def prose(answer: str) -> str:
    """``answer`` without its code: fenced blocks (an unclosed one to the end) and inline code."""
    return _CODE.sub(" ", answer)
