"""Stories that change one amount step by step, and amounts said against another's
(app.calculon.changes), as the ranker orders them. Written here, in everyday words."""

from __future__ import annotations

import pytest

from app.calculon.candidates import quantities
from app.calculon.changes import changed_in_turn, undone_in_turn
from app.calculon.compared import age_then, compared, compared_together, times_as_many
from app.calculon.ranker import ranked


def best(story: str) -> tuple[str, float]:
    top = ranked(story)[0].candidate
    return top.shown, float(top.value)


def question_of(story: str) -> str:
    return story[story.rindex(". ") + 2 :]


@pytest.mark.parametrize(
    ("story", "formula", "value"),
    [
        ("I had 50 dollars, spent 12 on lunch and 8 on a book. How much do I have left?", "50 − 12 − 8", 30),
        (
            "Kim had 30 stickers. She gave 7 to Ann and 5 to Bo. How many stickers does Kim have left?",
            "30 − 7 − 5",
            18,
        ),
        (
            "A bus had 40 people. 12 got off and 9 got on. How many people are on the bus now?",
            "40 − 12 + 9",
            37,
        ),
        (
            "There were 20 birds in a tree. 6 flew away and then 4 more came. How many birds are there now?",
            "20 − 6 + 4",
            18,
        ),
        (
            "Ray has 10 dollars. He earned 5 on Monday and spent 3 on Tuesday. How much does he have now?",
            "10 + 5 − 3",
            12,
        ),
        # the pastries are another thing than the cakes asked about: was 56 − 21 − 17
        ("A baker baked 56 cakes. He sold 21 cakes and 17 pastries. How many cakes are left?", "56 − 21", 35),
    ],
)
def test_an_amount_changed_by_each_verb_in_turn_is_read_in_the_storys_order(story, formula, value):
    assert best(story) == (formula, value)


@pytest.mark.parametrize(
    ("story", "formula", "value"),
    [
        # was (48 − 12) ÷ 3: the right number from a wrong formula
        ("A baker made 48 muffins and sold 3 boxes of 12. How many muffins are left?", "48 − 3 × 12", 12),
        (
            "Ann bought 60 eggs. She used 2 trays of 15 and ate 4. How many eggs are left?",
            "60 − 2 × 15 − 4",
            26,
        ),
        (
            "A shop had 100 cans. It received 5 cases of 24. How many cans does it have now?",
            "100 + 5 × 24",
            220,
        ),
        # were 80 − 3 − 10 and 200 − 6 − 25: sets and sacks were not among the containers
        (
            "Tom had 80 marbles. He gave away 3 sets of 10. How many marbles does he have now?",
            "80 − 3 × 10",
            50,
        ),
        ("A farmer had 200 apples. He sold 6 sacks of 25. How many apples are left?", "200 − 6 × 25", 50),
    ],
)
def test_a_count_of_containers_of_one_size_is_one_change_and_what_was_made_is_the_start(
    story, formula, value
):
    assert best(story) == (formula, value)


@pytest.mark.parametrize(
    "story",
    [
        # buying adds apples and takes away dollars: no verb here says which
        "Kim had 30 dollars. She bought 7 stickers and gave 5 to Bo. How many dollars does Kim have left?",
        # the question is about someone else, or about the changes
        "Kim had 30 stickers. She gave 7 to Ann and 5 to Bo. How many stickers does Ann have now?",
        "Kim had 30 stickers. She gave 7 to Ann and 5 to Bo. How many did she give away?",
        # more taken than there was: a misreading, not an answer
        "I had 5 dollars, spent 12 on lunch and 8 on a book. How much do I have left?",
    ],
)
def test_a_story_whose_words_leave_the_changes_open_is_left_to_the_ranker(story):
    assert changed_in_turn(story, question_of(story), quantities(story)) is None


@pytest.mark.parametrize(
    ("story", "formula", "value"),
    [
        ("Tom is 3 years older than Sue. Sue is 9. How old is Tom?", "9 + 3", 12),
        ("Tom is 3 years older than Sue. Tom is 12. How old is Sue?", "12 − 3", 9),
        ("Mia has 5 fewer books than Leo. Leo has 8 books. How many books does Mia have?", "8 − 5", 3),
        ("Leo has 8 books. Mia has 5 more books than Leo. How many books does Mia have?", "8 + 5", 13),
        # was 14 + 5: the amount said in the comparing sentence is its subject's
        ("Ben has 14 cards, which is 5 more than Tom. How many cards does Tom have?", "14 − 5", 9),
        ("Ann is 12, which is 3 years older than Bo. How old is Bo?", "12 − 3", 9),
        # the comparing sentence's "he" is the one named before: was no reading
        (
            "Carlos has 45 marbles. He has 18 more marbles than Diego. How many marbles does Diego have?",
            "45 − 18",
            27,
        ),
        ("Amy is 12 years old. She is 4 years older than Ben. How old is Ben?", "12 − 4", 8),
        # "her sister" is the one compared: was 42 + 18
        (
            "Amy collected 42 shells. Her sister collected 18 shells fewer than Amy. "
            "How many shells did her sister collect?",
            "42 − 18",
            24,
        ),
    ],
)
def test_an_amount_said_against_a_named_other_adds_or_takes_the_difference(story, formula, value):
    assert best(story) == (formula, value)


