"""What the bundled servers share: number parameters, result shapes, error reporting.

Tool results put just the number (and its exactness note) in the text content,
so Calculon's checker can match it, and the same facts in structured content.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Annotated, Any, NotRequired, TypeVar

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CallToolResult, TextContent, ToolAnnotations
from pydantic import WithJsonSchema
from typing_extensions import TypedDict

from app.servers.exact import CalcError, Result

# A number may arrive as a JSON number or as text: big and exact values travel as text.
NUMBER_SCHEMA = WithJsonSchema({"type": ["number", "string"]})
NUMBER_HINT = "A number, or a numeric string for big or exact values (e.g. 12, -3.5, '1e6', '1/3')."

ToolFunction = TypeVar("ToolFunction", bound=Callable[..., Any])


class NumberOut(TypedDict):
    """Structured result: ``value`` is decimal text; ``fraction`` and ``precision`` appear when rounded."""

    value: str
    exact: bool
    fraction: NotRequired[str]
    precision: NotRequired[int]


class QuantityOut(NumberOut):
    unit: str


NumberResult = Annotated[CallToolResult, NumberOut]
QuantityResult = Annotated[CallToolResult, QuantityOut]


# Every bundled tool only computes or reads the clock: a trusted host runs them without asking.
READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, open_world_hint=False)


def tool(server: MCPServer, **options: Any) -> Callable[[ToolFunction], ToolFunction]:
    """``server.tool()`` with the docstring folded onto one line: indentation costs a small model tokens."""

    def register(function: ToolFunction) -> ToolFunction:
        description = " ".join((function.__doc__ or "").split())
        options.setdefault("annotations", READ_ONLY)
        return server.tool(description=description, **options)(function)

    return register


def text_result(text: str, structured: dict[str, Any]) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=structured)


def number_result(result: Result) -> CallToolResult:
    return text_result(result.text, result.structured())


def quantity_result(result: Result, unit: str) -> CallToolResult:
    return text_result(result.render(unit), {**result.structured(), "unit": unit})


@contextmanager
def tool_errors() -> Iterator[None]:
    """Turn a CalcError into a ToolError, whose message MCPServer passes to the client."""
    try:
        yield
    except CalcError as error:
        raise ToolError(str(error)) from error


def compute(step: Callable[[], Result]) -> CallToolResult:
    with tool_errors():
        return number_result(step())
