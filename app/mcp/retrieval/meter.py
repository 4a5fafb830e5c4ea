"""The context meter: how much of the prompt the offered tools' schemas take."""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Callable, Sequence

from app.core.tools import ToolInfo

CHARS_PER_TOKEN = 4  # the usual rule of thumb for English and JSON with BPE tokenizers

CountTokens = Callable[[str], int]


def schema_text(tool: ToolInfo) -> str:
    """The tool as a model receives it: name, description and parameter schema, as JSON."""
    body = {"name": tool.name, "description": tool.description, "parameters": dict(tool.input_schema)}
    return json.dumps(body, ensure_ascii=False, separators=(",", ":"), default=str)


def estimate_tokens(text: str) -> int:
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def schema_tokens(tools: Sequence[ToolInfo], count_tokens: CountTokens | None = None) -> int:
    """Prompt tokens the tools' schemas take: the model's own tokenizer when given, else chars / 4."""
    count = count_tokens or estimate_tokens
    return sum(count(schema_text(tool)) for tool in tools)


@dataclasses.dataclass(frozen=True)
class ContextMeter:
    tokens: int
    context_tokens: int | None

    @property
    def share(self) -> float | None:
        """Fraction of the model's context window, when the model has a fixed one."""
        return self.tokens / self.context_tokens if self.context_tokens else None

    def label(self) -> str:
        if self.share is None:
            return f"tools: ~{self.tokens} tokens"
        return f"tools: ~{self.tokens} of {self.context_tokens} tokens ({self.share:.0%})"


def context_meter(
    tools: Sequence[ToolInfo], context_tokens: int | None, count_tokens: CountTokens | None = None
) -> ContextMeter:
    """``context_tokens`` is ``Backend.context_tokens`` (the local model's n_ctx), None for Gemini."""
    return ContextMeter(schema_tokens(tools, count_tokens), context_tokens)