def test_a_question_about_the_difference_itself_is_not_read_as_one_persons_amount():
    story = "Mia has 5 more books than Leo. Leo has 8 books. How many more books does Mia have?"
    assert compared(story, question_of(story), quantities(story)) is None
    told = "Mia has 5 more books than Leo. Leo has 8 books. How many books does Mia have?"
    assert compared(told, question_of(told), quantities(told)) is not None


@pytest.mark.parametrize(
    "story",
    [
        "Ada has 6 shells. Bo has 3 times more shells than Ada. How many shells does Bo have?",
        "Ada has 6 shells. Bo has twice as many plus 2 more than Ada. How many shells does Bo have?",
    ],
)
def test_a_comparison_that_multiplies_is_not_read_as_a_difference(story):
    assert compared(story, question_of(story), quantities(story)) is None


@pytest.mark.parametrize(
    "story",
    [
        # a share of the amount, not an amount: "3/8 of the cards"
        "Jo had 16 cards. He gave 3/8 of the cards to Al and 2 cards to Bea. How many cards are left?",
        # a verb the rule cannot read, after one it can
        "A shop had 200 loaves. 60 loaves were sold, and a further 40 loaves are delivered. "
        "How many are there now?",
        # a number in the question is what it asks with
        "Al had 50 dollars. He spent 20 on a game. How many 5 dollar toys can he buy with what is left?",
    ],
)
def test_a_change_the_verbs_do_not_say_outright_is_not_read(story):
    assert changed_in_turn(story, question_of(story), quantities(story)) is None


@pytest.mark.parametrize(
    ("story", "formula", "value"),
    [
        # was 30 − 15: "spent" beside the 15 read as a subtraction, backwards
        (
            "Mary spent 15 dollars on a book. She has 30 dollars left. "
            "How much money did she have initially?",
            "30 + 15",
            45,
        ),
        # was 40 − 3
        (
            "Ben lost 3 marbles and then won 8 marbles. He now has 40 marbles. "
            "How many marbles did he have at first?",
            "40 + 3 − 8",
            35,
        ),
        # was 12 + 5 − 7: the question asks with the verb that opened the story ("baked some")
        (
            "Kate baked some cupcakes. She sold 12 and gave away 5. She has 7 left. "
            "How many cupcakes did she bake?",
            "7 + 12 + 5",
            24,
        ),
        (
            "After eating 4 cookies, Tom had 9 cookies left. How many cookies did Tom have in the beginning?",
            "9 + 4",
            13,
        ),
    ],
)
def test_an_amount_at_the_end_with_each_change_undone_answers_what_there_was_at_first(story, formula, value):
    assert best(story) == (formula, value)


@pytest.mark.parametrize(
    "story",
    [
        # buying adds books and takes away money: no verb says which way the books went
        "The library used a grant to purchase 2647 books. Now it has 8582 books. "
        "How many books did it have before the grant?",
        # "2 people left" is a change, not the amount at the end
        "There were some people in the gym. Then 5 more people came in and 2 people left. "
        "There are now 19 people in the gym. How many people were in the gym at the start?",
        # the question asks about the changes, not the start
        "Mary spent 15 dollars on a book. She has 30 dollars left. How much more did she spend than she has?",
    ],
)
def test_a_story_that_leaves_the_start_open_is_not_read_backwards(story):
    assert undone_in_turn(story, question_of(story), quantities(story)) is None


@pytest.mark.parametrize(
    ("story", "formula", "value"),
    [
        # was 38 + 25
        (
            "There were 38 children on the bus. At the stop some children got off and now there are 25 "
            "children on the bus. How many children got off?",
            "38 − 25",
            13,
        ),
        (
            "Sue had 12 pens. She found some more and now she has 20 pens. How many pens did she find?",
            "20 − 12",
            8,
        ),
    ],
)
def test_some_changed_between_an_amount_and_the_amount_after_is_their_difference(story, formula, value):
    assert best(story) == (formula, value)


@pytest.mark.parametrize(
    ("story", "formula", "value"),
    [
        # was 14 − 6
        ("Jack is 14 years old. In 6 years, how old will he be?", "14 + 6", 20),
        ("Jack is 14 years old. How old was he 6 years ago?", "14 − 6", 8),
    ],
)
def test_an_age_and_a_span_of_years_later_or_earlier_adds_or_takes_the_span(story, formula, value):
    assert best(story) == (formula, value)


