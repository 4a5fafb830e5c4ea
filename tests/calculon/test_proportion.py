"""A rate given for a batch, scaled to another batch of its unit (app.calculon.proportion).
Written here, in everyday words."""

from __future__ import annotations

import pytest

from app.calculon.candidates import quantities
from app.calculon.proportion import scaled_rate
from app.calculon.ranker import ranked


@pytest.mark.parametrize(
    ("story", "formula", "value"),
    [
        (
            "A recipe needs 3 eggs for every 2 cups of flour. How many eggs for 8 cups of flour?",
            "3 × 8 ÷ 2",
            12,
        ),
        ("A car uses 8 liters of fuel per 100 km. How much fuel for 350 km?", "8 × 350 ÷ 100", 28),
        ("He earns 5 dollars for every 2 hours. He worked 10 hours. How much did he earn?", "5 × 10 ÷ 2", 25),
    ],
)
def test_a_rate_for_a_batch_is_scaled_to_the_batch_asked_about(story, formula, value):
    best = ranked(story)[0].candidate
    assert (best.shown, float(best.value)) == (formula, value)


@pytest.mark.parametrize(
    "story",
    [
        # rooms are no batch of students
        "There are 3 teachers for every 20 students and 4 rooms. How many teachers?",
        "Apples cost 3 dollars per pound. How much do 7 pounds cost?",  # a rate for one: the ranker reads it
        "A car uses 8 liters of fuel per 100 km and 10% more in winter. How much fuel for 350 km?",
    ],
)
def test_a_rate_whose_batches_do_not_match_is_left_to_the_ranker(story):
    assert scaled_rate(story, quantities(story)) is None
