"""A table's numeric columns listed where the question sums or averages them: the model reads the
values and their number, and the calculator still does the sum."""

from __future__ import annotations

from app.calculon import CalculonMode
from app.calculon.columns import columns_note
from app.calculon.counts import count_note

VISITORS = "day,visitors\nMon,120\nTue,95\nWed,143\nThu,88\nFri,131\nSat,204\nSun,185\n"
ASKED = "What is the average number of visitors per day in /x/visitors.csv?"


def test_a_mean_asked_of_a_table_lists_its_numeric_column_and_how_many_values_it_holds() -> None:
    note = columns_note(ASKED, VISITORS)
    assert (
        note
        == "\n\n[Found by the app: the visitors column holds 7 numbers: 120, 95, 143, 88, 131, 204, 185.]"
    )
    prices = "item|price|stock\npen|1.50|3\nink|2.05|x\n"  # stock has a word in it: not listed
    assert (
        columns_note("Add up the prices", prices)
        == "\n\n[Found by the app: the price column holds 2 numbers: 1.50, 2.05.]"
    )


def test_no_list_where_no_sum_is_asked_or_the_text_is_no_table() -> None:
    assert columns_note("Which day had the most visitors?", VISITORS) == ""
    assert columns_note(ASKED, "120 visitors on Monday, 95 on Tuesday") == ""


def test_a_mean_is_not_told_the_line_count_that_a_small_model_divided_by() -> None:
    assert count_note(ASKED, VISITORS) == ""
    assert "8 lines" in count_note("How many lines does /x/visitors.csv have?", VISITORS)
    assert CalculonMode().count_note(ASKED, VISITORS) == columns_note(ASKED, VISITORS)


def test_rows_written_as_records_are_a_table_too_in_json_or_as_python_writes_them() -> None:
    asked = "What is the average price of the products in the 'tools' category of the shop database?"
    python = "[{'price': 12.75}, {'price': 89.9}, {'price': 21.4}, {'price': 6.85}]"  # the sqlite server's
    assert (
        columns_note(asked, python)
        == "\n\n[Found by the app: the price column holds 4 numbers: 12.75, 89.9, 21.4, 6.85.]"
    )
    json_rows = '[{"name": "drill", "price": 89.9}, {"name": "saw", "price": 21.4}]'
    assert columns_note("What do the tools cost in total?", json_rows).endswith(
        "holds 2 numbers: 89.9, 21.4.]"
    )
    assert columns_note(asked, "[{'price': 1}, {'cost': 2}]") == ""  # not one table
    assert columns_note(asked, "[{'price': __import__('os')}, {'price': 2}]") == ""  # no literal: not read
