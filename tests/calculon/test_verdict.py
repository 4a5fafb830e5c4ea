"""The verdict on an answer: verified only where the formula is established (issue 25)."""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from app.calculon import CalculonMode
from app.core.records import CallRecord
from app.core.tools import USER_SOURCE, Source, TurnFacts, Verdict
from tests.calculon.stories import FRED, PAIGE


def call(tool: str, arguments: Mapping[str, Any], result: str, is_error: bool = False) -> CallRecord:
    return CallRecord("calculator", tool, arguments, result, is_error, 1.0)


def verdict(asked: str, calls: list[CallRecord], answer: str, earlier: Fraction | None = None) -> Verdict:
    mode = CalculonMode()
    sources = [Source(asked, USER_SOURCE), *(Source(c.result, c.label) for c in calls if not c.is_error)]
    return mode.judge(answer, mode.check(answer, sources), TurnFacts(asked, tuple(calls), earlier))


def test_written_out_arithmetic_that_the_calculator_agrees_with_is_verified():
    found = verdict("What is 12 times 7?", [call("multiply", {"a": 12, "b": 7}, "84")], "84")
    assert found.kind == "verified"
    assert found.formula == "84 = 12 × 7"
    assert "multiply(12, 7) agrees" in found.basis


def test_the_power_that_squared_names_backs_the_answer_that_writes_it():
    # the app's own answer to "73 squared plus 38 squared" writes the 2s: unbacked, it was asked
    # again and the model looped over "73 squared is 73"
    asked = "What is 73 squared plus 38 squared?"
    calls = [call("evaluate", {"expression": "73 ^ 2 + 38 ^ 2"}, "6773")]
    assert verdict(asked, calls, "73 ^ 2 + 38 ^ 2 = 6773.").kind == "verified"
    cubed = [call("evaluate", {"expression": "4 ^ 3"}, "64")]
    assert verdict("What is 4 cubed?", cubed, "4 ^ 3 = 64.").kind == "verified"
    assert verdict("What is 4 plus 60?", [call("evaluate", {"expression": "4 + 60"}, "64")],
                   "4 ^ 3 = 64.").kind != "verified"  # fmt: skip


def test_a_story_read_wrong_is_computed_never_verified():
    found = verdict(PAIGE, [call("evaluate", {"expression": "5 * 15"}, "75")], "75 goldfish.")
    assert found.kind == "computed"
    assert found.formula.startswith("75 = 5 (were eaten) × 15 (")
    assert "goldfish" in found.formula


def test_a_story_read_right_is_still_only_computed():
    found = verdict(PAIGE, [call("subtract", {"a": 15, "b": 5}, "10")], "10 goldfish remained.")
    assert found.kind == "computed"
    assert found.formula.startswith("10 = 15 (")


def test_every_number_of_a_computed_formula_is_labelled_with_the_users_words():
    found = verdict(FRED, [call("evaluate", {"expression": "40 - 19"}, "21")], "Fred earned 21 dollars.")
    assert found.kind == "computed"
    assert found.formula == "21 = 40 (now Fred has dollars) − 19 (Last week Fred had dollars)"


def test_a_number_the_user_said_in_words_is_labelled_with_those_words():
    asked = "Tom walks 3 miles every day. How many miles does he walk in 2 weeks?"
    found = verdict(asked, [call("evaluate", {"expression": "3 * 7 * 2"}, "42")], "3 × 7 × 2 = 42.")
    assert (
        found.formula
        == "42 = 3 (Tom walks miles every day) × 7 (days in a week) × 2 (miles he walk in weeks)"
    )
    twice = "Kate has twice as many books as Joe. Joe has 15 books. How many books does Kate have?"
    found = verdict(twice, [call("evaluate", {"expression": "15 * 2"}, "30")], "15 × 2 = 30.")
    assert found.formula == "30 = 15 (Joe has books) × 2 (twice)"


def test_an_answer_that_restates_the_input_of_a_conversion_is_not_verified():
    asked = "Convert 98.6 degrees Fahrenheit to Celsius."
    calls = [call("fahrenheit_to_celsius", {"value": 98.6}, "37 °C")]
    assert verdict(asked, calls, "98.6 °C").kind == "not_calculated"  # it only repeats the question
    assert verdict(asked, calls, "It is 37 °C.").kind == "verified"


