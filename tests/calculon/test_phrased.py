"""Everyday phrasings whose operation the story's words name (app.calculon.phrased).

Written here, in everyday words; none is from a corpus the ranker is checked on.
"""

from __future__ import annotations

import pytest

from app.calculon import kinds, periods, shares
from app.calculon.candidates import candidates, quantities
from app.calculon.phrased import phrased_candidates
from app.calculon.provenance import CalculonVerifier
from app.calculon.ranker import ranked
from app.calculon.worked import inline_result
from app.core.tools import USER_SOURCE, Source


@pytest.mark.parametrize(
    ("story", "formula", "value"),
    [
        ("A pizza costs $12 and I tip 15%. How much do I pay in total?", "12 + 15%", 13.8),
        ("A shirt costs $40. It is on sale for 25% off. How much does it cost now?", "40 − 25%", 30),
        ("I earn 5000 dollars. My rent is 30% of my pay. How much is left?", "5000 − 30%", 3500),
        (
            "A town had 2000 people. The population grew by 10%. How many people live there now?",
            "2000 + 10%",
            2200,
        ),
        ("How many full bags of 3 apples can I make from 29 apples?", "29 ÷ 3", 29 / 3),
        ("A baker has 50 cookies. How many boxes can she fill with 6 cookies each?", "50 ÷ 6", 50 / 6),
        # four numbers: out of the candidates' reach, which read (15 + 18) ÷ 3
        (
            "Tom scored 12, 15 and 18 points in three games. What was his average score?",
            "(12 + 15 + 18) ÷ 3",
            15,
        ),
        (
            "A runner ran 5 km, 7 km, 6 km and 10 km this week. What is the mean distance?",
            "(5 + 7 + 6 + 10) ÷ 4",
            7,
        ),
        # one number: no candidate formula at all before, and the model answered alone
        ("My phone bill is $40 a month. How much do I pay in a year?", "40 × 12", 480),
        ("Sara saves $5 a day. How much does she save in a week?", "5 × 7", 35),
        ("A pack has 6 cans. How many packs do I need for 45 cans?", "45 ÷ 6", 7.5),
        ("How many eggs are in 5 dozen?", "5 × 12", 60),
        ("A baker sold five dozen cookies. How many cookies did she sell?", "5 × 12", 60),
        # an amount a day over a count of weeks: was 3 × 2
        ("Tom walks 3 miles every day. How many miles does he walk in 2 weeks?", "3 × 7 × 2", 42),
        ("A shop sells 40 bikes a month. How many bikes does it sell in 3 years?", "40 × 12 × 3", 1440),
        # things of one kind counted under its name: was 4 + 12
        ("A farmer has 4 cows, 7 pigs and 12 hens. How many animals does he have?", "4 + 7 + 12", 23),
        (
            "In a vase there are 6 roses, 5 tulips and 9 daisies. How many flowers are in the vase?",
            "6 + 5 + 9",
            20,
        ),
        ("A box has 6 green, 9 yellow and 4 white beads. How many beads are in the box?", "6 + 9 + 4", 19),
        # a written fraction of an amount, the share asked or the rest: was 30 − 0.8
        ("A club has 30 members. 4/5 of them voted. How many members voted?", "30 × 0.8", 24),
        ("A club has 30 members. 4/5 of them voted. How many members did not vote?", "30 − 30 × 0.8", 6),
        # a total over a count, asked for each one: was 96 × 6
        ("Raj earned 96 dollars in 6 hours. How much did he earn per hour?", "96 ÷ 6", 16),
        # one number and a share of it taken in words: no formula before
        (
            "Mark had 60 dollars. He spent half of it on a jacket. How much money does he have left?",
            "60 − 60 ÷ 2",
            30,
        ),
        (
            "Ann had 24 cards. She gave away a third of them. How many cards does she have left?",
            "24 − 24 ÷ 3",
            16,
        ),
    ],
)
def test_a_phrasing_that_names_its_operation_is_read_as_it_names_it(story, formula, value):
    best = ranked(story)[0].candidate
    assert best.shown == formula and float(best.value) == pytest.approx(value)


@pytest.mark.parametrize(
    ("story", "formula"),
    [
        ("A meal costs $80. How much is a 15% tip?", "80 × 15%"),
        ("What is a 15% tip on a bill of 80 dollars?", "80 × 15%"),
        ("A jacket costs $60 and is 20% off. How much do I save?", "60 × 20%"),
        ("How much tax do I pay on a $50 meal at 8%?", "50 × 8%"),
    ],
)
def test_a_question_that_asks_the_change_itself_is_not_read_as_the_amount_after_it(story, formula):
    assert [r.candidate.shown for r in ranked(story)] == [formula]


def test_whole_groups_and_what_is_left_over_are_backed_by_the_calculators_division():
    division = Source("29/3 ≈ 9.666666666666666666666666667", 'evaluate("29 / 3")', "calculator")
    verifier = CalculonVerifier()
    assert verifier.check("29 ÷ 3 ≈ 9.667: 9 whole, 2 left over.", [division]).verified
    assert verifier.check("29 ÷ 3 ≈ 9.667: 8 whole, 5 left over.", [division]).unbacked == ("8", "5")


