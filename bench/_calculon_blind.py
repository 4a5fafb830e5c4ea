"""A third held-out set, written and committed before the code change it was to judge.

The fresh set's first run (:mod:`bench._calculon_fresh`) missed two word problems whose
words name no operator ("I withdrew $19", "174 miles before lunch and 22 miles after").
Changing the word reading for them spends that set too, so these questions were written
first, committed, and run only after the change: word problems of the same kind (the
operation lies in the story, not in an operator word) and a few of every other kind.
Keys are computed with ``fractions`` from the operands the text shows.

    python -m bench calculon_verified --set blind --no-write
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from fractions import Fraction

from bench._calculon_questions import Question, Templates, from_templates

SEED = 20261204
F = Fraction

_TWO: Templates = [
    ("word", "I had ${a} in my wallet and paid ${b} for lunch. How much do I have now?", lambda a, b: a - b),
    ("word", "A library owns {a} books and buys {b} more. How many books does it own?", lambda a, b: a + b),
    ("word", "I ran {a} metres, rested, then ran {b} metres. How far did I run?", lambda a, b: a + b),
    ("word", "A farmer picked {a} apples and sold {b}. How many does he still have?", lambda a, b: a - b),
    (
        "word",
        "A school has {a} pupils in each year and {b} years. How many pupils are there?",
        lambda a, b: a * b,
    ),
    ("word", "A {a} page book is read at {b} pages a day. How many days does it take?", lambda a, b: a / b),
    (
        "word",
        "Our team scored {a} points, and the other team {b} points fewer. What did they score?",
        lambda a, b: a - b,
    ),
    (
        "word",
        "The flight took {a} minutes and the train after it {b} minutes. How long was the trip?",
        lambda a, b: a + b,
    ),
    ("word", "A bag of rice weighs {a} g and I cook {b} g of it. How much rice is left?", lambda a, b: a - b),
    ("word", "One ticket costs ${a}. What do {b} tickets cost?", lambda a, b: a * b),
    ("one_op", "Multiply {a} and {b}.", lambda a, b: a * b),
    ("one_op", "What is {a} less {b}?", lambda a, b: a - b),
    ("one_op", "{a} + {b} is what?", lambda a, b: a + b),
    ("one_op", "How many times does {b} go into {a}?", lambda a, b: a / b),
]


def _others(rng: random.Random) -> Iterator[Question]:
    a, b, c = rng.randint(10, 99), rng.randint(10, 99), rng.randint(2, 9)
    yield Question(f"What is {a} × {c} - {b}?", "pemdas", F(a * c - b))
    yield Question(f"What is {a} percent of {b * 10}?", "decimals", F(a * b * 10, 100))
    yield Question(f"How many ounces are in {c} pounds?", "units", F(c * 16))
    yield Question(f"Convert {a} km to miles.", "units", F(a) / F("1.609344"))
    yield Question("What is the capital of Japan?", "no_math", None)


def blind_questions(seed: int = SEED) -> list[Question]:
    rng = random.Random(seed)
    return [*from_templates(_TWO, rng, (50, 800), (2, 40)), *_others(rng)]