def test_a_result_the_calculator_returned_is_computed_also_where_the_question_wrote_that_number():
    # "10 − 5 = 5." after evaluate("10 - 5") gave 5 was "not calculated: only repeats your question"
    asked = "Sam had 10 pens. He bought 5 more and then lost 5. How many pens does he have?"
    calls = [call("evaluate", {"expression": "10 - 5"}, "5")]
    assert verdict(asked, calls, "10 − 5 = 5.").kind == "computed"
    assert verdict(asked, [], "He has 5 pens.").kind == "not_calculated"  # nothing computed it


def test_a_follow_up_on_a_verified_result_is_verified_and_on_an_unknown_one_computed():
    calls = [call("add", {"a": 84, "b": 16}, "100")]
    assert verdict("Now add 16 to that.", calls, "100", earlier=Fraction(84)).kind == "verified"
    assert verdict("Now add 16 to that.", calls, "100").kind == "computed"
    wrong = [call("add", {"a": 12, "b": 16}, "28")]
    assert verdict("Now add 16 to that.", wrong, "28", earlier=Fraction(84)).kind == "computed"


def test_numbers_from_anywhere_but_a_tool_or_the_user_are_unverified():
    calls = [call("power", {"base": 17, "exponent": 2}, "289")]
    found = verdict("What is 17 squared?", calls, "1234. 1234. 1234. 28")
    assert found.kind == "unverified"
    assert "1234" in found.basis


def test_a_calculation_other_than_the_written_one_is_computed_with_the_reason():
    found = verdict("What is 12 times 7?", [call("add", {"a": 12, "b": 7}, "19")], "19")
    assert found.kind == "computed"
    assert "12 × 7, which is 84" in found.basis and "no tool's result agrees" in found.basis


def test_a_lookup_with_no_numbers_asked_is_verified():
    calls = [call("get_time", {"timezone": "Asia/Tokyo"}, "2026-12-02 21:05 JST")]
    assert verdict("What time is it in Tokyo?", calls, "It is 21:05.").kind == "verified"


def test_numbers_read_before_a_last_call_that_failed_are_not_verified():
    tokyo = call("get_time", {"timezone": "Asia/Tokyo"}, "2026-12-05T13:45:32+09:00")
    bad = call("convert_time", {"time": "2026-12-05T05:45"}, "Invalid time format. Expected HH:MM", True)
    told = verdict("How many hours ahead of London is Tokyo?", [tokyo, bad], "It is 13:45 on 2026-12-05.")
    assert told.kind == "unchecked" and "the last tool call failed" in told.basis
    # a failure reported in the text of an ordinary result counts the same
    query = call("read_query", {"query": "SELECT 1"}, "Database error: no such column: quantity")
    assert verdict("What time is it in Tokyo?", [tokyo, query], "It is 13:45.").kind == "unchecked"
    assert verdict("What time is it in Tokyo?", [tokyo], "It is 13:45.").kind == "verified"


def test_a_tool_given_numbers_the_user_never_wrote_is_computed():
    calls = [call("multiply", {"a": 24, "b": 3600}, "86400")]
    assert verdict("How many seconds are in a day?", calls, "86400 seconds.").kind == "computed"


def test_written_division_by_zero_refused_by_the_calculator_is_verified():
    calls = [call("divide", {"a": 134, "b": 0}, "division by zero", is_error=True)]
    said = "That is undefined: you cannot divide 134 by 0."
    assert verdict("What is 134 divided by 0?", calls, said).kind == "verified"