def test_the_count_of_an_averaged_list_is_backed_by_the_list_the_user_wrote():
    asked = "A runner ran 5 km, 7 km, 6 km and 10 km this week. What is the mean distance?"
    mean = Source("7", 'evaluate("(5 + 7 + 6 + 10) / 4")', "calculator")
    verifier = CalculonVerifier()
    assert verifier.check("(5 + 7 + 6 + 10) ÷ 4 = 7.", [Source(asked, USER_SOURCE), mean]).verified
    asked_sum = "A runner ran 5 km, 7 km, 6 km and 10 km this week. How far in all?"
    assert verifier.check("(5 + 7 + 6 + 10) ÷ 4 = 7.", [Source(asked_sum, USER_SOURCE), mean]).unbacked == (
        "4",
    )


def test_a_period_the_calendar_does_not_fix_is_left_to_the_model():
    assert ranked("I earn $15 an hour. How much do I earn in a day?") == []  # a working day?
    assert ranked("I walk 3 miles a day. How far do I walk in a month?") == []  # 28 to 31 days
    assert ranked("I have 40 apples. How many do I have in a year?") == []


def test_a_span_that_is_no_count_of_periods_or_a_comparison_is_not_read_over_periods():
    # "2 hours of music" is no span over which the rate runs; "how many more" compares
    assert (
        periods.over_periods(
            "It plays 90 beats a minute. He listens to 2 hours of music. How many beats does he hear?",
            "How many beats does he hear?",
            quantities(
                "It plays 90 beats a minute. He listens to 2 hours of music. How many beats does he hear?"
            ),
        )
        is None
    )
    story = "He bakes 12 pies a day. How many more pies does he bake in 2 weeks than in 1 week?"
    assert periods.over_periods(story, story[story.index("How") :], quantities(story)) is None


@pytest.mark.parametrize(
    "story",
    [
        "A farmer has 4 cows and 7 pigs. He sells 2 pigs. How many animals does he have now?",  # a change
        "A farmer has 4 cows and 7 pigs. How many legs do they have?",  # not the kind
        "A farmer has 4 cows, 7 pigs and 3 bags of feed. How many animals does he have?",  # another thing
    ],
)
def test_a_count_of_a_kind_with_a_change_or_another_thing_is_not_their_plain_sum(story):
    assert kinds.counted_as_a_kind(story, story[story.index("How") :], quantities(story)) is None


@pytest.mark.parametrize(
    "story",
    [
        "Ivy has 40 stamps. 3/8 of them are old and the rest are new. How many are new?",  # the rest, said
        "Ivy has 40 stamps. Bo has 3/8 of what Ivy has. How many more stamps does Ivy have?",  # compared
        "Ivy has 40 stamps. 3/8 of them are old. How many stamps does she have in total?",
    ],
)
def test_a_fraction_whose_share_the_question_does_not_plainly_ask_is_left_to_the_ranker(story):
    assert shares.fraction_of(story, story[story.index("How") :], quantities(story)) is None


def test_a_share_taken_and_then_another_share_is_not_read_as_the_first_alone():
    story = (
        "Ali had 480 dollars. He spent half of it on food and a third of the rest on a hat. How much is left?"
    )
    assert shares.share_taken(story, story[story.index("How") :], quantities(story)) is None


def test_a_count_of_dozens_and_the_dozen_back_the_formula_that_multiplies_them():
    asked = Source("A baker sold five dozen cookies. How many cookies did she sell?", USER_SOURCE)
    product = Source("60", 'evaluate("5 * 12")', "calculator")
    assert CalculonVerifier().check("5 × 12 = 60.", [asked, product]).verified


def test_groups_needed_are_the_whole_ones_and_one_more_for_the_rest_and_the_calculator_backs_it():
    asked = "A pack has 6 cans. How many packs do I need for 45 cans?"
    assert inline_result("7.5", asked=asked, expression="45 / 6") == (
        "= 7.5: 7 full, 3 left over, so 8 to hold them all"
    )
    sources = [Source(asked, USER_SOURCE), Source("7.5", 'evaluate("45 / 6")', "calculator")]
    verifier = CalculonVerifier()
    assert verifier.check("45 ÷ 6 = 7.5: 7 full, 3 left over, so 8 to hold them all.", sources).verified
    assert verifier.check("45 ÷ 6 = 7.5, so 9 packs.", sources).unbacked == ("9",)


def test_a_need_with_no_group_size_in_the_story_is_not_read_as_groups():
    story = "Sam has 5 apples. He wants 12 apples. How many apples does he need?"
    assert ranked(story)[0].candidate.shown == "12 − 5"


@pytest.mark.parametrize(
    "story",
    [
        # the average is given, and the question asks for a missing score
        "My scores are 70, 80 and 90. What must I score next to keep an average of 85?",
        # a price each: a weighted average, not the mean of the numbers written
        "I bought 8 pens for $2 each and 4 pens for $3 each. What is the average price per pen?",
        # the rate is "twice a day", not one a day
        "Jo walks 2 km twice a day. How far does she walk in a week?",
        # asked backwards: the price before the tax
        "I paid $84 including 12% tax. What was the price before tax?",
        # the count is in other units than the dozens
        "Nan saved 1 dozen quarters. How much money does she have?",
    ],
)
def test_a_story_with_more_steps_than_a_phrasing_rule_reads_is_left_to_the_ranker(story):
    question = story[story.rindex(". ") + 2 :]
    found = quantities(story)
    assert phrased_candidates(story, question, found, candidates(found)) == []
