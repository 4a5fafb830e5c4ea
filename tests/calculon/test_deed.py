"""A request to put a thing somewhere carries numbers but asks for no sum."""

from __future__ import annotations

import pytest

from app.calculon.deed import instructs_a_change
from app.calculon.hint import formula_hint
from app.calculon.verdict import asks_to_calculate
from app.calculon.worked import worked_answer

ROW = (
    "Add a product named lamp in the category home, priced 19.99, with 4 in stock, to the products"
    " table of the shop database."
)
DEEDS = (
    ROW,
    "Add a product to the shop database: category home, price 19.99, 6 in stock.",
    "Remember that my locker code is 4412 and I have 3 keys.",
    "Write a file /tmp/work/notes.txt saying I owe Sam 20 dollars for 3 tickets.",
    "Save a note that the meeting is at 3 pm with 12 people.",
    "Add a line 'Buy 3 eggs and 2 loaves' to todo.md.",
)
SUMS = (
    "Add 5 to 7.",
    "Add twenty-five and seventeen.",
    "Add these numbers: 3, 4 and 5.",
    "Add the numbers 3 and 4.",
    "Add a 15% tip to 80 dollars.",
    "Add the prices 3.50 and 4.25 together.",
    "Add the sum of 3 and 4 to notes.txt.",
    "Put 3 apples and 4 pears in a basket. How many fruits are in the basket?",
    "Write down how many legs 3 spiders have in all.",
)


@pytest.mark.parametrize("asked", DEEDS)
def test_a_request_to_store_a_thing_with_numbers_gets_no_formula(asked):
    assert instructs_a_change(asked)
    assert formula_hint(asked) is None
    assert worked_answer(asked) is None
    assert not asks_to_calculate(asked)


@pytest.mark.parametrize("asked", SUMS)
def test_a_sum_or_a_story_that_asks_is_still_read_as_arithmetic(asked):
    assert not instructs_a_change(asked)
    assert asks_to_calculate(asked)


def test_the_row_once_asked_as_a_question_is_a_story_again():
    assert formula_hint("A lamp costs 19.99 and 4 are in stock. What are they worth in total?") is not None
