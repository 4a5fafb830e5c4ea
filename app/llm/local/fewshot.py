"""Worked examples shown to small local models before the conversation, per model family.

A 135M model does not read an instruction such as "send every step to the
calculator" and act on it; it imitates. So the prompt opens with a few short
exchanges in the very format the grammar enforces: a question, a call, its
result, a one-sentence answer. Which examples, and whether a family gets any,
was chosen by ``bench/calculon_verified`` (docs/benchmarks.md). Examples use
numbers that no benchmark question uses, and only tools that are on offer.
"""

from __future__ import annotations

import dataclasses
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

FAMILIES: dict[str, tuple[Example, ...]] = {
    "smollm2": CALCULATOR_EXAMPLES,
    "gemma": CALCULATOR_EXAMPLES,
}


def example_messages(family: str, tools: Sequence[ToolSpec]) -> list[Message]:
    """The family's examples whose tool is on offer, as history messages."""
    offered = {t.name for t in tools}
    chosen = [e for e in FAMILIES.get(family, ()) if not e.tool or e.tool in offered]
    if not any(e.tool for e in chosen):
        return []  # examples without a single call would teach the model never to call
    return [m for index, example in enumerate(chosen) for m in example.messages(index)]
