"""What one turn came to: the answer, its verdict and where each number came from, the calls
and the events; and its JSON form, as ``calculon ask --json`` prints it."""

from __future__ import annotations

import dataclasses
from typing import Any

from app.core import events as ev
from app.core.records import CallRecord


@dataclasses.dataclass
class TurnOutcome:
    answer: str = ""
    verified: bool | None = None
    # verified, computed, not_calculated, unverified, unchecked; None: mode off (shown_verdict adds untrusted)
    verdict: str | None = None
    formula: str = ""
    basis: str = ""
    unbacked: tuple[str, ...] = ()
    backing: tuple[tuple[str, str], ...] = ()  # (number as written, its source)
    untrusted: tuple[tuple[str, str], ...] = ()  # (number, the untrusted server that alone backs it)
    tool_calls: list[CallRecord] = dataclasses.field(default_factory=list)
    events: list[ev.Event] = dataclasses.field(default_factory=list)
    cancelled: bool = False
    error: str = ""

    @property
    def shown_verdict(self) -> str | None:
        """The verdict as shown: numbers only an untrusted server gave are never verified, and no
        tool computed them either ("untrusted": a count a third-party server's file read backs was
        shown "computed" with no formula)."""
        if self.verdict == "verified" and self.untrusted:
            return "untrusted"
        return self.verdict

    def to_dict(self) -> dict[str, Any]:
        body: dict[str, Any] = {
            "answer": self.answer,
            "tool_calls": [c.to_dict() for c in self.tool_calls],
            "events": [e.to_dict() for e in self.events],
        }
        if self.verified is not None:
            # a number only an untrusted server gave is not verified: it is "from SERVER"
            body.update(verified=self.verified and not self.untrusted, unbacked_numbers=list(self.unbacked))
            body.update(verdict=self.shown_verdict, formula=self.formula, basis=self.basis)
            servers = dict(self.untrusted)
            body["numbers"] = [
                {"text": t, "source": source, **({"from_server": servers[t]} if t in servers else {})}
                for t, source in self.backing
            ]
            if self.untrusted:
                body["from_servers"] = sorted(set(servers.values()))
        if self.error:
            body["error"] = self.error
        if self.cancelled:
            body["cancelled"] = True
        return body