@pytest.mark.parametrize(
    "story",
    [
        # the span is between two people, not in time
        "Jack is 14 years old. Tom is 6 years older than Jack. How old will Tom be?",
        # no span said: "in 6 years" is missing
        "Jack is 14 years old and has 6 cats. How old will he be?",
    ],
)
def test_an_age_without_a_span_in_time_is_left_to_the_other_readings(story):
    assert age_then(story, question_of(story), quantities(story)) is None


@pytest.mark.parametrize(
    ("story", "formula", "value"),
    [
        # buying adds things where the story counts no money: was 18 + 7 − 5 ("gave her" read as taking)
        (
            "Zoe had 18 marbles. She bought 7 marbles and her friend gave her 5 more. "
            "How many marbles does she have now?",
            "18 + 7 + 5",
            30,
        ),
        (
            "Leo had 12 toy cars. He got 8 toy cars for his birthday and gave 3 to his cousin. "
            "How many toy cars does he have left?",
            "12 + 8 − 3",
            17,
        ),
    ],
)
def test_buying_and_being_given_add_where_no_money_is_counted(story, formula, value):
    assert best(story) == (formula, value)


def test_buying_says_neither_way_where_the_story_counts_money():
    story = "Ivy had 20 dollars and 3 pens. She bought 4 pens and spent 6 dollars. How many pens are left?"
    assert changed_in_turn(story, question_of(story), quantities(story)) is None


def test_some_of_the_things_that_then_do_something_are_no_change_of_the_amount():
    story = (
        "Ned has 40 cups. 6 of the cups have cracks so he collects the handles. He buys 4 new cups. "
        "How many cups does he own now?"
    )
    assert changed_in_turn(story, question_of(story), quantities(story)) is None


@pytest.mark.parametrize(
    ("story", "formula", "value"),
    [
        # the other's amount through the comparison, then both added: was 14 + 6
        (
            "Paul has 14 books. He has 6 more books than Jane. How many books do they have together?",
            "14 + 14 − 6",
            22,
        ),
        (
            "Omar has 15 stickers. Lily has 4 fewer stickers than Omar. "
            "How many stickers do they have in all?",
            "15 + 15 − 4",
            26,
        ),
        # days compared, not people
        (
            "Maya read 42 pages on Monday. She read 12 more pages on Tuesday than on Monday. "
            "How many pages did she read in all?",
            "42 + 42 + 12",
            96,
        ),
    ],
)
def test_two_amounts_one_said_against_the_other_are_added_when_the_question_asks_both(story, formula, value):
    assert best(story) == (formula, value)


def test_a_sum_given_and_one_amount_asked_is_not_read_as_both_added():
    story = "Ann has 9 more hats than Bea. If their hats combined are 31, how many hats does Bea have?"
    assert compared_together(story, story[story.index("If") :], quantities(story)) is None


@pytest.mark.parametrize(
    ("story", "formula", "value"),
    [
        # a multiple said in words: no formula before (one number)
        (
            "Kate has twice as many books as Joe. Joe has 15 books. How many books does Kate have?",
            "15 × 2",
            30,
        ),
        (
            "Kate has twice as many books as Joe. Kate has 30 books. How many books does Joe have?",
            "30 ÷ 2",
            15,
        ),
        # a multiple as a number, then both: was 3 + 12
        (
            "Jake has 3 times as many marbles as Sam. Sam has 12 marbles. "
            "How many marbles do they have together?",
            "12 + 12 × 3",
            48,
        ),
        # the one compared with is kin: was 7 + 19
        ("Emma is 7 years younger than her brother. Her brother is 19. How old is Emma?", "19 − 7", 12),
    ],
)
def test_an_amount_a_multiple_of_another_is_read_from_the_one_said(story, formula, value):
    assert best(story) == (formula, value)


def test_a_multiple_asked_in_another_unit_or_beside_a_share_is_left_to_the_ranker():
    story = "Eli takes 30 minutes. Tom takes four times as long as Eli. How many hours does Tom take?"
    assert times_as_many(story, question_of(story), quantities(story)) is None
    story = "Al has 18 pens. He gave away a third of them and has half as many as Bo. How many pens has Bo?"
    assert times_as_many(story, question_of(story), quantities(story)) is None


def test_an_age_through_a_comparison_then_a_span_of_years_is_both_steps():
    story = "Ike is 8 years older than Pia. Pia is 11. How old will Ike be in 5 years?"
    assert best(story) == ("11 + 8 + 5", 24)
    ago = "Una is 6 years younger than Ray. Ray is 20. How old was Una 3 years ago?"
    assert best(ago) == ("20 − 6 − 3", 11)
