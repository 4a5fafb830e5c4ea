"""A count times an amount for each of it, with one change before or after, and a whole less the
parts already done: stories whose product or whole no pair of neighbouring words names."""

from __future__ import annotations

import pytest

from app.calculon.candidates import quantities
from app.calculon.counted import left_to_do
from app.calculon.each import bought_in_all, each_then_change, priced_count
from tests.calculon.test_changes import best, question_of


@pytest.mark.parametrize(
    ("story", "formula", "value"),
    [
        # was 16 − 12
        (
            "A farmer planted 5 rows of corn. Each row had 16 plants. Birds ate 12 plants. "
            "How many corn plants are left?",
            "5 × 16 − 12",
            68,
        ),
        # was (37 − 3) × 5: the condition before the comma is the story's
        (
            "Cindy has 37 envelopes. If Cindy gives 3 envelopes to each of her 5 friends, "
            "how many envelopes does she have left?",
            "37 − 5 × 3",
            22,
        ),
        (
            "Mrs. Jackson has 4 boxes of decorations. There are 15 decorations in each box. "
            "She used 35 decorations. How many decorations are left?",
            "4 × 15 − 35",
            25,
        ),
        (
            "A shop had 20 cans. It received 6 crates with 12 cans in each crate. "
            "How many cans does it have now?",
            "20 + 6 × 12",
            92,
        ),
        # buying takes the money: was 40 − 9
        (
            "Sara has 40 dollars. She buys 3 books that cost 9 dollars each. "
            "How much money does she have left?",
            "40 − 3 × 9",
            13,
        ),
    ],
)
def test_a_count_times_the_amount_for_each_is_one_amount_of_the_change(story, formula, value):
    assert best(story) == (formula, value)


@pytest.mark.parametrize(
    "story",
    [
        # the question asks for the change, not what is left
        "A farmer planted 5 rows of corn. Each row had 16 plants. Birds ate 12 plants. "
        "How many plants were planted?",
        # two amounts for each: which one the count takes is not said
        "Cindy has 37 envelopes and 4 stamps for each envelope. "
        "She gives 3 envelopes to each of her 5 friends. How many envelopes does she have left?",
        # the change counts books, the product pages
        "Phil has 10 books of 100 pages each. He lost 2 books. How many pages are left?",
        # the third number's verb says neither way
        "A farmer planted 5 rows of corn. Each row had 16 plants. He looked at 12 plants. "
        "How many plants are left?",
    ],
)
def test_a_product_whose_change_the_words_leave_open_is_left_to_the_ranker(story):
    assert each_then_change(story, question_of(story), quantities(story)) is None


@pytest.mark.parametrize(
    ("story", "formula", "value"),
    [
        # was 23 + 31
        (
            "Sophie read 23 pages yesterday and 31 pages today. The book has 100 pages. "
            "How many pages does she have left to read?",
            "100 − 23 − 31",
            46,
        ),
        (
            "Kaiden collects 158 cans during his first week and 259 during the second week. "
            "If his goal is to collect 500 cans how many more cans does he need to collect?",
            "500 − 158 − 259",
            83,
        ),
    ],
)
def test_what_is_left_to_do_is_the_whole_less_every_part_done(story, formula, value):
    assert best(story) == (formula, value)


@pytest.mark.parametrize(
    "story",
    [
        # the numbers count other things: no whole of the pages
        "Sophie read 23 pages yesterday in 2 hours. The book has 100 pages. "
        "How many pages does she have left to read?",
        # nothing says the largest is the whole
        "Sophie read 23 pages yesterday and 31 pages today and 100 pages last week. "
        "How many pages does she have left to read?",
        # the parts are more than the whole
        "Sophie read 63 pages yesterday and 51 pages today. The book has 100 pages. "
        "How many pages are left to read?",
    ],
)
def test_a_whole_the_words_do_not_say_is_left_to_the_ranker(story):
    assert left_to_do(story, question_of(story), quantities(story)) is None


@pytest.mark.parametrize(
    ("story", "formula", "value"),
    [
        # was (12 + 8) × 3
        (
            "Mike bought 3 shirts for 12 dollars each and a hat for 8 dollars. How much did he spend?",
            "3 × 12 + 8",
            44,
        ),
        ("Ann bought a hat for $8 and 4 pens for $2 each. How much did she spend in all?", "4 × 2 + 8", 16),
    ],
)
def test_a_count_at_a_price_each_and_one_more_price_is_what_was_spent(story, formula, value):
    assert best(story) == (formula, value)


@pytest.mark.parametrize(
    "story",
    [
        # a weight each, then a price per pound: no second price paid
        "James buys 5 packs of beef that are 4 pounds each. The beef is $5.50 per pound. "
        "How much did he pay?",
        # asks how much more, not what was spent
        "Mike bought 3 shirts for $12 each and a hat for $8. How much more did he pay for the shirts?",
    ],
)
def test_prices_the_words_leave_open_are_left_to_the_ranker(story):
    assert bought_in_all(story, question_of(story), quantities(story)) is None


@pytest.mark.parametrize(
    ("story", "formula", "value"),
    [
        # the other price is of another thing: was (3 + 5) × 4
        ("A pen costs 3 dollars and a notebook costs 5 dollars. How much do 4 pens cost?", "3 × 4", 12),
        ("A mug is $7 and a plate is $4. How much would 6 plates cost?", "4 × 6", 24),
    ],
)
def test_the_price_of_the_thing_asked_about_times_its_count(story, formula, value):
    assert best(story) == (formula, value)


def test_a_count_of_a_thing_no_price_is_said_of_is_not_priced():
    story = "A pen costs 3 dollars and a notebook costs 5 dollars. How much do 4 bags cost?"
    assert priced_count(story, story[story.index("How") :], quantities(story)) is None
