"""The neutral conversation types: what a model is offered, what it asks for, what it was told.

They belong to no provider: the turn loop, the tool runner, the backends and the
benchmarks all speak them, so they live here, below every layer that uses them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, Literal


@dataclasses.dataclass(frozen=True)
class ToolSpec:
    """A tool as offered to a model: the name the model must use, and its JSON schema."""

    name: str
    description: str
    input_schema: Mapping[str, Any]
    # the server it belongs to, where known: a failed call is fixed with its own server's tools
    server: str = dataclasses.field(default="", compare=False)


@dataclasses.dataclass(frozen=True)
class ToolCall:
    id: str
    name: str
    arguments: Mapping[str, Any]
    # Set when the model produced arguments that are not a JSON object; the
    # turn loop reports it back to the model instead of calling the tool.
    raw_arguments_error: str = ""
    # A calculation written inside the answer's own prose ("16 - 3 - 4 ="): its result is part
    # of the answer, which the next step goes on writing (Calculon mode's worked answers).
    inline: bool = False


@dataclasses.dataclass(frozen=True)
class Message:
    """One history entry. ``provider_data`` carries what a backend must replay
    verbatim (Gemini's content with thought signatures); other backends ignore it."""

    role: Literal["user", "assistant", "tool"]
    text: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str = ""
    tool_name: str = ""
    is_error: bool = False
    provider_data: Any = None
    structured: Any = None  # a tool result's validated structuredContent, for backends that take JSON
