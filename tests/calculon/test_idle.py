"""A calculation that works nothing out (app.calculon.idle): named, and told apart from a real step."""

from __future__ import annotations

import pytest

from app.calculon.idle import idle_reason, overused


@pytest.mark.parametrize(
    ("formula", "earlier", "why"),
    [
        ("13", [], "only restates a number"),
        ("(5)", [], "only restates a number"),
        ("26 - 26", [("13 + 13", "26")], "takes a number from itself"),
        ("7.5 / 7.5", [], "divides a number by itself"),
        ("13 + 13", [], "adds a number to itself"),
        ("0 * 0", [], "nothing but zeros"),
        ("2 + 3", [("2 + 3", "5")], "already calculated"),
        ("10 - 5", [("15 - 5", "10")], "repeats the last step on its own result"),
        ("32 - 1 - 1", [("34 - 1 - 1", "32")], "repeats the last step on its own result"),
        ("-10 - 15", [("5 - 15", "-10")], "repeats the last step on its own result"),
        ("15.74 + 0.00", [], "leaves 15.74 as it is"),
        ("0 + 7", [], "leaves 7 as it is"),
        ("9 / 1", [], "leaves 9 as it is"),
    ],
)
def test_a_calculation_that_works_nothing_out_is_named(formula, earlier, why) -> None:
    assert why in idle_reason(formula, earlier)


@pytest.mark.parametrize(
    ("formula", "earlier"),
    [
        ("0.99 + 2.40 + 4.75 + 6.35 + 1.25", []),
        ("15.74 / 5", [("0.99 + 2.40 + 4.75 + 6.35 + 1.25", "15.74")]),  # the mean after the sum
        ("204 - 95", [("120 + 95", "215")]),
        ("13 * 2", []),  # a number doubled, as it is asked for
        ("10 - 3", [("15 - 5", "10")]),  # a new step on the last result
        ("5 - 2", [("15 - 5", "10")]),
        ("1/3 + 1/3", [("1/3", "1/3 ≈ 0.333")]),
        ("0 - 5", []),  # a sign change
        ("5 + 1", []),
    ],
)
def test_a_calculation_that_works_something_out_is_not_idle(formula, earlier) -> None:
    assert idle_reason(formula, earlier) == ""


def test_a_data_value_summed_and_also_scaled_by_beyond_what_was_read_is_overused() -> None:
    data = "day,visitors\nMon,120\nTue,95\nWed,143\n"
    assert overused("((120 + 95 + 143) / 3) * 143", [data]) == (
        "((120 + 95 + 143) / 3) * 143 uses 143 twice, and what was read holds it once"
    )
    assert overused("(120 + 95 + 143) / 3", [data]) == ""  # each value as often as read
    assert overused("2 * 24.50 + 3 * 24.50", ["kettle,24.50"]) == ""  # one price, two products
    assert overused("(5 + 7 + 2) * 2", ["5, 7, 2"]) == ""  # a small value may be a count of its own
    assert overused("(120 + 143) * 143", ["120", "143", "143"]) == ""  # read twice: used twice
