"""The worked answer: how a capable model reads a story in Calculon mode, and shows its work.

Measured on public problems others wrote (docs/benchmarks.md), a 1.5B model that writes one
expression for a whole story is right on simple stories and wrong on most of several steps;
thinking aloud, as it was trained to, it is right more often, but then does its own
arithmetic. So it thinks aloud and the calculator does the arithmetic: each calculation is an
expression followed by "=", the calculator's result is written after it, and the model goes on
from there. Every number in the working is the user's, a tool's, or named by the user's words
(:mod:`app.calculon.implied`).

The worked examples are four problems of GSM8K's train split (MIT licence; docs/data.md), their
solutions rewritten in this form, and one of our own for a remainder; SVAMP and ASDiv, on which
Calculon is checked, are never shown.
"""

from __future__ import annotations

import re

from app.calculon.implied import implied_numbers, plain_number
from app.calculon.output import APPROX, ROUNDING_NOTE
from app.calculon.transcript import names_an_operation
from app.core.backend import WorkedAnswer
from app.core.numbers import find_numbers

INSTRUCTION = (
    "You are Calculon. Work the problem out in a few short sentences. Write each calculation as an "
    "expression over the problem's numbers or earlier results, then '='; the calculator writes the "
    "result after the '=', and you go on from it. Never write a result yourself. Use // and % for "
    "whole groups and what is left over. End with 'Answer:' and the result."
)

EXAMPLES: tuple[tuple[str, str], ...] = (
    (  # GSM8K train 6565
        "Gnuff charges a flat rate of $20 per tutoring session plus $7 per minute. The total amount "
        "paid for Gnuff for tutoring for one session is $146. How many minutes did Gnuff tutor for?",
        "The per-minute fees came to 146 - 20 = 126 dollars. At 7 dollars a minute, that is 126 / 7 = 18 "
        "minutes. Answer: 18",
    ),
    (  # GSM8K train 6045
        "Billy has $25 less than twice the money Sam has. If Sam has $75, how much money do they have "
        "together?",
        "Billy has 2 * 75 - 25 = 125 dollars. Together they have 75 + 125 = 200 dollars. Answer: 200",
    ),
    (  # GSM8K train 2738
        "Marj has two $20 bills, three $5 bills, and $4.50 in loose coins in her wallet. If she buys a cake "
        "that costs $17.50, how much money will be left in her wallet?",
        "Her bills and coins come to 2 * 20 + 3 * 5 + 4.50 = 59.5 dollars. After the cake she has "
        "59.5 - 17.50 = 42 dollars. Answer: 42",
    ),
    (  # GSM8K train 1151
        "Kobe and Pau went to a restaurant. Kobe ordered five pieces of fried chicken, and Pau ordered twice "
        "as much fried chicken as Kobe did. If they order another set of fried chicken, how many pieces of "
        "fried chicken will Pau have eaten in all?",
        "Pau ordered 5 * 2 = 10 pieces. With another set he eats 10 * 2 = 20 pieces in all. Answer: 20",
    ),
    (  # our own: whole groups and a remainder
        "A baker has 29 rolls and packs them in bags of 3. How many full bags can she fill, and how many "
        "rolls are left over?",
        "She fills 29 // 3 = 9 full bags, and 29 % 3 = 2 rolls are left over. Answer: 9 full bags, 2 rolls "
        "left over",
    ),
)
INLINE_DIGITS = 4  # decimals of an inexact result as the working writes it ("≈ 9.6667")
# What the converter or the clock answers in one call, not a story to work out.
_OTHER_TOOL = re.compile(
    r"\b(?:convert|conversion|what time is it|time zones?|timezone|utc|gmt|o'clock|clock)\b"
    r"|\bin (?:km|kilometers|kilometres|miles|meters|metres|feet|inches|cm|celsius|fahrenheit|kelvin)\b",
    re.IGNORECASE,
)


def worked_answer(asked: str, inserted: tuple[str, ...] = ()) -> WorkedAnswer | None:
    """The worked format for ``asked``, where it asks for a calculation: a number (in digits or
    words) or an operation named, and not a conversion or a clock's question, which the converter
    or the clock answer in one call."""
    if _OTHER_TOOL.search(asked) or not (find_numbers(asked) or names_an_operation(asked)):
        return None
    numbers = tuple(plain_number(value) for value, _ in implied_numbers(asked))
    return WorkedAnswer(INSTRUCTION, EXAMPLES, numbers, inserted)


def inline_result(result: str, is_error: bool = False) -> str:
    """How the calculator's result stands after the working's "=": "= 126", "≈ 9.6667", or why not."""
    if is_error:
        return f"= (the calculator could not: {' '.join(result.split())[:120]})"
    if APPROX in result:
        shown = ROUNDING_NOTE.sub("", result.split(APPROX, 1)[1]).strip()
        return f"≈ {_rounded(shown)}"
    return f"= {' '.join(result.split())}"


def _rounded(decimal: str) -> str:
    match = re.fullmatch(r"(-?\d+)(?:\.(\d+))?", decimal)
    if match is None or not match.group(2) or len(match.group(2)) <= INLINE_DIGITS:
        return decimal
    return f"{float(decimal):.{INLINE_DIGITS}f}".rstrip("0").rstrip(".")
