"""A table's highest and lowest values, found by the app where the question asks for a most or a least."""

from __future__ import annotations

from app.calculon import CalculonMode
from app.calculon.extremes import extremes_note

VISITORS = "day,visitors\nMon,120\nTue,95\nWed,143\nThu,88\nFri,131\nSat,204\nSun,185\n"


def test_the_most_of_a_column_is_named_with_its_rows_label() -> None:
    note = extremes_note("Which day had the most visitors, and how many came that day?", VISITORS)
    assert note.endswith("[Found by the app: the highest visitors is 204 (Sat), the lowest 88 (Thu).]")


def test_every_numeric_column_of_a_table_is_compared_whatever_its_separator() -> None:
    table = "item\tprice\tstock\napple\t1.25\t3\nbread\t2.40\t10\nmilk\t0.99\t7\n"
    note = extremes_note("Which item is the cheapest?", table)
    assert "the lowest 0.99 (milk)" in note and "the highest stock is 10 (bread)" in note


def test_no_note_without_a_most_asked_or_without_a_table() -> None:
    assert extremes_note("What is the average number of visitors?", VISITORS) == ""
    assert extremes_note("Which is the largest?", "one line of prose\nand another\nand a third") == ""
    assert extremes_note("Which is the largest?", "a,b\n1,2\n") == ""  # one row: nothing to compare


def test_calculon_mode_adds_the_note_to_a_tools_result() -> None:
    assert "204 (Sat)" in CalculonMode().count_note("Which day was the busiest?", VISITORS)
