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
        {"value": 5, "from_unit": "miles", "to_unit": "km"},
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

VARIANTS: dict[str, tuple[Example, ...]] = {
    "operations": CALCULATOR_EXAMPLES,  # one example per calculator tool
    "expressions": EXPRESSION_EXAMPLES,  # every calculation written as one expression for evaluate
    "none": (),
}
# Chosen per family by bench/calculon_verified; CALCULON_EXAMPLES overrides it, for that bench.
FAMILIES: dict[str, str] = {"smollm2": "expressions", "gemma": "expressions"}


def example_messages(family: str, tools: Sequence[ToolSpec]) -> list[Message]:
    """The family's examples, as history messages, when their tools are offered.

    The same examples open every prompt, whichever other tools retrieval offers, so
    llama.cpp keeps them cached between questions; one whose tool is not offered only
    shows the syntax, since the grammar admits no tool that is not offered.
    """
    offered = {t.name for t in tools}
    variant = os.environ.get("CALCULON_EXAMPLES") or FAMILIES.get(family, "none")
    chosen = VARIANTS.get(variant, ())
    if not any(e.tool in offered for e in chosen):
        return []  # none of their tools here (no calculator): they would only mislead
    return [m for index, example in enumerate(chosen) for m in example.messages(index)]
