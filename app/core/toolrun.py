"""Running one model-requested tool call: validate, approve, call, time it.

Malformed arguments and unknown tools never reach a server: they come back to
the model as an error result it can correct, and to the trace as a failed call.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator, Mapping
from typing import Any

import jsonschema

from app.core.alternatives import both_alternatives
from app.core.messages import ToolCall
from app.core.tools import ApprovalPolicy, ToolInfo, ToolProvider, ToolResult

NOT_APPROVED = "was not approved"  # in a declined call's result: the user's no, not the model's error
# A calculation Calculon mode did not run, for it worked nothing out (app.calculon.idle): no
# failure to fix by calling again. A calculation that uses a value more often than the data holds it
# (app.calculon.idle.overused) is a failure to fix: written again, it runs.
IDLE_NOT_RUN = "Not run (it works nothing out):"
ECHO_NOT_RUN = "Not run (it repeats the tool's own reply):"
OVERUSED_NOT_RUN = "Not run (it uses a value more often than the data holds it):"
REFUSED_HERE = (IDLE_NOT_RUN, ECHO_NOT_RUN)  # the app's refusals: no failure for the model to fix


# The formats checked before a call is sent: only "uri", which servers enforce (the fetch server
# refused a file path as its url) and which needs no extra package to check. Other formats are
# left to the server: a loose check here could refuse what it would take.
_FORMATS = jsonschema.FormatChecker(formats=())
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:\S")


@_FORMATS.checks("uri")
def _is_uri(value: object) -> bool:
    return not isinstance(value, str) or bool(_SCHEME.match(value))


def schema_error(schema: Mapping[str, Any], arguments: Mapping[str, Any]) -> str | None:
    """A readable reason why ``arguments`` do not fit ``schema``, or None."""
    try:
        validator_cls = jsonschema.validators.validator_for(schema)
        validator = validator_cls(schema, format_checker=_FORMATS)
        error = jsonschema.exceptions.best_match(validator.iter_errors(dict(arguments)))
    except jsonschema.exceptions.SchemaError:
        return None  # a server's broken schema is its problem; let the server judge the call
    if error is None:
        return None
    where = "/".join(str(p) for p in error.absolute_path)
    return f"{where}: {error.message}" if where else error.message


class ToolRunner:
    def __init__(self, provider: ToolProvider, approve: ApprovalPolicy | None = None):
        self.provider = provider
        self.approve = approve

    def identify(self, call: ToolCall) -> tuple[str, str]:
        """(server, tool) for the trace; unknown tools are reported under '?'."""
        info = self.provider.resolve(call.name)
        return (info.server, info.tool) if info else ("?", call.name)

    async def run(self, call: ToolCall) -> tuple[ToolResult, float]:
        started = time.perf_counter()
        result = await self._run(call)
        return result, (time.perf_counter() - started) * 1000

    async def _run(self, call: ToolCall) -> ToolResult:
        if call.raw_arguments_error:
            return ToolResult(
                f"Arguments for {call.name} were not a JSON object: {call.raw_arguments_error}", True
            )
        info = self.provider.resolve(call.name)
        if info is None:
            known = ", ".join(sorted(t.name for t in self.provider.list_tools())) or "none"
            return ToolResult(f"Unknown tool {call.name!r}. Available tools: {known}", True)
        problem = schema_error(info.input_schema, call.arguments)
        if problem is not None:
            return ToolResult(f"Arguments do not match the schema of {info.name}: {problem}", True)
        both = both_alternatives(self._descriptions(info), info.input_schema, call.arguments)
        if both:
            return ToolResult(f"Arguments for {info.name} were not sent: {both}.", True)
        refusal = await self._refusal(info, call.arguments)
        if refusal is not None:
            return ToolResult(f"Call to {info.name} {NOT_APPROVED}: {refusal}", True)
        return await self.provider.call_tool(info.name, _huge_ints_as_strings(call.arguments))

    def _descriptions(self, info: ToolInfo) -> Iterator[str]:
        """The tool's description, then its server's other tools' (an alias says less than its original)."""
        yield info.description
        for other in self.provider.list_tools():
            if other.server == info.server and other.name != info.name:
                yield other.description

    async def _refusal(self, info: ToolInfo, arguments: Mapping[str, Any]) -> str | None:
        return await self.approve(info, arguments) if self.approve else None


# Python refuses to parse integers past 4300 digits from JSON, so a server would
# drop such a request; as strings (which numeric schemas here accept) they pass.
_HUGE_DIGITS = 4000


def _huge_ints_as_strings(value: Any) -> Any:
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and abs(value).bit_length() > _HUGE_DIGITS * 3.32:
        return _int_text(value)
    if isinstance(value, Mapping):
        return {k: _huge_ints_as_strings(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_huge_ints_as_strings(v) for v in value]
    return value


def _int_text(value: int) -> str:
    import decimal

    with decimal.localcontext() as ctx:
        ctx.prec = decimal.MAX_PREC
        return str(decimal.Decimal(value))