def test_an_answer_that_gives_a_value_where_there_is_none_is_not_verified():
    # A model shown fewer worked examples answered "134 / 0 = 134." after the calculator refused:
    # every number was the user's own, and the badge said verified.
    calls = [call("divide", {"a": 134, "b": 0}, "division by zero", is_error=True)]
    for said in ("134 / 0 = 134.", "134 / 0 = 0.", "It is 134.", "134 divided by 0 is undefined, so 134."):
        assert verdict("What is 134 divided by 0?", calls, said).kind != "verified", said
    for said in (
        "9 divided by 0 is undefined: a number cannot be divided by zero.",
        "The error occurs when the user attempts to divide by zero.",
    ):
        assert verdict("What is 9 divided by 0?", calls, said).kind == "verified", said  # fmt: skip
    assert verdict("What is 38 mod 0?", [call("evaluate", {"expression": "38 % 0"}, "modulo by zero", True)],
                   "38 % 0 = 38.").kind != "verified"  # fmt: skip


def test_a_rounded_statement_of_an_exact_quotient_is_verified():
    calls = [call("divide", {"a": 811, "b": 23}, "811/23 ≈ 35.26086956521739130434782609")]
    assert verdict("What is 811 divided by 23?", calls, "About 35.26.").kind == "verified"
    assert verdict("What is 811 divided by 23?", calls, "About 35.27.").kind == "unverified"


def test_an_answer_that_only_repeats_a_fractions_formula_does_not_state_its_value():
    # seen on the 0.5B model: verified, because the 7 of "/ 7" was read as stating 65/7
    calls = [call("evaluate", {"expression": "(79 - 14) / 7"}, "65/7 ≈ 9.285714285714285714285714286")]
    asked = "What is (79 - 14) / 7?"
    repeated = verdict(asked, calls, "This is the result of evaluating the expression (79 - 14) / 7.")
    assert repeated.kind == "not_calculated"
    assert verdict(asked, calls, "(79 - 14) / 7 = 65/7, about 9.29.").kind == "verified"


def test_a_number_the_user_left_out_of_the_arithmetic_means_no_transcription():
    asked = "I have 3 kids and earn 5000 dollars a month. What is 20% of my monthly pay?"
    found = verdict(asked, [call("evaluate", {"expression": "20% * 5000"}, "1000")], "1000 dollars.")
    assert found.kind == "computed"
    # the 20 is a share of the pay, not the pay: it was labelled "(my monthly pay)"
    assert found.formula == "1000 = 20% (of my monthly pay) × 5000 (earn dollars month)"
    share = verdict(asked, [call("evaluate", {"expression": "5000 * (20/100)"}, "1000")], "1000 dollars.")
    assert share.formula == "1000 = 5000 (earn dollars month) × (20 (percent of my monthly pay)÷100)"


def test_an_answer_with_no_result_to_a_follow_up_with_no_digit_is_not_a_lookup():
    # Seen on the conversation set: "And half of it?" answered with no call and no number was verified.
    said = "The user wants to know how many times the user wants to repeat the operation."
    found = verdict("And half of it?", [], said, earlier=Fraction(100))
    assert found.kind == "not_calculated" and "states no result" in found.basis
    assert verdict("Double it.", [], "Done.").kind == "not_calculated"


def test_an_answer_with_no_number_and_no_tool_behind_it_is_not_checked():
    # "Who are you?" was verified whatever the answer; nothing was checked.
    found = verdict("Who are you?", [], "I am Calculon.")
    assert found.kind == "unchecked" and "no tool was called" in found.basis


def test_a_verified_answer_states_only_the_result_and_the_formulas_own_numbers():
    # Seen on the conversation set (Qwen 0.5B): the right 60 among numbers from elsewhere.
    calls = [call("multiply", {"a": 4, "b": 15}, "60")]
    mode = CalculonMode()
    asked = "What is that times 4?"
    said = "The result of multiplying 60 by 15 is 9, 0.2."
    sources = [
        Source("What is 9 plus 6? 0.2", USER_SOURCE),
        Source("15", "add(9, 6)"),
        Source(asked, USER_SOURCE),
        Source("60", "multiply"),
    ]
    found = mode.judge(said, mode.check(said, sources), TurnFacts(asked, tuple(calls), Fraction(15)))
    assert found.kind == "computed" and "also states 9, 0.2" in found.basis
    assert (
        verdict(
            "What is the average of 43, 18 and 10?",
            [call("evaluate", {"expression": "(43+18+10)/3"}, "71/3 ≈ 23.67")],
            "(43 + 18 + 10) / 3 ≈ 23.67",
        ).kind
        == "verified"
    )


