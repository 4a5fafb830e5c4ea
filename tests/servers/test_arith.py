"""Pure tests of the bounded exact arithmetic."""

from __future__ import annotations

import random
from decimal import Decimal, localcontext
from fractions import Fraction

import pytest

from app.servers import arith
from app.servers.exact import CalcError, parse_number


def test_division_by_zero_is_refused() -> None:
    with pytest.raises(CalcError, match="division by zero"):
        arith.divide(Fraction(1), Fraction(0))
    with pytest.raises(CalcError, match="modulo by zero"):
        arith.modulo(Fraction(1), Fraction(0))


@pytest.mark.parametrize(("a", "b", "expected"), [(17, 5, 2), (-17, 5, 3), (17, -5, -3), ("7.5", 2, "1.5")])
def test_modulo_takes_the_sign_of_the_divisor(a: object, b: object, expected: object) -> None:
    assert arith.modulo(parse_number(a), parse_number(b)) == parse_number(expected)


@pytest.mark.parametrize(
    ("base", "exponent", "expected"),
    [
        (2, 10, 1024),
        (2, -3, "0.125"),
        ("1.5", 2, "2.25"),
        (-2, 3, -8),
        (0, 0, 1),
        (-1, 10**9, 1),
        (10, 9999, None),
    ],
)
def test_whole_powers_are_exact(base: object, exponent: int, expected: object) -> None:
    value = arith.int_power(parse_number(base), exponent)
    assert value == (parse_number(expected) if expected is not None else Fraction(10) ** exponent)


def test_a_power_too_large_is_refused_before_it_is_computed() -> None:
    with pytest.raises(CalcError, match="too large"):
        arith.int_power(Fraction(2), 10**12)  # would take forever if computed
    with pytest.raises(CalcError, match="division by zero"):
        arith.int_power(Fraction(0), -1)


def test_large_products_are_refused() -> None:
    big = Fraction(10) ** 6000
    with pytest.raises(CalcError, match="too large"):
        arith.checked(big * big)


@pytest.mark.parametrize(
    ("base", "exponent", "text"),
    [
        (8, "1/3", "2"),
        (-8, "1/3", "-2"),
        ("0.25", "0.5", "0.5"),
        (4, "-0.5", "0.5"),
        (16, "3/4", "8"),
        (2, "0.5", "1.414213562373095048801688724 (rounded to 28 significant digits)"),
        (2, "1/3", "1.259921049894873164767210607 (rounded to 28 significant digits)"),
    ],
)
def test_fractional_powers_are_exact_when_the_root_is(base: object, exponent: object, text: str) -> None:
    assert arith.power(parse_number(base), parse_number(exponent)).text == text


def test_even_roots_of_negative_numbers_are_not_real() -> None:
    with pytest.raises(CalcError, match="not a real number"):
        arith.power(Fraction(-4), Fraction(1, 2))
    with pytest.raises(CalcError, match="not a real number"):
        arith.square_root(Fraction(-4))


@pytest.mark.parametrize(("x", "text"), [(144, "12"), ("2.25", "1.5"), ("1/9", "1/3 ≈"), (0, "0")])
def test_square_roots_of_perfect_squares_are_exact(x: object, text: str) -> None:
    assert arith.square_root(parse_number(x)).text.startswith(text)


def test_irrational_square_roots_are_correctly_rounded() -> None:
    rng = random.Random(99)
    for _ in range(300):
        x = Fraction(rng.randint(1, 10**25), rng.randint(1, 10**10))
        result = arith.square_root(x)
        if result.exact or result.fraction is not None:
            continue
        with localcontext() as ctx:
            ctx.prec = 80
            precise = Decimal(x.numerator).sqrt() / Decimal(x.denominator).sqrt()
            ctx.prec = 28
            assert Decimal(result.value) == ctx.plus(precise)
        assert result.precision == 28
