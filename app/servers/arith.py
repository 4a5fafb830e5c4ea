"""Bounded exact arithmetic on Fractions for the bundled servers.

Every operation that can grow its result checks the size first (or right
after, when that is cheap), so no request can hang the server or eat its
memory. Irrational results (square roots, fractional powers) come back as
decimals rounded to :data:`~app.servers.exact.PRECISION` significant digits.
"""

from __future__ import annotations

import math
from decimal import Decimal, localcontext
from fractions import Fraction

from app.servers.exact import (
    MAX_RESULT_DIGITS,
    PRECISION,
    CalcError,
    Result,
    describe,
    fraction_text,
    int_text,
    rounded,
)

_LOG10_2 = math.log10(2)


def digits_of(value: Fraction) -> int:
    """About how many decimal digits the numerator and denominator hold together."""
    bits = abs(value.numerator).bit_length() + value.denominator.bit_length()
    return int(bits * _LOG10_2) + 1


def checked(value: Fraction) -> Fraction:
    if digits_of(value) > MAX_RESULT_DIGITS:
        raise CalcError(
            f"the result is too large: about {digits_of(value)} digits (limit {MAX_RESULT_DIGITS})"
        )
    return value


def divide(a: Fraction, b: Fraction) -> Fraction:
    if b == 0:
        raise CalcError("division by zero")
    return checked(a / b)


def modulo(a: Fraction, b: Fraction) -> Fraction:
    """The remainder of a / b, taking the sign of b (as Python's %)."""
    if b == 0:
        raise CalcError("modulo by zero")
    return checked(a % b)


def int_power(base: Fraction, exponent: int) -> Fraction:
    """base ** exponent for a whole exponent, refused before computing if the result would be too big."""
    if base == 0 and exponent < 0:
        raise CalcError("division by zero: 0 raised to a negative power")
    if base in (0, 1) or exponent == 0:
        return base**exponent
    if base == -1:
        return Fraction(-1 if exponent % 2 else 1)
    _refuse_if_huge(abs(exponent) * (math.log10(abs(base.numerator)) + math.log10(base.denominator)))
    return checked(base**exponent)


def power(base: Fraction, exponent: Fraction) -> Result:
    """base ** exponent; exact unless the exponent is a fraction whose root is irrational."""
    if exponent.denominator == 1:
        return describe(int_power(base, int(exponent)))
    p, q = exponent.numerator, exponent.denominator
    if base < 0 and q % 2 == 0:
        raise CalcError(f"{fraction_text(base)} to the power {fraction_text(exponent)} is not a real number")
    sign = -1 if base < 0 and p % 2 else 1
    root = exact_root(abs(base), q)
    if root is not None:
        return describe(sign * int_power(root, p))
    return rounded(sign * _irrational_power(abs(base), exponent))


def _irrational_power(base: Fraction, exponent: Fraction) -> Decimal:
    """base ** exponent for base > 0, through decimal with ten guard digits."""
    magnitude = math.log10(base.numerator) - math.log10(base.denominator)
    _refuse_if_huge(abs(exponent) * abs(magnitude))
    with localcontext() as ctx:
        ctx.prec = PRECISION + 10
        value = (Decimal(base.numerator) / base.denominator) ** (
            Decimal(exponent.numerator) / exponent.denominator
        )
        ctx.prec = PRECISION
        return ctx.plus(value)


def square_root(x: Fraction) -> Result:
    if x < 0:
        raise CalcError("the square root of a negative number is not a real number")
    root = exact_root(x, 2)
    return describe(root) if root is not None else rounded(_irrational_sqrt(x))


def _irrational_sqrt(x: Fraction) -> Decimal:
    """sqrt(x) correctly rounded, for x whose square root is irrational.

    Take floor(sqrt(x) * 10**shift) with more digits than needed, then append a
    sticky 1: the true value lies strictly between that floor and the next
    integer, and so does the padded one, so both round the same way.
    """
    estimate = (math.log10(x.numerator) - math.log10(x.denominator)) / 2
    shift = PRECISION + 3 - math.floor(estimate)
    if shift >= 0:
        floor_root = math.isqrt(x.numerator * 10 ** (2 * shift) // x.denominator)
    else:
        floor_root = math.isqrt(x.numerator // (x.denominator * 10 ** (-2 * shift)))
    with localcontext() as ctx:
        ctx.prec = PRECISION
        return ctx.plus(Decimal(f"{int_text(floor_root)}1E{-shift - 1}"))


def _refuse_if_huge(result_digits: float) -> None:
    if result_digits > MAX_RESULT_DIGITS:
        raise CalcError(
            f"the result is too large: about {int(result_digits)} digits (limit {MAX_RESULT_DIGITS})"
        )


def exact_root(value: Fraction, n: int) -> Fraction | None:
    """The exact non-negative n-th root of value >= 0, or None when it is not rational."""
    top, bottom = _int_root(value.numerator, n), _int_root(value.denominator, n)
    if top**n == value.numerator and bottom**n == value.denominator:
        return Fraction(top, bottom)
    return None


def _int_root(x: int, n: int) -> int:
    """floor(x ** (1/n)) for x >= 0, by Newton's method on integers."""
    if n == 2:
        return math.isqrt(x)
    if x < 2 or x.bit_length() <= n:
        return min(x, 1)
    guess = 1 << -(-x.bit_length() // n)
    while True:
        better = ((n - 1) * guess + x // guess ** (n - 1)) // n
        if better >= guess:
            return guess
        guess = better
