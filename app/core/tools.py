"""What the turn loop needs from the tool side, as protocols.

The MCP supervisor implements :class:`ToolProvider`; retrieval implements
:class:`ToolSelector`; Calculon mode implements :class:`AnswerVerifier`. The
session depends on these shapes only, so each piece is tested on its own.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable, Mapping, Sequence
from fractions import Fraction
from typing import Any, Protocol, cast

from app.core.records import CallRecord


@dataclasses.dataclass(frozen=True)
class ToolInfo:
    """A discovered tool. ``name`` is what the model sees: the bare tool name, or
    ``server.tool`` when two servers expose the same name."""

    server: str
    tool: str
    name: str
    description: str
    input_schema: Mapping[str, Any]
    # The server's hints (readOnlyHint, destructiveHint...), camelCase as on the wire; see app.core.approvals.
    annotations: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    # The tool's icons as plain metadata (src, mime_type, sizes, theme, drawable); see app.mcp.icons.
    icons: tuple[Mapping[str, Any], ...] = ()


@dataclasses.dataclass(frozen=True)
class ToolResult:
    text: str
    is_error: bool = False
    structured: Any = None
    # What the window shows beside the text (images, embedded resources, links): see app.mcp.content.
    parts: tuple[Mapping[str, Any], ...] = ()
    kept: str = ""  # the file holding the whole result, when the text was cut for the model


class ToolProvider(Protocol):
    def list_tools(self) -> list[ToolInfo]: ...

    def resolve(self, name: str) -> ToolInfo | None:
        """Find a tool by model-facing name, bare name or ``server.tool``."""
        ...

    async def call_tool(self, name: str, arguments: Mapping[str, Any]) -> ToolResult:
        """Run a tool. Never raises for tool-side failures (unknown tool, crash,
        timeout, tool error): those come back as ``is_error`` results."""
        ...


class ToolSelector(Protocol):
    def select(self, context: str, tools: Sequence[ToolInfo]) -> list[tuple[ToolInfo, float]] | None:
        """The tools to offer with their scores, or None to offer every tool."""
        ...


@dataclasses.dataclass(frozen=True)
class Source:
    """Text that may back numbers, and what to call it when it does: ``"your message"``,
    or the call that produced it, ``"multiply(12, 7)"``. ``server`` is the tool's server."""

    text: str
    label: str = ""
    server: str = ""
    trusted: bool = True  # False: a server the user has not marked trusted; its numbers say so


USER_SOURCE = "your message"


@dataclasses.dataclass(frozen=True)
class CheckResult:
    """``backing`` pairs each backed number, as written, with the label of its source;
    ``untrusted`` pairs those that only an untrusted server's result backs with that server."""

    verified: bool
    unbacked: tuple[str, ...] = ()
    backing: tuple[tuple[str, str], ...] = ()
    untrusted: tuple[tuple[str, str], ...] = ()


class AnswerVerifier(Protocol):
    def check(self, answer: str, sources: Sequence[str | Source]) -> CheckResult:
        """Check every number in ``answer`` against ``sources`` (user words, tool results)."""
        ...


@dataclasses.dataclass(frozen=True)
class Verdict:
    """What an answer is shown as. ``kind``: "verified" (every number backed and the formula
    established, or a lookup's own numbers), "computed" (a tool computed the answer's number; the
    formula is the model's reading, to be checked by the person), "not_calculated" (a calculation
    was asked and no tool computed what the answer states), "unverified" (a number is not backed),
    "unchecked" (nothing to check: no number, no tool result behind it). ``formula``: what ran,
    the user's numbers labelled; ``basis``: one sentence on what was checked; ``value``: the
    result the next question may call "that"."""

    kind: str
    formula: str = ""
    basis: str = ""
    value: Fraction | None = None


@dataclasses.dataclass(frozen=True)
class TurnFacts:
    """What a verdict weighs besides the answer: the user's own question, this turn's calls,
    and the previous answer's result where that was verified ("now add 16 to that")."""

    asked: str
    calls: tuple[CallRecord, ...] = ()
    earlier: Fraction | None = None


class VerdictJudge(Protocol):
    def judge(self, answer: str, check: CheckResult, facts: TurnFacts) -> Verdict:
        """The verdict on an answer whose numbers ``check`` has checked."""
        ...


# The seam before each tool call: return None to run it, or a message to refuse it.
ApprovalPolicy = Callable[[ToolInfo, Mapping[str, Any]], Awaitable[str | None]]


def judge_verdict(verifier: object, answer: str, check: CheckResult, facts: TurnFacts) -> Verdict:
    """What the answer is shown as; a verifier that cannot weigh formulas says only whether
    every number is backed."""
    if not hasattr(verifier, "judge"):
        return Verdict("verified" if check.verified else "unverified")
    return cast(VerdictJudge, verifier).judge(answer, check, facts)
