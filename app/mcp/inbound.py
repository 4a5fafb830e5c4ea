"""What a server writes on stdout, turned into messages for the session, within bounds.

Lines are assembled from chunks without re-scanning what came before (a 10 MB reply costs
one pass), and a line over :data:`MAX_LINE` is dropped as it streams in rather than kept.
A reply the SDK could not use (invalid UTF-8, a lone surrogate escape, JSON nested past the
parser's limit, a line over the cap) would otherwise be dropped as garbage and leave its
request waiting for the tool timeout; here it becomes an error reply to that request, so the
call fails at once and says why. Lines that are not JSON-RPC at all (a banner a server prints
on stdout) are still only garbage for the stderr tail. Each ``tools/list`` reply is screened
tool by tool (:mod:`app.mcp.screen`). Notifications are held to a budget per second
(:mod:`app.mcp.flood`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import mcp_types
import pydantic
from mcp.shared.message import SessionMessage

from app.mcp.flood import NotificationBudget
from app.mcp.screen import screen_raw

MAX_LINE = 64 * 1024 * 1024  # one JSON-RPC message; a 10 MB result fits six times over
BAD_REPLY = mcp_types.PARSE_ERROR  # the code of the error reply made for a reply that cannot be used
_ID = re.compile(rb'"id"\s*:\s*(-?\d{1,18}|"[^"\\]{0,200}")')
_HEAD = 4096  # where in a broken line to look for its request's id


class Inbound:
    """Fed stdout chunks, gives session messages; told every message sent, knows what is pending.

    ``record`` takes a line for the stderr tail (garbage, skipped tools)."""

    def __init__(
        self,
        record: Callable[[str], None],
        max_line: int = MAX_LINE,
        on_dropped: Callable[[int], None] | None = None,
    ) -> None:
        self._record = record
        self._on_dropped = on_dropped
        self.budget = NotificationBudget(self._dropped_notifications)
        self._max_line = max_line
        self._buffer = bytearray()
        self._dropping = False  # inside a line over the cap: discard up to its newline
        self._pending: dict[Any, str] = {}  # request id -> method, for requests not yet answered
        self._skipped: list[str] = []  # why tools of the listings so far were left out
        # The protocol versions the session may speak: the SDK's default, until the server says.
        self._versions: list[str] = ["2025-11-25"]

    def sent(self, message: mcp_types.JSONRPCMessage) -> None:
        if isinstance(message, mcp_types.JSONRPCRequest):
            self._pending[message.id] = message.method
        elif (
            isinstance(message, mcp_types.JSONRPCNotification) and message.method == "notifications/cancelled"
        ):
            self._pending.pop((message.params or {}).get("requestId"), None)

    def feed(self, chunk: bytes) -> list[SessionMessage]:
        out: list[SessionMessage] = []
        start = 0
        while (end := chunk.find(b"\n", start)) != -1:
            out.extend(self._end_line(chunk[start:end]))
            start = end + 1
        self._take(chunk[start:], out)
        return out

    def _take(self, part: bytes, out: list[SessionMessage]) -> None:
        if self._dropping:
            return
        self._buffer += part
        if len(self._buffer) > self._max_line:
            why = f"it is over {self._mib} MiB"
            refused = self._refuse(bytes(self._buffer[:_HEAD]), why)
            if not refused:
                self._record(f"[unusable message dropped] {why}")
            out.extend(refused)
            self._buffer.clear()
            self._dropping = True

    def _end_line(self, tail: bytes) -> list[SessionMessage]:
        out: list[SessionMessage] = []
        self._take(tail, out)
        if not self._dropping:
            line, self._buffer = bytes(self._buffer), bytearray()
            out.extend(self._line(line))
        self._dropping = False
        return out

    @property
    def _mib(self) -> int:
        return self._max_line // (1024 * 1024)

    def _line(self, line: bytes) -> list[SessionMessage]:
        if not line.strip():
            return []
        try:
            message = mcp_types.jsonrpc_message_adapter.validate_json(line, by_name=False)
        except pydantic.ValidationError as exc:
            return self._unusable(line, exc)
        if isinstance(message, mcp_types.JSONRPCNotification):
            return [SessionMessage(message)] if self.budget.allow(message.method) else []
        self.budget.flush()
        if isinstance(message, mcp_types.JSONRPCResponse | mcp_types.JSONRPCError):
            method = self._pending.pop(message.id, "")
            if isinstance(message, mcp_types.JSONRPCResponse):
                self._inspect(method, message.result)
        return [SessionMessage(message)]

    def _unusable(self, line: bytes, exc: pydantic.ValidationError) -> list[SessionMessage]:
        if line.lstrip().startswith(b"{") and b'"jsonrpc"' in line[:_HEAD]:
            error = exc.errors()[0]["msg"]
            refused = self._refuse(line[:_HEAD] + line[-_HEAD:], error[:1].lower() + error[1:])
            if refused:
                return refused
        self.garbage(line)
        return []

    def _refuse(self, text: bytes, why: str) -> list[SessionMessage]:
        """An error reply to the request ``text`` answers, or nothing when that is unknown."""
        request = self._request_of(text)
        if request is None:
            return []
        self._pending.pop(request, None)
        error = mcp_types.ErrorData(code=BAD_REPLY, message=why)
        return [SessionMessage(mcp_types.JSONRPCError(jsonrpc="2.0", id=request, error=error))]

    def _request_of(self, text: bytes) -> Any:
        named = {_id_value(m.group(1)) for m in _ID.finditer(text)} & self._pending.keys()
        if len(named) == 1:
            return named.pop()
        if not named and len(self._pending) == 1 and b'"method"' not in text:
            return next(iter(self._pending))  # a reply whose id is past where we looked: the one waiting
        return None

    def _inspect(self, method: str, result: dict[str, Any]) -> None:
        if method == "initialize" and isinstance(result.get("protocolVersion"), str):
            self._versions = [result["protocolVersion"]]
        elif method == "server/discover" and isinstance(result.get("supportedVersions"), list):
            self._versions = [v for v in result["supportedVersions"] if isinstance(v, str)]
        elif method == "tools/list":
            self._screen_listing(result)

    def _screen_listing(self, result: dict[str, Any]) -> None:
        skipped = screen_raw(result, self._versions)
        for reason in skipped:
            self._record(f"[{reason}]")
        self._skipped.extend(skipped)

    def _dropped_notifications(self, count: int) -> None:
        self._record(f"[{count:,} notifications dropped: over {self.budget.per_second} in one second]")
        if self._on_dropped is not None:
            self._on_dropped(count)

    def take_skipped(self) -> list[str]:
        """Why tools were left out of the listings since the last call."""
        skipped, self._skipped = self._skipped, []
        return skipped

    def garbage(self, line: bytes) -> None:
        text = line[:1000].decode("utf-8", errors="replace").rstrip("\r")
        self._record(f"[stdout garbage] {text}")


def _id_value(raw: bytes) -> Any:
    return json.loads(raw)