def test_a_tool_call_written_out_as_the_answer_is_never_verified():
    calls = [call("convert", {"quantity": "10 miles", "to_unit": "km"}, "16.09344 km")]
    said = '{"name": "convert", "arguments": {"quantity": "16.09344 km", "to_unit": "km"}}'
    found = verdict("How many km is 10 miles?", calls, said)
    assert found.kind == "unchecked" and "tool call" in found.basis
    assert verdict("How many km is 10 miles?", calls, "10 miles is 16.09344 km.").kind == "verified"


def test_an_answer_whose_own_working_comes_to_another_value_is_not_verified():
    # Qwen2.5-Coder after 84 + 16 ran: every number backed, the result right, the sum false
    calls = [call("evaluate", {"expression": "84 + 16"}, "100")]
    found = verdict("Now add 16 to that.", calls, "The answer to 16 plus 16 is 100.", earlier=Fraction(84))
    assert found.kind == "computed"
    assert "own working, 16 + 16, is 32" in found.basis
    right = verdict("Now add 16 to that.", calls, "That plus 16 is 100.", earlier=Fraction(84))
    assert right.kind == "verified"
    calls = [call("evaluate", {"expression": "3 + 4 * 5"}, "23")]
    assert verdict("What is 3 + 4 * 5?", calls, "3 + 4 × 5 = 23.").kind == "verified"


def test_an_answer_whose_only_call_failed_is_never_verified():
    asked = "List the files in /tmp/work/task1."
    failed = [call("list_directory", {"path": "/tmp/work/task/rt"}, "Access denied: outside the roots", True)]
    for said in ("I'm sorry, but I can't access that directory.", "The folder has 3 files.", "Done."):
        assert verdict(asked, failed, said).kind != "verified", said


def test_the_digits_of_a_path_ask_for_no_calculation():
    path = "/tmp/pytest-61-12ogts50/read_t0/todo.txt"
    read = CallRecord("files", "read_text", {"path": path}, "ship the beta\n", False, 1.0)
    asked = f"What does {path} say?"
    assert verdict(asked, [read], "It says: ship the beta.").kind == "unchecked"  # nothing to calculate
    assert verdict("What does 61 plus 2 make?", [], "It makes something.").kind == "not_calculated"


def test_numbers_only_read_from_a_tool_where_a_calculation_was_asked_are_not_calculated():
    asked = "Add up the prices in /w/prices.csv. What is the total?"
    read = CallRecord(
        "files", "read_text", {"path": "/w/prices.csv"}, "item,price\napple,1.25\nbread,2.40\n", False, 1
    )
    found = verdict(asked, [read], "Apple costs 1.25 and bread 2.40.")
    assert found.kind == "not_calculated" and "only read from a tool" in found.basis
    summed = call("evaluate", {"expression": "1.25 + 2.40"}, "3.65")
    assert verdict(asked, [read, summed], "The total is 3.65.").kind == "computed"
    assert verdict("Which price does /w/prices.csv give for bread?", [read], "It is 2.40.").kind == "verified"


def test_quoted_words_ask_for_no_calculation():
    asked = "Commit draft.txt in /w/repo with the message 'Add launch draft'."
    commit = CallRecord("git", "git_commit", {"repo_path": "/w/repo"}, "Changes committed", False, 1)
    assert verdict(asked, [commit], "Committed the draft.").kind == "unchecked"
    assert verdict("Add 'two' and 'three'.", [], "Done.").kind == "not_calculated"  # the word outside


def test_a_time_converted_by_a_tool_is_no_calculation_left_undone():
    asked = "When it is 9:30 today in New York, what time is it in London?"
    converted = CallRecord(
        "time", "convert_time", {"time": "09:30"}, '{"target": {"datetime": "14:30"}}', False, 1
    )
    assert verdict(asked, [converted], "It is 14:30 in London.").kind != "not_calculated"


def test_adding_a_thing_to_a_place_asks_for_no_sum():
    observed = CallRecord(
        "memory", "add_observations", {"observations": []}, '[{"entityName": "Alice"}]', False, 1
    )
    assert verdict("Add to my memory that Alice moved to Berlin.", [observed], "Done.").kind == "unchecked"
    assert verdict("Add an item 'call the plumber' to todo.md.", [], "Added.").kind == "unchecked"
    assert verdict("Add up the prices in prices.csv.", [], "Done.").kind == "not_calculated"


