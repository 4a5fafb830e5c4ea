"""Worked examples shown to small local models before the conversation, per model family.

A 135M model does not read an instruction such as "send every step to the
calculator" and act on it; it imitates. So the prompt opens with a few short
exchanges in the very format the grammar enforces: a question, a call, its
result, a one-sentence answer. Which examples, and whether a family gets any,
was chosen by ``bench/calculon_verified`` (docs/benchmarks.md).
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping, Sequence
from typing import Any

from app.core.messages import Message, ToolCall, ToolSpec


@dataclasses.dataclass(frozen=True)
class Example:
    question: str
    answer: str
    tool: str = ""  # empty: an answer without a call
    arguments: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    result: str = ""
    is_error: bool = False

    def messages(self, index: int) -> list[Message]:
        if not self.tool:
            return [Message("user", self.question), Message("assistant", self.answer)]
        call = ToolCall(f"example-{index}", self.tool, dict(self.arguments))
        return [
            Message("user", self.question),
            Message("assistant", "", (call,)),
            Message("tool", self.result, tool_call_id=call.id, tool_name=self.tool, is_error=self.is_error),
            Message("assistant", self.answer),
        ]


CALCULATOR_EXAMPLES = (
    Example("What is 6 times 9?", "6 times 9 is 54.", "multiply", {"a": 6, "b": 9}, "54"),
    Example("Subtract 45 from 300.", "300 minus 45 is 255.", "subtract", {"a": 300, "b": 45}, "255"),
    Example("What is 20% of 150?", "20% of 150 is 30.", "evaluate", {"expression": "150 * 0.2"}, "30"),
    Example(
        "What is 8 plus 2, times 3?", "(8 + 2) × 3 is 30.", "evaluate", {"expression": "(8 + 2) * 3"}, "30"
    ),
    Example(
        "What is 9 divided by 0?",
        "9 divided by 0 is undefined: a number cannot be divided by zero.",
        "divide",
        {"a": 9, "b": 0},
        "division by zero",
        is_error=True,
    ),
    Example("Who are you?", "I am Calculon, a calculating machine. Ask me anything about numbers!"),
)

EXPRESSION_EXAMPLES = (
    Example("Who are you?", "I am Calculon, a calculating machine. Ask me anything about numbers!"),
    Example(
        "How many km is 5 miles?",
        "5 miles is 8.04672 km.",
        "convert",
        {"quantity": "5 miles", "to_unit": "km"},
        "8.04672 km",
    ),
    Example(
        "What is 9 divided by 0?",
        "9 divided by 0 is undefined: a number cannot be divided by zero.",
        "evaluate",
        {"expression": "9 / 0"},
        "division by zero",
        is_error=True,
    ),
    Example("Subtract 45 from 300.", "300 - 45 = 255.", "evaluate", {"expression": "300 - 45"}, "255"),
    Example(
        "A bag holds 8 apples. How many apples are in 6 bags?",
        "6 bags hold 48 apples.",
        "evaluate",
        {"expression": "8 * 6"},
        "48",
    ),
    Example("What is 20% of 150?", "20% of 150 is 30.", "evaluate", {"expression": "20% * 150"}, "30"),
    Example("What is (8 + 2) * 3?", "(8 + 2) × 3 = 30.", "evaluate", {"expression": "(8 + 2) * 3"}, "30"),
    Example("What is 6 times 9?", "6 × 9 = 54.", "evaluate", {"expression": "6 * 9"}, "54"),
)

# The expressions, and the kinds of question a 135M model got backwards or sent to the
# wrong tool ("B less than A", money spent, a discount, a temperature, a square root),
# worded unlike the bench's questions so the bench still measures more than recall.
EVERYDAY_EXAMPLES = (
    *EXPRESSION_EXAMPLES[:3],
    Example(
        "I spend $8 of my $50. What remains?", "$42 remains.", "evaluate", {"expression": "50 - 8"}, "42"
    ),
    Example(
        "An $80 jacket has 25% off. What does it cost now?",
        "It costs $60 now.",
        "evaluate",
        {"expression": "80 * (100 - 25) / 100"},
        "60",
    ),
    Example(
        "Convert 50 °F to Celsius.",
        "50 °F is 10 °C.",
        "convert",
        {"quantity": "50 °F", "to_unit": "°C"},
        "10 °C",
    ),
    Example("Square root of 81?", "The square root of 81 is 9.", "sqrt", {"x": 81}, "9"),
    Example(
        "12 cookies are split between 4 friends. How many does each get?",
        "Each gets 3 cookies.",
        "evaluate",
        {"expression": "12 / 4"},
        "3",
    ),
    Example(  # a story's number the question does not use (the 2 dogs) stays out of the formula
        "I have 2 dogs and 5 books. I buy 3 more books. How many books now?",
        "You have 8 books.",
        "evaluate",
        {"expression": "5 + 3"},
        "8",
    ),
    Example("What is 7 squared?", "7 squared is 49.", "evaluate", {"expression": "7^2"}, "49"),
    Example(
        "What is the mean of 4, 8 and 9?",
        "The mean is 7.",
        "evaluate",
        {"expression": "(4 + 8 + 9) / 3"},
        "7",
    ),
    *EXPRESSION_EXAMPLES[3:-1],
    Example(
        "Tom had 9 marbles. He gave 4 to Sue. How many marbles does Tom have left?",
        "Tom has 5 marbles left.",
        "evaluate",
        {"expression": "9 - 4"},
        "5",
    ),
    EXPRESSION_EXAMPLES[-1],
)

VARIANTS: dict[str, tuple[Example, ...]] = {
    "operations": CALCULATOR_EXAMPLES,  # one example per calculator tool
    "expressions": EXPRESSION_EXAMPLES,  # every calculation written as one expression for evaluate
    "everyday": EVERYDAY_EXAMPLES,
    "none": (),
}
# Chosen per family by bench/calculon_verified; CALCULON_EXAMPLES overrides it, for that bench.
FAMILIES: dict[str, str] = {"smollm2": "everyday", "gemma": "expressions"}


def family_examples(family: str) -> list[Message]:
    """The family's examples as history messages, whatever tools are offered."""
    variant = os.environ.get("CALCULON_EXAMPLES") or FAMILIES.get(family, "none")
    return [m for index, example in enumerate(VARIANTS.get(variant, ())) for m in example.messages(index)]


def example_messages(family: str, tools: Sequence[ToolSpec]) -> list[Message]:
    """The family's examples, as history messages, when their tools are offered.

    The same examples open every prompt, whichever other tools retrieval offers, so
    llama.cpp keeps them cached between questions; one whose tool is not offered only
    shows the syntax, since the grammar admits no tool that is not offered.
    """
    offered = {t.name for t in tools}
    examples = family_examples(family)
    if not any(c.name in offered for m in examples for c in m.tool_calls):
        return []  # none of their tools here (no calculator): they would only mislead
    return examples
