"""Pure tests of reading numbers and writing exact or rounded results."""

from __future__ import annotations

import random
from decimal import Decimal
from fractions import Fraction

import pytest

from app.servers.exact import CalcError, describe, parse_number


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (42, Fraction(42)),
        (-7, Fraction(-7)),
        (0.1, Fraction(1, 10)),
        (1e-7, Fraction(1, 10**7)),
        (2.5e20, Fraction(25 * 10**19)),
        ("0.1", Fraction(1, 10)),
        ("  -3.25 ", Fraction(-13, 4)),
        ("+.5", Fraction(1, 2)),
        ("7.", Fraction(7)),
        ("1e6", Fraction(10**6)),
        ("1.5E-3", Fraction(3, 2000)),
        ("1/3", Fraction(1, 3)),
        ("-2.5 / 0.5", Fraction(-5)),
        ("9" * 5000, Fraction(10**5000 - 1)),
    ],
)
def test_numbers_and_numeric_strings_are_read_exactly(raw: object, expected: Fraction) -> None:
    assert parse_number(raw) == expected


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (True, "must be a number"),
        (None, "must be a number"),
        ([1], "must be a number"),
        ("abc", "must be a number like"),
        ("1,000", "must be a number like"),
        ("1_000", "must be a number like"),
        ("NaN", "must be a number like"),
        ("inf", "must be a number like"),
        (float("inf"), "finite"),
        ("1/0", "divides by zero"),
        ("1e9999999", "exponent that is too large"),
        ("1e20000", "too large or too small"),
        ("1" * 10_001, "too long"),
    ],
)
def test_bad_input_is_refused_with_a_clear_message(raw: object, message: str) -> None:
    with pytest.raises(CalcError, match=message):
        parse_number(raw, "a")


def test_refusal_names_the_argument() -> None:
    with pytest.raises(CalcError, match=r"^b must be"):
        parse_number("x", "b")


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (Fraction(3), "3"),
        (Fraction(-3), "-3"),
        (Fraction(0), "0"),
        (Fraction(3, 10), "0.3"),
        (Fraction(1, 8), "0.125"),
        (Fraction(-1, 8), "-0.125"),
        (Fraction(12345, 100), "123.45"),
        (Fraction(1, 2**20), "0.00000095367431640625"),
        (Fraction(10**40), "1" + "0" * 40),
    ],
)
def test_terminating_values_are_written_as_exact_decimals(value: Fraction, text: str) -> None:
    result = describe(value)
    assert (result.value, result.exact, result.text) == (text, True, text)
    assert result.structured() == {"value": text, "exact": True}


def test_one_third_is_a_fraction_and_a_stated_rounding() -> None:
    result = describe(Fraction(1, 3))
    assert result.structured() == {
        "value": "0.3333333333333333333333333333",
        "exact": False,
        "fraction": "1/3",
        "precision": 28,
    }
    assert result.text == "1/3 ≈ 0.3333333333333333333333333333 (rounded to 28 significant digits)"


def test_a_unit_goes_after_the_number() -> None:
    assert describe(Fraction(5, 2)).render("km") == "2.5 km"
    assert (
        describe(Fraction(-2, 3))
        .render("°F")
        .startswith("-2/3 ≈ -0.6666666666666666666666666667 °F (rounded")
    )


def test_integers_beyond_the_str_conversion_limit_are_written_in_full() -> None:
    value = Fraction(7) ** 6000  # about 5071 digits, over Python's default 4300
    assert describe(value).value == str(Decimal(value.numerator))


def _correctly_rounded(value: Fraction, digits: int) -> Decimal:
    """Round half to even at ``digits`` significant digits with integers only, as an independent check."""
    magnitude, exponent = abs(value), 0
    while magnitude >= Fraction(10) ** exponent:
        exponent += 1
    while magnitude < Fraction(10) ** (exponent - 1):
        exponent -= 1
    scaled = magnitude * Fraction(10) ** (digits - exponent)
    whole, rest = divmod(scaled.numerator, scaled.denominator)
    if 2 * rest > scaled.denominator or (2 * rest == scaled.denominator and whole % 2):
        whole += 1
    return (-1 if value < 0 else 1) * Decimal(whole).scaleb(exponent - digits)


def test_random_quotients_match_fractions_and_round_correctly() -> None:
    rng = random.Random(20240611)
    for _ in range(500):
        a, b = rng.randint(-(10**30), 10**30), rng.randint(1, 10**20)
        result = describe(Fraction(a, b))
        if result.exact:
            assert Fraction(result.value) == Fraction(a, b)
        else:
            assert result.fraction is not None
            assert Fraction(result.fraction) == Fraction(a, b)
            assert Decimal(result.value) == _correctly_rounded(Fraction(a, b), 28)


def test_random_sums_and_products_of_decimals_are_exact() -> None:
    rng = random.Random(7)
    for _ in range(500):
        x = Fraction(rng.randint(-(10**12), 10**12), 10 ** rng.randint(0, 8))
        y = Fraction(rng.randint(-(10**12), 10**12), 10 ** rng.randint(0, 8))
        for expected in (x + y, x - y, x * y):
            assert Fraction(describe(expected).value) == expected
        assert parse_number(describe(x).value) == x
