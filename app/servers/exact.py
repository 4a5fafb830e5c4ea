"""Exact numbers for the bundled servers: reading input and writing results.

Everything is a :class:`fractions.Fraction` until it is written out, so
``0.1 + 0.2`` is ``0.3``. Results that have no finite decimal form are given as
a fraction plus a decimal rounded to :data:`PRECISION` significant digits, and
say so. Big integers go through :mod:`decimal` when converted to or from text,
which keeps clear of Python's 4300-digit limit on ``int``/``str`` conversion.
"""

from __future__ import annotations

import dataclasses
import math
import re
from decimal import Decimal, localcontext
from fractions import Fraction
from typing import Any

MAX_INPUT_CHARS = 10_000
MAX_RESULT_DIGITS = 10_000
PRECISION = 28

_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE]([+-]?\d+))?")


class CalcError(ValueError):
    """A request that cannot be computed; the message is written for the caller."""


@dataclasses.dataclass(frozen=True)
class Result:
    """A number ready to hand back: ``value`` is decimal text, exact or rounded.

    ``fraction`` is set when the exact value has no finite decimal form;
    ``precision`` (significant digits) is set whenever ``value`` is rounded.
    """

    value: str
    exact: bool = True
    fraction: str | None = None
    precision: int | None = None

    @property
    def text(self) -> str:
        return self.render()

    def render(self, unit: str = "") -> str:
        """``0.125``, ``1/3 ≈ 0.3333333333333333333333333333 (rounded to 28 significant digits)``."""
        value = f"{self.value} {unit}" if unit else self.value
        if self.exact:
            return value
        exact_form = f"{self.fraction} ≈ " if self.fraction is not None else ""
        return f"{exact_form}{value} (rounded to {self.precision} significant digits)"

    def structured(self) -> dict[str, Any]:
        out: dict[str, Any] = {"value": self.value, "exact": self.exact}
        if self.fraction is not None:
            out["fraction"] = self.fraction
        if self.precision is not None:
            out["precision"] = self.precision
        return out


# --- reading numbers ---------------------------------------------------------


def parse_number(raw: object, name: str = "value") -> Fraction:
    """A JSON number or numeric string (``42``, ``-3.5``, ``1e6``, ``1/3``) as an exact Fraction."""
    if isinstance(raw, bool) or not isinstance(raw, int | float | str):
        raise CalcError(f"{name} must be a number, got {_show(raw)}")
    if isinstance(raw, int):
        return Fraction(raw)
    if isinstance(raw, float):
        if not math.isfinite(raw):
            raise CalcError(f"{name} must be a finite number, got {raw}")
        # repr is the shortest text that round-trips, so a JSON 0.1 means 0.1.
        return decimal_text(repr(raw), name)
    return _parse_numeric_text(raw, name)


def _parse_numeric_text(text: str, name: str) -> Fraction:
    text = text.strip()
    check_length(text, name)
    top, slash, bottom = text.partition("/")
    if not slash:
        return decimal_text(top.strip(), name)
    denominator = decimal_text(bottom.strip(), name)
    if denominator == 0:
        raise CalcError(f"{name} divides by zero: {text!r}")
    return decimal_text(top.strip(), name) / denominator


def decimal_text(text: str, name: str = "value") -> Fraction:
    """Plain decimal text (optional sign, point and exponent) as an exact Fraction."""
    match = _NUMBER.fullmatch(text)
    if match is None:
        raise CalcError(f"{name} must be a number like 42, -3.5, 1e6 or 1/3, got {_show(text)}")
    exponent = match.group(1)
    if exponent is not None and len(exponent.lstrip("+-")) > 6:
        raise CalcError(f"{name} has an exponent that is too large: {_show(text)}")
    number = Decimal(text)
    if number and abs(number.adjusted()) > MAX_RESULT_DIGITS:
        raise CalcError(f"{name} is too large or too small (limit: {MAX_RESULT_DIGITS} digits)")
    return Fraction(number)


def check_length(text: str, name: str) -> None:
    if len(text) > MAX_INPUT_CHARS:
        raise CalcError(f"{name} is too long ({len(text)} characters; the limit is {MAX_INPUT_CHARS})")


def _show(raw: object) -> str:
    text = repr(raw)
    return text if len(text) <= 40 else text[:37] + "..."


# --- writing results ---------------------------------------------------------


def describe(value: Fraction) -> Result:
    """The exact decimal when one exists, else the fraction and a rounded decimal."""
    places = _terminating_places(value.denominator)
    if places is not None and places <= MAX_RESULT_DIGITS:
        return Result(_fixed_point(value, places))
    with localcontext() as ctx:
        ctx.prec = PRECISION
        rounded = Decimal(value.numerator) / Decimal(value.denominator)
    return Result(format(rounded, "f"), False, fraction_text(value), PRECISION)


def rounded(value: Decimal) -> Result:
    """An irrational result, already rounded to PRECISION significant digits."""
    return Result(format(value, "f"), False, None, PRECISION)


def int_text(value: int) -> str:
    return str(Decimal(value))


def fraction_text(value: Fraction) -> str:
    return f"{int_text(value.numerator)}/{int_text(value.denominator)}"


def _terminating_places(denominator: int) -> int | None:
    """Decimal places needed for 1/denominator, or None when it never ends."""
    twos = (denominator & -denominator).bit_length() - 1
    rest, fives = denominator >> twos, 0
    while rest % 5 == 0:
        rest, fives = rest // 5, fives + 1
    return max(twos, fives) if rest == 1 else None


def _fixed_point(value: Fraction, places: int) -> str:
    scaled = value.numerator * (10**places // value.denominator)
    digits = int_text(abs(scaled)).rjust(places + 1, "0")
    sign = "-" if scaled < 0 else ""
    if places == 0:
        return sign + digits
    return f"{sign}{digits[:-places]}.{digits[-places:]}"
