"""The word reading behind Calculon mode's operand grammar: order, joins and groups from the user's words."""

from __future__ import annotations

import pytest

from app.calculon.reading import read
from app.calculon.transcript import transcribe
from app.core.arithmetic import ANY, Item, fixes_operators


def spelled_read(question: str) -> tuple[Item, ...]:
    """The reading Calculon mode sends the backend, told whether the words spell the
    arithmetic out (app.calculon.transcript), as CalculonMode.arithmetic makes it."""
    return read(question, transcribe(question) is not None)


def written(items: tuple[Item, ...] | list[Item]) -> str:
    """The reading as an expression pattern: "110 - 40", "(43 + 18 + 10) / 3", "5 ? 3" where any
    operator goes."""
    parts = []
    for item in items:
        if parts:
            parts.append("?" if item.join == ANY else item.join)
        parts.append(f"({written(item.group)})" if item.group else min(item.forms, key=len))
    return " ".join(parts)


@pytest.mark.parametrize(
    ("question", "reading"),
    [
        ("What is 12 times 7?", "12 * 7"),
        ("What is 40 less than 110?", "110 - 40"),
        ("Subtract 999 from 12345.", "12345 - 999"),
        ("What is 38 minus 9 times 9?", "38 - 9 * 9"),
        ("What is 99 - 38 / 7?", "99 - 38 / 7"),
        ("What is (79 - 14) / 7?", "(79 - 14) / 7"),
        ("What is 25 squared plus 22 squared?", "25 ^ 2 + 22 ^ 2"),
        ("What is the average of 43, 18 and 10?", "(43 + 18 + 10) / 3"),
        ("What is half of 30?", "30 / 2"),
        ("What is 15% of 240?", "15 * 240"),
        ("A train has 5 cars of 40 seats. How many seats are there?", "5 * 40"),
        ("Multiply 80 by 12.", "80 * 12"),
        ("Divide 80 by 12.", "80 / 12"),
        ("I had $346 and spent $10. How much is left?", "346 - 10"),
        ("273 apples are shared equally among 6 children. How many does each child get?", "273 / 6"),
        ("Tickets cost $5 each. How much do 3 tickets cost?", "5 ? 3"),
        ("One ticket costs $692. What do 6 tickets cost?", "692 ? 6"),  # "one" says what $692 is for
        ("What is one plus 5?", "1 + 5"),
        ("How much is a 20% tip on a $95 bill?", "20 * 95"),
        ("A $95 jacket is discounted by 20%. What does it cost now?", "95 - 20"),
        ("A rope 574 m long is cut into 11 equal pieces. How long is each piece?", "574 / 11"),
        ("A box weighs 569 g. What do 16 boxes weigh together?", "569 ? 16"),  # not like amounts
    ],
)
def test_the_words_give_the_order_and_the_operators(question, reading):
    assert written(spelled_read(question)) == reading


@pytest.mark.parametrize(
    ("question", "reading"),
    [
        # A story's operation is the model's reading: the grammar forces none (issue 25: forced
        # story rules wrote "5 * 15" for "15 goldfish ... 5 were eaten", marked verified).
        ("We drove 174 miles before lunch and 22 miles after. How far did we drive?", "174 ? 22"),
        ("My account had $315 and I withdrew $19. What is the balance?", "315 ? 19"),
        ("Tom is 150 cm tall and Sam is 130 cm tall. How much taller is Tom?", "150 ? 130"),
        ("A 258 page book is read at 25 pages a day. How many days does it take?", "258 ? 25"),
        ("I save $464 a week. How much do I save in 14 weeks?", "464 ? 14"),
        ("Paige raised 15 goldfish. 5 were eaten. How many goldfish remained?", "15 ? 5"),
        ("Sam had 10 apples left after lunch. He bought 5 more. How many does he have?", "10 ? 5"),
    ],
)
def test_a_story_leaves_the_operator_to_the_model(question, reading):
    assert written(spelled_read(question)) == reading


def test_a_question_that_names_two_kinds_of_operation_leaves_the_operator_open():
    assert (
        written(spelled_read("I spent $5 on 3 tickets each costing the same. What is the product?"))
        == "5 ? 3"
    )


def test_a_number_with_a_unit_after_it_is_read_as_a_quantity():
    (miles,) = spelled_read("How many km is 144 miles?")
    assert miles.unit == "miles"
    (fahrenheit,) = spelled_read("What is 109 °F in Celsius?")
    assert fahrenheit.unit.replace(" ", "") == "°F"
    (root,) = spelled_read("What is the square root of 3025?")
    assert root.unit == ""  # and "square root" is no squaring


def test_only_a_reading_that_names_every_operator_fixes_them():
    assert fixes_operators(spelled_read("What is 9426773649463482887834 minus 241255886323749462657?"))
    assert fixes_operators(spelled_read("What is the average of 43, 18 and 10?"))
    assert not fixes_operators(spelled_read("A box holds 12 eggs. How many eggs are in 5 boxes?"))
    assert not fixes_operators(spelled_read("What is 7?"))
