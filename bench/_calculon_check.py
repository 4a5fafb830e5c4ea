"""The Calculon bench's own judge: which numbers are unbacked, and whether an answer is right.

Deliberately separate from :mod:`app.calculon.provenance`: in answers, plain digit numbers
only, read with one regular expression, matched exactly or as a half-up/half-even rounding;
in sources also cardinals written as words ("thirty-five"), read by its own small reader. It is
a floor on leaks (an answer's number words are not read), not a second proof.
"""

from __future__ import annotations

import re
from decimal import ROUND_HALF_EVEN, ROUND_HALF_UP, Decimal, localcontext
from fractions import Fraction

_DIGITS = re.compile(r"(?<![\w.])(-|−)?(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(\s?%)?")
_SOURCE_FRACTION = re.compile(r"(?<![\w.])(\d+)/(\d+)")
_NOT_RESULTS = re.compile(r"^\s*\d+[.)]\s|step\s+\d+|\d+(?:st|nd|rd|th)\b", re.IGNORECASE | re.MULTILINE)
_CALC_NOTE = re.compile(r"\(rounded to \d+ significant digits\)")


def _numbers(text: str) -> list[tuple[str, Decimal, bool]]:
    """(as written, value, has a percent sign) for each plain digit number."""
    found = []
    for match in _DIGITS.finditer(text):
        sign, whole, decimals, percent = match.groups()
        value = Decimal((whole + (decimals or "")).replace(",", ""))
        found.append((match.group().strip(), -value if sign else value, bool(percent)))
    return found


_UNITS = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
]
_TENS = ["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
_WORD_VALUES = {w: i for i, w in enumerate(_UNITS)} | {w: 20 + 10 * i for i, w in enumerate(_TENS)}
_WORD_RUN = re.compile(r"[a-z]+(?:[\s-]+(?:and[\s-]+)?[a-z]+)*", re.IGNORECASE)


def _word_values(text: str) -> set[Fraction]:
    """Cardinals written as words in a source ("twelve", "thirty-five", "one hundred", "a dozen"):
    the user's numbers too, read here apart from the app's own reader."""
    found: set[Fraction] = set()
    for run in _WORD_RUN.finditer(text.lower()):
        total = current = 0
        seen = False
        for word in re.split(r"[\s-]+", run.group()):
            if word in _WORD_VALUES:
                current, seen = current + _WORD_VALUES[word], True
            elif word in ("hundred", "thousand") and seen:
                current *= 100 if word == "hundred" else 1000
                if word == "thousand":
                    total, current = total + current, 0
            elif word == "dozen":
                current, seen = (current or 1) * 12, True
            elif word != "and" and seen:
                found.add(Fraction(total + current))
                total = current = 0
                seen = False
        if seen:
            found.add(Fraction(total + current))
    return found


def _source_values(sources: list[str]) -> set[Fraction]:
    values: set[Fraction] = set()
    for text in sources:
        values.update(_word_values(text))
    for text in (_CALC_NOTE.sub("", s) for s in sources):
        values.update(Fraction(v) for _, v, _ in _numbers(text))
        values.update(Fraction(v) / 100 for _, v, percent in _numbers(text) if percent)
        values.update(Fraction(int(a), int(b)) for a, b in _SOURCE_FRACTION.findall(text) if int(b))
    return values


def _rounds_to(source: Fraction, shown: Decimal) -> bool:
    if shown == 0:
        return source == 0
    unit = Decimal(1).scaleb(shown.as_tuple().exponent)  # type: ignore[arg-type]
    with localcontext() as ctx:
        ctx.prec = 1000
        exact = Decimal(source.numerator) / Decimal(source.denominator)
        return any(exact.quantize(unit, rounding) == shown for rounding in (ROUND_HALF_UP, ROUND_HALF_EVEN))


def _backed(value: Decimal, percent: bool, sources: set[Fraction]) -> bool:
    candidates = [value, value / 100] if percent else [value]
    return any(Fraction(c) in sources or any(_rounds_to(s, c) for s in sources) for c in candidates)


def independent_unbacked(answer: str, sources: list[str]) -> list[str]:
    """Digit numbers in ``answer`` that no source holds, exactly or correctly rounded."""
    values = _source_values(sources)
    answer = _NOT_RESULTS.sub(" ", answer)
    # The calculator's note on a rounded result, copied as it stands in a result, says how the
    # result was rounded; it claims no number. A note that no result holds is still checked.
    copied = {note for source in sources for note in _CALC_NOTE.findall(source)}
    answer = _CALC_NOTE.sub(lambda m: " " if m.group() in copied else m.group(), answer)
    return [text for text, value, percent in _numbers(answer) if not _backed(value, percent, values)]


def holds(answer: str, expected: Fraction) -> bool:
    """Whether the answer states the true result, exactly or correctly rounded."""
    return any(Fraction(v) == expected or _rounds_to(expected, v) for _, v, _ in _numbers(answer))


_NO_ANSWER = re.compile(
    r"undefined|not defined|cannot|can't|can not|impossible|not possible|no answer|division by zero"
    r"|divide by zero|dividing by zero|modulo by zero|has no value|infinit|error",
    re.IGNORECASE,
)


def states_result(answer: str, expected: Fraction, question: str) -> bool:
    """Whether the answer gives the true result as a result, not just by restating an operand:
    the numbers it adds to the question must include the result, exactly or correctly rounded;
    when the result is itself one of the question's numbers, the last number must be it."""
    given = {Fraction(v) for _, v, _ in _numbers(question)}
    shown = [v for _, v, _ in _numbers(answer)]
    fits = [Fraction(v) == expected or _rounds_to(expected, v) for v in shown]
    new = [fit for v, fit in zip(shown, fits, strict=True) if Fraction(v) not in given]
    if expected in given:
        return bool(fits) and fits[-1]
    return any(new)


def says_impossible(answer: str) -> bool:
    return bool(_NO_ANSWER.search(answer))
