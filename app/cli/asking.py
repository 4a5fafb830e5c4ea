"""The command line's answers to requests: policy flags first, then a terminal, else declined.

``--yes`` approves tool calls and sampling, ``--decline`` declines every elicitation and
sampling request (it wins over ``--yes`` for sampling), ``--elicit JSON`` answers every
form with that object. What no flag covers is asked on the terminal (:mod:`app.cli.prompts`)
when stdin and stderr are one; otherwise it is declined at once, with a line on stderr
saying why and which flag would have answered it, so a script never hangs.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping
from typing import Any, TextIO

from app.core import forms
from app.core.asking import (
    A,
    ApprovalAnswer,
    ApprovalRequest,
    FormAnswer,
    FormRequest,
    Request,
    SamplingAnswer,
    SamplingRequest,
    SamplingReview,
    UrlRequest,
)

# Why a request was declined with no one to ask, per kind; "declined: " goes in front.
NEEDS = {
    "approval": "needs approval: no terminal to ask on; pass --yes to allow tool calls",
    "elicitation": "needs your answer: no terminal to ask on; pass --elicit JSON to answer forms",
    "url": "needs your consent to open a link: no terminal to ask on",
    "sampling": "needs approval: no terminal to ask on; pass --yes to allow sampling",
    "sampling_result": "needs approval: no terminal to ask on; pass --yes to allow sampling",
}


def elicit_object(text: str | None) -> dict[str, Any] | None:
    """The ``--elicit`` object; raises ValueError when it is not a JSON object."""
    if text is None:
        return None
    value = json.loads(text)
    if not isinstance(value, dict):
        raise ValueError(f"--elicit must be a JSON object, not {type(value).__name__}")
    return value


class CliUser:
    def __init__(
        self,
        *,
        yes: bool = False,
        decline: bool = False,
        elicit: Mapping[str, Any] | None = None,
        terminal: Any = None,  # an app.cli.prompts.Terminal, or None without one
        stream: TextIO | None = None,
    ) -> None:
        self.yes, self.decline, self.elicit = yes, decline, elicit
        self.terminal = terminal
        self.stream = stream or sys.stderr

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> CliUser:
        from app.cli.prompts import Terminal

        return cls(
            yes=args.yes,
            decline=args.decline,
            elicit=elicit_object(args.elicit),
            terminal=Terminal.attached(),
        )

    async def answer(self, request: Request[A]) -> A:
        flagged = self._by_flag(request)
        if flagged is not None:
            return flagged  # type: ignore[return-value]
        if self.terminal is not None:
            return await self.terminal.ask(request)  # type: ignore[no-any-return]
        # The answered event (printed by the caller's event sink) says so, with this note.
        return request.declined(NEEDS.get(request.kind, "needs a person: no terminal to ask on"))

    def _by_flag(self, request: Request[Any]) -> ApprovalAnswer | FormAnswer | SamplingAnswer | None:
        if isinstance(request, SamplingRequest | SamplingReview):
            if self.decline:
                return SamplingAnswer(False, note="declined by --decline")
            return SamplingAnswer(True, note="approved by --yes") if self.yes else None
        if isinstance(request, ApprovalRequest):
            return ApprovalAnswer("allow", "approved by --yes") if self.yes else None
        if isinstance(request, FormRequest | UrlRequest) and self.decline:
            return FormAnswer("decline", note="declined by --decline")
        if isinstance(request, FormRequest) and self.elicit is not None:
            return self._form(request, self.elicit)
        return None

    def _form(self, request: FormRequest, given: Mapping[str, Any]) -> FormAnswer:
        content = forms.with_defaults(request.schema, forms.cleaned(given))
        if problems := forms.problems(request.schema, content):
            for name, problem in problems.items():
                self._say(f"--elicit does not fit the form of {request.server}: {name}: {problem}")
            return FormAnswer("cancel", note="--elicit did not fit the form")
        return FormAnswer("accept", content, "answered by --elicit")

    def _say(self, line: str) -> None:
        self.stream.write(f"calculon: {line}\n")
        self.stream.flush()
