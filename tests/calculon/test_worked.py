"""Which questions get the worked format: a calculation on numbers the words give, nothing else."""

from __future__ import annotations

import pytest

from app.calculon import CalculonMode
from app.calculon.worked import worked_answer


@pytest.mark.parametrize(
    "story",
    [
        "There are 41 short trees and 44 tall trees in the park. Workers plant 57. How many short trees?",
        "Twelve birds sat on a wire and five flew away. How many are left?",
        "Tom is fourteen and his sister is twice his age. How old is she?",
        "What is 20% of my 5000 pay?",
    ],
)
def test_a_story_that_gives_its_numbers_is_worked(story: str) -> None:
    assert worked_answer(story) is not None


@pytest.mark.parametrize(
    "task",
    [
        "How many lines does /home/ana/notes.txt have?",
        "Add up the prices in /home/ana/prices.csv. What is the total?",
        "What is the average price of the products in the shop database?",
        "Commit draft.txt with the message 'Add launch draft'.",
        "Remember that my sister Dana's birthday is on 3 October.",
    ],
)
def test_a_task_whose_numbers_another_tool_holds_is_not_worked(task: str) -> None:
    # The working can call only the calculator; these need a file, a table or memory first.
    assert worked_answer(task) is None


def test_a_clock_question_with_times_in_it_is_left_to_the_clock() -> None:
    assert worked_answer("A call is at 15:00 Berlin time today. What time is that in Los Angeles?") is None
    assert worked_answer("When it is 9:30 today in New York, what time is it in London?") is None


def test_a_unit_conversion_is_left_to_the_converter_though_its_unit_names_a_number() -> None:
    # "feet" names 12 (inches in a foot): worked, the 0.5B model told the fried chicken example
    assert worked_answer("How many metres is 80 feet?") is None
    assert worked_answer("How many feet is 2 metres?") is None
    assert worked_answer("A rope is 80 feet long and I cut off 12 feet. How long is it now?") is not None


@pytest.mark.parametrize(
    "asked",
    [
        "According to http://127.0.0.1:8000/pricing.html, what would the Team plan cost per month for 6"
        " users?",
        "According to http://127.0.0.1:8000/release.html, how many downloads do versions 2.1.0 and 2.0.3 have"
        " together?",
        "Write the names of the items in /tmp/p/prices.csv that cost more than 2 into a new file"
        " /tmp/p/dear.txt, one per line.",
    ],
)
def test_a_question_whose_numbers_are_on_a_page_or_in_a_file_is_not_worked_nor_read_as_a_story(asked):
    mode = CalculonMode()
    assert mode.worked(asked) is None
    assert mode.hint(asked, None) is None  # no "0 + 2 + 3" from two version numbers, no "2 ÷ 1"


def test_a_rate_written_with_a_slash_is_no_file_and_the_story_is_worked():
    assert CalculonMode().worked("A car drives at 60 miles/hour for 3 hours. How far does it go?") is not None