def test_setting_a_value_asks_for_no_sum():
    edited = CallRecord(
        "filesystem", "edit_file", {"path": "/w/config.json"}, "Edited /w/config.json", False, 1
    )
    asked = "Change the port in /w/config.json to 9090."
    assert verdict(asked, [edited], "The port is now 9090.").kind == "unchecked"
    assert verdict("Change 5 km to miles.", [], "It is 3.1 miles.").kind != "unchecked"  # a conversion


def test_one_files_count_for_a_together_question_is_only_read_not_verified() -> None:
    asked = "How many lines do /w/notes.txt and /w/todo.md have together?"
    notes = CallRecord(
        "fs", "read_file", {"path": "/w/notes.txt"}, "[Counted by the app: 13 lines.]", False, 1
    )
    todo = CallRecord("fs", "read_file", {"path": "/w/todo.md"}, "[Counted by the app: 8 lines.]", False, 1)
    assert verdict(asked, [notes, todo], "8").kind == "not_calculated"  # one file's count: no sum
    summed = call("evaluate", {"expression": "13 + 8"}, "21")
    assert verdict(asked, [notes, todo, summed], "21").kind == "computed"
    plain = "How many lines does /w/notes.txt have?"
    assert verdict(plain, [notes], "13").kind == "verified"  # a count read is the answer


def test_a_version_a_path_or_a_file_name_holds_no_number_to_calculate_with():
    mode = CalculonMode()
    assert not mode.holds_numbers(["Current version: 0.4.2", "What version is in /w/task1/README.md?"])
    assert mode.holds_numbers(["Version 2.1.0: 48213 downloads"])
    assert mode.holds_numbers(["Twelve birds sat on a wire."]) and mode.holds_numbers(["What is pi times e?"])


def test_a_computed_formula_states_an_inexact_result_as_a_person_reads_it():
    # the badge read "9.666666666666666666666666667 = 29 (...) ÷ 3 (...)"
    asked = "How many full bags of 3 apples can I make from 29 apples?"
    calls = [call("evaluate", {"expression": "29 / 3"}, "29/3 ≈ 9.666666666666666666666666667")]
    found = verdict(asked, calls, "29 ÷ 3 = 29/3 ≈ 9.667: 9 whole, 2 left over.")
    assert found.kind == "computed" and found.formula.startswith("29/3 ≈ 9.667 = 29 (")


def test_a_sum_written_in_prose_beside_a_calculation_it_never_states_is_not_computed():
    visitors = "day,visitors\nMon,120\nTue,95\nWed,143\nThu,88\nFri,131\nSat,204\nSun,185\n"
    read = CallRecord("filesystem", "read_file", {"path": "/w/visitors.csv"}, visitors, False, 1)
    added = call("add", {"a": 120, "b": 95}, "215")
    divided = call("divide", {"a": 215, "b": 7}, "215/7 ≈ 30.71428571428571428571428571")
    asked = "What is the average number of visitors per day in /w/visitors.csv?"
    prose = "The total is 120 + 95 + 143 + 88 + 131 + 204 + 185 = 143. So the average is 143 / 7 = 204."

    assert verdict(asked, [read, added, divided], prose).kind == "not_calculated"  # every number backed
    assert verdict(asked, [read, added, divided], "The average is 30.71 visitors.").kind == "computed"


def test_an_average_asked_of_a_file_and_answered_with_no_number_is_not_calculated():
    visitors = "day,visitors\nMon,120\nTue,95\n"
    read = CallRecord("filesystem", "read_file", {"path": "/w/visitors.csv"}, visitors, False, 1)
    asked = "What is the average number of visitors per day in /w/visitors.csv?"
    plan = "To find the average number of visitors per day, we need to sum up all the visitors."
    assert verdict(asked, [read], plan).kind == "not_calculated"
    assert verdict("What does the word 'mean' mean?", [], "It means intend.").kind == "unchecked"
