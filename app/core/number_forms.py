"""The written forms of a number: what Calculon mode lets a local model write for a value
(:mod:`app.llm.local.backed`) and how a formula writes a story's numbers
(:mod:`app.calculon.candidates`). The checker (:mod:`app.calculon.provenance`) accepts every
form here: an exact decimal, a correct rounding (half-up or half-even on a tie), digit groups.
"""

from __future__ import annotations

from decimal import ROUND_HALF_EVEN, ROUND_HALF_UP, Decimal, localcontext
from fractions import Fraction
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from app.core.numbers import Mention

MAX_DIGITS = 400  # a longer number is not offered: no one copies it from a chat, and the grammar grows
ROUNDED_PLACES = 6  # a number with more decimals may also be written rounded to 0..6 places


def exact_forms(value: Fraction) -> set[str]:
    """``value`` as a plain decimal, when it has a finite one of reasonable length."""
    if value.denominator == 1:
        text = str(value.numerator)
        return {text} if len(text) <= MAX_DIGITS else set()
    with localcontext() as ctx:
        ctx.prec = MAX_DIGITS
        exact = Decimal(value.numerator) / Decimal(value.denominator)
        return {_plain(exact)} if Fraction(exact) == value else set()


def mention_forms(mention: Mention) -> frozenset[str]:
    """Every exact written form of what a number in the user's words offers."""
    return frozenset(f for value in mention.values() for f in exact_forms(value))


def rounded_forms(value: Fraction) -> set[str]:
    """Correct roundings of ``value`` to 0..ROUNDED_PLACES decimals (half-up and half-even
    on a tie, as the checker accepts), never a rounding to zero."""
    if value.denominator == 1:
        return set()
    forms: set[str] = set()
    with localcontext() as ctx:
        ctx.prec = MAX_DIGITS
        exact = Decimal(value.numerator) / Decimal(value.denominator)
        for shown in range(ROUNDED_PLACES + 1):
            unit = Decimal(1).scaleb(-shown)
            forms.update(_plain(exact.quantize(unit, mode)) for mode in (ROUND_HALF_UP, ROUND_HALF_EVEN))
    return {f for f in forms if Decimal(f) != 0 and len(f) <= MAX_DIGITS and Fraction(Decimal(f)) != value}


def _plain(number: Decimal) -> str:
    return format(number, "f")


def grouped(form: str) -> str:
    sign, _, digits = form.rpartition("-")
    whole, dot, decimals = digits.partition(".")
    if len(whole) <= 4 or "," in whole:  # 1234 is as common as 1,234; "81,000" is grouped already
        return form
    return f"{sign}{int(whole):,}{dot}{decimals}"
