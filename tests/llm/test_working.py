"""The calculation a worked answer wrote before its "=", read back for the calculator."""

from __future__ import annotations

import pytest

from app.llm.local.working import expression_before


@pytest.mark.parametrize(
    ("written", "expression"),
    [
        ("Two $20 bills amount to $20 x 2 ", "20 * 2"),
        ("3 pots x 4 leaves/pot ", "3 * 4"),
        ("So 20% of 80 ", "20% * 80"),
        ("The total is $1,250.50 + 3 ", "1250.50 + 3"),
        # the first number's words were dropped as its unit: the call was "15 51 * 15", refused
        ("15 tickets cost $51 x 15 ", "51 * 15"),
        ("12 boxes hold (4 + 2) x 12 ", "(4 + 2) * 12"),
    ],
)
def test_the_last_calculation_before_the_equals_sign_is_what_the_calculator_gets(written, expression):
    assert expression_before(written) == expression


@pytest.mark.parametrize("written", ["the cost ", "3 apples and 4 pears ", "The answer is 12 "])
def test_words_or_numbers_without_an_operator_hold_no_calculation(written):
    assert expression_before(written) == ""
