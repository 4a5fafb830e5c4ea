"""The worked answer: how a capable model reads a story in Calculon mode, and shows its work.

Measured on public problems others wrote (docs/benchmarks.md), a 1.5B model that writes one
expression for a whole story is right on simple stories and wrong on most of several steps;
thinking aloud, as it was trained to, it is right more often, but then does its own
arithmetic. So it thinks aloud and the calculator does the arithmetic: each calculation is an
expression followed by "=", the calculator's result is written after it, and the model goes on
from there. The check then holds every number of the working to the user's words, the tools'
results and the numbers the words name (:mod:`app.calculon.implied`); decoding is left free,
since holding the working's digits to those in the grammar cost it a third of its right answers
(14 of 30 against 19; docs/benchmarks.md).

The worked examples are four problems of GSM8K's train split (MIT licence; docs/data.md) with
their own solutions; SVAMP and ASDiv, on which Calculon is checked, are never shown.
A division that leaves a remainder, where the question asks for whole groups or what is left
over, is written with both ("= 9.6667: 9 whole, 2 left over"), so the answer can state them.
"""

from __future__ import annotations

import re

from app.calculon.deed import instructs_a_change
from app.calculon.implied import implied_numbers, plain_number
from app.calculon.phrased import FILLS, NEEDS
from app.calculon.transcript import conversion, names_an_operation
from app.core.backend import WorkedAnswer
from app.core.calculator_text import APPROX, ROUNDING_NOTE
from app.core.numbers import find_numbers

INSTRUCTION = (
    "Solve the problem in a few short steps. Write each calculation as 'expression =' and the "
    "calculator writes its result. End with 'Answer: <number>'."
)

# GSM8K's own worked solutions (train split), its <<calculator>> notes taken out, and each
# calculation cut to one "=": "$126 / $7 per minute = 18" and "= $150 - $25 = $125" were a
# result the model would write itself. Rewritten in Calculon's voice, the same problems were
# solved less often (14 of 30 against 19, on GSM8K train problems; docs/benchmarks.md).
EXAMPLES: tuple[tuple[str, str], ...] = (
    (  # GSM8K train 6565
        "Gnuff charges a flat rate of $20 per tutoring session plus $7 per minute. The total amount "
        "paid for Gnuff for tutoring for one session is $146. How many minutes did Gnuff tutor for?",
        "First find the amount paid just for the per-minute fee, which is $146 - $20 = $126. Then divide "
        "that number by the per-minute rate to find the number of minutes: $126 / $7 = 18 minutes. "
        "Answer: 18",
    ),
    (  # GSM8K train 6045
        "Billy has $25 less than twice the money Sam has. If Sam has $75, how much money do they have "
        "together?",
        "Billy has $25 less than twice Sam's money, or 2 * $75 - $25 = $125. Together they have "
        "$75 + $125 = $200. Answer: 200",
    ),
    (  # GSM8K train 2738
        "Marj has two $20 bills, three $5 bills, and $4.50 in loose coins in her wallet. If she buys a cake "
        "that costs $17.50, how much money will be left in her wallet?",
        "Two $20 bills amount to $20 x 2 = $40. Three $5 bills amount to $5 x 3 = $15. So, Marj has "
        "$40 + $15 + $4.50 = $59.50 in her wallet. If she buys a cake, she will be left with "
        "$59.50 - $17.50 = $42. Answer: 42",
    ),
    (  # GSM8K train 1151
        "Kobe and Pau went to a restaurant. Kobe ordered five pieces of fried chicken, and Pau ordered twice "
        "as much fried chicken as Kobe did. If they order another set of fried chicken, how many pieces of "
        "fried chicken will Pau have eaten in all?",
        "Pau ordered 5 x 2 = 10 fried chickens in total. Therefore, Pau ate 10 x 2 = 20 pieces of fried "
        "chicken. Answer: 20",
    ),
)
INLINE_DIGITS = 4  # decimals of an inexact result as the working writes it ("≈ 9.6667")
# What the converter or the clock answers in one call, not a story to work out.
_OTHER_TOOL = re.compile(
    r"\b(?:convert|conversion|what time|time zones?|timezone|utc|gmt|o'clock|clock)\b"
    r"|\bin (?:km|kilometers|kilometres|miles|meters|metres|feet|inches|cm|celsius|fahrenheit|kelvin)\b",
    re.IGNORECASE,
)


def worked_answer(asked: str, inserted: tuple[str, ...] = ()) -> WorkedAnswer | None:
    """The worked format for ``asked``, where it asks for a calculation on numbers it gives: two
    or more (in digits, in words or named, as "twice" or "a dozen"), and not a conversion or a
    clock's question, which the converter or the clock answer in one call.

    A question whose numbers are somewhere else ("How many lines does notes.txt have?", "Add up
    the prices in prices.csv") is not worked: the working can only call the calculator, and
    those numbers come from another tool first (0 of 21 such tasks got done while it was).
    """
    given = [m for m in find_numbers(asked) if not m.exempt]  # "one per line", "the 3rd": no amounts
    # a conversion has one number, though its unit may name another ("feet": 12 inches)
    if _OTHER_TOOL.search(asked) or conversion(asked) is not None or not (given or names_an_operation(asked)):
        return None
    if instructs_a_change(asked):  # "Add a product ..., priced 19.99, to the products table": a deed
        return None
    numbers = tuple(plain_number(value) for value, _ in implied_numbers(asked))
    if len(given) + len(numbers) < 2:
        return None
    return WorkedAnswer(INSTRUCTION, EXAMPLES, numbers, inserted)


def inline_result(result: str, is_error: bool = False, asked: str = "", expression: str = "") -> str:
    """How the calculator's result stands after the working's "=": "= 126", "≈ 9.6667", or why not;
    a whole-number division with a remainder, where ``asked`` wants whole groups, with both parts."""
    if is_error:
        return f"= (the calculator could not: {' '.join(result.split())[:120]})"
    if APPROX in result:
        shown = f"≈ {_rounded(ROUNDING_NOTE.sub('', result.split(APPROX, 1)[1]).strip())}"
    else:
        shown = f"= {' '.join(result.split())}"
    return shown + whole_groups(asked, expression)


_WHOLE = re.compile(
    rf"\b(?:full|whole|complete|left ?over|remain(?:s|ing|der)?|left)\b|{FILLS}|{NEEDS}", re.IGNORECASE
)
_NEEDS = re.compile(NEEDS, re.IGNORECASE)
_DIVISION = re.compile(r"^\s*(\d+)\s*/\s*(\d+)\s*$")


def whole_groups(asked: str, expression: str) -> str:
    """ ": 9 whole, 2 left over" for ``29 / 3`` where ``asked`` wants whole groups; else ""."""
    match = _DIVISION.match(expression)
    if match is None or not _WHOLE.search(asked):
        return ""
    whole, left = divmod(int(match.group(1)), int(match.group(2)) or 1)
    if not left:
        return ""
    if _NEEDS.search(asked):  # "how many packs do I need": the rest needs one more
        return f": {whole} full, {left} left over, so {whole + 1} to hold them all"
    return f": {whole} whole, {left} left over"


def _rounded(decimal: str) -> str:
    match = re.fullmatch(r"(-?\d+)(?:\.(\d+))?", decimal)
    if match is None or not match.group(2) or len(match.group(2)) <= INLINE_DIGITS:
        return decimal
    return f"{float(decimal):.{INLINE_DIGITS}f}".rstrip("0").rstrip(".")
