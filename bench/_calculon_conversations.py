"""Conversations for the Calculon bench: follow-ups that work on the previous answer.

"Now add 16 to that" is written-out arithmetic only if "that" is known: the previous answer,
where it was verified. Each conversation mixes such follow-ups with questions that stand
alone, so an answer that leans on an older number ("1234. 28" after "What is 17 squared?")
shows up. Keys are worked out here with ``fractions`` from the numbers in the text.
"""

from __future__ import annotations

from fractions import Fraction as F

from bench._calculon_questions import Question

CATEGORY = "conversation"

# Each turn: (what the user types, the key given the previous key).
CONVERSATIONS: list[list[tuple[str, F]]] = [
    [
        ("What is 12 times 7?", F(84)),
        ("Now add 16 to that.", F(100)),
        ("And half of it?", F(50)),
        ("What is 17 squared?", F(289)),
        ("Subtract 89 from that.", F(200)),
    ],
    [
        ("What is 250 divided by 5?", F(50)),
        ("Multiply that by 3.", F(150)),
        ("What is 40 less than 110?", F(70)),
        ("Double it.", F(140)),
    ],
    [
        ("What is 15% of 240?", F(36)),
        ("Add 14 to it.", F(50)),
        ("What is 9 plus 6?", F(15)),
        ("What is that times 4?", F(60)),
    ],
    [
        ("How many km is 10 miles?", F("16.09344")),
        ("What is 1000 minus 1?", F(999)),
        ("And that divided by 9?", F(111)),
        ("What is the square root of 144?", F(12)),
        ("Now that squared.", F(144)),
    ],
    [
        ("What is 3 + 4 * 5?", F(23)),
        ("Add 77 to that.", F(100)),
        ("What is the average of 10, 20 and 60?", F(30)),
        ("What is 30 minus 12?", F(18)),
    ],
    [
        ("What is 6 times 8?", F(48)),
        ("Divide it by 4.", F(12)),
        ("What is 12 cubed?", F(1728)),
        ("Subtract 728 from it.", F(1000)),
    ],
]


def conversation_questions() -> list[list[Question]]:
    return [[Question(text, CATEGORY, key) for text, key in turns] for turns in CONVERSATIONS]
