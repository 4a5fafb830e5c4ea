"""Stories read from what the question counts: a total shared equally, and the gap between two
amounts of the thing asked about, with numbers the question does not need beside them."""

from __future__ import annotations

import pytest

from app.calculon.candidates import quantities
from app.calculon.counted import gap_between, rate_times_count, rest_of_whole, shared_equally
from tests.calculon.test_changes import best, question_of


@pytest.mark.parametrize(
    ("story", "formula", "value"),
    [
        # was 273 × 6
        (
            "273 apples are shared equally among 6 children. How many apples does each child get?",
            "273 ÷ 6",
            45.5,
        ),
        (
            "A teacher has 48 pencils and 5 erasers. She shares the pencils equally among 8 students. "
            "How many pencils does each student get?",
            "48 ÷ 8",
            6,
        ),
        (
            "There are 7 students in the class and 42 apples. If the apples are divided equally among the "
            "students, how many does each student get?",
            "42 ÷ 7",
            6,
        ),
    ],
)
def test_a_total_shared_equally_is_divided_by_the_sharers_the_question_asks_each_of(story, formula, value):
    assert best(story) == (formula, value)


@pytest.mark.parametrize(
    ("story", "formula", "value"),
    [
        # was 12 + 30 − 7: the toy cars and books count other things
        (
            "Jake has 12 marbles, 7 toy cars and 4 books. Anna has 30 marbles. "
            "How many more marbles does Anna have than Jake?",
            "30 − 12",
            18,
        ),
        (
            "Ann has 9 red pens and 25 stickers. Bo has 4 stickers. How many fewer stickers does Bo have?",
            "25 − 4",
            21,
        ),
    ],
)
def test_the_gap_between_two_amounts_of_the_counted_thing_leaves_the_other_numbers_out(story, formula, value):
    assert best(story) == (formula, value)


@pytest.mark.parametrize(
    "story",
    [
        # a goal, not a second holder: 100 − 30 − 43
        "Al and Bea need to collect 100 cans. Al collected 30 cans and Bea collected 43 cans. "
        "How many more cans do they need?",
        # between two things, not two holders of one thing
        "Yan baked 20 cookies and 40 biscuits in the morning and 10 cookies and 20 biscuits later. "
        "How many more biscuits than cookies did she bake?",
        # a rate, asked per hour
        "Jim ran 16 miles in 2 hours while Frank ran 20 miles in 2 hours. "
        "How many more miles did Frank run in an hour?",
        # a number that counts nothing said
        "Jesus has 60 squares. Linden has 75 squares. Pedro has 200. How many more squares does Pedro have?",
    ],
)
def test_a_gap_the_words_leave_open_is_left_to_the_ranker(story):
    assert gap_between(story, question_of(story), quantities(story)) is None


@pytest.mark.parametrize(
    "story",
    [
        # changes before the sharing: what is shared is what is left
        "Cal picked 40 puffs. He gave 3 to his mom and 5 to his sister. He divided the rest equally among "
        "his 4 friends. How many puffs did each friend get?",
        # a rate, not a total
        "Two girls plant 5 flowers each. They share them equally among 2 pots. "
        "How many flowers does each pot get?",
        # the question asks for the sharers' total, not for each
        "273 apples are shared equally among 6 children. How many children are there?",
    ],
)
def test_a_sharing_the_words_leave_open_is_left_to_the_ranker(story):
    assert shared_equally(story, question_of(story), quantities(story)) is None


@pytest.mark.parametrize(
    ("story", "formula", "value"),
    [
        # was 15 − 4
        ("Sam reads 15 pages a day. How many pages does he read in 4 days?", "15 × 4", 60),
        ("Each box holds 8 pens. How many pens are in 6 boxes?", "8 × 6", 48),
        ("A car travels 60 miles per hour. How far does it go in 3 hours?", "60 × 3", 180),
        # a number of another thing beside them is no part of it: was 6 × 8 ÷ 3
        ("There are 6 boxes with 8 pens in each box and 3 empty bags. How many pens are there?", "8 × 6", 48),
        # what one of them holds, said before the amount: was 48 − 5
        ("A bus can carry 48 people. How many people can 5 buses carry?", "48 × 5", 240),
    ],
)
def test_an_amount_for_each_one_of_a_thing_times_a_count_of_that_thing(story, formula, value):
    assert best(story) == (formula, value)


@pytest.mark.parametrize(
    "story",
    [
        # a part of a mile, not a rate
        "You walk 0.75 mile and then rest. Then you walk 0.25 of a mile. How far did you walk altogether?",
        # a change after the whole
        "There are 20 stickers on a page. If you have 12 pages but lose one of the pages, "
        "how many stickers are there?",
        # asked for each: a share, not a whole
        "Sam read 60 pages in 4 days, the same number each day. How many pages did he read each day?",
        # the birds' count multiplies too: the story says what one bird eats
        "A bird eats 7 berries a day. Samuel has 5 birds. How many berries do the birds eat in 4 days?",
    ],
)
def test_a_rate_the_words_leave_open_is_left_to_the_ranker(story):
    assert rate_times_count(story, question_of(story), quantities(story)) is None


@pytest.mark.parametrize(
    ("story", "formula", "value"),
    [
        # was 30 × 14
        ("In a class of 30 children, 14 are boys. How many girls are there?", "30 − 14", 16),
        # was 24 × 10
        ("A box has 24 balls. 10 are red. How many balls are blue?", "24 − 10", 14),
    ],
)
def test_a_whole_less_the_part_said_by_what_it_is_answers_for_the_other_kind(story, formula, value):
    assert best(story) == (formula, value)


@pytest.mark.parametrize(
    "story",
    [
        # a share of the whole, not a count of it
        "There are 45 children in a classroom. 1/3 of them are girls. How many boys are in the classroom?",
        # the question asks about the part said
        "In a class of 30 children, 14 are boys. How many boys are there?",
    ],
)
def test_a_part_the_words_leave_open_is_left_to_the_ranker(story):
    assert rest_of_whole(story, question_of(story), quantities(story)) is None
