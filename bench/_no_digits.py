"""Questions without a digit, written for this project: the badge must not claim a check that did not run.

Three kinds, none with a digit in its text:

- ``word``: numbers written as words ("Twelve birds ... five flew away"), or a quantity its words
  name ("a dozen", "a mile in feet"); keyed with :class:`fractions.Fraction`, the key computed
  here from the same numbers the words say;
- ``no_math``: no arithmetic and no number: the right run calls no tool and states no number;
- ``lookup``: a tool is needed (the clock), no arithmetic: the right run gets its answer from it.

Their figure that matters is how often an answer is labelled verified or computed with no tool
result behind it (``hollow`` in bench/_calculon_report.py): it must be 0.
"""

from __future__ import annotations

from fractions import Fraction

from bench._calculon_questions import Question

_WORD: tuple[tuple[str, Fraction], ...] = (
    ("Twelve birds sat on a wire and five flew away. How many birds are left?", Fraction(12 - 5)),
    ("A shelf holds three rows of eight books. How many books are on the shelf?", Fraction(3 * 8)),
    ("Maria had forty dollars and spent seventeen on lunch. How much does she have now?", Fraction(40 - 17)),
    ("Six friends share ninety stickers equally. How many stickers does each friend get?", Fraction(90, 6)),
    ("A train has nine cars and each car seats sixty people. How many people can it seat?", Fraction(9 * 60)),
    ("Tom is fourteen and his sister is twice his age. How old is his sister?", Fraction(14 * 2)),
    ("A recipe needs three eggs per cake. How many eggs are needed for seven cakes?", Fraction(3 * 7)),
    (
        "Two hundred people came to the fair and half of them bought a ticket. How many bought one?",
        Fraction(100),
    ),
    (
        "A farmer has thirty-six cows and sells a quarter of them. How many cows does he sell?",
        Fraction(36, 4),
    ),
    (
        "Ann read eleven pages on Monday and nineteen on Tuesday. How many pages did she read?",
        Fraction(11 + 19),
    ),
    ("A box holds a dozen eggs. How many eggs are in five boxes?", Fraction(12 * 5)),
    ("A bus ticket costs four dollars. How much do nine tickets cost?", Fraction(4 * 9)),
    ("Sam ran five miles every day for a week. How many miles did he run?", Fraction(5 * 7)),
    (
        "A jar had one hundred marbles. Kim took out thirty-five and put back ten. How many are in it now?",
        Fraction(100 - 35 + 10),
    ),
    ("What is seven times eight?", Fraction(7 * 8)),
    ("What is one hundred minus forty-two?", Fraction(100 - 42)),
    ("Add twenty-five and seventeen.", Fraction(25 + 17)),
    ("Divide eighty-one by nine.", Fraction(81, 9)),
    ("What is a third of sixty?", Fraction(60, 3)),
    ("Multiply twenty-five by four, then add ten.", Fraction(25 * 4 + 10)),
    ("How many feet are in a mile?", Fraction(5280)),
    ("How many grams are in a kilogram?", Fraction(1000)),
    ("How many minutes are in a day?", Fraction(24 * 60)),
)
_NO_MATH = (
    "What is the capital of France?",
    "Say hello to my friend Anna.",
    "Give me a synonym for happy.",
    "What colour is the sky on a clear day?",
    "Name a fruit that is yellow.",
    "Translate 'good morning' into Spanish.",
    "Is a tomato a fruit or a vegetable?",
    "Which is heavier, a kilogram of feathers or a kilogram of iron?",
)
_LOOKUP = (
    "What time is it in Tokyo right now?",
    "What is today's date in London?",
    "What day of the week is it today in New York?",
)


def no_digit_questions() -> list[Question]:
    questions = [Question(text, "word", key) for text, key in _WORD]
    questions += [Question(text, "no_math", None) for text in _NO_MATH]
    questions += [Question(text, "lookup", None) for text in _LOOKUP]
    assert not any(ch.isdigit() for q in questions for ch in q.text), "a question here has a digit"
    return questions
